//! Python's syntax vocabulary: the shapes every Python recogniser reads, named once.
//!
//! Modelled on ruff's `UnqualifiedName::from_expr` ([`dotted`], a dotted name from an attribute
//! chain) and `Arguments::find_argument_value` ([`find_argument_value`], an argument by keyword or
//! by position). Helpers that only one family needs stay in that family.

use crate::syntax::KindExt;
use tree_sitter::Node;

use super::{FieldExt, text};

/// An identifier or a chain of attributes on one (`a.b.c`), as text; `None` otherwise (a call,
/// a subscript or anything else in the chain, or a chain of more than 32 attributes).
pub(crate) fn dotted(node: Node<'_>, source: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = node;
    loop {
        match current.kind_name() {
            "identifier" => {
                parts.push(text(current, source));
                break;
            }
            "attribute" => {
                parts.push(text(current.field("attribute")?, source));
                current = current.field("object")?;
            }
            _ => return None,
        }
        if parts.len() > 32 {
            return None;
        }
    }
    parts.reverse();
    Some(parts.join("."))
}

/// `obj.attr(...)`: the object as a dotted name and the attribute.
pub(crate) fn callee_attribute(call: Node<'_>, source: &str) -> Option<(String, String)> {
    let function = call.field("function")?;
    if function.kind_name() != "attribute" {
        return None;
    }
    let object = dotted(function.field("object")?, source)?;
    let attr = text(function.field("attribute")?, source).to_owned();
    Some((object, attr))
}

/// The value node of keyword argument `name` in an `argument_list`.
pub(crate) fn keyword_argument<'t>(args: Node<'t>, name: &str, source: &str) -> Option<Node<'t>> {
    let mut cursor = args.walk();
    let found = args.named_children(&mut cursor).find(|a| {
        a.kind_name() == "keyword_argument"
            && a.field("name").is_some_and(|n| text(n, source) == name)
    });
    found.and_then(|a| a.field("value"))
}

/// The `index`-th positional argument of an `argument_list` (keyword arguments, splats and
/// comments are not counted).
pub(crate) fn positional_argument(args: Node<'_>, index: usize) -> Option<Node<'_>> {
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|a| {
            !matches!(
                a.kind_name(),
                "keyword_argument" | "list_splat" | "dictionary_splat" | "comment"
            )
        })
        .nth(index)
}

/// The argument for parameter `name`, passed by keyword or else as the `position`-th positional
/// argument: `include(router=r)` and `include(r)` alike.
pub(crate) fn find_argument_value<'t>(
    args: Node<'t>,
    name: &str,
    position: usize,
    source: &str,
) -> Option<Node<'t>> {
    keyword_argument(args, name, source).or_else(|| positional_argument(args, position))
}
