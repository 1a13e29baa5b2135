//! Architecture recognisers: routes served, HTTP calls, tables and environment variables.
//!
//! Each recogniser lives in one file with a doc comment that says what it recognises, what it
//! refuses, and an example; [`registry::RECOGNISERS`] lists them all (`cartograph recognisers`).
//! Recognisers share one walk of each file's syntax tree: [`run`] asks every recogniser family
//! whether the file can hold anything for it (a cheap text test), walks the tree once if any says
//! yes, and hands every node to the interested families. Facts are per file and unresolved;
//! each family's link half ([`link`], and the `link.rs` in the family's folder) joins them across
//! files once the pipeline has resolved imports (prefix chains, URL-to-route matching, models to
//! tables). A family is one folder; a framework is one file, or one folder holding its syntax
//! half (`mod.rs`) and its link half (`link.rs`).

/// The families' data-driven tests: `check!(args…)` snapshots what the test module's
/// `described(args…)` renders, as an insta snapshot in the family's `snapshots/` folder named
/// after the test (a helper function could not name it so: insta names a snapshot after the
/// function that asserts it, and parallel tests would number the snapshots in any order).
#[cfg(test)]
macro_rules! check {
    ($($arg:expr),+ $(,)?) => {{
        let facts = described($($arg),+);
        insta::assert_snapshot!(facts)
    }};
}

pub mod calls;
pub mod env;
pub mod js_routes;
pub mod link;
pub mod py_routes;
pub mod registry;
pub mod rust_routes;
pub mod tables;

pub use calls::CallFacts;
pub use env::EnvFacts;
pub use js_routes::JsRouteFacts;
pub use py_routes::PyRouteFacts;
pub use rust_routes::RustRouteFacts;
pub use tables::TableFacts;

use cartograph_core::RepoPath;
use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use crate::syntax::{FieldExt, KindExt};
use crate::{FileFacts, GRAMMARS, Grammar, Syntax};

/// What every recogniser gets besides the node: the file, its text, and the node's ancestry.
pub struct Context<'s> {
    pub path: &'s RepoPath,
    pub grammar: Grammar,
    /// The grammar's syntax family, read once per file: recognisers branch on it.
    pub syntax: Syntax,
    pub source: &'s str,
    /// The nodes from the root down to the node being visited, that node last; empty outside
    /// the walk ([`Family::wants`], [`Family::finish`]).
    ancestry: &'s [Node<'s>],
    /// Fields of the visited node read once for every family, when its kind is one the
    /// families ask most for fields (see [`FIELDED`]): a name and the child in that field, or
    /// `None` when the node has none.
    fields: &'s [(&'static str, Option<Node<'s>>)],
    /// The file's [`Gate`] and the sets of words it holds, read once before the walk; `None`
    /// when the words are searched set by set.
    gate: Option<(&'static Gate, u32)>,
}

impl<'s> Context<'s> {
    /// The nodes from the root down to the node being visited, that node last.
    pub(crate) fn ancestry(&self) -> &[Node<'s>] {
        self.ancestry
    }
}

impl<'s> Context<'s> {
    fn new(path: &'s RepoPath, grammar: Grammar, source: &'s str) -> Self {
        Self {
            path,
            grammar,
            syntax: grammar.syntax(),
            source,
            ancestry: &[],
            fields: &[],
            gate: None,
        }
    }

