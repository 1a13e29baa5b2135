//! The grammars Cartograph parses with: one data record per grammar, in one list.
//!
//! [`GRAMMARS`] is the only place a grammar is described: its language, its syntax family, its
//! file extensions and its tree-sitter language. Everything indexed by grammar (the parser slots
//! here, the recognisers' kind tables) takes its size and slot from the position in that list.
//! Code that reads a tree branches on the record's [`Syntax`] with an exhaustive `match`, so a
//! new syntax family makes the compiler list every site to handle; a grammar that shares a
//! family (TSX with TypeScript and JavaScript) needs no branch at all.
//!
//! [`COMPONENTS`] lists the component formats (Vue, Svelte): markup files whose `<script>` blocks
//! are read with one of the grammars (see `crate::component`).

use cartograph_core::{Language, RepoPath};
use tree_sitter::Parser;

use crate::component::Component;

/// A tree-sitter grammar. The order of the variants is the order of [`GRAMMARS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grammar {
    /// `.py`, `.pyi`
    Python,
    /// `.ts`, `.mts`, `.cts`
    TypeScript,
    /// `.tsx`
    Tsx,
    /// `.js`, `.jsx`, `.mjs`, `.cjs` (the JavaScript grammar parses JSX)
    JavaScript,
    /// `.rs`
    Rust,
}

/// A family of grammars whose trees share node kinds and field names, so one extractor and one
/// branch of each recogniser read them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Syntax {
    /// The Python grammar.
    Python,
    /// JavaScript and its TypeScript dialects (TypeScript, TSX): the TypeScript grammars extend
    /// the JavaScript one.
    JavaScript,
    /// The Rust grammar.
    Rust,
}

/// Everything Cartograph knows about one grammar.
pub struct GrammarSpec {
    pub grammar: Grammar,
    /// The language its files count as.
    pub language: Language,
    pub syntax: Syntax,
    /// File extensions that select it, without the dot; unique across [`GRAMMARS`].
    pub extensions: &'static [&'static str],
    pub tree_sitter_language: fn() -> tree_sitter::Language,
    /// A small sound file in the grammar, for the tests that every record loads and parses.
    pub sample: &'static str,
    /// Files of this grammar may be minified bundles (one line of many kilobytes), which
    /// discovery skips with a `minified-bundle` refusal instead of parsing.
    pub skips_minified: bool,
}

/// Every grammar, in the order of the [`Grammar`] variants: a grammar's position here is its slot
/// in every table indexed by grammar.
pub static GRAMMARS: [GrammarSpec; 5] = [
    GrammarSpec {
        grammar: Grammar::Python,
        language: Language::Python,
        syntax: Syntax::Python,
        extensions: &["py", "pyi"],
        tree_sitter_language: || tree_sitter_python::LANGUAGE.into(),
        sample: "import os\n\ndef f(x: int) -> str:\n    return os.environ[\"A\"]\n",
        skips_minified: false,
    },
    GrammarSpec {
        grammar: Grammar::TypeScript,
        language: Language::TypeScript,
        syntax: Syntax::JavaScript,
        extensions: &["ts", "mts", "cts"],
        tree_sitter_language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        sample: "import { a } from \"./a\";\nexport const f = (x: number): string => a(x);\n",
        skips_minified: false,
    },
    GrammarSpec {
        grammar: Grammar::Tsx,
        language: Language::TypeScript,
        syntax: Syntax::JavaScript,
        extensions: &["tsx"],
        tree_sitter_language: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        sample: "import { A } from \"./a\";\nexport const C = (p: P) => <A x={p.x} />;\n",
        skips_minified: false,
    },
    GrammarSpec {
        grammar: Grammar::JavaScript,
        language: Language::JavaScript,
        syntax: Syntax::JavaScript,
        extensions: &["js", "jsx", "mjs", "cjs"],
        tree_sitter_language: || tree_sitter_javascript::LANGUAGE.into(),
        sample: "const a = require(\"./a\");\nmodule.exports = () => <div>{a()}</div>;\n",
        skips_minified: true,
    },
    GrammarSpec {
        grammar: Grammar::Rust,
        language: Language::Rust,
        syntax: Syntax::Rust,
        extensions: &["rs"],
        tree_sitter_language: || tree_sitter_rust::LANGUAGE.into(),
        sample: "use crate::a::{b, c as d};\nmod e;\nfn f() -> u8 { b::g(d) }\n",
        skips_minified: false,
    },
];

