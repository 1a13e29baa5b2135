//! The raw facts extracted from one file, before any cross-file resolution.

use cartograph_core::{Language, Refusal, RefusalKind, RepoPath, SourceLocation};
use serde::{Deserialize, Serialize};

use crate::Grammar;
use crate::recognise::{
    CallFacts, EnvFacts, JsRouteFacts, PyRouteFacts, RustRouteFacts, TableFacts,
};

/// Everything extracted from one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub language: Language,
    /// Imports in source order. Read by resolution only: the linkers read what resolution made
    /// of them (bindings, edges), and what a linker needs of the imports themselves is a fact
    /// of its family (`js_routes.imports_flat_routes`). The pipeline drops them once the file's
    /// imports are resolved, so the facts held for linking do not keep them.
    pub imports: Vec<ImportFact>,
    /// Constructs the extractor would not decide about (computed imports, syntax errors).
    pub refusals: Vec<Refusal>,
    /// How many syntax-error regions tree-sitter reported (ERROR and MISSING nodes).
    pub error_regions: u32,
    /// Python web-framework facts: routers, route decorators, mounts, URL confs.
    pub py_routes: PyRouteFacts,
    /// TypeScript/JavaScript web-framework facts: apps, routers, handlers, mounts, file routes.
    pub js_routes: JsRouteFacts,
    /// Rust web-framework facts: axum routes and nests.
    pub rust_routes: RustRouteFacts,
    /// HTTP client calls and client instances.
    pub calls: CallFacts,
    /// Database models, table declarations, model uses and raw SQL.
    pub tables: TableFacts,
    /// Environment variable reads.
    pub env: EnvFacts,
}

impl FileFacts {
    pub fn new(language: Language) -> Self {
        Self {
            language,
            imports: Vec::new(),
            refusals: Vec::new(),
            error_regions: 0,
            py_routes: PyRouteFacts::default(),
            js_routes: JsRouteFacts::default(),
            rust_routes: RustRouteFacts::default(),
            calls: CallFacts::default(),
            tables: TableFacts::default(),
            env: EnvFacts::default(),
        }
    }

    pub(crate) fn unparsed(path: &RepoPath, grammar: Grammar) -> Self {
        let mut facts = Self::new(grammar.language());
        facts.refusals.push(Refusal::new(
            RefusalKind::SyntaxErrors,
            SourceLocation::file(path.clone()),
            "the parser returned no tree for this file",
        ));
        facts
    }
}

/// One import as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportFact {
    /// 1-based line and column of the import statement or call.
    pub line: u32,
    pub column: u32,
    /// True when the import exists only for type checking (`if TYPE_CHECKING:`, `import type`).
    pub type_only: bool,
    pub target: ImportTarget,
    /// The local names the import binds, for recognisers that follow a name across files
    /// (`include_router(items.router)`, `app.use("/x", ordersRouter)`, `session.query(Item)`).
    pub bindings: Vec<Binding>,
}

/// A local name bound by an import.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// The name as used in the importing file: `x` for `import a.b as x`, `a.b` for `import a.b`,
    /// `k` for `from m import n as k`, `ns` for `import * as ns from "m"`.
    pub local: String,
    pub imported: Imported,
}

/// What a local name refers to in the imported module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Imported {
    /// The module itself (`import a.b`, `import * as ns`, `const m = require("m")`).
    Module,
    /// A JS default export.
    Default,
    /// A named member (`from m import n`, `import { n } from "m"`). For Python the name may also be
    /// a submodule; resolution decides.
    Name(String),
}

/// What an import names, per language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImportTarget {
    Python(PythonImport),
    Js(JsImport),
    Rust(RustImport),
}

/// A Python import: `import a.b`, `from a.b import c, d`, `from ..x import y`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonImport {
    /// Number of leading dots (0 for an absolute import).
    pub level: u32,
    /// The dotted module, if any (`from . import x` has none).
    pub module: Option<String>,
    /// Names after `import` in a `from` import (`*` for a star import); empty for `import a.b`.
    pub names: Vec<String>,
    /// `Dynamic` for `importlib.import_module("literal")`.
    pub form: ImportForm,
}

/// A TypeScript/JavaScript import: its specifier as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JsImport {
    pub specifier: String,
    pub form: ImportForm,
}

/// A Rust `use` path, one per name it brings in (`use a::{b, c}` is two), or a `mod x;`
/// declaration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RustImport {
    /// The path's segments as written: `["crate", "route", "route"]`, `["axum", "Router"]`,
    /// `["super", "model"]`; a glob's path without its `*`.
    pub path: Vec<String>,
    /// True for `mod x;`: the path is `["self", "x"]`, a module file this one declares.
    pub declares: bool,
    /// True for `use a::*`.
    pub glob: bool,
    /// `Static` for `use`, `ReExport` for `pub use`.
    pub form: ImportForm,
}

/// The syntactic form of an import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum ImportForm {
    /// `import …` / `from … import …` / `import … from "x"` / `import x = require("x")`
    Static,
    /// `export … from "x"`
    ReExport,
    /// `require("x")`
    Require,
    /// `import("x")`, `importlib.import_module("x")`
    Dynamic,
}

impl ImportForm {
    pub fn describe(self) -> &'static str {
        match self {
            ImportForm::Static => "import",
            ImportForm::ReExport => "re-export",
            ImportForm::Require => "require",
            ImportForm::Dynamic => "dynamic import",
        }
    }
}