    /// The child of `node` in field `name`, as [`FieldExt::field`] gives it.
    ///
    /// This is a fast path for speed: a field look-up scans the node's children and the
    /// grammar's field map (about 360 instructions), and the families ask the same node for
    /// the same fields again and again (a Python call's `function` four times, an assignment's
    /// `left` and `right` five). For the kinds most asked, the walk reads the fields they ask
    /// for once, before the families visit the node. Any other field or node asks tree-sitter.
    pub(crate) fn field(&self, node: Node<'s>, name: &'static str) -> Option<Node<'s>> {
        if !self.fields.is_empty()
            && self.ancestry.last().is_some_and(|visited| visited.id() == node.id())
            && let Some(&(_, child)) = self.fields.iter().find(|(field, _)| *field == name)
        {
            return child;
        }
        node.field(name)
    }

    /// The kind of `node`, as [`Node::kind`] gives it, read from the grammar's table of kind
    /// names: a fast path for speed, since `Node::kind` measures and checks a C string on every
    /// call. A node of another grammar or past the table falls back to `Node::kind`.
    pub(crate) fn kind<'n>(&self, node: Node<'n>) -> &'n str {
        let names = &KindTable::of(self.grammar).names;
        match names.get(usize::from(node.kind_id())) {
            Some(name) if !name.is_empty() => name,
            _ => node.kind_name(),
        }
    }

    /// The parent of `node`, as [`Node::parent`] gives it.
    ///
    /// This is a fast path for speed: tree-sitter's `Node::parent` walks down from the root of
    /// the tree on every call, a cost that grows with the file. The walk already holds the path
    /// to the node being visited, so the parent of any node on that path is read from it, and
    /// the parent of a node below the visited one is found by walking down from the visited
    /// node alone. Any other node falls back to `Node::parent`.
    pub(crate) fn parent(&self, node: Node<'s>) -> Option<Node<'s>> {
        if let Some(index) = self.ancestry.iter().rposition(|n| n.id() == node.id()) {
            return index.checked_sub(1).map(|i| self.ancestry[i]);
        }
        if let Some(&visited) = self.ancestry.last()
            // An empty node may touch a range it is not part of; only a node with a width is
            // surely below the visited node when its range lies inside.
            && node.start_byte() < node.end_byte()
            && visited.start_byte() <= node.start_byte()
            && node.end_byte() <= visited.end_byte()
        {
            let mut parent = visited;
            while let Some(child) = parent.child_with_descendant(node) {
                if child.id() == node.id() {
                    return Some(parent);
                }
                parent = child;
            }
        }
        node.parent()
    }
}

/// A family's words for its cheap test on the text ([`Family::wants`]): does a file hold any
/// of them? The sets the families read for a grammar are answered together, by one scan of the
/// file ([`Gate`]); a set outside them is searched word by word, each word's memchr searcher
/// built once per process.
pub(crate) struct Words {
    words: &'static [&'static str],
    finders: OnceLock<Vec<memchr::memmem::Finder<'static>>>,
}

impl Words {
    pub(crate) const fn new(words: &'static [&'static str]) -> Self {
        Self { words, finders: OnceLock::new() }
    }

    /// True when the file of `cx` holds any of the words.
    pub(crate) fn any_in(&self, cx: &Context<'_>) -> bool {
        if let Some((gate, seen)) = cx.gate
            && let Some(bit) = gate.sets.iter().position(|set| std::ptr::eq(*set, self))
        {
            return seen & 1 << bit != 0;
        }
        self.any_in_text(cx.source)
    }

    /// True when `source` holds any of the words, searched word by word.
    fn any_in_text(&self, source: &str) -> bool {
        let finders = self.finders.get_or_init(|| {
            self.words.iter().map(|w| memchr::memmem::Finder::new(w.as_bytes())).collect()
        });
        finders.iter().any(|f| f.find(source.as_bytes()).is_some())
    }
}

/// Every set of [`Words`] the families read for one syntax, answered by one pass over a file.
///
/// This is a fast path for speed: each family scanning a file for each of its words costs a
/// pass per word on every file that holds none of them (about 190M instructions on Airflow, a
/// sixth of all the recognisers' work), where one Aho-Corasick automaton over all the words
/// reads each byte once. The answer is the same: a set's bit is on when the file holds any of
/// its words, as an overlapping search reports every occurrence of every word.
pub(crate) struct Gate {
    sets: Vec<&'static Words>,
    automaton: aho_corasick::dfa::DFA,
    /// For each pattern of the automaton, the sets that hold it (bit `i` for `sets[i]`).
    holders: Vec<u32>,
}

impl Gate {
    fn build(sets: Vec<&'static Words>) -> Option<Self> {
        let mut patterns: Vec<&'static str> = Vec::new();
        let mut holders: Vec<u32> = Vec::new();
        for (bit, set) in sets.iter().enumerate() {
            for word in set.words {
                match patterns.iter().position(|p| p == word) {
                    Some(at) => holders[at] |= 1 << bit,
                    None => {
                        patterns.push(word);
                        holders.push(1 << bit);
                    }
                }
            }
        }
        let automaton = aho_corasick::dfa::DFA::builder()
            .start_kind(aho_corasick::StartKind::Unanchored)
            .build(&patterns)
            .ok()?;
        (sets.len() <= 32).then_some(Self { sets, automaton, holders })
    }

