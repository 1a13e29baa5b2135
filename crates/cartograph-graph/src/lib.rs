//! The architecture graph and the questions asked of it.
//!
//! This is the only crate that depends on petgraph. [`ArchitectureGraph`] indexes the nodes and
//! edges of one analysis; [`ArchitectureGraph::import_cycles`] finds import cycles (SCC's
//! strongly connected components); [`components`] groups modules into components and weighs the
//! dependencies between them. [`Analysis`] is what the analyser hands to the layers above it: the
//! graph questions, the reports and ASK read it from here, below the analyser.

pub mod analysis;
pub mod blast;
pub mod components;
pub mod coverage;
mod cycles;
pub mod diff;
pub mod map;
pub mod policy;
pub mod target;
pub mod trace;

pub use analysis::{Analysis, AnalysisStats};
pub use blast::{Blast, BlastOptions, blast};
pub use components::{ComponentRule, ComponentSummary, assign_components, summarise_components};
pub use coverage::{Coverage, coverage};
pub use diff::{Finding, FindingKind, GraphDiff, Severity, diff};
pub use map::{Map, MapOptions, map};
pub use target::{TargetError, resolve_target};
pub use trace::{Trace, TraceOptions, trace};

use std::collections::HashMap;

use cartograph_core::{Edge, EdgeKind, Node, NodeKey, NodeKind};
use petgraph::graph::{DiGraph, NodeIndex};

/// An import cycle: the modules of one strongly connected component, in identity order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ImportCycle {
    pub modules: Vec<NodeKey>,
}

/// The nodes and edges of one analysis as a directed graph.
#[derive(Debug)]
pub struct ArchitectureGraph {
    graph: DiGraph<NodeKey, usize>,
    indices: HashMap<NodeKey, NodeIndex>,
}

impl ArchitectureGraph {
    /// Builds the graph. Edges whose ends are not among `nodes` get their nodes added, so a graph
    /// is always well-formed. Edge weights are indices into `edges`.
    pub fn new(nodes: &[Node], edges: &[Edge]) -> Self {
        let mut graph = DiGraph::with_capacity(nodes.len(), edges.len());
        let mut indices = HashMap::with_capacity(nodes.len());
        for node in nodes {
            indices.entry(node.key.clone()).or_insert_with(|| graph.add_node(node.key.clone()));
        }
        for (i, edge) in edges.iter().enumerate() {
            let from = *indices
                .entry(edge.from.clone())
                .or_insert_with(|| graph.add_node(edge.from.clone()));
            let to =
                *indices.entry(edge.to.clone()).or_insert_with(|| graph.add_node(edge.to.clone()));
            graph.add_edge(from, to, i);
        }
        Self { graph, indices }
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    pub fn contains(&self, key: &NodeKey) -> bool {
        self.indices.contains_key(key)
    }

    /// Cycles among module-to-module imports that run at import time: type-only imports
    /// (`if TYPE_CHECKING:`, `import type`) are left out, since they exist to break such cycles.
    /// Sorted by their first module; each cycle's modules in identity order.
    pub fn import_cycles(&self, edges: &[Edge]) -> Vec<ImportCycle> {
        cycles::import_cycles(&self.graph, |i| {
            let edge = &edges[i];
            edge.kind == EdgeKind::Imports
                && !edge.type_only
                && edge.from.kind() == NodeKind::Module
                && edge.to.kind() == NodeKind::Module
        })
    }
}

/// One analysed tree as the graph questions read it: nodes, edges and refusals in identity order.
#[derive(Debug, Clone, Copy)]
pub struct GraphView<'a> {
    pub nodes: &'a [Node],
    pub edges: &'a [Edge],
    pub refusals: &'a [cartograph_core::Refusal],
}
