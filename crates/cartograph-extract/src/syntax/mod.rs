//! Shared tree helpers: positions, string literals, fields by name, and the count of syntax-error
//! regions; one vocabulary module per syntax family ([`python`], [`javascript`]) names the shapes
//! that family's recognisers read.

pub(crate) mod javascript;
pub(crate) mod python;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::LazyLock;

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use tree_sitter::{Language, Node, Tree, TreeCursor};

use crate::FileFacts;

/// 1-based line and column of a node's start.
pub(crate) fn position(node: Node<'_>) -> (u32, u32) {
    let p = node.start_position();
    (to_u32(p.row) + 1, to_u32(p.column) + 1)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The kind of a node, as [`Node::kind`] gives it.
///
/// This is a fast path for speed: `Node::kind` measures and checks a C string (a `strlen` and
/// a UTF-8 check) on every call, and the recognisers ask for kinds millions of times in a large
/// repository. The names are read once per grammar into a table indexed by kind id; a node of a
/// language outside the table, or an id past it (ERROR nodes), falls back to `Node::kind`.
pub(crate) trait KindExt<'t> {
    fn kind_name(&self) -> &'t str;
}

impl<'t> KindExt<'t> for Node<'t> {
    #[inline]
    fn kind_name(&self) -> &'t str {
        let language = self.language();
        let names = KIND_NAMES.iter().find(|(l, _)| *l == *language).map(|(_, names)| names);
        match names.and_then(|names| names.get(usize::from(self.kind_id()))) {
            Some(name) if !name.is_empty() => name,
            _ => self.kind(),
        }
    }
}

/// For every grammar, its node kind names by kind id.
static KIND_NAMES: LazyLock<Vec<(Language, Vec<String>)>> = LazyLock::new(|| {
    crate::language::Grammar::all()
        .map(|grammar| {
            let language = grammar.tree_sitter_language();
            let names = (0..language.node_kind_count())
                .map(|id| {
                    let id = u16::try_from(id).unwrap_or(u16::MAX);
                    language.node_kind_for_id(id).unwrap_or_default().to_owned()
                })
                .collect();
            (language, names)
        })
        .collect()
});

/// The text of a node; empty when the range is not a character boundary (cannot happen for text
/// tree-sitter parsed from a `&str`, but extraction never panics on it).
pub(crate) fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// The text of the name a member access ends with: `b` of Python's `a.b` (field `attribute`)
/// and of JavaScript's `a.b`, `a?.b`, `a.#b` (`#b`; field `property`); `None` for any other
/// node.
///
/// This is a fast path for speed: the recognisers ask every call's callee for its method name,
/// and a field look-up costs about 360 instructions where the name is the end of the node's
/// own text. The text is trusted only when a `.` (or `?.`) stands right before the name,
/// whitespace aside; anything else (a comment between) asks the tree.
pub(crate) fn member_name<'s>(node: Node<'_>, source: &'s str) -> Option<&'s str> {
    let field = match node.kind_name() {
        "attribute" => "attribute",
        "member_expression" => "property",
        _ => return None,
    };
    let whole = text(node, source).as_bytes();
    let name_chars = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$' || *b >= 0x80;
    let tail = whole.iter().rev().take_while(|b| name_chars(b)).count();
    let mut start = whole.len() - tail;
    if start > 0 && whole[start - 1] == b'#' {
        start -= 1;
    }
    let before = whole[..start].trim_ascii_end();
    if tail > 0
        && before.last() == Some(&b'.')
        && !whole[start..].first().is_some_and(u8::is_ascii_digit)
    {
        let from = node.start_byte() + start;
        return source.get(from..node.end_byte());
    }
    node.field(field).map(|n| text(n, source))
}

/// Moves a pre-order walk's cursor to the next node: into the current node's first child when
/// `descend`, else to the next sibling of it or of its nearest ancestor that has one. False
/// when the walk is over (back at the root).
pub(crate) fn advance(cursor: &mut TreeCursor<'_>, descend: bool) -> bool {
    if descend && cursor.goto_first_child() {
        return true;
    }
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
    }
}

/// Counts ERROR and MISSING regions (an ERROR node's own descendants are not counted again) and
/// records one `syntax-errors` refusal at the first region.
pub(crate) fn record_error_regions(path: &RepoPath, tree: &Tree, facts: &mut FileFacts) {
    let root = tree.root_node();
    if !root.has_error() {
        return;
    }
    let mut count = 0u32;
    let mut first: Option<(u32, u32)> = None;
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        let is_region = node.is_error() || node.is_missing();
        if is_region {
            count += 1;
            first.get_or_insert_with(|| position(node));
        }
        // Only descend into subtrees that contain an error, and not into an error region itself.
        if !advance(&mut cursor, !is_region && node.has_error()) {
            break 'walk;
        }
    }
    if count == 0 {
        return;
    }
    facts.error_regions = count;
    let (line, column) = first.unwrap_or((0, 0));
    facts.refusals.push(Refusal::new(
        RefusalKind::SyntaxErrors,
        SourceLocation::new(path.clone(), line, column),
        format!(
            "{count} syntax error region{} not analysed; facts outside them were extracted",
            if count == 1 { "" } else { "s" }
        ),
    ));
}