    /// The gate of a syntax, built once per process.
    fn of(syntax: Syntax) -> Option<&'static Gate> {
        static PYTHON: OnceLock<Option<Gate>> = OnceLock::new();
        static JAVASCRIPT: OnceLock<Option<Gate>> = OnceLock::new();
        static RUST: OnceLock<Option<Gate>> = OnceLock::new();
        match syntax {
            Syntax::Python => PYTHON.get_or_init(|| Gate::build(gate_words(syntax))).as_ref(),
            Syntax::JavaScript => {
                JAVASCRIPT.get_or_init(|| Gate::build(gate_words(syntax))).as_ref()
            }
            Syntax::Rust => RUST.get_or_init(|| Gate::build(gate_words(syntax))).as_ref(),
        }
    }

    /// The sets `source` holds a word of, one bit per set; `None` when the search fails.
    ///
    /// The automaton is stepped byte by byte here rather than through its overlapping search,
    /// whose general loop costs several times as much per byte: each state that ends a word
    /// names the words it ends, every occurrence of every word included.
    fn scan(&self, source: &str) -> Option<u32> {
        use aho_corasick::automaton::Automaton;
        let dfa = &self.automaton;
        let all = u32::MAX >> (32 - self.sets.len());
        let mut seen = 0u32;
        let mut state = dfa.start_state(aho_corasick::Anchored::No).ok()?;
        for &byte in source.as_bytes() {
            state = dfa.next_state(aho_corasick::Anchored::No, state, byte);
            if dfa.is_special(state) && dfa.is_match(state) {
                for i in 0..dfa.match_len(state) {
                    let pattern = dfa.match_pattern(state, i).as_usize();
                    seen |= self.holders.get(pattern).copied().unwrap_or(0);
                }
                if seen == all {
                    break;
                }
            }
        }
        Some(seen)
    }
}

/// The sets of words the families read for `syntax` (see [`Gate`]).
fn gate_words(syntax: Syntax) -> Vec<&'static Words> {
    let mut sets = vec![&tables::HINTS, &tables::SQL_WORDS];
    match syntax {
        Syntax::Python => sets.extend([
            &calls::PY_WORDS,
            &env::PY_WORDS,
            &py_routes::MARKERS,
            &py_routes::FORWARDING,
        ]),
        Syntax::JavaScript => sets.extend([
            &calls::JS_WORDS,
            &env::JS_WORDS,
            &js_routes::WANTED,
            &js_routes::hooks::REGISTERING,
        ]),
        Syntax::Rust => sets.push(&rust_routes::WORDS),
    }
    sets
}

/// A family of recognisers that shares the walk.
pub(crate) trait Family {
    /// The node kinds [`Family::visit`] handles, in any grammar: the walk hands it no others.
    fn kinds(&self) -> &'static [&'static str];
    /// A cheap test on the text: can this file hold anything for this family?
    fn wants(&self, cx: &Context<'_>) -> bool;
    /// Called for every node of the tree in document order (pre-order), with the node's kind
    /// read once for all families (reading it costs a C string conversion). A recogniser asks
    /// [`Context::parent`] for a parent, not `Node::parent`.
    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts);
    /// Called once after the walk, for facts that need the whole file.
    fn finish(&mut self, cx: &Context<'_>, facts: &mut FileFacts);
}

/// Visits the nodes of `tree` in document order (pre-order), with the context at that node;
/// `visit` returns whether to walk the node's children. The tests' form of [`walk_counted`].
#[cfg(test)]
fn walk<'t>(
    tree: &'t Tree,
    cx: &Context<'t>,
    fielded: impl Fn(usize) -> Fielded,
    mut visit: impl FnMut(Node<'t>, &Context<'_>) -> bool,
) {
    walk_counted(tree, cx, fielded, |node, _, _, at| visit(node, at));
}

