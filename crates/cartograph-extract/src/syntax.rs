//! Shared tree helpers: positions, string literals, and the count of syntax-error regions.

use cartograph_core::{Refusal, RefusalKind, RepoPath, SourceLocation};
use tree_sitter::{Node, Tree};

use crate::FileFacts;

/// 1-based line and column of a node's start.
pub(crate) fn position(node: Node<'_>) -> (u32, u32) {
    let p = node.start_position();
    (to_u32(p.row) + 1, to_u32(p.column) + 1)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The text of a node; empty when the range is not a character boundary (cannot happen for text
/// tree-sitter parsed from a `&str`, but extraction never panics on it).
pub(crate) fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
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
        if !is_region && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
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

/// The value of a plain string literal node: a Python `string` without interpolation or a JS/TS
/// `string` / substitution-free `template_string`. `None` for anything computed.
pub(crate) fn literal_string(node: Node<'_>, source: &str) -> Option<String> {
    match node.kind() {
        "string" => {
            let mut value = String::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "string_content" | "string_fragment" | "escape_sequence" => {
                        value.push_str(text(child, source));
                    }
                    "string_start" | "string_end" => {}
                    // An f-string's interpolation, or anything else, makes it computed.
                    _ => return None,
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
                match child.kind() {
                    "string_fragment" | "escape_sequence" => value.push_str(text(child, source)),
                    _ => return None,
                }
            }
            Some(value)
        }
        _ => None,
    }
}
