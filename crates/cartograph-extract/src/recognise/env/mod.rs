//! Environment variable reads: the names a file reads from the environment — never their values.
//!
//! One walk records, per file, each read whose variable name is a literal ([`EnvRead`]) with one
//! sentence of evidence; a read whose name is computed (`os.environ[key]`, `process.env[name]`) is
//! a `computed-env-key` refusal. Only names are kept: a default value passed alongside
//! (`os.getenv("X", "default")`, a settings field's default) is never read into the facts.

mod javascript;
pub mod link;
mod pydantic_settings;
mod python;

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
        name: "js-env",
        file: "env/javascript.rs",
        languages: &[Language::TypeScript, Language::JavaScript],
        edges: &[EdgeKind::ReadsEnv],
        summary: "process.env.X, process.env[\"X\"], const { X } = process.env, import.meta.env.X \
                  (Vite), Deno.env.get(\"X\"), Bun.env.X",
    },
    Recogniser {
        name: "pydantic-settings",
        file: "env/pydantic_settings.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "pydantic BaseSettings fields, with env_prefix, aliases and case_sensitive \
                  applied",
    },
    Recogniser {
        name: "python-env",
        file: "env/python.rs",
        languages: &[Language::Python],
        edges: &[EdgeKind::ReadsEnv],
        summary: "os.environ[\"X\"], os.environ.get, os.getenv, \"X\" in os.environ, and environ / \
                  getenv imported from os",
    },
];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvFacts {
    pub reads: Vec<EnvRead>,
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
}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct Env {
    python: python::OsNames,
    settings: pydantic_settings::SettingsClasses,
    /// How many of the file's imports the names above were read from: the walk reads some of
    /// Python's imports on its way (`recognise::Imports::Inside`), after which they are read
    /// again.
    imports_read: usize,
}

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
        ]
    }

    fn wants(&self, cx: &Context<'_>) -> bool {
        static PY: super::Words = super::Words::new(&["environ", "getenv", "BaseSettings"]);
        static JS: super::Words = super::Words::new(&[".env"]);
        match cx.syntax {
            Syntax::Python => PY.any_in(cx.source),
            Syntax::JavaScript => JS.any_in(cx.source),
        }
    }

    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts) {
        match cx.syntax {
            Syntax::Python => match kind {
                "module" => {
                    self.python = python::OsNames::from_imports(facts);
                    self.settings = pydantic_settings::SettingsClasses::from_imports(facts);
                    self.imports_read = facts.imports.len();
                }
                _ if self.imports_read != facts.imports.len() => {
                    self.python = python::OsNames::from_imports(facts);
                    self.settings.read_imports(facts);
                    self.imports_read = facts.imports.len();
                    self.visit(node, kind, cx, facts);
                }
                "subscript" => python::subscript(node, cx, &self.python, facts),
                "call" => python::call(node, cx, &self.python, facts),
                "comparison_operator" => python::membership(node, cx, &self.python, facts),
                "class_definition" => self.settings.class(node, cx, facts),
                _ => {}
            },
            Syntax::JavaScript => match kind {
                "member_expression" => javascript::member(node, cx, facts),
                "subscript_expression" => javascript::subscript(node, cx, facts),
                "variable_declarator" => javascript::destructuring(node, cx, facts),
                "call_expression" => javascript::call(node, cx, facts),
                _ => {}
            },
        }
    }

    fn finish(&mut self, _cx: &Context<'_>, _facts: &mut FileFacts) {}
}

/// Records a syntactic read at `node`: provenance `syntax`, confidence `certain`.
fn read(
    node: Node<'_>,
    name: String,
    recogniser: &'static str,
    evidence: String,
    facts: &mut FileFacts,
) {
    let (line, column) = position(node);
    facts.env.reads.push(EnvRead {
        name,
        line,
        column,
        recogniser,
        evidence,
        provenance: Provenance::Syntax,
        confidence: Confidence::Certain,
    });
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
