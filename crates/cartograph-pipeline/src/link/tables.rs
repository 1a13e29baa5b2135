//! Tables: `defines`, `reads` and `writes` edges between modules and `table` nodes.
//!
//! No recogniser of this family is registered yet, so there is nothing to link.

use super::{LinkInput, Linked};

/// Links this family's facts.
pub fn link(_input: &LinkInput<'_>, _linked: &mut Linked) {}
