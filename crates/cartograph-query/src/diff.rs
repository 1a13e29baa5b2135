//! The diff of two loaded trees: its document, the modules the change touched, and the Markdown
//! report with the blast radius of those modules.

use std::collections::BTreeSet;

use cartograph_core::{Confidence, Edge, EdgeKind, NodeKey, NodeKind, Provenance};
use cartograph_graph::{Analysis, BlastOptions};
use cartograph_report::blast::{BlastDocument, render_blast_section};
use cartograph_report::diff::DiffDocument;
use cartograph_report::diff_markdown::{DiffMarkdownOptions, render_diff_with_blast};

use crate::tree::LoadedTree;

/// The budget for the blast-radius section inside the diff report.
pub const BLAST_SECTION_CHARS: usize = 8_000;

/// The diff document from `base` to `head`.
pub fn diff_document(base: &LoadedTree, head: &LoadedTree) -> DiffDocument {
    let result = cartograph_graph::diff(base.analysis.view(), head.analysis.view());
    DiffDocument::from_diff(&result, base.doc(), head.doc())
}

/// The diff report in Markdown, with the blast radius in `head` of the modules the change touched
/// (see [`changed_modules`]), walked at most `blast_depth` hops.
pub fn diff_markdown(
    doc: &DiffDocument,
    base: &Analysis,
    head: &Analysis,
    blast_depth: usize,
) -> String {
    let changed = changed_modules(base, head);
    let options = BlastOptions { max_depth: blast_depth, ..BlastOptions::default() };
    let blast = cartograph_graph::blast(head.view(), &changed, &options);
    let section = render_blast_section(&BlastDocument::from_blast(&blast), BLAST_SECTION_CHARS);
    render_diff_with_blast(doc, &DiffMarkdownOptions::default(), Some(&section))
}

/// Modules whose file content differs between the trees, plus modules only in head. Without
/// content versions (a side read from a snapshot), the modules an added, removed or changed edge
/// starts from. Only modules of `head`, in key order.
pub fn changed_modules(base: &Analysis, head: &Analysis) -> Vec<NodeKey> {
    let mut changed: Vec<NodeKey> =
        if !base.file_versions.is_empty() && !head.file_versions.is_empty() {
            head.file_versions
                .iter()
                .filter(|(path, version)| base.file_versions.get(*path) != Some(*version))
                .map(|(path, _)| NodeKey::module(path))
                .collect()
        } else {
            let before: BTreeSet<_> = base.edges.iter().map(edge_signature).collect();
            let after: BTreeSet<_> = head.edges.iter().map(edge_signature).collect();
            before
                .symmetric_difference(&after)
                .filter(|(_, from, ..)| from.kind() == NodeKind::Module)
                .map(|(_, from, ..)| (*from).clone())
                .collect()
        };
    changed.sort();
    changed.dedup();
    changed.retain(|key| head.nodes.binary_search_by(|n| n.key.cmp(key)).is_ok());
    changed
}

fn edge_signature(edge: &Edge) -> (EdgeKind, &NodeKey, &NodeKey, Confidence, Provenance) {
    (edge.kind, &edge.from, &edge.to, edge.confidence, edge.provenance)
}
