//! The `diff` document: what a change did to the architecture — nodes and edges added, removed and
//! changed, refusal deltas, import cycles gained and lost — and, on top, the ranked findings a
//! reviewer should look at, each naming the edges that justify it.

use std::collections::BTreeMap;

use cartograph_core::{Edge, NodeKey};
use cartograph_graph::diff::{EdgeChange, EdgeRef, NodeChange};
use cartograph_graph::{Finding, FindingKind, GraphDiff, GraphView, ImportCycle, Severity};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
pub use crate::explain::{
    BundleDoc, BundleEdgeDoc, CitationDoc, ExplainedEdgeDoc, ExplanationDoc, ExplanationItemDoc,
    ExplanationsDoc, ProviderDoc, STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE,
};
use crate::snapshot::{LocationDoc, NodeDoc, RefusalDoc};

pub const SCHEMA_NAME: &str = "diff";
/// 1.1 added the optional `explanations` section.
pub const SCHEMA_VERSION: &str = "1.1";

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
    /// What `cartograph-ask` attached: absent until it has run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanations: Option<ExplanationsDoc>,
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

impl TreeDoc {
    /// Describes one side: `source` is `directory`, `revision` or `snapshot`; `label` what the
    /// user named, without any machine path; the counts are read from the view.
    pub fn from_view(
        source: &str,
        label: impl Into<String>,
        files_analysed: u64,
        view: GraphView<'_>,
    ) -> Self {
        Self {
            source: source.to_owned(),
            label: label.into(),
            files_analysed,
            nodes: view.nodes.len() as u64,
            edges: view.edges.len() as u64,
            refusals: view.refusals.len() as u64,
        }
    }
}

impl DiffDocument {
    pub fn from_diff(diff: &GraphDiff, base: TreeDoc, head: TreeDoc) -> Self {
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            base,
            head,
            verdict: verdict(diff),
            summary: DiffSummaryDoc::from_diff(diff),
            findings: diff.findings.iter().map(FindingDoc::from_finding).collect(),
            nodes: NodesDiffDoc {
                added: diff.nodes.added.iter().map(NodeDoc::from_node).collect(),
                removed: diff.nodes.removed.iter().map(NodeDoc::from_node).collect(),
                changed: diff.nodes.changed.iter().map(NodeChangeDoc::from_change).collect(),
            },
            edges: EdgesDiffDoc {
                added: diff.edges.added.iter().map(DiffEdgeDoc::from_edge).collect(),
                removed: diff.edges.removed.iter().map(DiffEdgeDoc::from_edge).collect(),
                changed: diff.edges.changed.iter().map(EdgeChangeDoc::from_change).collect(),
            },
            refusals: RefusalsDiffDoc {
                by_kind: diff
                    .refusals
                    .by_kind
                    .iter()
                    .map(|c| RefusalCountDoc {
                        kind: c.kind.as_str().to_owned(),
                        base: c.base,
                        head: c.head,
                    })
                    .collect(),
                added: diff.refusals.added.iter().map(RefusalDoc::from_refusal).collect(),
                removed: diff.refusals.removed.iter().map(RefusalDoc::from_refusal).collect(),
            },
            cycles: CyclesDiffDoc {
                added: diff.cycles.added.iter().map(cycle_ids).collect(),
                removed: diff.cycles.removed.iter().map(cycle_ids).collect(),
            },
            explanations: None,
        }
    }

    /// Reads a diff written by `cartograph diff --json` or `cartograph-ask`: schema `diff`, the
    /// same major version (any minor; a 1.0 document simply has no explanations).
    pub fn from_json(text: &str) -> Result<Self, DiffDocError> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| DiffDocError::NotJson { line: e.line(), column: e.column() })?;
        if !value.is_object() {
            return Err(DiffDocError::NotAnObject);
        }
        match value.get("schema").and_then(serde_json::Value::as_str) {
            Some(SCHEMA_NAME) => {}
            // Only a name this Cartograph writes is repeated back; anything else could be
            // whatever the file holds.
            Some(other) => {
                return Err(match crate::schema::schema_names().find(|n| *n == other) {
                    Some(name) => DiffDocError::WrongDocument(name),
                    None => DiffDocError::UnknownDocument,
                });
            }
            None => return Err(DiffDocError::NoSchema),
        }
        let version = value.get("schema_version").and_then(serde_json::Value::as_str);
        let ours = major(SCHEMA_VERSION).unwrap_or(1);
        match version.and_then(major) {
            Some(found) if found == ours => {}
            Some(found) if found > ours => return Err(DiffDocError::NewerMajor { found }),
            Some(found) => return Err(DiffDocError::OlderMajor { found }),
            None => return Err(DiffDocError::BadVersion),
        }
        serde_json::from_str(text).map_err(|e| DiffDocError::Shape {
            detail: shape_detail(&e),
            line: e.line(),
            column: e.column(),
        })
    }

    /// The document as `cartograph diff --json` writes it: pretty JSON and a final newline.
    pub fn to_json(&self) -> String {
        crate::to_json(self)
    }
}

