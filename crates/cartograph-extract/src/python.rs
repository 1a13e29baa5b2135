//! Python import extraction.
//!
//! Recognises `import a.b [as c]`, `from a.b import c, d`, relative `from ..x import y`, star
//! imports, and `importlib.import_module("literal")` / `import_module("literal")` /
//! `__import__("literal")`. Imports anywhere in the file count (function-level lazy imports
//! included); those inside the body of `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) are
//! marked type-only. `from __future__ import …` is a compiler directive, not a dependency, and is
//! skipped.
//!
//! Refuses, with a `dynamic-import` refusal: `importlib.import_module(name)` with a computed
//! argument, and a relative `import_module(".x", package=…)` whose package is decided at run time.
//!
//! ```python
//! from typing import TYPE_CHECKING
//! from . import models            # level 1, names [models]
//! if TYPE_CHECKING:
//!     from .db import Session     # type-only
//! ```

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use tree_sitter::{Node, Tree};

use crate::syntax::FieldExt;
use crate::syntax::{literal_string, position, text};
use crate::{Binding, FileFacts, ImportFact, ImportForm, ImportTarget, Imported, PythonImport};

/// Which of a file's imports [`extract`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every import.
    All,
    /// The imports outside function and class bodies: when the recognisers walk the whole tree
    /// anyway, they read the others on their way ([`nested_import`]), and this walk stays near
    /// the top of the tree (a fast path for speed: most of a module's statements are in bodies).
    Outside,
    /// The imports inside function and class bodies, the rest of [`Reach::Outside`].
    Inside,
}

/// True when the file may import dynamically (`import_module`, `__import__`): its imports are
/// then read by a walk of every expression.
pub(crate) fn may_import_dynamically(source: &str) -> bool {
    source.contains("import_module") || source.contains("__import__")
}

pub(crate) fn extract(
    path: &RepoPath,
    tree: &Tree,
    source: &str,
    facts: &mut FileFacts,
    reach: Reach,
) {
    // Import statements sit only in statement bodies; a dynamic import is a call, which can sit in
    // any expression. Without the words of a dynamic import in the file, the walk stays on
    // statements and skips the expressions, which are most of a tree's nodes.
    let statements_only = !may_import_dynamically(source);
    debug_assert!(statements_only || reach == Reach::All, "dynamic imports are read by one walk");
    // End bytes of the enclosing `if TYPE_CHECKING:` bodies; a stack because they nest.
    let mut type_only_until: Vec<usize> = Vec::new();
    // End bytes of the enclosing function and class bodies, for `Reach::Inside`.
    let mut inside_until: Vec<usize> = Vec::new();
    let mut cursor = tree.root_node().walk();
    'walk: loop {
        let node = cursor.node();
        while type_only_until.last().is_some_and(|&end| node.start_byte() >= end) {
            type_only_until.pop();
        }
        while inside_until.last().is_some_and(|&end| node.start_byte() >= end) {
            inside_until.pop();
        }
        let type_only = !type_only_until.is_empty();
        let wanted = match reach {
            Reach::All => true,
            Reach::Outside => inside_until.is_empty(),
            Reach::Inside => !inside_until.is_empty(),
        };
        let mut descend = true;
        match node.kind() {
            "import_statement" => {
                if wanted {
                    plain_import(node, source, type_only, facts);
                }
                descend = false;
            }
            "import_from_statement" => {
                if wanted {
                    from_import(node, source, type_only, facts);
                }
                descend = false;
            }
            kind if is_body_holder(kind) => match reach {
                Reach::Outside => descend = false,
                _ => inside_until.push(node.end_byte()),
            },
            "future_import_statement" => descend = false,
            "if_statement" => {
                if node.field("condition").is_some_and(|c| is_type_checking(c, source))
                    && let Some(body) = node.field("consequence")
                {
                    type_only_until.push(body.end_byte());
                }
            }
            "call" => dynamic_import(path, node, source, type_only, facts),
            kind if statements_only && !holds_statements(kind) && !node.is_error() => {
                descend = false;
            }
            _ => {}
        }
        if !crate::syntax::advance(&mut cursor, descend) {
            break 'walk;
        }
    }
}

/// Function and class definitions, whose bodies [`Reach::Outside`] leaves to the recognisers.
fn is_body_holder(kind: &str) -> bool {
    matches!(kind, "function_definition" | "class_definition" | "decorated_definition")
}

