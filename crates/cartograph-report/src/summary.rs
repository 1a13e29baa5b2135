//! The `summary` document: counts by node kind, edge kind, provenance, confidence and language;
//! refusals by kind; import cycles; components and the dependencies between them.

use std::collections::BTreeMap;

use cartograph_core::{Confidence, EdgeKind, NodeKind, Provenance, RefusalKind};
use cartograph_graph::{Analysis, ArchitectureGraph, summarise_components};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
use crate::coverage::CoverageDoc;
use crate::snapshot::StatsDoc;

pub const SCHEMA_NAME: &str = "summary";
pub const SCHEMA_VERSION: &str = "1.3";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct SummaryDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    pub stats: StatsDoc,
    /// Every kind appears, with zero when absent, so readers need no defaults.
    pub nodes_by_kind: BTreeMap<String, u64>,
    pub edges_by_kind: BTreeMap<String, u64>,
    pub edges_by_provenance: BTreeMap<String, u64>,
    pub edges_by_confidence: BTreeMap<String, u64>,
    pub modules_by_language: BTreeMap<String, u64>,
    pub type_only_imports: u64,
    pub refusals_by_kind: BTreeMap<String, u64>,
    pub cycles: Vec<CycleDoc>,
    pub components: Vec<ComponentDoc>,
    /// Third-party packages with the number of modules importing each, by package id.
    pub packages: BTreeMap<String, u64>,
    /// What the analysis did not see (since 1.3).
    pub coverage: CoverageDoc,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CycleDoc {
    pub size: u64,
    pub modules: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ComponentDoc {
    pub name: String,
    pub modules: u64,
    /// Import edges to modules of other components, by component name.
    pub depends_on: BTreeMap<String, u64>,
    /// Distinct third-party packages imported.
    pub packages: u64,
}

impl SummaryDocument {
    pub fn from_analysis(analysis: &Analysis) -> Self {
        let mut nodes_by_kind = zeroed(NodeKind::ALL.map(NodeKind::as_str));
        let mut modules_by_language = BTreeMap::new();
        for node in &analysis.nodes {
            *nodes_by_kind.entry(node.key.kind().as_str().to_owned()).or_default() += 1;
            if node.key.kind() == NodeKind::Module {
                let language = node.attrs.language.map_or("other", |l| l.as_str());
                *modules_by_language.entry(language.to_owned()).or_default() += 1;
            }
        }
        let mut edges_by_kind = zeroed(EdgeKind::ALL.map(EdgeKind::as_str));
        let mut edges_by_provenance = zeroed(Provenance::ALL.map(Provenance::as_str));
        let mut edges_by_confidence = zeroed(Confidence::ALL.map(Confidence::as_str));
        let mut type_only_imports = 0;
        let mut packages: BTreeMap<String, u64> = BTreeMap::new();
        for edge in &analysis.edges {
            *edges_by_kind.entry(edge.kind.as_str().to_owned()).or_default() += 1;
            *edges_by_provenance.entry(edge.provenance.as_str().to_owned()).or_default() += 1;
            *edges_by_confidence.entry(edge.confidence.as_str().to_owned()).or_default() += 1;
            type_only_imports += u64::from(edge.type_only);
            if edge.kind == EdgeKind::Imports && edge.to.kind() == NodeKind::Package {
                *packages.entry(edge.to.id()).or_default() += 1;
            }
        }
        let mut refusals_by_kind = zeroed(RefusalKind::ALL.map(RefusalKind::as_str));
        for refusal in &analysis.refusals {
            *refusals_by_kind.entry(refusal.kind.as_str().to_owned()).or_default() += 1;
        }
        let graph = ArchitectureGraph::new(&analysis.nodes, &analysis.edges);
        let cycles = graph
            .import_cycles(&analysis.edges)
            .into_iter()
            .map(|c| CycleDoc {
                size: c.modules.len() as u64,
                modules: c.modules.iter().map(|k| k.id()).collect(),
            })
            .collect();
        let components = summarise_components(&analysis.nodes, &analysis.edges)
            .into_iter()
            .map(|c| ComponentDoc {
                name: c.name,
                modules: c.modules,
                depends_on: c.depends_on,
                packages: c.packages.len() as u64,
            })
            .collect();
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            stats: StatsDoc::from_analysis(analysis),
            nodes_by_kind,
            edges_by_kind,
            edges_by_provenance,
            edges_by_confidence,
            modules_by_language,
            type_only_imports,
            refusals_by_kind,
            cycles,
            components,
            packages,
            coverage: CoverageDoc::from_analysis(analysis),
        }
    }
}

fn zeroed<const N: usize>(names: [&str; N]) -> BTreeMap<String, u64> {
    names.into_iter().map(|n| (n.to_owned(), 0)).collect()
}