/// Visits the nodes of `tree` in document order (pre-order), handing `visit` the node, its kind
/// id, its child count and the context at that node; `visit` returns whether to walk the node's
/// children. The walk reads the id and the count anyway, and each read is a call into
/// tree-sitter, made for every node of the tree.
fn walk_counted<'t>(
    tree: &'t Tree,
    cx: &Context<'t>,
    fielded: impl Fn(usize) -> Fielded,
    mut visit: impl FnMut(Node<'t>, usize, u32, &Context<'_>) -> bool,
) {
    // The fields of the visited node read for the families (see [`Context::field`]).
    let mut fields: Vec<(&'static str, Option<Node<'t>>)> = Vec::new();
    let mut cursor = tree.root_node().walk();
    // The path from the root to the cursor's node, that node last.
    let mut ancestry: Vec<Node<'t>> = Vec::new();
    // For each node of the path below the root, how many of its siblings are still to visit.
    // Counting is a fast path for speed: a `goto_first_child` or `goto_next_sibling` that finds
    // nothing costs as much as one that moves, and a walk that tries and fails makes one such
    // call for every leaf and every last child. Counted, it never asks for a node that is not
    // there.
    let mut siblings_left: Vec<u32> = Vec::new();
    'walk: loop {
        let node = cursor.node();
        let id = usize::from(node.kind_id());
        let children = node.child_count();
        ancestry.push(node);
        fields.clear();
        let wanted = fielded(id);
        // Most nodes have no fields to read: skip the call rather than extend by nothing.
        if !wanted.is_empty() {
            fields.extend(
                wanted.iter().map(|&(f, id)| (f, id.and_then(|id| node.child_by_field_id(id)))),
            );
        }
        let descend =
            visit(node, id, children, &Context { ancestry: &ancestry, fields: &fields, ..*cx });
        let children = if descend { children } else { 0 };
        if children > 0 && cursor.goto_first_child() {
            siblings_left.push(children - 1);
            continue;
        }
        loop {
            ancestry.pop();
            match siblings_left.last_mut() {
                // Back at the root: every node has been visited.
                None => break 'walk,
                Some(0) => {
                    siblings_left.pop();
                    cursor.goto_parent();
                }
                Some(left) => {
                    *left -= 1;
                    if cursor.goto_next_sibling() {
                        continue 'walk;
                    }
                    // Not reached: a node's child count is the number of siblings the cursor
                    // visits. Should the two ever disagree, the level simply ends here.
                    *left = 0;
                    ancestry.push(cursor.node());
                }
            }
        }
    }
}

/// The fields the walk reads on a node of some kind: each name with its id in the grammar.
type Fielded = &'static [(&'static str, Option<u16>)];

/// The kinds whose fields the walk reads once for the families (see [`Context::field`]), when
/// a family wanted by the file handles the kind, and those fields: the ones several families
/// ask for on every node of the kind.
const FIELDED: &[(&str, &[&str])] = &[
    ("call", &["function", "arguments"]),
    ("call_expression", &["function", "arguments"]),
    ("assignment", &["left", "right"]),
    ("augmented_assignment", &["left", "right"]),
    ("assignment_expression", &["left", "right"]),
    ("variable_declarator", &["name", "value"]),
];

/// Every family, in a fixed order: bit `i` of a [`KindTable`] mask stands for the `i`-th.
fn all_families() -> Vec<Box<dyn Family>> {
    vec![
        Box::new(env::Env::default()),
        Box::new(calls::Calls::default()),
        Box::new(tables::Tables::default()),
        Box::new(py_routes::PyRoutes::default()),
        Box::new(js_routes::JsRoutes::default()),
        Box::new(js_routes::JsHooks::default()),
        Box::new(rust_routes::RustRoutes::default()),
    ]
}

