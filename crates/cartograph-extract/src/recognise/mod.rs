//! Architecture recognisers: routes served, HTTP calls, tables and environment variables.
//!
//! Each recogniser lives in one file with a doc comment that says what it recognises, what it
//! refuses, and an example; [`registry::RECOGNISERS`] lists them all (`cartograph recognisers`).
//! Recognisers share one walk of each file's syntax tree: [`run`] asks every recogniser family
//! whether the file can hold anything for it (a cheap text test), walks the tree once if any says
//! yes, and hands every node to the interested families. Facts are per file and unresolved;
//! `cartograph-pipeline` joins them across files (prefix chains, URL-to-route matching, models
//! to tables).

pub mod calls;
pub mod env;
pub mod js_routes;
pub mod py_routes;
pub mod registry;
pub mod tables;

pub use calls::CallFacts;
pub use env::EnvFacts;
pub use js_routes::JsRouteFacts;
pub use py_routes::PyRouteFacts;
pub use tables::TableFacts;

use cartograph_core::RepoPath;
use tree_sitter::{Node, Tree};

use crate::{FileFacts, Grammar};

/// What every recogniser gets besides the node: the file and its text.
pub struct Context<'s> {
    pub path: &'s RepoPath,
    pub grammar: Grammar,
    pub source: &'s str,
}

/// A family of recognisers that shares the walk.
pub(crate) trait Family {
    /// A cheap test on the text: can this file hold anything for this family?
    fn wants(&self, cx: &Context<'_>) -> bool;
    /// Called for every node of the tree in document order (pre-order), with the node's kind
    /// read once for all families (reading it costs a C string conversion).
    fn visit(&mut self, node: Node<'_>, kind: &str, cx: &Context<'_>, facts: &mut FileFacts);
    /// Called once after the walk, for facts that need the whole file.
    fn finish(&mut self, cx: &Context<'_>, facts: &mut FileFacts);
}

/// Runs every interested family over one tree.
pub(crate) fn run(
    path: &RepoPath,
    grammar: Grammar,
    tree: &Tree,
    source: &str,
    facts: &mut FileFacts,
) {
    let cx = Context { path, grammar, source };
    let mut families: Vec<Box<dyn Family>> = vec![
        Box::new(env::Env::default()),
        Box::new(calls::Calls::default()),
        Box::new(tables::Tables::default()),
        Box::new(py_routes::PyRoutes::default()),
        Box::new(js_routes::JsRoutes::default()),
    ];
    families.retain(|f| f.wants(&cx));
    if families.is_empty() {
        return;
    }
    let mut cursor = tree.root_node().walk();
    'walk: loop {
        let node = cursor.node();
        let kind = node.kind();
        for family in &mut families {
            family.visit(node, kind, &cx, facts);
        }
        if cursor.goto_first_child() {
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
    for family in &mut families {
        family.finish(&cx, facts);
    }
}
