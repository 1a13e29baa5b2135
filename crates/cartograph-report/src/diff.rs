//! The `diff` document: what a change did to the architecture — nodes and edges added, removed and
//! changed, refusal deltas, import cycles gained and lost — and, on top, the ranked findings a
//! reviewer should look at, each naming the edges that justify it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::snapshot::{LocationDoc, NodeDoc, RefusalDoc};

pub const SCHEMA_NAME: &str = "diff";
pub const SCHEMA_VERSION: &str = "1.0";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DiffDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    pub base: TreeDoc,
    pub head: TreeDoc,
    /// One line for a reviewer: what kind of change this is, architecturally.
    pub verdict: String,
    pub summary: DiffSummaryDoc,
    /// Most severe first; within a severity, by kind order, then subject.
    pub findings: Vec<FindingDoc>,
    pub nodes: NodesDiffDoc,
    pub edges: EdgesDiffDoc,
    pub refusals: RefusalsDiffDoc,
    pub cycles: CyclesDiffDoc,
}

/// One side of the diff, described without any machine path.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TreeDoc {
    /// `directory`, `revision` or `snapshot`.
    pub source: String,
    /// What the user named: a revision as written with its commit id (`main (3f2a9c1…)`), or the
    /// last component of a directory or snapshot path. Never an absolute path.
    pub label: String,
    pub files_analysed: u64,
    pub nodes: u64,
    pub edges: u64,
    pub refusals: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DiffSummaryDoc {
    /// `high`, `medium`, `low`, `info`: every severity appears, zero when absent.
    pub findings_by_severity: BTreeMap<String, u64>,
    /// Every finding kind appears, zero when absent.
    pub findings_by_kind: BTreeMap<String, u64>,
    pub nodes_added: u64,
    pub nodes_removed: u64,
    pub nodes_changed: u64,
    pub edges_added: u64,
    pub edges_removed: u64,
    pub edges_changed: u64,
    pub refusals_added: u64,
    pub refusals_removed: u64,
    pub cycles_added: u64,
    pub cycles_removed: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FindingDoc {
    /// `route-removed`, `call-to-removed-route`, `route-added`, `new-cross-language-call`,
    /// `new-table`, `new-table-write`, `new-env-var`, `new-external-service`, `new-package`,
    /// `new-cycle`, `new-component-dependency`.
    pub kind: String,
    /// `high`, `medium`, `low` or `info`.
    pub severity: String,
    /// The node the finding is about (a route, table, env var, package, external, module or
    /// component), by id.
    pub subject: String,
    /// One sentence, naming identities only (never source text).
    pub message: String,
    /// The edges that justify the finding, each from the side it exists on.
    pub edges: Vec<EdgeRefDoc>,
}

/// An edge named by identity, with the side it was found on and its evidence there.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EdgeRefDoc {
    /// `base` or `head`.
    pub side: String,
    pub kind: String,
    pub from: String,
    pub to: String,
    pub evidence: String,
    pub confidence: String,
    pub location: LocationDoc,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodesDiffDoc {
    pub added: Vec<NodeDoc>,
    pub removed: Vec<NodeDoc>,
    /// Same identity, different attributes; a route whose handler moved is one of these.
    pub changed: Vec<NodeChangeDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct NodeChangeDoc {
    pub id: String,
    pub kind: String,
    /// True for a route whose handler module or function changed.
    pub moved: bool,
    pub before: NodeDoc,
    pub after: NodeDoc,
}

/// An edge without a document-local id: diffs compare edges by identity (kind, from, to).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct DiffEdgeDoc {
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
pub struct EdgesDiffDoc {
    pub added: Vec<DiffEdgeDoc>,
    pub removed: Vec<DiffEdgeDoc>,
    /// Same identity; confidence, provenance or type-only status changed.
    pub changed: Vec<EdgeChangeDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct EdgeChangeDoc {
    pub kind: String,
    pub from: String,
    pub to: String,
    /// Which of `confidence`, `provenance`, `type_only` changed.
    pub changed: Vec<String>,
    pub before: DiffEdgeDoc,
    pub after: DiffEdgeDoc,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusalsDiffDoc {
    /// Per refusal kind present on either side: counts before and after.
    pub by_kind: Vec<RefusalCountDoc>,
    /// Refusals compared by kind, file and reason (not line, which shifts with every edit).
    pub added: Vec<RefusalDoc>,
    pub removed: Vec<RefusalDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RefusalCountDoc {
    pub kind: String,
    pub base: u64,
    pub head: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CyclesDiffDoc {
    /// Each cycle a sorted list of module ids.
    pub added: Vec<Vec<String>>,
    pub removed: Vec<Vec<String>>,
}
