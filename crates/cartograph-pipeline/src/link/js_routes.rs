//! Routes served by TypeScript/JavaScript web frameworks, with mounts composed across modules.
//!
//! No recogniser of this family is registered yet, so there is nothing to link.

use super::{LinkInput, Linked, ServedRoute};

/// The routes of this family.
pub fn link(_input: &LinkInput<'_>, _linked: &mut Linked) -> Vec<ServedRoute> {
    Vec::new()
}