/// An import statement met by the recognisers' walk, with the nodes from the root down to it
/// (it last): read as [`extract`] with [`Reach::Inside`] would read it, the imports that
/// [`Reach::Outside`] leaves out. Reached as that walk reaches imports (through statements and
/// error nodes only), type-only inside the body of an `if TYPE_CHECKING:`.
pub(crate) fn nested_import(
    node: Node<'_>,
    ancestry: &[Node<'_>],
    source: &str,
    facts: &mut FileFacts,
) {
    let above = &ancestry[..ancestry.len().saturating_sub(1)];
    let reached = above.iter().all(|a| holds_statements(a.kind()) || a.is_error());
    if !reached || !above.iter().any(|a| is_body_holder(a.kind())) {
        return;
    }
    let type_only = above.iter().any(|a| {
        a.kind() == "if_statement"
            && a.field("condition").is_some_and(|c| is_type_checking(c, source))
            && a.field("consequence").is_some_and(|body| node.start_byte() < body.end_byte())
    });
    match node.kind() {
        "import_statement" => plain_import(node, source, type_only, facts),
        "import_from_statement" => from_import(node, source, type_only, facts),
        _ => {}
    }
}

/// Node kinds that can hold an import statement somewhere below them without an expression in
/// between (the `if_statement` is listed for its consequence and alternatives).
fn holds_statements(kind: &str) -> bool {
    matches!(
        kind,
        "module"
            | "block"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_statement"
            | "for_statement"
            | "while_statement"
            | "function_definition"
            | "class_definition"
            | "decorated_definition"
            | "match_statement"
            | "case_clause"
    )
}

fn is_type_checking(condition: Node<'_>, source: &str) -> bool {
    match condition.kind() {
        "identifier" => text(condition, source) == "TYPE_CHECKING",
        "attribute" => {
            condition.field("attribute").is_some_and(|a| text(a, source) == "TYPE_CHECKING")
        }
        _ => false,
    }
}

fn push(
    facts: &mut FileFacts,
    node: Node<'_>,
    type_only: bool,
    import: PythonImport,
    bindings: Vec<Binding>,
) {
    let (line, column) = position(node);
    let target = ImportTarget::Python(import);
    facts.imports.push(ImportFact { line, column, type_only, target, bindings });
}

/// `import a.b, c as d`: one import per name.
fn plain_import(node: Node<'_>, source: &str, type_only: bool, facts: &mut FileFacts) {
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        let Some(dotted) = dotted_of(name, source) else { continue };
        let local = alias_of(name, source).unwrap_or_else(|| dotted.clone());
        let import = PythonImport {
            level: 0,
            module: Some(dotted),
            names: Vec::new(),
            form: ImportForm::Static,
        };
        push(facts, node, type_only, import, vec![Binding { local, imported: Imported::Module }]);
    }
}

/// `from [.…]a.b import c, d` / `from . import x` / `from a import *`.
fn from_import(node: Node<'_>, source: &str, type_only: bool, facts: &mut FileFacts) {
    let Some(module_node) = node.field("module_name") else { return };
    let (level, module) = match module_node.kind() {
        "relative_import" => {
            let mut level = 0u32;
            let mut module = None;
            let mut cursor = module_node.walk();
            for child in module_node.named_children(&mut cursor) {
                match child.kind() {
                    "import_prefix" => {
                        level = u32::try_from(text(child, source).matches('.').count())
                            .unwrap_or(u32::MAX);
                    }
                    "dotted_name" => module = Some(clean_dotted(text(child, source))),
                    _ => {}
                }
            }
            (level, module)
        }
        "dotted_name" => (0, Some(clean_dotted(text(module_node, source)))),
        _ => return,
    };
    let mut names = Vec::new();
    let mut bindings = Vec::new();
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "wildcard_import" {
            names.push("*".to_owned());
            // A star import binds every public name of the module; linkers that follow a name
            // fall back to it for names the file does not define itself.
            bindings.push(Binding { local: "*".to_owned(), imported: Imported::Module });
        }
    }
    let mut cursor = node.walk();
    for name in node.children_by_field_name("name", &mut cursor) {
        if let Some(dotted) = dotted_of(name, source) {
            let local = alias_of(name, source).unwrap_or_else(|| dotted.clone());
            bindings.push(Binding { local, imported: Imported::Name(dotted.clone()) });
            names.push(dotted);
        }
    }
    let import = PythonImport { level, module, names, form: ImportForm::Static };
    push(facts, node, type_only, import, bindings);
}

