//! Python environment reads through the `os` module.
//!
//! Recognises `os.environ["X"]`, `os.environ.get("X", default)`, `os.environ.setdefault("X", …)`,
//! `os.getenv("X", default)`, `"X" in os.environ`, the same through an alias (`import os as o`),
//! and `environ["X"]`, `environ.get("X")`, `getenv("X")` when `environ` / `getenv` are imported
//! from `os` in the same file (`from os import environ, getenv`, aliases included). Assigning or
//! deleting `os.environ["X"]` is a write and is not reported. Provenance `syntax`, confidence
//! `certain`. Default values are never read.
//!
//! Refuses (`computed-env-key`): any of these whose variable name is not a literal
//! (`os.environ[key]`, `os.getenv(f"{prefix}_URL")`).
//!
//! ```python
//! import os
//! url = os.environ.get("DATABASE_URL", "sqlite://")   # reads DATABASE_URL
//! debug = "DEBUG" in os.environ                       # reads DEBUG
//! ```

use tree_sitter::Node;

use super::decouple::Decouple;
use super::django_environ::DjangoEnviron;
use super::{is_written, names, read, refuse, wrappers};
use crate::recognise::Context;
use crate::syntax::FieldExt;
use crate::syntax::KindExt;
use crate::syntax::{literal_string, text};
use crate::{FileFacts, ImportTarget, Imported};

const RECOGNISER: &str = "python-env";

/// The local names that stand for `os`, `os.environ` and `os.getenv` in one file.
#[derive(Debug, Default)]
pub(super) struct OsNames {
    /// `os` and its aliases.
    os: Vec<String>,
    /// `environ` imported from `os`, and `os.environ` through every alias of `os`.
    environ: Vec<String>,
    /// `getenv` imported from `os`, and `os.getenv` through every alias of `os`.
    getenv: Vec<String>,
}

impl OsNames {
    pub(super) fn from_imports(facts: &FileFacts) -> Self {
        let mut names = OsNames::default();
        for import in &facts.imports {
            let ImportTarget::Python(python) = &import.target else { continue };
            if python.level != 0 || python.module.as_deref() != Some("os") {
                continue;
            }
            for binding in &import.bindings {
                match &binding.imported {
                    Imported::Module => names.os.push(binding.local.clone()),
                    Imported::Name(n) if n == "environ" => {
                        names.environ.push(binding.local.clone());
                    }
                    Imported::Name(n) if n == "getenv" => {
                        names.getenv.push(binding.local.clone());
                    }
                    _ => {}
                }
            }
        }
        for os in &names.os {
            names.environ.push(format!("{os}.environ"));
            names.getenv.push(format!("{os}.getenv"));
        }
        names
    }

    pub(super) fn is_environ(&self, expr: &str) -> bool {
        self.environ.iter().any(|e| e == expr)
    }

    /// Whether a call of `callee` (dotted, as [`dotted`] gives it) reads the variable its first
    /// argument names: `os.getenv`, `os.environ.get`, `os.environ.setdefault`, through any alias.
    pub(super) fn reads_by_name(&self, callee: &str) -> bool {
        self.getenv.iter().any(|g| g == callee)
            || callee.rsplit_once('.').is_some_and(|(receiver, method)| {
                matches!(method, "get" | "setdefault") && self.is_environ(receiver)
            })
    }
}

/// The dotted text of an identifier / attribute chain, whitespace removed.
pub(super) fn dotted(node: Node<'_>, source: &str) -> Option<String> {
    matches!(node.kind_name(), "identifier" | "attribute")
        .then(|| text(node, source).chars().filter(|c| !c.is_whitespace()).collect())
}

/// `os.environ["X"]`.
pub(super) fn subscript(node: Node<'_>, cx: &Context<'_>, names: &OsNames, facts: &mut FileFacts) {
    let Some(value) = node.field("value").and_then(|v| dotted(v, cx.source)) else {
        return;
    };
    if !names.is_environ(&value) || is_written(node) {
        return;
    }
    let Some(key) = node.field("subscript") else { return };
    let how = format!("{value}[...]");
    match literal_string(key, cx.source) {
        Some(name) => {
            let evidence = format!("{how} reads {name}");
            read(node, name, RECOGNISER, evidence, facts);
        }
        None if wrappers::computed_key(node, key, &how, RECOGNISER, cx, facts) => {}
        None => refuse(
            node,
            cx,
            format!("{value}[...] reads an environment variable whose name is computed"),
            facts,
        ),
    }
}

/// `os.getenv("X")`, `os.environ.get("X")`, `os.environ.setdefault("X", ...)`; any other call
/// goes to the libraries (django-environ, python-decouple) and then to the wrappers.
pub(super) fn call(
    node: Node<'_>,
    cx: &Context<'_>,
    names: &OsNames,
    libraries: (&mut DjangoEnviron, &mut Decouple),
    functions: &mut names::FunctionCache,
    facts: &mut FileFacts,
) {
    let Some(callee) = cx.field(node, "function").and_then(|f| dotted(f, cx.source)) else {
        return;
    };
    if !names.reads_by_name(&callee) {
        let (environ, decouple) = libraries;
        if !environ.call(node, &callee, cx, facts) && !decouple.call(node, &callee, cx, facts) {
            let form = wrappers::CallForm::Python;
            wrappers::invocation(node, &callee, form, cx, functions, facts);
        }
        return;
    }
    let Some(args) = cx.field(node, "arguments") else { return };
    let mut cursor = args.walk();
    let first = args.named_children(&mut cursor).find(|a| a.kind_name() != "comment");
    let key = match first {
        Some(a) if a.kind_name() == "keyword_argument" => {
            let is_key = a.field("name").is_some_and(|n| text(n, cx.source) == "key");
            if !is_key {
                return;
            }
            a.field("value")
        }
        other => other,
    };
    let Some(key) = key else { return };
    match literal_string(key, cx.source) {
        Some(name) => {
            let evidence = format!("{callee} reads {name}");
            read(node, name, RECOGNISER, evidence, facts);
        }
        None if wrappers::computed_key(node, key, &callee, RECOGNISER, cx, facts) => {}
        None => refuse(
            node,
            cx,
            format!("{callee} reads an environment variable whose name is computed"),
            facts,
        ),
    }
}

/// `"X" in os.environ`, `"X" not in os.environ`.
pub(super) fn membership(node: Node<'_>, cx: &Context<'_>, names: &OsNames, facts: &mut FileFacts) {
    let mut cursor = node.walk();
    let operands: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    let operators: Vec<&str> = {
        let mut cursor = node.walk();
        node.children(&mut cursor).filter(|c| !c.is_named()).map(|c| c.kind_name()).collect()
    };
    if operands.len() != 2 || !operators.iter().any(|o| *o == "in" || *o == "not in") {
        return;
    }
    let (Some(left), Some(right)) = (operands.first(), operands.get(1)) else { return };
    let Some(container) = dotted(*right, cx.source) else { return };
    if !names.is_environ(&container) {
        return;
    }
    if let Some(name) = literal_string(*left, cx.source) {
        let evidence = format!("a membership test on {container} reads {name}");
        read(node, name, RECOGNISER, evidence, facts);
    }
}