/// For one grammar, by node kind id: the kind's name and the families that handle it.
///
/// This is a fast path for speed: `Node::kind` converts a C string (a `strlen` and a UTF-8
/// check) and every family then compares it with the kinds it knows, for every node of the
/// tree; most nodes are of no interest to any family. The table reads a kind id once per node
/// and hands the node only to the families that handle its kind.
struct KindTable {
    names: Vec<String>,
    families: Vec<u8>,
    barren: Vec<Barren>,
    /// Python's import statements, JavaScript's import and export statements: read by the walk
    /// for [`Imports::Inside`] and [`Imports::Statements`].
    imports: Vec<bool>,
    /// By kind, the fields the walk reads for the families (see [`FIELDED`]).
    fielded: Vec<Vec<(&'static str, Option<u16>)>>,
}

impl KindTable {
    fn of(grammar: Grammar) -> &'static KindTable {
        static TABLES: [OnceLock<KindTable>; GRAMMARS.len()] =
            [const { OnceLock::new() }; GRAMMARS.len()];
        TABLES[grammar.slot()].get_or_init(|| {
            let language = grammar.tree_sitter_language();
            let families = all_families();
            let names: Vec<String> = (0..language.node_kind_count())
                .map(|id| {
                    let id = u16::try_from(id).unwrap_or(u16::MAX);
                    language.node_kind_for_id(id).unwrap_or_default().to_owned()
                })
                .collect();
            // Named kinds only: an anonymous token (the keyword `class`) may share its name with
            // a kind a family handles (a class expression), and tokens are leaves, which the walk
            // does not always visit (see [`run`]).
            let masks = names
                .iter()
                .enumerate()
                .map(|(id, name)| {
                    let named = u16::try_from(id).is_ok_and(|id| language.node_kind_is_named(id));
                    families.iter().enumerate().fold(0u8, |mask, (bit, family)| {
                        if named && family.kinds().contains(&name.as_str()) {
                            mask | 1 << bit
                        } else {
                            mask
                        }
                    })
                })
                .collect();
            let syntax = grammar.syntax();
            let barren = names.iter().map(|name| barren_kind(syntax, name)).collect();
            let imports = names
                .iter()
                .enumerate()
                .map(|(id, name)| {
                    let named = u16::try_from(id).is_ok_and(|id| language.node_kind_is_named(id));
                    named
                        && match syntax {
                            Syntax::Python => {
                                matches!(
                                    name.as_str(),
                                    "import_statement" | "import_from_statement"
                                )
                            }
                            Syntax::JavaScript => {
                                matches!(name.as_str(), "import_statement" | "export_statement")
                            }
                            // Read by the import walk, never on the recognisers' way.
                            Syntax::Rust => false,
                        }
                })
                .collect();
            let fielded = names
                .iter()
                .enumerate()
                .map(|(id, name)| {
                    let named = u16::try_from(id).is_ok_and(|id| language.node_kind_is_named(id));
                    let fields = FIELDED.iter().find(|(kind, _)| named && kind == name);
                    let fields = fields.map_or(&[][..], |&(_, fields)| fields);
                    // Each field's id, looked up once here rather than on every node.
                    fields
                        .iter()
                        .map(|&f| (f, language.field_id_for_name(f).map(std::num::NonZero::get)))
                        .collect()
                })
                .collect();
            KindTable { names, families: masks, barren, imports, fielded }
        })
    }
}

/// Whether the walk may skip a node's children, by the node's kind: a fast path for speed.
/// Skipped are string literals that cannot interpolate (quotes, fragments and escape sequences
/// below; literals are common, each with three or more children), import statements and JSX
/// closing tags (names only below), Python annotations and TypeScript's type-level nodes (types
/// only below).
/// A node with a syntax error below is walked. Read once per kind into the [`KindTable`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Barren {
    /// Walked.
    No,
    /// Skipped unless a syntax error is below.
    UnlessBroken,
    /// A Python string: skipped unless it is an f-string (or t-string) or broken.
    PythonString,
}

fn barren_kind(syntax: Syntax, kind: &str) -> Barren {
    match syntax {
        Syntax::Python => match kind {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                Barren::UnlessBroken
            }
            // Annotations (`x: Mapped[int]`, `-> list[User]`): a recogniser that reads one
            // (FastAPI's `Annotated[…, Depends(…)]`, SQLAlchemy's `Mapped[…]`) reads it from
            // the parameter or assignment that holds it, never from the walk.
            "type" => Barren::UnlessBroken,
            "string" => Barren::PythonString,
            _ => Barren::No,
        },
        Syntax::JavaScript => match kind {
            // A JS/TS string never interpolates; a template literal is a `template_string`.
            "string" => Barren::UnlessBroken,
            // Static imports (names and a module specifier; `import()` is a call, elsewhere) and
            // JSX closing tags (`</Foo.Bar>`, names only).
            "import_statement" | "jsx_closing_element" => Barren::UnlessBroken,
            // TypeScript's type level: annotations, type arguments and parameters, type aliases
            // and interfaces hold types only, never a value that runs (a `typeof x` query names a
            // value without reading it). Generated API clients are mostly types.
            "type_annotation"
            | "opting_type_annotation"
            | "omitting_type_annotation"
            | "type_arguments"
            | "type_parameters"
            | "type_alias_declaration"
            | "interface_declaration" => Barren::UnlessBroken,
            _ => Barren::No,
        },
        Syntax::Rust => match kind {
            // Literals, `use` items and attributes hold no call; types only types.
            "string_literal"
            | "raw_string_literal"
            | "use_declaration"
            | "attribute_item"
            | "inner_attribute_item"
            | "type_arguments"
            | "type_parameters"
            | "type_item" => Barren::UnlessBroken,
            _ => Barren::No,
        },
    }
}

