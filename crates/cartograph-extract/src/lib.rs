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
mod held;
mod incremental;
mod interned;
mod language;
mod packed;
mod python;
pub mod recognise;
mod rust;
mod spill;
mod syntax;
pub mod tree;
mod typescript;

pub use component::Component;
pub use facts::{
    Binding, FileFacts, ImportFact, ImportForm, ImportTarget, Imported, JsImport, PythonImport,
    RustImport,
};
pub use held::{Family, HeldFacts, Undecodable};
pub use language::{
    COMPONENT_GRAMMAR, COMPONENTS, ComponentSpec, GRAMMARS, Grammar, GrammarSpec, Syntax,
    component_for, grammar_for,
};
pub use packed::PackedVec;
pub use recognise::tables::prisma::{PrismaModel, extract_prisma};
pub use recognise::tables::sql_schema::{SqlTable, extract_sql_schema, is_schema_file};
pub use spill::{LargePlace, Spill};
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
        // With the recognisers on, their walk of the whole tree also reads Python's imports in
        // function and class bodies, and the import walk stays outside them (a fast path for
        // speed: one walk of the bodies instead of two). Dynamic imports, in any expression,
        // are read by the import walk alone. JavaScript's imports, when all are statements, are
        // read by the recognisers' walk alone.
        let shared = self.recognisers
            && match grammar.syntax() {
                Syntax::Python => !python::may_import_dynamically(text),
                Syntax::JavaScript => typescript::statements_only(tree, text),
                Syntax::Rust => false,
            };
        match grammar.syntax() {
            Syntax::Python if shared => {
                python::extract(path, tree, text, &mut facts, python::Reach::Outside);
            }
            Syntax::Python => python::extract(path, tree, text, &mut facts, python::Reach::All),
            Syntax::JavaScript if shared => {}
            Syntax::JavaScript => typescript::extract(path, tree, text, &mut facts),
            Syntax::Rust => rust::extract(tree, text, &mut facts),
        }
        if self.recognisers {
            let imports = match (shared, grammar.syntax()) {
                (false, _) => recognise::Imports::None,
                (true, Syntax::Python) => recognise::Imports::Inside,
                (true, Syntax::JavaScript) => recognise::Imports::Statements,
                (true, Syntax::Rust) => recognise::Imports::None,
            };
            let walked = recognise::run(path, grammar, tree, text, &mut facts, imports);
            match grammar.syntax() {
                // A file without the word holds no import statement.
                Syntax::Python if shared && !walked && text.contains("import") => {
                    python::extract(path, tree, text, &mut facts, python::Reach::Inside);
                }
                Syntax::JavaScript if shared && !walked => {
                    typescript::extract(path, tree, text, &mut facts);
                }
                _ => {}
            }
            if shared {
                // In source order, as one walk would have read them; a stable sort keeps the
                // imports of one statement in their order.
                facts.imports.sort_by_key(|i| (i.line, i.column));
            }
            // The linkers never read imports (see `FileFacts::imports`): what one needs of them
            // is read here.
            if grammar.syntax() == Syntax::JavaScript {
                facts.js_routes.imports_flat_routes =
                    recognise::js_routes::imports_flat_routes(&facts.imports);
            }
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

#[cfg(test)]
mod shared_walk_tests {
    use super::*;
    use cartograph_core::RefusalKind;

    /// With the recognisers on, their walk reads some imports (Python's inside bodies, and
    /// JavaScript's when all are statements) instead of the import walk: the imports and
    /// refusals must be those the import walk alone finds, in the same order. Checked on every
    /// source file of the fixtures and on hand-written cases the fixtures lack.
    #[test]
    fn imports_read_by_the_recognisers_walk_are_those_of_the_import_walk() {
        let mut cases: Vec<(String, String)> = vec![
            (
                "nested.py".into(),
                "import os\ndef f():\n    import requests\n    if TYPE_CHECKING:\n        from a import B\n    else:\n        from c import D\n    return requests.get('/x')\nclass K:\n    from e import F\n    def m(self):\n        try:\n            import g as h, i\n        except ImportError:\n            pass\n@deco\ndef late():\n    from . import j\nimport k\n".into(),
            ),
            ("nothing.py".into(), "x = 1\n".into()),
            ("broken.py".into(), "def f(:\n    import a\nimport b\n".into()),
            (
                "statements.ts".into(),
                "jest.mock('./m');\nimport a from './a';\nexport { b } from './b';\nexport * from './c';\nconst x = 1;\nimport type { T } from './t';\ndeclare module 'm' { import z from './z'; }\nexport default x;\n".into(),
            ),
            ("dynamic.ts".into(), "import a from './a';\nconst b = () => import('./b');\n".into()),
        ];
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        for entry in ignore::WalkBuilder::new(&fixtures).standard_filters(false).build() {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(&fixtures).unwrap().to_string_lossy();
            let Ok(source) = std::fs::read_to_string(entry.path()) else { continue };
            cases.push((relative.replace('\\', "/"), source));
        }
        let mut full = Extractor::new();
        let mut imports_only = Extractor::imports_only();
        let mut compared = 0;
        for (file, source) in &cases {
            let Ok(path) = RepoPath::new(file) else { continue };
            let Some(grammar) = grammar_for(&path) else { continue };
            let with = full.extract(&path, grammar, source);
            let without = imports_only.extract(&path, grammar, source);
            assert_eq!(with.imports, without.imports, "{file}: imports differ");
            let dynamic = |f: &FileFacts| {
                f.refusals
                    .iter()
                    .filter(|r| r.kind == RefusalKind::DynamicImport)
                    .cloned()
                    .collect::<Vec<_>>()
            };
            assert_eq!(dynamic(&with), dynamic(&without), "{file}: import refusals differ");
            compared += 1;
        }
        assert!(compared > 100, "only {compared} files compared");
    }
}
