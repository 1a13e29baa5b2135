//! Environment variable reads: the names a file reads from the environment — never their values.
//!
//! One walk records, per file, each read whose variable name is a literal ([`EnvRead`]) with one
//! sentence of evidence; a read whose name is computed (`os.environ[key]`, `process.env[name]`) is
//! a `computed-env-key` refusal. Only names are kept: a default value passed alongside
//! (`os.getenv("X", "default")`, a settings field's default) is never read into the facts.

mod configparser;
mod decouple;
mod django_environ;
mod javascript;
pub mod link;
mod names;
mod nestjs_config;
mod pydantic_settings;
mod python;
mod schemas;
mod wrappers;

pub use names::NamePart;
pub use wrappers::{EnvInvocation, EnvObject, EnvWrapper, InvocationArg, ObjectKind};

use cartograph_core::{
    Confidence, EdgeKind, Language, Provenance, Refusal, RefusalKind, SourceLocation,
};
use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::position;
use crate::{FileFacts, Syntax};

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[
    Recogniser {
        name: "python-configparser-env",
        file: "env/configparser.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "configparser with an interpolation whose before_get reads os.getenv(option): \
                  P[\"section\"][\"X\"], P[\"section\"].get(\"X\"), P.get(\"section\", \"X\")",
    },
    Recogniser {
        name: "django-environ",
        file: "env/django_environ.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "django-environ: env = environ.Env(), env(\"X\"), env.bool(\"X\"), env.db() \
                  (DATABASE_URL); instances imported from another module",
    },
    Recogniser {
        name: "env-wrappers",
        file: "env/wrappers.rs",
        languages: &[Language::Python, Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "the project's helpers that wrap a read (get_bool_from_env(\"X\") → \
                  os.getenv(key)), joined across modules; names built from constants \
                  (PREFIX + \"_FILE\"); environment objects imported from another module",
    },
    Recogniser {
        name: "envalid",
        file: "env/schemas.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "envalid: cleanEnv(process.env, { KEY: str() }) reads each declared key",
    },
    Recogniser {
        name: "js-env",
        file: "env/javascript.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "process.env.X, process.env[\"X\"], const { X } = process.env, import.meta.env.X \
                  (Vite), Deno.env.get(\"X\"), Bun.env.X, \"X\" in process.env, getEnv(\"X\") from \
                  @silverhand/essentials; not the keys of a Next.js config's env object, which \
                  Next.js inlines from the config",
    },
    Recogniser {
        name: "nestjs-config",
        file: "env/nestjs_config.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "NestJS ConfigService.get(\"KEY\") / getOrThrow on a name typed ConfigService",
    },
    Recogniser {
        name: "pydantic-settings",
        file: "env/pydantic_settings.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "pydantic BaseSettings fields, with env_prefix, aliases, case_sensitive and \
                  nested models under env_nested_delimiter applied",
    },
    Recogniser {
        name: "python-decouple",
        file: "env/decouple.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "python-decouple: config(\"X\", default=…, cast=…), AutoConfig / Config \
                  instances",
    },
    Recogniser {
        name: "python-env",
        file: "env/python.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "os.environ[\"X\"], os.environ.get, os.getenv, \"X\" in os.environ, and environ / \
                  getenv imported from os",
    },
    Recogniser {
        name: "t3-env",
        file: "env/schemas.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "t3-env createEnv({ server: { KEY: z.string() }, client, shared }): each \
                  declared key",
    },
    Recogniser {
        name: "zod-env",
        file: "env/schemas.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "zod: z.object({ KEY: … }).parse(process.env), the schema written there or \
                  bound to a module constant",
    },
];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvFacts {
    pub reads: Vec<EnvRead>,
    /// Functions whose parameter names the variable they read (`get_bool_from_env(key)`).
    pub wrappers: Vec<EnvWrapper>,
    /// Calls that may reach a wrapper or an environment object of another module, with the
    /// names they pass.
    pub invocations: Vec<EnvInvocation>,
    /// Names the file binds at module level to an environment object (`env = environ.Env()`,
    /// `export default withSecrets(process.env)`).
    pub objects: Vec<EnvObject>,
    /// In a Next.js config (`next.config.*`), the keys of its `env` object: Next.js replaces
    /// `process.env.KEY` for them at build time by the config's value, so in the app's modules
    /// such a read is no environment variable (a key whose value reads the variable of the same name
    /// is left out: reading it is reading that variable).
    pub next_env_keys: Vec<String>,
}

/// One read of an environment variable by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvRead {
    /// The variable's name (never its value).
    pub name: String,
    pub line: u32,
    pub column: u32,
    /// The recogniser (`python-env`, `pydantic-settings`, `js-env`).
    #[serde(with = "crate::interned")]
    pub recogniser: crate::interned::Name,
    /// One sentence: how the name is read (`os.environ.get reads DATABASE_URL`).
    pub evidence: String,
    pub provenance: Provenance,
    pub confidence: Confidence,
    /// True for `process.env.X`, the one form Next.js replaces by the value of its config's
    /// `env` key `X` at build time (a destructuring of `process.env` is not replaced).
    pub process_env_member: bool,
}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct Env {
    python: python::OsNames,
    environ: django_environ::DjangoEnviron,
    decouple: decouple::Decouple,
    configparser: configparser::EnvConfigParsers,
    /// The names the file types as NestJS's `ConfigService`, read on first need.
    nest: Option<Vec<String>>,
    /// Whether the file is a Next.js config, read on first need.
    next_config: Option<bool>,
    settings: pydantic_settings::SettingsClasses,
    /// How many of the file's imports the names above were read from: the walk reads some of
    /// Python's imports on its way (`recognise::Imports::Inside`), after which they are read
    /// again.
    imports_read: usize,
    /// The enclosing function of the last call read as a possible wrapper invocation.
    functions: names::FunctionCache,
}

// A wrapper's callers name it: `get_bool_from_env(`, `env.bool(`, `getEnv(`.
pub(crate) static PY_WORDS: super::Words =
    super::Words::new(&["environ", "getenv", "BaseSettings", "decouple", "env(", "env.", "Env("]);
// Code names its environment (`process.env`, `env.X`, `env("X")`, `getEnv(`,
// `environment.X`) or NestJS's config service (`configService.get(`, injected as
// `ConfigService)`); a bare `env` or `ConfigService` is too common a word (comments,
// generated API clients, bundled code) to walk a file for.
pub(crate) static JS_WORDS: super::Words = super::Words::new(&[
    ".env",
    "env.",
    "env(",
    "Env(",
    "Env.",
    "environment.",
    "configService",
    "ConfigService)",
    "ConfigService,",
    "@nestjs/config",
]);

impl Family for Env {
    fn kinds(&self) -> &'static [&'static str] {
        &[
            "module",
            "subscript",
            "call",
            "comparison_operator",
            "class_definition",
            "member_expression",
            "subscript_expression",
            "variable_declarator",
            "call_expression",
            "new_expression",
            "binary_expression",
            "pair",
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        match cx.syntax {
            Syntax::Python => PY_WORDS.any_in(cx),
            Syntax::JavaScript => JS_WORDS.any_in(cx),
            Syntax::Rust => false,
        }
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match cx.syntax {
            Syntax::Python => match kind {
                "module" => {
                    self.python = python::OsNames::from_imports(facts);
                    self.environ.read_imports(facts);
                    self.decouple.read_imports(facts);
                    self.settings = pydantic_settings::SettingsClasses::from_imports(facts);
                    self.imports_read = facts.imports.len();
                }
                _ if self.imports_read != facts.imports.len() => {
                    self.python = python::OsNames::from_imports(facts);
                    self.environ.read_imports(facts);
                    self.decouple.read_imports(facts);
                    self.settings.read_imports(facts);
                    self.imports_read = facts.imports.len();
                    self.visit(node, kind, cx, facts);
                }
                "subscript" => {
                    python::subscript(node, cx, &self.python, facts);
                    self.configparser.subscript(node, cx, facts);
                }
                "call" => {
                    if self.configparser.call(node, cx, facts) {
                        return;
                    }
                    let libraries = (&mut self.environ, &mut self.decouple);
                    python::call(node, cx, &self.python, libraries, &mut self.functions, facts);
                }
                "comparison_operator" => python::membership(node, cx, &self.python, facts),
                "class_definition" => {
                    self.configparser.class(node, cx, &self.python);
                    self.settings.class(node, cx, facts);
                }
                _ => {}
            },
            Syntax::JavaScript => match kind {
                "member_expression" => javascript::member(node, cx, facts),
                "subscript_expression" => javascript::subscript(node, cx, facts),
                "variable_declarator" => javascript::destructuring(node, cx, facts),
                "call_expression" => {
                    javascript::call(node, cx, &mut self.nest, &mut self.functions, facts);
                }
                "binary_expression" => javascript::membership(node, cx, facts),
                "new_expression" => javascript::construct(node, cx, &mut self.functions, facts),
                "pair" => {
                    let path = cx.path.as_str();
                    let file = path.rsplit('/').next().unwrap_or(path);
                    if *self.next_config.get_or_insert_with(|| file.starts_with("next.config.")) {
                        javascript::next_env_keys(node, cx, facts);
                    }
                }
                _ => {}
            },
            Syntax::Rust => {}
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, facts: &mut FileFacts) {
        wrappers::finish(facts);
    }
}

/// Records a syntactic read at `node`: provenance `syntax`, confidence `certain`.
fn read(
    node: Node<'_>,
    name: String,
    recogniser: &'static str,
    evidence: String,
    facts: &mut FileFacts,
) {
    push_read(node, name, recogniser, evidence, (Provenance::Syntax, Confidence::Certain), facts);
}

/// Records a `computed-env-key` refusal at `node`.
fn refuse(node: Node<'_>, cx: &Context<'_>, reason: String, facts: &mut FileFacts) {
    let (line, column) = position(node);
    facts.refusals.push(Refusal::new(
        RefusalKind::ComputedEnvKey,
        SourceLocation::new(cx.path.clone(), line, column),
        reason,
    ));
}

/// A read through a library call at `node` whose variable is `key`: a literal name is read
/// (`certain`, or `likely` when `likely`), a name built from constants or parameters goes to
/// [`wrappers::computed_key`], anything else is a `computed-env-key` refusal.
fn keyed_read(
    node: Node<'_>,
    key: Node<'_>,
    how: &str,
    recogniser: &'static str,
    likely: bool,
    cx: &Context<'_>,
    facts: &mut FileFacts,
) {
    match crate::syntax::literal_string(key, cx.source) {
        Some(name) => {
            let evidence = format!("{how} reads {name}");
            if likely {
                read_as(node, name, recogniser, evidence, Provenance::Convention, facts);
            } else {
                read(node, name, recogniser, evidence, facts);
            }
        }
        None if wrappers::computed_key(node, key, how, recogniser, cx, facts) => {}
        None => refuse(
            node,
            cx,
            format!("{how} reads an environment variable whose name is computed"),
            facts,
        ),
    }
}

/// Records a read at `node` with `provenance`, confidence `likely`.
fn read_as(
    node: Node<'_>,
    name: String,
    recogniser: &'static str,
    evidence: String,
    provenance: Provenance,
    facts: &mut FileFacts,
) {
    push_read(node, name, recogniser, evidence, (provenance, Confidence::Likely), facts);
}

/// One read of `name` at `node`, with how it was derived and how sure it is.
fn push_read(
    node: Node<'_>,
    name: String,
    recogniser: &'static str,
    evidence: String,
    (provenance, confidence): (Provenance, Confidence),
    facts: &mut FileFacts,
) {
    let (line, column) = position(node);
    facts.env.reads.push(EnvRead {
        name,
        line,
        column,
        recogniser,
        evidence,
        provenance,
        confidence,
        process_env_member: false,
    });
}

/// The argument of a Python call that names the variable: the first positional one, or the
/// keyword `keyword`.
fn python_key<'t>(call: Node<'t>, keyword: &str, source: &str) -> Option<Node<'t>> {
    let args = call.field("arguments")?;
    crate::syntax::python::positional_argument(args, 0)
        .or_else(|| crate::syntax::python::keyword_argument(args, keyword, source))
}

/// The identifier a Python call's value is assigned to (`env = environ.Env()`), and whether the
/// assignment is at module level.
fn assigned_to<'s>(call: Node<'_>, cx: &Context<'s>) -> Option<(&'s str, bool)> {
    let assignment = cx.parent(call).filter(|a| a.kind_name() == "assignment")?;
    let left = assignment.field("left").filter(|l| l.kind_name() == "identifier")?;
    let module_level =
        cx.parent(assignment).and_then(|s| cx.parent(s)).is_some_and(|m| m.kind_name() == "module");
    Some((crate::syntax::text(left, cx.source), module_level))
}

/// True when `node` is the target of an assignment or a `del`/`delete`: a write, not a read.
fn is_written(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else { return false };
    match parent.kind_name() {
        "assignment" | "assignment_expression" => {
            parent.field("left").map(|l| l.id()) == Some(node.id())
        }
        "delete_statement" | "expression_list" => {
            parent.kind_name() == "delete_statement"
                || parent.parent().is_some_and(|g| g.kind_name() == "delete_statement")
        }
        "unary_expression" => parent.child(0).is_some_and(|op| op.kind_name() == "delete"),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