/// Everything Cartograph knows about one component format.
pub struct ComponentSpec {
    pub component: Component,
    /// File extensions that select it, without the dot; unique across [`GRAMMARS`] and
    /// [`COMPONENTS`].
    pub extensions: &'static [&'static str],
    /// A small component with a script block that parses without an error.
    pub sample: &'static str,
}

/// Every component format. A component's script blocks are parsed with the TypeScript, TSX or
/// JavaScript grammar as their `lang` says, which only its text tells: until it is read, a
/// component file is listed under [`COMPONENT_GRAMMAR`].
pub static COMPONENTS: [ComponentSpec; 2] = [
    ComponentSpec {
        component: Component::Vue,
        extensions: &["vue"],
        sample: "<template><p>{{ n }}</p></template>\n<script setup lang=\"ts\">\nimport { n } from \"./n\";\n</script>\n",
    },
    ComponentSpec {
        component: Component::Svelte,
        extensions: &["svelte"],
        sample: "<script>\n  import { n } from \"./n\";\n</script>\n<p>{n}</p>\n",
    },
];

/// The grammar a component file is listed under before its text is read: TypeScript, whose
/// record does not skip minified files (a template may hold a long line, and a component is not
/// a bundle). Its blocks are parsed with the grammar their `lang` names.
pub const COMPONENT_GRAMMAR: Grammar = Grammar::TypeScript;

// The slot of a grammar is its position in the list: checked when the crate compiles.
const _: () = {
    let mut slot = 0;
    while slot < GRAMMARS.len() {
        assert!(GRAMMARS[slot].grammar as usize == slot, "GRAMMARS is out of variant order");
        slot += 1;
    }
};

impl Grammar {
    /// Every grammar, in the order of [`GRAMMARS`].
    pub fn all() -> impl Iterator<Item = Grammar> {
        GRAMMARS.iter().map(|spec| spec.grammar)
    }

    /// This grammar's record.
    pub fn spec(self) -> &'static GrammarSpec {
        &GRAMMARS[self.slot()]
    }

    /// The position of this grammar in [`GRAMMARS`], the index of its slot in any table sized
    /// by [`GRAMMARS`].
    pub fn slot(self) -> usize {
        self as usize
    }

    pub fn language(self) -> Language {
        self.spec().language
    }

    pub fn syntax(self) -> Syntax {
        self.spec().syntax
    }

    pub fn tree_sitter_language(self) -> tree_sitter::Language {
        (self.spec().tree_sitter_language)()
    }
}

/// The grammar for a path, by extension ([`COMPONENT_GRAMMAR`] for a component); `None` for files
/// Cartograph does not parse.
pub fn grammar_for(path: &RepoPath) -> Option<Grammar> {
    let extension = path.extension()?;
    GRAMMARS
        .iter()
        .find(|spec| spec.extensions.contains(&extension))
        .map(|spec| spec.grammar)
        .or_else(|| component_for(path).map(|_| COMPONENT_GRAMMAR))
}

/// The component format of a path, by extension; `None` for any other file.
pub fn component_for(path: &RepoPath) -> Option<Component> {
    let extension = path.extension()?;
    COMPONENTS.iter().find(|spec| spec.extensions.contains(&extension)).map(|spec| spec.component)
}

/// One parser per grammar, created lazily.
pub(crate) struct Parsers {
    parsers: [Option<Parser>; GRAMMARS.len()],
}

impl Parsers {
    pub(crate) fn new() -> Self {
        Self { parsers: [const { None }; GRAMMARS.len()] }
    }