/// How many children a string may have to be read child by child rather than by a cursor.
const SHORT: u32 = 4;

/// The value of a plain string literal node: a Python `string` without interpolation or a JS/TS
/// `string` / substitution-free `template_string`. `None` for anything computed.
pub(crate) fn literal_string(node: Node<'_>, source: &str) -> Option<String> {
    match node.kind_name() {
        "string" => {
            let mut value = String::new();
            let mut piece = |child: Node<'_>| match child.kind_name() {
                "string_content" | "string_fragment" | "escape_sequence" => {
                    value.push_str(text(child, source));
                    true
                }
                "string_start" | "string_end" => true,
                // An f-string's interpolation, or anything else, makes it computed.
                _ => false,
            };
            let count = node.child_count();
            if count <= SHORT {
                // Most strings are a start, a content and an end (Python) or a fragment between
                // quotes (JS): children by index cost less than a cursor, made and freed.
                for i in 0..count {
                    if let Some(child) = node.child(i).filter(Node::is_named)
                        && !piece(child)
                    {
                        return None;
                    }
                }
            } else {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if !piece(child) {
                        return None;
                    }
                }
            }
            if node.named_child_count() == 0 {
                // A JS string with no fragment is the empty string; a Python string always has
                // start and end children, so it never reaches here.
                return Some(String::new());
            }
            Some(value)
        }
        "template_string" => {
            let mut value = String::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind_name() {
                    "string_fragment" | "escape_sequence" => value.push_str(text(child, source)),
                    _ => return None,
                }
            }
            Some(value)
        }
        _ => None,
    }
}

/// A child by field name, through a per-thread table of field ids.
///
/// tree-sitter's own `child_by_field_name` finds the field id by comparing the name with every
/// field name of the grammar (`strncmp`) on each call; the recognisers ask for fields millions of
/// times on a large tree, so the id is looked up once per grammar, name and thread.
pub(crate) trait FieldExt<'t> {
    fn field(&self, name: &'static str) -> Option<Node<'t>>;
}

impl<'t> FieldExt<'t> for Node<'t> {
    #[inline]
    fn field(&self, name: &'static str) -> Option<Node<'t>> {
        self.child_by_field_id(field_id(&self.language(), name)?)
    }
}

type FieldIds = HashMap<(usize, usize), Option<u16>, BuildHasherDefault<AddressHasher>>;

thread_local! {
    static FIELD_IDS: RefCell<Vec<(Language, FieldIds)>> = const { RefCell::new(Vec::new()) };
}

/// One entry of [`RECENT_FIELD_IDS`]: a grammar (see [`grammar_key`]), a name's address and
/// length, and its field id.
type RecentFieldId = (u64, usize, usize, Option<u16>);

thread_local! {
    /// A direct-mapped cache in front of [`FIELD_IDS`], a fast path for speed: a hit costs a few
    /// comparisons, where the table costs a borrow, a hash and a probe on every call. A miss
    /// asks the table and takes the slot.
    static RECENT_FIELD_IDS: [Cell<RecentFieldId>; 256] =
        const { [const { Cell::new((0, 0, 0, None)) }; 256] };
}

/// A number that tells grammars apart: [`AddressHasher`] over the grammar's address, which is a
/// one-to-one map of addresses (a rotation and a multiplication by an odd number).
fn grammar_key(language: &Language) -> u64 {
    let mut hasher = AddressHasher::default();
    language.hash(&mut hasher);
    hasher.finish()
}

fn field_id(language: &Language, name: &'static str) -> Option<u16> {
    let grammar = grammar_key(language);
    let address = name.as_ptr() as usize;
    let slot = (address ^ (address >> 8) ^ (grammar as usize >> 16)) % 256;
    RECENT_FIELD_IDS.with(|recent| {
        let (g, a, len, id) = recent[slot].get();
        if g == grammar && a == address && len == name.len() {
            return id;
        }
        let id = field_id_slow(language, name);
        recent[slot].set((grammar, address, name.len(), id));
        id
    })
}

fn field_id_slow(language: &Language, name: &'static str) -> Option<u16> {
    // A name is keyed by its address and length: each literal is one entry.
    let key = (name.as_ptr() as usize, name.len());
    FIELD_IDS.with(|cell| {
        let mut grammars = cell.borrow_mut();
        let index = match grammars.iter().position(|(l, _)| l == language) {
            Some(index) => index,
            None => {
                grammars.push((language.clone(), FieldIds::default()));
                grammars.len() - 1
            }
        };
        *grammars[index]
            .1
            .entry(key)
            .or_insert_with(|| language.field_id_for_name(name).map(std::num::NonZero::get))
    })
}

/// A map keyed by addresses (node ids, literal names): hashed with [`AddressHasher`].
pub(crate) type AddressMap<K, V> = HashMap<K, V, BuildHasherDefault<AddressHasher>>;

/// A multiplicative hash for keys that are already well spread (addresses and lengths).
#[derive(Default)]
pub(crate) struct AddressHasher(u64);

impl Hasher for AddressHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}
