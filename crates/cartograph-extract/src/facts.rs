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
    pub py_routes: Slot<PyRouteFacts>,
    /// TypeScript/JavaScript web-framework facts: apps, routers, handlers, mounts, file routes.
    pub js_routes: Slot<JsRouteFacts>,
    /// Rust web-framework facts: axum routes and nests.
    pub rust_routes: Slot<RustRouteFacts>,
    /// HTTP client calls and client instances.
    pub calls: Slot<CallFacts>,
    /// Database models, table declarations, model uses and raw SQL.
    pub tables: Slot<TableFacts>,
    /// Environment variable reads.
    pub env: Slot<EnvFacts>,
}

impl FileFacts {
    pub fn new(language: Language) -> Self {
        Self {
            language,
            imports: Vec::new(),
            refusals: Vec::new(),
            error_regions: 0,
            py_routes: Slot::default(),
            js_routes: Slot::default(),
            rust_routes: Slot::default(),
            calls: Slot::default(),
            tables: Slot::default(),
            env: Slot::default(),
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

/// One family's facts, allocated only when the file has some. Most files have facts of one or two
/// families, and the facts of every file are held until linking: inline, the six families made
/// each file's facts about 1,500 bytes before any fact was read. It reads as the family (an empty
/// one when there is none), a write allocates it, and it encodes as the family itself; decoding
/// an empty family keeps nothing, so facts read back from their encoding (as the pipeline holds
/// them) hold only the families they use.
pub struct Slot<T>(Option<Box<T>>);

/// A family with a shared empty value, for [`Slot`] to read when it holds none.
pub trait EmptyFamily: Default + PartialEq + 'static {
    fn empty() -> &'static Self;
}

macro_rules! empty_family {
    ($($family:ty),*) => {$(
        impl EmptyFamily for $family {
            fn empty() -> &'static Self {
                static EMPTY: std::sync::LazyLock<$family> = std::sync::LazyLock::new(<$family>::default);
                &EMPTY
            }
        }
    )*};
}

empty_family!(PyRouteFacts, JsRouteFacts, RustRouteFacts, CallFacts, TableFacts, EnvFacts);

impl<T: EmptyFamily> Slot<T> {
    pub(crate) fn of(family: T) -> Self {
        if family == *T::empty() { Self(None) } else { Self(Some(Box::new(family))) }
    }

    /// True when the slot holds no facts (nothing, or an empty family a write left).
    pub(crate) fn is_empty(&self) -> bool {
        self.0.as_deref().is_none_or(|family| family == T::empty())
    }

    /// The family, owned.
    pub fn into_inner(self) -> T {
        self.0.map_or_else(T::default, |family| *family)
    }
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T: EmptyFamily> std::ops::Deref for Slot<T> {
    type Target = T;

    fn deref(&self) -> &T {
        match self.0.as_deref() {
            Some(family) => family,
            None => T::empty(),
        }
    }
}

impl<T: EmptyFamily> std::ops::DerefMut for Slot<T> {
    fn deref_mut(&mut self) -> &mut T {
        self.0.get_or_insert_with(Box::default)
    }
}

impl<T: Clone> Clone for Slot<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<T: EmptyFamily> PartialEq for Slot<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: EmptyFamily + Eq> Eq for Slot<T> {}

impl<T: EmptyFamily + std::fmt::Debug> std::fmt::Debug for Slot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<T: EmptyFamily + Serialize> Serialize for Slot<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

impl<'de, T: EmptyFamily + Deserialize<'de>> Deserialize<'de> for Slot<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Slot::of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognise::EnvFacts;

    fn extract(path: &str, grammar: Grammar, source: &str) -> FileFacts {
        crate::Extractor::new().extract(&RepoPath::new(path).unwrap(), grammar, source)
    }

    #[test]
    fn a_family_is_held_only_when_the_file_has_its_facts() {
        let facts = extract("app/settings.py", Grammar::Python, "import os\nX = os.getenv('X')\n");
        let decoded: FileFacts =
            postcard::from_bytes(&postcard::to_allocvec(&facts).unwrap()).unwrap();
        assert_eq!(decoded, facts);
        assert!(decoded.env.0.is_some());
        // Read back from their encoding, the families the file has none of take no memory, and
        // read as empty.
        assert!(decoded.js_routes.0.is_none() && decoded.calls.0.is_none());
        assert!(decoded.js_routes.routes.is_empty());
        // It encodes as the family itself.
        assert_eq!(
            postcard::to_allocvec(&decoded.env).unwrap(),
            postcard::to_allocvec(&*decoded.env).unwrap()
        );
        let mut slot = Slot::<EnvFacts>::default();
        assert_eq!(slot, Slot::of(EnvFacts::default()));
        slot.reads.clear();
        assert!(slot.0.is_some(), "a write allocates the family");
        assert_eq!(slot, Slot::default(), "and it still equals an empty one");
    }
}
