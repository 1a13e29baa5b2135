//! The query layer of Cartograph's two front ends, the `cartograph` CLI and the MCP server: what
//! both do between parsing a request and printing or answering it, written once.
//!
//! - [`tree`]: the [`LoadedTree`] both answer from; opening a TREE argument (directory, git
//!   revision, snapshot) and analysing it; analysing a diff's two trees together.
//! - [`failure`]: one sentence, with no absolute path, for a tree the analyser could not read.
//! - [`targets`]: what a user typed (a path, a route, a node id, ...) as node keys.
//! - [`documents`] and [`diff`]: the map, trace, blast and diff documents, the modules a change
//!   touched and the diff's Markdown report with its blast-radius section.
//! - [`gate`]: the `--fail-on` gate over a diff's findings.
//! - [`config`] and [`rules`]: the rules file, its baseline, `check`, and a diff's rule
//!   findings.
//! - [`names`]: how trees and user-given paths are named in reports and messages.
//!
//! Synchronous and offline: no async runtime, no network, no authorization of its own. The MCP
//! server authorizes every tree through its grant before anything here sees the tree's files; it
//! passes its authorized sources in and never asks this crate to open an argument.

pub mod config;
pub mod diff;
pub mod documents;
pub mod failure;
pub mod gate;
pub mod names;
pub mod rules;
pub mod targets;
pub mod tree;

pub use diff::{changed_modules, diff_document, diff_markdown};
pub use documents::{blast_document, map_document, trace_document};
pub use failure::failure_sentence;
pub use gate::{FailOn, GateMet, UnknownFindingKind};
pub use names::shown;
pub use targets::resolve_targets;
pub use tree::{
    LoadError, LoadedTree, OpenError, OpenedTree, PairError, Side, TreeFiles, analyse_pair,
    load_pair, open_tree,
};
