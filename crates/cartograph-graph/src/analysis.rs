//! The result of analysing one tree, as every layer above the analyser reads it: nodes, edges and
//! refusals in identity order, with the counts that say what the analysis covered.
//!
//! The analyser (`cartograph-pipeline`) builds an [`Analysis`]; the graph questions, the report
//! documents and ASK read one without depending on the analyser, and a snapshot document reads
//! back into one.

use std::collections::BTreeMap;

use cartograph_core::{Edge, Language, Node, Refusal, RepoPath};

use crate::GraphView;

/// Counts that describe what an analysis covered.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AnalysisStats {
    /// Files and links the walk met (excluded directories are not entered).
    pub files_seen: u64,
    /// Source files parsed.
    pub files_analysed: u64,
    /// Files skipped with a refusal (too large, binary, unreadable, links, bundles).
    pub files_skipped: u64,
    pub bytes_analysed: u64,
    pub files_by_language: BTreeMap<Language, u64>,
    /// Syntax-error regions over all files, and the files that had any.
    pub error_regions: u64,
    pub files_with_error_regions: u64,
    /// Imports of the standard library or runtime built-ins left out of the graph.
    pub builtin_imports: u64,
    /// Directories not entered because their name is excluded, in path order.
    pub excluded_dirs: Vec<RepoPath>,
    /// Files of the tree that are not source files of an analysed language (neither parsed nor
    /// refused: documentation, images, data, and languages Cartograph does not read), by
    /// extension in lower case, `""` for none.
    pub other_files_by_extension: BTreeMap<String, u64>,
}

/// The result of analysing one tree: everything sorted by identity. It serializes (for the
/// analyser's cache of whole-tree results) field by field, with no field skipped.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Analysis {
    /// Nodes in key order.
    pub nodes: Vec<Node>,
    /// Edges in identity order; repeated claims are merged into one edge.
    pub edges: Vec<Edge>,
    /// Refusals in location order.
    pub refusals: Vec<Refusal>,
    pub stats: AnalysisStats,
    /// Directories that are package roots: Python source roots and folders holding a
    /// `package.json`. The component rule may group by them.
    pub package_roots: Vec<String>,
    /// For trees analysed together (`cartograph_pipeline::analyse_sources`): the number of each analysed file's
    /// content among the distinct contents its path has across those trees, in tree order (the
    /// first tree's is 0). Two of those analyses hold the same number for a path exactly when
    /// the file's content is the same. Empty for a tree analysed alone.
    pub file_versions: BTreeMap<RepoPath, u32>,
}

impl Analysis {
    /// The graph questions' view of this analysis.
    pub fn view(&self) -> GraphView<'_> {
        GraphView { nodes: &self.nodes, edges: &self.edges, refusals: &self.refusals }
    }

    /// Shares the texts of its paths and keys through `pool`: one allocation per distinct text,
    /// as a tree analysed in this run holds them. An analysis read back from an encoding (the
    /// cache, the spill, a snapshot) holds a copy per value, in a large tree more memory than its
    /// edges. Nothing else changes.
    pub fn share_texts(&mut self, pool: &mut cartograph_core::TextPool) {
        for node in &mut self.nodes {
            node.share(pool);
        }
        for edge in &mut self.edges {
            edge.share(pool);
        }
        for refusal in &mut self.refusals {
            refusal.share(pool);
        }
        self.file_versions = std::mem::take(&mut self.file_versions)
            .into_iter()
            .map(|(mut path, version)| {
                path.share(pool);
                (path, version)
            })
            .collect();
    }
}
