//! JavaScript's syntax vocabulary (TypeScript and TSX included): the shapes every JavaScript
//! recogniser reads, named once. Helpers that only one family needs stay in that family.

use crate::syntax::KindExt;
use tree_sitter::Node;

use super::{FieldExt, literal_string, text};

/// The named arguments of an `arguments` node, comments left out.
pub(crate) fn named_args(arguments: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = arguments.walk();
    arguments.named_children(&mut cursor).filter(|a| a.kind_name() != "comment").collect()
}

/// The name of an object-literal key: `url` in `{ url: … }` or `{ "url": … }`; `None` for a
/// computed key.
pub(crate) fn property_key(key: Node<'_>, source: &str) -> Option<String> {
    match key.kind_name() {
        "property_identifier" => Some(text(key, source).to_owned()),
        _ => literal_string(key, source),
    }
}

/// The value of `key` in an object literal (`{ prefix: "/p" }`).
pub(crate) fn object_property<'t>(object: Node<'t>, key: &str, source: &str) -> Option<Node<'t>> {
    let mut cursor = object.walk();
    for pair in object.named_children(&mut cursor) {
        if pair.kind_name() != "pair" {
            continue;
        }
        let Some(k) = pair.field("key") else {
            continue;
        };
        if property_key(k, source).as_deref() == Some(key) {
            return pair.field("value");
        }
    }
    None
}