    pub(crate) fn get(&mut self, grammar: Grammar) -> &mut Parser {
        self.parsers[grammar.slot()].get_or_insert_with(|| {
            let mut parser = Parser::new();
            // The grammars are compiled in and their ABI versions are within what tree-sitter
            // 0.27 accepts; a test loads every grammar, so a mismatch fails the build's tests.
            parser
                .set_language(&grammar.tree_sitter_language())
                .expect("bundled grammar is ABI-compatible");
            parser
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn extensions_select_grammars() {
        let g = |p: &str| grammar_for(&RepoPath::new(p).unwrap());
        assert_eq!(g("a.py"), Some(Grammar::Python));
        assert_eq!(g("a.pyi"), Some(Grammar::Python));
        assert_eq!(g("a.ts"), Some(Grammar::TypeScript));
        assert_eq!(g("a.d.ts"), Some(Grammar::TypeScript));
        assert_eq!(g("a.mts"), Some(Grammar::TypeScript));
        assert_eq!(g("a.cts"), Some(Grammar::TypeScript));
        assert_eq!(g("a.tsx"), Some(Grammar::Tsx));
        for js in ["a.js", "a.jsx", "a.mjs", "a.cjs"] {
            assert_eq!(g(js), Some(Grammar::JavaScript));
        }
        assert_eq!(g("a.vue"), Some(COMPONENT_GRAMMAR));
        assert_eq!(g("a.svelte"), Some(COMPONENT_GRAMMAR));
        assert_eq!(g("a.json"), None);
        assert_eq!(g("Makefile"), None);
    }

    /// Each record's grammar loads and parses its sample without a syntax error.
    #[test]
    fn every_grammar_loads() {
        let mut parsers = Parsers::new();
        for spec in &GRAMMARS {
            let tree = parsers.get(spec.grammar).parse(spec.sample, None).unwrap();
            assert!(!tree.root_node().has_error(), "{:?}: the sample does not parse", spec.grammar);
        }
    }

    /// An extension in two records would silently go to the first.
    #[test]
    fn extensions_are_unique_and_select_their_record() {
        let mut seen = BTreeSet::new();
        for spec in &GRAMMARS {
            assert!(!spec.extensions.is_empty(), "{:?} has no extension", spec.grammar);
            for extension in spec.extensions {
                assert!(seen.insert(*extension), "{extension} is in two records");
                let path = RepoPath::new(&format!("a.{extension}")).unwrap();
                assert_eq!(grammar_for(&path), Some(spec.grammar));
                assert_eq!(component_for(&path), None);
            }
        }
        for spec in &COMPONENTS {
            assert!(!spec.extensions.is_empty(), "{:?} has no extension", spec.component);
            for extension in spec.extensions {
                assert!(seen.insert(*extension), "{extension} is in two records");
                let path = RepoPath::new(&format!("a.{extension}")).unwrap();
                assert_eq!(component_for(&path), Some(spec.component));
            }
        }
    }

    /// Each component format's sample has a script block that parses without an error.
    #[test]
    fn every_component_sample_parses() {
        let mut parsers = Parsers::new();
        for spec in &COMPONENTS {
            let scripts = crate::component::ScriptBlocks::of(spec.component, spec.sample);
            assert_eq!(scripts.blocks, 1, "{:?}: the sample has one script block", spec.component);
            let tree = parsers.get(scripts.grammar).parse(&scripts.masked, None).unwrap();
            assert!(
                !tree.root_node().has_error(),
                "{:?}: the sample does not parse",
                spec.component
            );
        }
    }

    /// `docs/adding-a-language.md` names every file with a match arm on a syntax family or an
    /// import shape: the sites a new family must handle (the compiler lists them; the checklist
    /// says so beforehand).
    #[test]
    fn the_checklist_names_every_site_that_branches_by_syntax() {
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let checklist = std::fs::read_to_string(crates.join("../docs/adding-a-language.md"))
            .expect("docs/adding-a-language.md exists");
        let mut sites = BTreeSet::new();
        for root in ["cartograph-extract/src", "cartograph-pipeline/src"] {
            let mut dirs = vec![crates.join(root)];
            while let Some(dir) = dirs.pop() {
                for entry in std::fs::read_dir(&dir).unwrap() {
                    let path = entry.unwrap().path();
                    let name = path.file_name().unwrap().to_string_lossy().into_owned();
                    if path.is_dir() {
                        if name != "tests" {
                            dirs.push(path);
                        }
                        continue;
                    }
                    if !name.ends_with(".rs") || name == "tests.rs" {
                        continue;
                    }
                    let source = std::fs::read_to_string(&path).unwrap();
                    let branches = source.lines().any(|line| {
                        let line = line.trim_start();
                        (line.starts_with("Syntax::") || line.starts_with("ImportTarget::"))
                            && line.contains("=>")
                    });
                    if branches {
                        let relative = path.strip_prefix(&crates).unwrap().to_string_lossy();
                        sites.insert(format!("crates/{}", relative.replace('\\', "/")));
                    }
                }
            }
        }
        assert!(sites.len() >= 8, "the scan found too few sites: {sites:?}");
        for site in &sites {
            assert!(checklist.contains(site.as_str()), "docs/adding-a-language.md omits {site}");
        }
    }
}