/// The alias of an `aliased_import` (`x` in `a.b as x`).
fn alias_of(node: Node<'_>, source: &str) -> Option<String> {
    (node.kind() == "aliased_import")
        .then(|| node.field("alias"))
        .flatten()
        .map(|a| text(a, source).to_owned())
}

/// The dotted name of a `dotted_name` or `aliased_import` node.
fn dotted_of(node: Node<'_>, source: &str) -> Option<String> {
    match node.kind() {
        "dotted_name" => Some(clean_dotted(text(node, source))),
        "aliased_import" => node.field("name").map(|n| clean_dotted(text(n, source))),
        _ => None,
    }
}

/// Removes whitespace and line continuations a dotted name may span (`a . b`).
fn clean_dotted(raw: &str) -> String {
    raw.chars().filter(|c| !c.is_whitespace() && *c != '\\').collect()
}

/// `importlib.import_module("x")`, `import_module("x")`, `__import__("x")`.
fn dynamic_import(
    path: &RepoPath,
    node: Node<'_>,
    source: &str,
    type_only: bool,
    facts: &mut FileFacts,
) {
    let Some(function) = node.field("function") else { return };
    let callee = match function.kind() {
        "identifier" => text(function, source),
        "attribute" => {
            let object = function.field("object").map(|o| text(o, source));
            if object != Some("importlib") {
                return;
            }
            function.field("attribute").map_or("", |a| text(a, source))
        }
        _ => return,
    };
    if callee != "import_module" && callee != "__import__" {
        return;
    }
    let Some(arguments) = node.field("arguments") else { return };
    let mut cursor = arguments.walk();
    let first = arguments.named_children(&mut cursor).find(|a| a.kind() != "comment");
    let Some(first) = first else { return };
    let (line, column) = position(node);
    let refuse = |facts: &mut FileFacts, reason: &str| {
        facts.refusals.push(Refusal::new(
            RefusalKind::DynamicImport,
            SourceLocation::new(path.clone(), line, column),
            reason,
        ));
    };
    match literal_string(first, source) {
        Some(name) if name.starts_with('.') => {
            refuse(facts, &format!("{callee} of a relative name depends on its run-time package"));
        }
        Some(name) if is_dotted_identifier(&name) => push(
            facts,
            node,
            type_only,
            PythonImport {
                level: 0,
                module: Some(name),
                names: Vec::new(),
                form: ImportForm::Dynamic,
            },
            Vec::new(),
        ),
        Some(_) => refuse(facts, &format!("{callee} of a string that is not a module name")),
        None => refuse(facts, &format!("{callee} with a computed module name")),
    }
}

