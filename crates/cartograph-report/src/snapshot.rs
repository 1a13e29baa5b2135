//! The `snapshot` document: the full graph of one tree — nodes, edges with evidence, provenance,
//! confidence and location, refusals, cycles and statistics.

use std::collections::BTreeMap;

use cartograph_core::{Edge, Node, Refusal, SourceLocation};
use cartograph_graph::ArchitectureGraph;
use cartograph_pipeline::{Analysis, AnalysisStats};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;

pub const SCHEMA_NAME: &str = "snapshot";
pub const SCHEMA_VERSION: &str = "1.1";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SnapshotDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    pub stats: StatsDoc,
    pub nodes: Vec<NodeDoc>,
    pub edges: Vec<EdgeDoc>,
    pub refusals: Vec<RefusalDoc>,
    /// Import cycles (runtime imports only), each a sorted list of module ids.
    pub cycles: Vec<Vec<String>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct StatsDoc {
    pub files_seen: u64,
    pub files_analysed: u64,
    pub files_skipped: u64,
    pub bytes_analysed: u64,
    pub files_by_language: BTreeMap<String, u64>,
    pub error_regions: u64,
    pub files_with_error_regions: u64,
    pub builtin_imports: u64,
    pub excluded_dirs: Vec<String>,
    pub nodes: u64,
    pub edges: u64,
    pub refusals: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeDoc {
    /// `kind:name`, unique in the document.
    pub id: String,
    pub kind: String,
    /// The node's identity within its kind.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub python_module: Option<String>,
    /// A route's template with parameter names (`/items/{item_id}`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub display_path: Option<String>,
    /// A route's handler.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub handler: Option<HandlerDoc>,
    /// The recogniser a route, table or call target was found by.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub framework: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HandlerDoc {
    pub module: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub function: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EdgeDoc {
    /// Local to this document: `e` plus the edge's position in identity order.
    pub id: String,
    pub kind: String,
    pub from: String,
    pub to: String,
    pub evidence: String,
    pub provenance: String,
    pub confidence: String,
    pub location: LocationDoc,
    pub type_only: bool,
    pub occurrences: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct LocationDoc {
    pub path: String,
    /// 1-based; 0 when the location is a whole file.
    pub line: u32,
    pub column: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusalDoc {
    pub kind: String,
    pub location: LocationDoc,
    pub reason: String,
}

impl SnapshotDocument {
    pub fn from_analysis(analysis: &Analysis) -> Self {
        let graph = ArchitectureGraph::new(&analysis.nodes, &analysis.edges);
        let cycles = graph
            .import_cycles(&analysis.edges)
            .into_iter()
            .map(|c| c.modules.iter().map(|k| k.id()).collect())
            .collect();
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            stats: StatsDoc::from_analysis(analysis),
            nodes: analysis.nodes.iter().map(NodeDoc::from_node).collect(),
            edges: analysis
                .edges
                .iter()
                .enumerate()
                .map(|(i, e)| EdgeDoc::from_edge(i, e))
                .collect(),
            refusals: analysis.refusals.iter().map(RefusalDoc::from_refusal).collect(),
            cycles,
        }
    }
}

impl StatsDoc {
    pub fn from_analysis(analysis: &Analysis) -> Self {
        let AnalysisStats {
            files_seen,
            files_analysed,
            files_skipped,
            bytes_analysed,
            files_by_language,
            error_regions,
            files_with_error_regions,
            builtin_imports,
            excluded_dirs,
        } = &analysis.stats;
        Self {
            files_seen: *files_seen,
            files_analysed: *files_analysed,
            files_skipped: *files_skipped,
            bytes_analysed: *bytes_analysed,
            files_by_language: files_by_language
                .iter()
                .map(|(l, n)| (l.as_str().to_owned(), *n))
                .collect(),
            error_regions: *error_regions,
            files_with_error_regions: *files_with_error_regions,
            builtin_imports: *builtin_imports,
            excluded_dirs: excluded_dirs.iter().map(ToString::to_string).collect(),
            nodes: analysis.nodes.len() as u64,
            edges: analysis.edges.len() as u64,
            refusals: analysis.refusals.len() as u64,
        }
    }
}

impl NodeDoc {
    pub fn from_node(node: &Node) -> Self {
        Self {
            id: node.key.id(),
            kind: node.key.kind().as_str().to_owned(),
            name: node.key.name().to_owned(),
            language: node.attrs.language.map(|l| l.as_str().to_owned()),
            component: node.attrs.component.clone(),
            python_module: node.attrs.python_module.clone(),
            display_path: node.attrs.display_path.clone(),
            handler: node.attrs.handler.as_ref().map(|h| HandlerDoc {
                module: h.module.as_str().to_owned(),
                function: h.function.clone(),
            }),
            framework: node.attrs.framework.clone(),
        }
    }
}

impl EdgeDoc {
    pub fn from_edge(index: usize, edge: &Edge) -> Self {
        Self {
            id: format!("e{index}"),
            kind: edge.kind.as_str().to_owned(),
            from: edge.from.id(),
            to: edge.to.id(),
            evidence: edge.evidence.as_str().to_owned(),
            provenance: edge.provenance.as_str().to_owned(),
            confidence: edge.confidence.as_str().to_owned(),
            location: LocationDoc::from_location(&edge.location),
            type_only: edge.type_only,
            occurrences: edge.occurrences,
        }
    }
}

impl LocationDoc {
    pub fn from_location(location: &SourceLocation) -> Self {
        Self {
            path: location.path.as_str().to_owned(),
            line: location.line,
            column: location.column,
        }
    }
}

impl RefusalDoc {
    pub fn from_refusal(refusal: &Refusal) -> Self {
        Self {
            kind: refusal.kind.as_str().to_owned(),
            location: LocationDoc::from_location(&refusal.location),
            reason: refusal.reason.clone(),
        }
    }
}