/// True for a node below which no family handles anything, so the walk does not descend into it.
fn is_barren(node: Node<'_>, barren: Barren, cx: &Context<'_>) -> bool {
    match barren {
        Barren::No => false,
        Barren::UnlessBroken => !node.has_error(),
        // Only f-strings (and t-strings) interpolate; the prefix is written before the quote.
        Barren::PythonString => {
            let head = cx.source.as_bytes().get(node.start_byte()..).unwrap_or_default();
            let mut prefix = head.iter().take(4).take_while(|b| !matches!(b, b'"' | b'\''));
            !node.has_error() && !prefix.any(|b| matches!(b, b'f' | b'F' | b't' | b'T'))
        }
    }
}

/// True when every child of `node` is a leaf: a fast path for speed. No family handles a kind
/// that is a leaf (identifiers, punctuation, keywords; a test checks it), so the walk need not
/// step onto them, and stepping costs as much as visiting: about a quarter of a tree's nodes
/// are such leaves (`a.b`, `f(x, y)`, `k=v`). tree-sitter keeps the descendant count of every
/// node, so the test reads two numbers.
fn only_leaves_below(node: Node<'_>, children: u32) -> bool {
    children > 0 && usize::try_from(children).is_ok_and(|c| node.descendant_count() == c + 1)
}

/// Which imports the walk of [`run`] reads on its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Imports {
    /// None: they were read before.
    None,
    /// Python's imports inside function and class bodies ([`crate::python::nested_import`]),
    /// which the import walk left to this one (see [`crate::python::Reach::Outside`]).
    Inside,
    /// JavaScript's imports, all statements ([`crate::typescript::statements_only`]): read
    /// here, with no import walk before.
    Statements,
}