/// Why a file cannot be read as a diff document. Messages never quote the file's content: a file
/// given by mistake may hold anything.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DiffDocError {
    #[error("is not a diff document: it is not valid JSON (line {line}, column {column})")]
    NotJson { line: usize, column: usize },
    #[error("is not a diff document: it is JSON but not an object")]
    NotAnObject,
    #[error("is not a Cartograph document: it has no `schema` field")]
    NoSchema,
    #[error("is a `{0}` document, not a diff; write one with `cartograph diff BASE HEAD --json`")]
    WrongDocument(&'static str),
    #[error(
        "is not a diff document: its `schema` field names a document Cartograph does not write"
    )]
    UnknownDocument,
    #[error(
        "was written with diff schema {found}.x, newer than this Cartograph reads ({SCHEMA_VERSION}); use a newer Cartograph"
    )]
    NewerMajor { found: u64 },
    #[error(
        "was written with diff schema {found}.x, older than this Cartograph reads ({SCHEMA_VERSION}); write it again with this Cartograph"
    )]
    OlderMajor { found: u64 },
    #[error("has a missing or unreadable `schema_version` (expected MAJOR.MINOR)")]
    BadVersion,
    #[error("does not match the diff schema: {detail} (line {line}, column {column})")]
    Shape { detail: String, line: usize, column: usize },
}

fn major(version: &str) -> Option<u64> {
    let (major, minor) = version.split_once('.')?;
    minor.parse::<u64>().ok()?;
    major.parse().ok()
}

/// What serde says is wrong, without the value it found: serde's messages quote strings they did
/// not expect (`invalid type: string "…"`), so only the category and the field names it expected
/// are kept.
fn shape_detail(error: &serde_json::Error) -> String {
    let message = error.to_string();
    if let Some(field) = message.strip_prefix("missing field `") {
        let name: String =
            field.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        return format!("the field `{name}` is missing");
    }
    if message.starts_with("unknown field") {
        return "it has a field the diff schema does not define".to_owned();
    }
    if message.starts_with("invalid type") {
        return "a field holds a value of the wrong type".to_owned();
    }
    "a field holds a value the diff schema does not allow".to_owned()
}

fn cycle_ids(cycle: &ImportCycle) -> Vec<String> {
    cycle.modules.iter().map(NodeKey::id).collect()
}

impl DiffSummaryDoc {
    pub fn from_diff(diff: &GraphDiff) -> Self {
        let mut by_severity: BTreeMap<String, u64> =
            Severity::ALL.iter().map(|s| (s.as_str().to_owned(), 0)).collect();
        let mut by_kind: BTreeMap<String, u64> =
            FindingKind::ALL.iter().map(|k| (k.as_str().to_owned(), 0)).collect();
        for finding in &diff.findings {
            *by_severity.entry(finding.severity.as_str().to_owned()).or_default() += 1;
            *by_kind.entry(finding.kind.as_str().to_owned()).or_default() += 1;
        }
        let n = |len: usize| len as u64;
        Self {
            findings_by_severity: by_severity,
            findings_by_kind: by_kind,
            nodes_added: n(diff.nodes.added.len()),
            nodes_removed: n(diff.nodes.removed.len()),
            nodes_changed: n(diff.nodes.changed.len()),
            edges_added: n(diff.edges.added.len()),
            edges_removed: n(diff.edges.removed.len()),
            edges_changed: n(diff.edges.changed.len()),
            refusals_added: n(diff.refusals.added.len()),
            refusals_removed: n(diff.refusals.removed.len()),
            cycles_added: n(diff.cycles.added.len()),
            cycles_removed: n(diff.cycles.removed.len()),
        }
    }
}

impl FindingDoc {
    pub fn from_finding(finding: &Finding) -> Self {
        Self {
            kind: finding.kind.as_str().to_owned(),
            severity: finding.severity.as_str().to_owned(),
            subject: finding.subject.id(),
            message: finding.message.clone(),
            edges: finding.edges.iter().map(EdgeRefDoc::from_ref).collect(),
        }
    }
}

impl EdgeRefDoc {
    pub fn from_ref(edge_ref: &EdgeRef) -> Self {
        let edge = &edge_ref.edge;
        Self {
            side: edge_ref.side.as_str().to_owned(),
            kind: edge.kind.as_str().to_owned(),
            from: edge.from.id(),
            to: edge.to.id(),
            evidence: edge.evidence.as_str().to_owned(),
            confidence: edge.confidence.as_str().to_owned(),
            location: LocationDoc::from_location(&edge.location),
        }
    }
}