fn is_dotted_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Extractor, Grammar};

    /// (level, module, names, form, type_only)
    type Expected<'a> = (u32, Option<&'a str>, &'a [&'a str], ImportForm, bool);

    fn check(source: &str, expected: &[Expected<'_>]) -> FileFacts {
        let path = RepoPath::new("pkg/mod.py").unwrap();
        let facts = Extractor::new().extract(&path, Grammar::Python, source);
        let got: Vec<_> = facts
            .imports
            .iter()
            .map(|i| match &i.target {
                ImportTarget::Python(p) => {
                    (p.level, p.module.clone(), p.names.clone(), p.form, i.type_only)
                }
                ImportTarget::Js(_) | ImportTarget::Rust(_) => {
                    panic!("python extractor produced another language's import")
                }
            })
            .collect();
        let want: Vec<_> = expected
            .iter()
            .map(|(l, m, n, f, t)| {
                (*l, m.map(str::to_owned), n.iter().map(|s| (*s).to_owned()).collect(), *f, *t)
            })
            .collect();
        assert_eq!(got, want, "imports of:\n{source}");
        facts
    }

    const S: ImportForm = ImportForm::Static;

    #[test]
    fn plain_and_aliased_imports() {
        check(
            "import os\nimport a.b.c as d, e\n",
            &[
                (0, Some("os"), &[], S, false),
                (0, Some("a.b.c"), &[], S, false),
                (0, Some("e"), &[], S, false),
            ],
        );
    }

    #[test]
    fn from_imports_absolute_relative_and_star() {
        check(
            "from a.b import c, d as e\nfrom . import x\nfrom ..m.n import y\nfrom .z import *\nfrom __future__ import annotations\n",
            &[
                (0, Some("a.b"), &["c", "d"], S, false),
                (1, None, &["x"], S, false),
                (2, Some("m.n"), &["y"], S, false),
                (1, Some("z"), &["*"], S, false),
            ],
        );
    }

    #[test]
    fn parenthesised_and_continued_names() {
        check("from a import (\n    b,\n    c,\n)\n", &[(0, Some("a"), &["b", "c"], S, false)]);
    }

    #[test]
    fn type_checking_blocks_mark_type_only() {
        check(
            "from typing import TYPE_CHECKING\nimport typing\nif TYPE_CHECKING:\n    from a import B\n    if x:\n        import c\nelse:\n    import d\nif typing.TYPE_CHECKING:\n    import e\nimport f\n",
            &[
                (0, Some("typing"), &["TYPE_CHECKING"], S, false),
                (0, Some("typing"), &[], S, false),
                (0, Some("a"), &["B"], S, true),
                (0, Some("c"), &[], S, true),
                (0, Some("d"), &[], S, false),
                (0, Some("e"), &[], S, true),
                (0, Some("f"), &[], S, false),
            ],
        );
    }

    #[test]
    fn function_level_imports_count() {
        check(
            "def f():\n    import lazy.mod\n    from .x import y\n",
            &[(0, Some("lazy.mod"), &[], S, false), (1, Some("x"), &["y"], S, false)],
        );
    }

    #[test]
    fn importlib_literal_is_an_import_and_computed_is_refused() {
        let facts = check(
            "import importlib\nimportlib.import_module(\"pkg.plugins.a\")\nimportlib.import_module(name)\nimport_module(f\"x.{n}\")\nother.import_module(\"no\")\n__import__(\"json\")\nimportlib.import_module(\".rel\", package=p)\n",
            &[
                (0, Some("importlib"), &[], S, false),
                (0, Some("pkg.plugins.a"), &[], ImportForm::Dynamic, false),
                (0, Some("json"), &[], ImportForm::Dynamic, false),
            ],
        );
        let kinds: Vec<_> = facts.refusals.iter().map(|r| (r.kind, r.location.line)).collect();
        assert_eq!(
            kinds,
            vec![
                (RefusalKind::DynamicImport, 3),
                (RefusalKind::DynamicImport, 4),
                (RefusalKind::DynamicImport, 7)
            ]
        );
        assert!(facts.refusals.iter().all(|r| !r.reason.contains("name)")));
    }

    #[test]
    fn syntax_errors_keep_sound_imports_and_count_regions() {
        let facts = check(
            "import os\nfrom a import b\ndef broken(:\n    pass\nimport c\n",
            &[
                (0, Some("os"), &[], S, false),
                (0, Some("a"), &["b"], S, false),
                (0, Some("c"), &[], S, false),
            ],
        );
        assert!(facts.error_regions >= 1);
        assert!(facts.refusals.iter().any(|r| r.kind == RefusalKind::SyntaxErrors));
    }

    #[test]
    fn statement_walk_reaches_every_statement_body() {
        // No dynamic-import words here, so expressions are skipped; imports in every kind of
        // statement body must still be found.
        check(
            "try:\n    import a\nexcept ImportError:\n    import b\nelse:\n    import c\nfinally:\n    import d\nwith x:\n    import e\nfor i in y:\n    import f\nwhile z:\n    import g\nclass K:\n    import h\n@dec\ndef fn():\n    import i\nmatch v:\n    case 1:\n        import j\nif p:\n    pass\nelif q:\n    import k\nx = [lambda: 1 for _ in range(3)]\n",
            &[
                (0, Some("a"), &[], S, false),
                (0, Some("b"), &[], S, false),
                (0, Some("c"), &[], S, false),
                (0, Some("d"), &[], S, false),
                (0, Some("e"), &[], S, false),
                (0, Some("f"), &[], S, false),
                (0, Some("g"), &[], S, false),
                (0, Some("h"), &[], S, false),
                (0, Some("i"), &[], S, false),
                (0, Some("j"), &[], S, false),
                (0, Some("k"), &[], S, false),
            ],
        );
    }

    #[test]
    fn positions_are_one_based() {
        let path = RepoPath::new("m.py").unwrap();
        let facts = Extractor::new().extract(&path, Grammar::Python, "\n  import x\n");
        assert_eq!((facts.imports[0].line, facts.imports[0].column), (2, 3));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let depth = 3000;
        let source = format!("x = {}1{}\nimport ok\n", "(".repeat(depth), ")".repeat(depth));
        let path = RepoPath::new("deep.py").unwrap();
        let facts = Extractor::new().extract(&path, Grammar::Python, &source);
        assert!(facts.imports.iter().any(|i| matches!(&i.target,
            ImportTarget::Python(p) if p.module.as_deref() == Some("ok"))));
    }
}
