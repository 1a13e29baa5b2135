//! python-decouple: `config("X", default=..., cast=...)`.
//!
//! Recognises `config` imported from `decouple` (`from decouple import config`,
//! `decouple.config`), and instances made in the same file with `AutoConfig(...)` or
//! `Config(...)` from `decouple`: calling one reads the variable named by its first argument
//! (or `option=`). python-decouple looks the name up in the environment first, then in a
//! `.env` or `settings.ini` file. Provenance `syntax`, confidence `certain`. Defaults and casts
//! are never read.
//!
//! Refuses (`computed-env-key`): a call whose variable name is computed.
//!
//! ```python
//! from decouple import config, Csv
//! SECRET_KEY = config("SECRET_KEY")                        # reads SECRET_KEY
//! ALLOWED_HOSTS = config("ALLOWED_HOSTS", cast=Csv())      # reads ALLOWED_HOSTS
//! ```

use tree_sitter::Node;

use super::{assigned_to, keyed_read, python_key};
use crate::recognise::Context;
use crate::{FileFacts, ImportTarget, Imported};

const RECOGNISER: &str = "python-decouple";

/// The names of `config` and of decouple's config classes in one file.
#[derive(Debug, Default)]
pub(super) struct Decouple {
    readers: Vec<String>,
    constructors: Vec<String>,
}

impl Decouple {
    /// Reads the names again from the file's imports, keeping the instances.
    pub(super) fn read_imports(&mut self, facts: &FileFacts) {
        self.constructors.clear();
        self.readers.retain(|r| !r.contains('.'));
        for import in &facts.imports {
            let ImportTarget::Python(python) = &import.target else { continue };
            if python.level != 0 || python.module.as_deref() != Some("decouple") {
                continue;
            }
            for binding in &import.bindings {
                let local = binding.local.clone();
                match &binding.imported {
                    Imported::Module => {
                        self.readers.push(format!("{local}.config"));
                        self.constructors.push(format!("{local}.AutoConfig"));
                        self.constructors.push(format!("{local}.Config"));
                    }
                    Imported::Name(n) if n == "config" => self.readers.push(local),
                    Imported::Name(n) if n == "AutoConfig" || n == "Config" => {
                        self.constructors.push(local);
                    }
                    _ => {}
                }
            }
        }
        self.readers.sort_unstable();
        self.readers.dedup();
    }

    /// A call: a read through `config`, or a config instance made. False when neither.
    pub(super) fn call(
        &mut self,
        node: Node<'_>,
        callee: &str,
        cx: &Context<'_>,
        facts: &mut FileFacts,
    ) -> bool {
        if self.readers.is_empty() && self.constructors.is_empty() {
            return false;
        }
        if self.constructors.iter().any(|c| c == callee) {
            if let Some((name, _)) = assigned_to(node, cx) {
                self.readers.push(name.to_owned());
            }
            return true;
        }
        if !self.readers.iter().any(|r| r == callee) {
            return false;
        }
        if let Some(key) = python_key(node, "option", cx.source) {
            let how = format!("python-decouple {callee}");
            keyed_read(node, key, &how, RECOGNISER, false, cx, facts);
        }
        true
    }
}