impl NodeChangeDoc {
    pub fn from_change(change: &NodeChange) -> Self {
        Self {
            id: change.after.key.id(),
            kind: change.after.key.kind().as_str().to_owned(),
            moved: change.moved,
            before: NodeDoc::from_node(&change.before),
            after: NodeDoc::from_node(&change.after),
        }
    }
}

impl DiffEdgeDoc {
    pub fn from_edge(edge: &Edge) -> Self {
        Self {
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

impl EdgeChangeDoc {
    pub fn from_change(change: &EdgeChange) -> Self {
        Self {
            kind: change.after.kind.as_str().to_owned(),
            from: change.after.from.id(),
            to: change.after.to.id(),
            changed: change.fields.iter().map(|f| f.as_str().to_owned()).collect(),
            before: DiffEdgeDoc::from_edge(&change.before),
            after: DiffEdgeDoc::from_edge(&change.after),
        }
    }
}

/// The most findings the verdict names.
const VERDICT_NAMED: usize = 3;

/// One line for a reviewer: how many findings of which severity and the most severe few by name,
/// or, without findings, what changed at all.
///
/// `3 findings (2 high, 1 low): route removed GET /api/items/{}, call to removed route GET
/// /api/items/{}, route added POST /api/items.`
pub fn verdict(diff: &GraphDiff) -> String {
    if diff.findings.is_empty() {
        return if diff.is_empty() {
            "No architectural change.".to_owned()
        } else {
            format!("No findings: {}.", change_counts(diff).join(", "))
        };
    }
    let total = diff.findings.len();
    let severities: Vec<String> = Severity::ALL
        .iter()
        .filter_map(|s| {
            let n = diff.findings.iter().filter(|f| f.severity == *s).count();
            (n > 0).then(|| format!("{n} {}", s.as_str()))
        })
        .collect();
    // One phrase per finding kind, in rank order: a kind with one finding names its subject, a
    // kind with several counts them.
    let mut kinds: Vec<(FindingKind, Vec<&Finding>)> = Vec::new();
    for finding in &diff.findings {
        match kinds.iter_mut().find(|(k, _)| *k == finding.kind) {
            Some((_, list)) => list.push(finding),
            None => kinds.push((finding.kind, vec![finding])),
        }
    }
    let mut named: Vec<String> =
        kinds.iter().take(VERDICT_NAMED).map(|(kind, list)| kind_phrase(*kind, list)).collect();
    if kinds.len() > VERDICT_NAMED {
        let rest: usize = kinds[VERDICT_NAMED..].iter().map(|(_, list)| list.len()).sum();
        named.push(format!("and {rest} more finding{}", if rest == 1 { "" } else { "s" }));
    }
    format!("{} ({}): {}.", plural(total, "finding"), severities.join(", "), named.join(", "))
}

/// How the verdict names the findings of one kind.
fn kind_phrase(kind: FindingKind, findings: &[&Finding]) -> String {
    let n = findings.len();
    if let [only] = findings {
        let name = only.subject.name();
        return match kind {
            FindingKind::CallToRemovedRoute => format!("a client still calls removed route {name}"),
            FindingKind::NewCycle => format!("new import cycle through {name}"),
            FindingKind::NewComponentDependency => format!("new dependency of component {name}"),
            FindingKind::NewTableWrite => format!("new write to table {name}"),
            kind => format!("{} {name}", kind.label()),
        };
    }
    let phrase = match kind {
        FindingKind::RouteRemoved => "routes removed",
        FindingKind::CallToRemovedRoute => "calls to removed routes",
        FindingKind::RouteAdded => "routes added",
        FindingKind::NewCrossLanguageCall => "new cross-language calls",
        FindingKind::NewTable => "new tables",
        FindingKind::NewTableWrite => "new table writes",
        FindingKind::NewEnvVar => "new env vars",
        FindingKind::NewExternalService => "new external services",
        FindingKind::NewPackage => "new packages",
        FindingKind::NewCycle => "new import cycles",
        FindingKind::NewComponentDependency => "new component dependencies",
    };
    format!("{n} {phrase}")
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// The non-zero change counts of a diff: `2 edges added`, `1 refusal removed`.
fn change_counts(diff: &GraphDiff) -> Vec<String> {
    [
        (diff.nodes.added.len(), "node", "added"),
        (diff.nodes.removed.len(), "node", "removed"),
        (diff.nodes.changed.len(), "node", "changed"),
        (diff.edges.added.len(), "edge", "added"),
        (diff.edges.removed.len(), "edge", "removed"),
        (diff.edges.changed.len(), "edge", "changed"),
        (diff.refusals.added.len(), "refusal", "added"),
        (diff.refusals.removed.len(), "refusal", "removed"),
        (diff.cycles.added.len(), "import cycle", "added"),
        (diff.cycles.removed.len(), "import cycle", "removed"),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .map(|(n, noun, verb)| format!("{} {verb}", plural(n, noun)))
    .collect()
}

#[cfg(test)]
mod tests;
