//! django-environ: `env = environ.Env(...)`, then `env("X")`, `env.str("X")`, `env.bool("X")`.
//!
//! Recognises calls of an `Env` instance created in the same file (`environ.Env()` with
//! `import environ`, or `Env()` imported from `environ`): calling it, or its casting methods
//! (`str`, `bool`, `int`, `float`, `list`, `tuple`, `dict`, `json`, `url`, `path`, `bytes`,
//! `get_value`), reads the variable named by the first argument (or `var=`); `db()`, `db_url()`,
//! `cache()`, `cache_url()`, `email()`, `email_url()` and `search_url()` read `DATABASE_URL`,
//! `CACHE_URL`, `EMAIL_URL` and `SEARCH_URL` when given no name. Provenance `syntax`,
//! confidence `certain`. The cast scheme given to `Env(DEBUG=(bool, False))` is not a read.
//! A module-level instance is an environment object other modules import
//! (`from .base import env`): their calls are joined at link time (`env-wrappers`).
//!
//! Refuses (`computed-env-key`): a call whose variable name is computed.
//!
//! ```python
//! import environ
//! env = environ.Env(DEBUG=(bool, False))
//! DEBUG = env("DEBUG")                 # reads DEBUG
//! DATABASES = {"default": env.db()}    # reads DATABASE_URL
//! ```

use tree_sitter::Node;

use super::{EnvObject, ObjectKind, assigned_to, keyed_read, python_key, read};
use crate::recognise::Context;
use crate::syntax::position;
use crate::{FileFacts, ImportTarget, Imported};

pub(super) const RECOGNISER: &str = "django-environ";

/// Methods of `Env` whose first argument names the variable.
const READS: &[&str] = &[
    "str",
    "bool",
    "int",
    "float",
    "list",
    "tuple",
    "dict",
    "json",
    "url",
    "path",
    "bytes",
    "get_value",
    "decimal",
];

/// Methods of `Env` that read a fixed variable when given none.
const DEFAULTS: &[(&str, &str)] = &[
    ("db", "DATABASE_URL"),
    ("db_url", "DATABASE_URL"),
    ("cache", "CACHE_URL"),
    ("cache_url", "CACHE_URL"),
    ("email", "EMAIL_URL"),
    ("email_url", "EMAIL_URL"),
    ("search_url", "SEARCH_URL"),
];

/// The spellings of `environ.Env` in one file, and the instances created so far.
#[derive(Debug, Default)]
pub(super) struct DjangoEnviron {
    constructors: Vec<String>,
    instances: Vec<String>,
}

impl DjangoEnviron {
    /// Reads the constructors again from the file's imports, keeping the instances.
    pub(super) fn read_imports(&mut self, facts: &FileFacts) {
        self.constructors.clear();
        for import in &facts.imports {
            let ImportTarget::Python(python) = &import.target else { continue };
            if python.level != 0 || python.module.as_deref() != Some("environ") {
                continue;
            }
            for binding in &import.bindings {
                match &binding.imported {
                    Imported::Module => self.constructors.push(format!("{}.Env", binding.local)),
                    Imported::Name(n) if n == "Env" => {
                        self.constructors.push(binding.local.clone());
                    }
                    _ => {}
                }
            }
        }
    }

    /// A call: an `Env` created, or a read through one. False when it is neither.
    pub(super) fn call(
        &mut self,
        node: Node<'_>,
        callee: &str,
        cx: &Context<'_>,
        facts: &mut FileFacts,
    ) -> bool {
        if self.constructors.is_empty() {
            return false;
        }
        if self.constructors.iter().any(|c| c == callee) {
            if let Some((name, module_level)) = assigned_to(node, cx) {
                self.instances.push(name.to_owned());
                if module_level {
                    let (line, _) = position(node);
                    let name = name.to_owned();
                    facts.env.objects.push(EnvObject { name, line, kind: ObjectKind::DjangoEnv });
                }
            }
            return true;
        }
        let (instance, method) = callee.split_once('.').unwrap_or((callee, ""));
        if !self.instances.iter().any(|i| i == instance) {
            return false;
        }
        read_call(node, callee, method, RECOGNISER, false, cx, facts);
        true
    }
}

/// A call of an `Env` instance or of its `method` (empty for the instance itself): reads its
/// variable, with the recogniser and confidence given (another module's instance is joined at
/// link time).
pub(super) fn read_call(
    node: Node<'_>,
    how: &str,
    method: &str,
    recogniser: &'static str,
    likely: bool,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    let default = DEFAULTS.iter().find(|(m, _)| *m == method).map(|(_, name)| *name);
    if !method.is_empty() && !READS.contains(&method) && default.is_none() {
        return;
    }
    let how = format!("django-environ {how}");
    match (python_key(node, "var", cx.source), default) {
        (Some(key), _) => keyed_read(node, key, &how, recogniser, likely, cx, facts),
        (None, Some(name)) => {
            let evidence = format!("{how} reads {name} (its default variable)");
            read(node, name.to_owned(), recogniser, evidence, facts);
        }
        (None, None) => {}
    }
}

/// True for the methods of `Env` that read a variable.
pub(super) fn is_read_method(method: &str) -> bool {
    method.is_empty() || READS.contains(&method) || DEFAULTS.iter().any(|(m, _)| *m == method)
}
