//! Per-language fact extraction with tree-sitter.
//!
//! One [`Extractor`] per worker thread holds one parser per grammar. [`Extractor::extract`] takes a
//! file's repository path and text and returns [`FileFacts`]: the raw, unresolved facts of that one
//! file (imports, as written) plus refusals and a count of syntax-error regions. Extraction never
//! fails: broken code yields what is sound and says how much was not. Import resolution lives in
//! `cartograph-pipeline`; the recognisers' link halves ([`recognise::link`]), which join facts
//! across files after resolution, live here beside their syntax halves, with the [`TreeIndex`]
//! they probe.

mod component;
mod facts;
mod incremental;
mod interned;
mod language;
mod python;
pub mod recognise;
mod syntax;
pub mod tree;
mod typescript;

pub use component::Component;
pub use facts::{
    Binding, FileFacts, ImportFact, ImportForm, ImportTarget, Imported, JsImport, PythonImport,
};
pub use language::{
    COMPONENT_GRAMMAR, COMPONENTS, ComponentSpec, GRAMMARS, Grammar, GrammarSpec, Syntax,
    component_for, grammar_for,
};
pub use recognise::tables::prisma::{PrismaModel, extract_prisma};
pub use tree::TreeIndex;

use cartograph_core::RepoPath;

/// Identifies the extractor's build: a hash of the sources that decide what [`Extractor::extract`]
/// returns and how [`FileFacts`] serialize. A persistent cache keys its entries by it.
pub const FACTS_FINGERPRINT: &str = env!("CARTOGRAPH_EXTRACT_FINGERPRINT");

/// Extracts facts from source files. Holds one tree-sitter parser per grammar; create one per
/// worker thread.
pub struct Extractor {
    parsers: language::Parsers,
    /// When false, only imports are extracted (the recognisers' walk is skipped).
    recognisers: bool,
}

impl Default for Extractor {
    fn default() -> Self {
        Self::new()
    }
}

impl Extractor {
    pub fn new() -> Self {
        Self { parsers: language::Parsers::new(), recognisers: true }
    }

    /// An extractor that reads imports only: no routes, calls, tables or environment variables.
    pub fn imports_only() -> Self {
        Self { parsers: language::Parsers::new(), recognisers: false }
    }

    /// Extracts the facts of one file. `grammar` comes from [`grammar_for`]. A component (a path
    /// [`component_for`] names) is read through its script blocks, each parsed with the grammar its
    /// `lang` names, whatever `grammar` says.
    pub fn extract(&mut self, path: &RepoPath, grammar: Grammar, text: &str) -> FileFacts {
        if let Some(component) = component_for(path) {
            return self.extract_component(path, component, text);
        }
        let parser = self.parsers.get(grammar);
        let Some(tree) = parser.parse(text, None) else {
            // tree-sitter returns no tree only when parsing is cancelled; nothing is cancelled
            // here, so this is a defensive, honest empty result.
            return FileFacts::unparsed(path, grammar);
        };
        self.facts_of(path, grammar, &tree, text)
    }

    /// The facts of a component's script blocks, at their places in the component.
    fn extract_component(
        &mut self,
        path: &RepoPath,
        component: Component,
        text: &str,
    ) -> FileFacts {
        let scripts = component::ScriptBlocks::of(component, text);
        let grammar = scripts.grammar;
        let mut facts = if scripts.blocks == 0 {
            FileFacts::new(grammar.language())
        } else {
            match self.parsers.get(grammar).parse(&scripts.masked, None) {
                Some(tree) => self.facts_of(path, grammar, &tree, &scripts.masked),
                None => FileFacts::unparsed(path, grammar),
            }
        };
        scripts.add_to(path, &mut facts);
        facts
    }

    /// The facts of one file from its syntax tree.
    fn facts_of(
        &self,
        path: &RepoPath,
        grammar: Grammar,
        tree: &tree_sitter::Tree,
        text: &str,
    ) -> FileFacts {
        let mut facts = FileFacts::new(grammar.language());
        match grammar.syntax() {
            Syntax::Python => python::extract(path, tree, text, &mut facts),
            Syntax::JavaScript => typescript::extract(path, tree, text, &mut facts),
        }
        if self.recognisers {
            recognise::run(path, grammar, tree, text, &mut facts);
        }
        syntax::record_error_regions(path, tree, &mut facts);
        facts
    }
}

#[cfg(test)]
mod fingerprint_tests {
    /// The files [`super::FACTS_FINGERPRINT`] hashes, one repository path under `crates/` a line.
    const FINGERPRINTED: &str = include_str!(concat!(env!("OUT_DIR"), "/fingerprinted.txt"));

    #[test]
    fn link_halves_tests_and_the_tree_index_do_not_invalidate_cached_facts() {
        let listed: Vec<&str> = FINGERPRINTED.lines().collect();
        for must in [
            "cartograph-extract/src/lib.rs",
            "cartograph-extract/src/facts.rs",
            "cartograph-extract/src/recognise/py_routes/fastapi.rs",
            "cartograph-extract/src/recognise/py_routes/django/mod.rs",
            "cartograph-core/src/edge.rs",
        ] {
            assert!(listed.contains(&must), "{must} decides facts and must be fingerprinted");
        }
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for file in &listed {
            assert!(crates.join(file).is_file(), "{file} is listed but missing");
            let parts: Vec<&str> = file.split('/').collect();
            assert!(
                !parts.iter().any(|p| matches!(*p, "link" | "link.rs" | "tests" | "tests.rs")),
                "{file} cannot change a fact and must not be fingerprinted"
            );
            assert_ne!(*file, "cartograph-extract/src/tree.rs");
        }
        // Every link half of a family exists and is left out.
        for family in ["calls", "env", "js_routes", "py_routes", "tables"] {
            let link = crates.join(format!("cartograph-extract/src/recognise/{family}/link.rs"));
            assert!(link.is_file(), "the {family} family keeps its link half in link.rs");
        }
    }
}
