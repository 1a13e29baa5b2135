//! Environment variable reads.
//!
//! No recogniser of this family is registered yet: the family takes part in the shared walk only
//! once one is, and until then a file never holds facts for it.

use tree_sitter::Node;

use super::registry::Recogniser;
use super::{Context, Family};
use crate::FileFacts;

/// This family's recognisers, one per file of this folder.
pub const RECOGNISERS: &[Recogniser] = &[];

/// The facts of this family for one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvFacts {}

/// The family's state during one walk.
#[derive(Default)]
pub(crate) struct Env {}

impl Family for Env {
    fn wants(&self, _cx: &Context<'_>) -> bool {
        false
    }

    fn visit(&mut self, _node: Node<'_>, _cx: &Context<'_>, _facts: &mut FileFacts) {}

    fn finish(&mut self, _cx: &Context<'_>, _facts: &mut FileFacts) {}
}
