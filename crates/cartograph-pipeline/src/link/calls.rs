//! HTTP calls: `calls` edges from modules to the routes they match, or to `external` nodes.
//!
//! No recogniser of this family is registered yet, so there is nothing to link.

use super::{LinkInput, Linked, ServedRoute};

/// Links calls to `routes`.
pub fn link(_input: &LinkInput<'_>, _routes: &[ServedRoute], _linked: &mut Linked) {}