/// Runs every interested family over one tree, and reads the imports `imports` names on the
/// way. Returns false when no family wanted the file, so nothing was walked (and no import
/// read).
pub(crate) fn run(
    path: &RepoPath,
    grammar: Grammar,
    tree: &Tree,
    source: &str,
    facts: &mut FileFacts,
    imports: Imports,
) -> bool {
    let mut cx = Context::new(path, grammar, source);
    cx.gate = Gate::of(cx.syntax).and_then(|gate| Some((gate, gate.scan(source)?)));
    let mut families = all_families();
    let wanted = families
        .iter()
        .enumerate()
        .fold(0u8, |mask, (bit, f)| if f.wants(&cx) { mask | 1 << bit } else { mask });
    if wanted == 0 {
        return false;
    }
    let read_imports = imports != Imports::None;
    let table = KindTable::of(grammar);
    let fielded = |id: usize| match (table.fielded.get(id), table.families.get(id)) {
        (Some(fields), Some(&mask)) if mask & wanted != 0 => fields.as_slice(),
        _ => &[],
    };
    walk_counted(tree, &cx, fielded, |node, id, children, at_node| {
        // Ids past the table (ERROR nodes) go to every family by their name, as any kind did
        // before the table.
        let (kind, mask, barren) =
            match (table.names.get(id), table.families.get(id), table.barren.get(id)) {
                (Some(name), Some(&mask), Some(&barren)) => (name.as_str(), mask & wanted, barren),
                _ => {
                    let kind = node.kind_name();
                    (kind, wanted, barren_kind(cx.syntax, kind))
                }
            };
        if read_imports && table.imports.get(id).copied().unwrap_or(false) {
            match cx.syntax {
                Syntax::Python => {
                    crate::python::nested_import(node, at_node.ancestry(), source, facts);
                }
                Syntax::JavaScript => {
                    crate::typescript::statement(node, at_node.ancestry(), source, facts);
                }
                Syntax::Rust => {}
            }
        }
        if mask != 0 {
            for (bit, family) in families.iter_mut().enumerate() {
                if mask & 1 << bit != 0 {
                    family.visit(node, kind, at_node, facts);
                }
            }
        }
        !is_barren(node, barren, &cx) && !only_leaves_below(node, children)
    });
    for (bit, family) in families.iter_mut().enumerate() {
        if wanted & 1 << bit != 0 {
            family.finish(&cx, facts);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parent read from the walk is the parent tree-sitter gives, for the visited node, its
    /// ancestors and its descendants, in sound and broken code of each grammar.
    #[test]
    fn parents_from_the_walk_match_tree_sitter() {
        let sources = [
            (
                "a.py",
                "import os\nclass A(B):\n    x: int = f(y)[0]\n    def m(self, *a, **k):\n        return [i for i in self.q if i]\n@app.get(\"/x\")\nasync def h():\n    s = f\"SELECT {t}\"\n",
            ),
            ("b.py", "def broken(:\n    x = (1,\nclass C:\n    pass\n"),
            (
                "c.ts",
                "export const api = axios.create({ baseURL: `${B}/v1` });\nclass K { @Get() m(@Param() p: string): T<U> { return this.s.get(p) as any; } }\n",
            ),
            (
                "d.tsx",
                "const C = () => <div a={x ? <b/> : null}>{items.map(i => <I k={i}/>)}</div>;\nlet = ;\n",
            ),
            (
                "e.js",
                "module.exports = function (app) { app.get('/x', (q, r) => r.send(require('y'))); };\n",
            ),
        ];
        let mut parsers = crate::language::Parsers::new();
        for (file, source) in sources {
            let path = RepoPath::new(file).unwrap();
            let grammar = crate::grammar_for(&path).unwrap();
            let tree = parsers.get(grammar).parse(source, None).unwrap();
            let cx = Context::new(&path, grammar, source);
            let mut visited = 0;
            walk(
                &tree,
                &cx,
                |_| &[],
                |node, at| {
                    visited += 1;
                    let mut below = vec![node];
                    let mut cursor = node.walk();
                    for child in node.children(&mut cursor) {
                        let mut inner = child.walk();
                        below.extend(child.children(&mut inner));
                        below.push(child);
                    }
                    for n in below.into_iter().chain(at.ancestry.iter().copied()) {
                        assert_eq!(at.parent(n), n.parent(), "{file}: parent of {}", n.kind_name());
                    }
                    true
                },
            );
            assert_eq!(visited, tree.root_node().descendant_count(), "{file}");
        }
    }

    /// Every source file of the repository's fixtures that a grammar reads: its path, grammar
    /// and text. Fixtures that are not UTF-8 on purpose are left out (they are refused before
    /// any walk).
    fn fixture_sources() -> Vec<(RepoPath, Grammar, String)> {
        let fixtures =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut sources = Vec::new();
        for entry in ignore::WalkBuilder::new(&fixtures).standard_filters(false).build() {
            let entry = entry.unwrap();
            let relative = entry.path().strip_prefix(&fixtures).unwrap().to_string_lossy();
            let Some(path) = RepoPath::new(&relative.replace('\\', "/")).ok() else { continue };
            let Some(grammar) = crate::grammar_for(&path) else { continue };
            let Ok(source) = std::fs::read_to_string(entry.path()) else { continue };
            sources.push((path, grammar, source));
        }
        sources
    }

    /// The fields the walk reads for a visited node are the fields tree-sitter gives, for every
    /// field name of the grammar, on every node of every fixture source (sound and broken), and
    /// a look-up on any other node is tree-sitter's.
    #[test]
    fn fields_read_by_the_walk_match_tree_sitter() {
        let mut parsers = crate::language::Parsers::new();
        let mut checked = 0;
        for (path, grammar, source) in fixture_sources() {
            let relative = path.as_str();
            let tree = parsers.get(grammar).parse(&source, None).unwrap();
            let cx = Context::new(&path, grammar, &source);
            let language = grammar.tree_sitter_language();
            let names: Vec<&'static str> = (1..=language.field_count())
                .filter_map(|id| language.field_name_for_id(u16::try_from(id).ok()?))
                .map(|n| &*Box::leak(n.to_owned().into_boxed_str()))
                .collect();
            let every: Fielded = Box::leak(
                names
                    .iter()
                    .map(|&n| (n, language.field_id_for_name(n).map(std::num::NonZero::get)))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            );
            walk(
                &tree,
                &cx,
                |_| every,
                |node, at| {
                    for &name in &names {
                        let id = |n: Option<Node<'_>>| n.map(|n| n.id());
                        assert_eq!(
                            id(at.field(node, name)),
                            id(node.field(name)),
                            "{relative}: {name}"
                        );
                        if let Some(child) = node.child(0) {
                            assert_eq!(id(at.field(child, name)), id(child.field(name)));
                        }
                    }
                    checked += 1;
                    true
                },
            );
        }
        assert!(checked > 10_000, "only {checked} nodes checked");
    }

    /// The member name read from a member access's text is its field's text, on every member
    /// access of every fixture source and of hand-written awkward ones (comments, optional
    /// chains, private names, line continuations, unicode).
    #[test]
    fn member_names_read_from_the_text_match_the_field() {
        use crate::syntax::text;
        let awkward = [
            ("a.py", "x = a.b\ny = a . c\nz = (a.\\\n    d)\nw = a.  # c\\\n\n"),
            ("b.py", "q = obj.café(1)\nr = f(x).y.z\ns = a.b # tail\n"),
            ("c.ts", "a?.b; a.#c; a /* x */ . d; a.\n  e; x.$y; o.f /* t */;\n"),
            ("d.js", "class K { #p; m() { return this.#p + a.b?.c + x[0].ñ; } }\n"),
        ];
        let mut sources = fixture_sources();
        for (file, source) in awkward {
            let path = RepoPath::new(file).unwrap();
            let grammar = crate::grammar_for(&path).unwrap();
            sources.push((path, grammar, source.to_owned()));
        }
        let mut parsers = crate::language::Parsers::new();
        let mut checked = 0;
        for (path, grammar, source) in sources {
            let tree = parsers.get(grammar).parse(&source, None).unwrap();
            let cx = Context::new(&path, grammar, &source);
            walk(
                &tree,
                &cx,
                |_| &[],
                |node, _| {
                    let field = match node.kind_name() {
                        "attribute" => "attribute",
                        "member_expression" => "property",
                        _ => {
                            assert_eq!(crate::syntax::member_name(node, &source), None);
                            return true;
                        }
                    };
                    let expected = node.field(field).map(|n| text(n, &source));
                    assert_eq!(
                        crate::syntax::member_name(node, &source),
                        expected,
                        "{}: {}",
                        path.as_str(),
                        text(node, &source)
                    );
                    checked += 1;
                    true
                },
            );
        }
        assert!(checked > 1_000, "only {checked} member accesses checked");
    }

    /// The gate answers for every set of words what searching the set word by word answers, on
    /// every fixture source and on texts that hold one word each, overlapping others.
    #[test]
    fn the_gate_answers_as_the_word_by_word_search() {
        let mut sources: Vec<(Syntax, String)> = fixture_sources()
            .into_iter()
            .map(|(_, grammar, source)| (grammar.syntax(), source))
            .collect();
        for syntax in [Syntax::Python, Syntax::JavaScript] {
            for set in gate_words(syntax) {
                for word in set.words {
                    sources.push((syntax, format!("x {word} y")));
                    sources.push((syntax, format!("{word}{word}")));
                    sources.push((syntax, word[..word.len() - 1].to_owned()));
                }
            }
            sources.push((syntax, String::new()));
        }
        let path = RepoPath::new("a.py").unwrap();
        let mut checked = 0;
        for (syntax, source) in &sources {
            let gate = Gate::of(*syntax).unwrap();
            let seen = gate.scan(source).unwrap();
            let mut cx = Context::new(&path, Grammar::Python, source);
            cx.syntax = *syntax;
            cx.gate = Some((gate, seen));
            for set in gate_words(*syntax) {
                assert_eq!(set.any_in(&cx), set.any_in_text(source), "{syntax:?}: {source:.80}");
                checked += 1;
            }
        }
        assert!(checked > 1_000, "only {checked} answers checked");
    }

    /// A kind a family lists but no grammar has would silently never reach the family.
    #[test]
    fn every_kind_a_family_handles_exists_in_a_grammar() {
        for family in all_families() {
            for kind in family.kinds() {
                let known =
                    Grammar::all().any(|g| KindTable::of(g).names.iter().any(|n| n == kind));
                assert!(known, "no grammar has a node kind {kind}");
            }
        }
    }

    /// The walk skips the children of a node whose children are all leaves
    /// ([`only_leaves_below`]), which is right only while no family handles a kind that can be
    /// a leaf. Every source file of the repository's fixtures, in every grammar, is parsed and
    /// no leaf in it (but an empty file's root, which is always visited) may be of a kind any
    /// family handles.
    #[test]
    fn no_family_handles_a_leaf() {
        let mut parsers = crate::language::Parsers::new();
        let mut leaves = 0;
        for (path, grammar, source) in fixture_sources() {
            let relative = path.as_str();
            let tree = parsers.get(grammar).parse(&source, None).unwrap();
            let table = KindTable::of(grammar);
            let mut cursor = tree.root_node().walk();
            loop {
                let node = cursor.node();
                // The root is always visited: an empty file's module has no children.
                if node.child_count() == 0 && node.id() != tree.root_node().id() {
                    leaves += 1;
                    let mask = table.families.get(usize::from(node.kind_id())).copied();
                    assert_eq!(
                        mask.unwrap_or(0),
                        0,
                        "{relative}: a family handles leaf {}",
                        node.kind_name()
                    );
                }
                if !crate::syntax::advance(&mut cursor, true) {
                    break;
                }
            }
        }
        assert!(leaves > 10_000, "the fixtures hold {leaves} leaves: too few to say anything");
    }
}
