//! The grammars Cartograph parses with, and which file extensions select them.

use cartograph_core::{Language, RepoPath};
use tree_sitter::Parser;

/// A tree-sitter grammar.
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
}

impl Grammar {
    pub fn language(self) -> Language {
        match self {
            Grammar::Python => Language::Python,
            Grammar::TypeScript | Grammar::Tsx => Language::TypeScript,
            Grammar::JavaScript => Language::JavaScript,
        }
    }

    pub fn tree_sitter_language(self) -> tree_sitter::Language {
        match self {
            Grammar::Python => tree_sitter_python::LANGUAGE.into(),
            Grammar::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Grammar::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Grammar::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        }
    }
}

/// The grammar for a path, by extension; `None` for files Cartograph does not parse.
pub fn grammar_for(path: &RepoPath) -> Option<Grammar> {
    match path.extension()? {
        "py" | "pyi" => Some(Grammar::Python),
        "ts" | "mts" | "cts" => Some(Grammar::TypeScript),
        "tsx" => Some(Grammar::Tsx),
        "js" | "jsx" | "mjs" | "cjs" => Some(Grammar::JavaScript),
        _ => None,
    }
}

/// One parser per grammar, created lazily.
pub(crate) struct Parsers {
    parsers: [Option<Parser>; 4],
}

impl Parsers {
    pub(crate) fn new() -> Self {
        Self { parsers: [None, None, None, None] }
    }

    pub(crate) fn get(&mut self, grammar: Grammar) -> &mut Parser {
        let slot = match grammar {
            Grammar::Python => 0,
            Grammar::TypeScript => 1,
            Grammar::Tsx => 2,
            Grammar::JavaScript => 3,
        };
        self.parsers[slot].get_or_insert_with(|| {
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
        assert_eq!(g("a.json"), None);
        assert_eq!(g("Makefile"), None);
    }

    #[test]
    fn every_grammar_loads() {
        let mut parsers = Parsers::new();
        for g in [Grammar::Python, Grammar::TypeScript, Grammar::Tsx, Grammar::JavaScript] {
            assert!(parsers.get(g).parse("x", None).is_some());
        }
    }
}
