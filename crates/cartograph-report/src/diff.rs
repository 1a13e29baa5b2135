//! The `diff` document: what a change did to the architecture — nodes and edges added, removed and
//! changed, refusal deltas, import cycles gained and lost — and, on top, the ranked findings a
//! reviewer should look at, each naming the edges that justify it.

use std::collections::{BTreeMap, BTreeSet};

use cartograph_core::{Edge, EdgeKind, NodeKey};
use cartograph_graph::diff::{EdgeChange, EdgeRef, NodeChange, Subject};
use cartograph_graph::{Finding, FindingKind, GraphDiff, GraphView, ImportCycle, Severity};
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
pub use crate::explain::{
    BundleDoc, BundleEdgeDoc, CitationDoc, ExplainedEdgeDoc, ExplanationDoc, ExplanationItemDoc,
    ExplanationsDoc, ProviderDoc, STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE,
};
use crate::snapshot::{EdgeClaimDoc, LocationDoc, NodeDoc, RefusalDoc};
use crate::words::numbered;

pub const SCHEMA_NAME: &str = "diff";
/// 1.1 added the optional `explanations` section; 1.2 the optional `covered_by` of a finding;
/// 1.3 the finding kind `new-call`; 1.5 the kinds `rule-violation`, `rule-violation-fixed` and
/// `stale-baseline`, a finding's optional `rule`, and the optional `rules` section; 1.6 each
/// side's optional `coverage`.
pub const SCHEMA_VERSION: &str = "1.6";

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
    /// The rules of the repository's rules file the change was checked against (since 1.5);
    /// absent when there was none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<crate::rules::RuleDoc>>,
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
    /// What the analysis of this side did not see (since 1.6; absent from older documents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<crate::coverage::CoverageDoc>,
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
    /// `new-call` (since 1.3), `new-table`, `new-table-write`, `new-env-var`, `new-external-service`, `new-package`,
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
    /// The finding that reports this change in full (since 1.2): this one keeps its kind, so
    /// `--fail-on` on that kind still trips, and its severity is `info`. Absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_by: Option<CoveredByDoc>,
    /// For `rule-violation`, `rule-violation-fixed` and `stale-baseline` (since 1.5): the rule
    /// and the violation's stable identity. Absent for every other kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<FindingRuleDoc>,
}

/// The rule a finding is about, and the identity a baseline records it by.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct FindingRuleDoc {
    pub id: String,
    /// Rule, edge kind and endpoints; never a line number.
    pub identity: String,
}

/// A finding named by kind and subject.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CoveredByDoc {
    pub kind: String,
    pub subject: String,
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
    #[serde(flatten)]
    pub claim: EdgeClaimDoc,
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
            coverage: None,
        }
    }

    /// The same side with its coverage.
    pub fn with_coverage(mut self, coverage: crate::coverage::CoverageDoc) -> Self {
        self.coverage = Some(coverage);
        self
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
            rules: None,
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
            covered_by: finding.covered_by.as_ref().map(|c| CoveredByDoc {
                kind: c.kind.as_str().to_owned(),
                subject: c.subject.id(),
            }),
            rule: None,
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
            claim: EdgeClaimDoc::from_edge(edge),
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

/// One line for a reviewer: how many findings of which severity, then what they are, kind by
/// kind in rank order, counted (a kind with one finding names its subject). A finding another
/// one covers is not counted again: a new route called across languages is one new route, "called
/// across languages by …"; a write to a new table is part of that table.
///
/// `5 findings (2 high, 2 medium, 1 low): route removed GET /api/items/{}, a client still calls
/// removed route GET /api/items/{}, new route POST /api/items (called across languages by api.ts),
/// new table item, new env var API_KEY.`
pub fn verdict(diff: &GraphDiff) -> String {
    if diff.findings.is_empty() {
        return if diff.is_empty() {
            "No architectural change.".to_owned()
        } else {
            format!("No findings: {}.", change_counts(diff).join(", "))
        };
    }
    let counted: Vec<&Finding> = diff.findings.iter().filter(|f| f.covered_by.is_none()).collect();
    let severities: Vec<String> = Severity::ALL
        .iter()
        .filter_map(|s| {
            let n = counted.iter().filter(|f| f.severity == *s).count();
            (n > 0).then(|| format!("{n} {}", s.as_str()))
        })
        .collect();
    let of_kind = |kind: FindingKind| -> Vec<&Finding> {
        diff.findings.iter().filter(|f| f.kind == kind).collect()
    };
    // Each phrase ranks by the most severe finding it tells of (a new route called across
    // languages by its call's), then by kind order.
    let mut phrases: Vec<(Severity, String)> = Vec::new();
    for kind in FindingKind::ALL {
        let findings = of_kind(kind);
        let mut told: Vec<&Finding> =
            findings.iter().copied().filter(|f| f.covered_by.is_none()).collect();
        let is_new = |f: &Finding| diff.nodes.added.iter().any(|n| n.key.id() == f.subject.id());
        if is_call_kind(kind) {
            told.retain(|f| !is_new(f));
        }
        if kind == FindingKind::RouteAdded {
            told.extend(diff.findings.iter().filter(|f| {
                is_call_kind(f.kind) && findings.iter().any(|a| a.subject == f.subject)
            }));
        }
        let severity = told.iter().map(|f| f.severity).min().unwrap_or(Severity::Info);
        let phrase = match kind {
            FindingKind::RouteAdded => new_routes_phrase(diff, &findings),
            FindingKind::NewCrossLanguageCall => {
                // Calls to new routes are told with the routes.
                let to_old: Vec<&Finding> = findings.into_iter().filter(|f| !is_new(f)).collect();
                match to_old.as_slice() {
                    [] => None,
                    [one] => Some(format!("new cross-language call to {}", one.subject.name())),
                    many => {
                        Some(format!("{} new cross-language calls to existing routes", many.len()))
                    }
                }
            }
            FindingKind::NewCall => {
                let to_old: Vec<&Finding> = findings.into_iter().filter(|f| !is_new(f)).collect();
                match to_old.as_slice() {
                    [] => None,
                    [one] => Some(format!("new call to {}", one.subject.name())),
                    many => Some(format!("{} new calls to existing routes", many.len())),
                }
            }
            FindingKind::NewTableWrite => {
                let uncovered: Vec<&Finding> =
                    findings.into_iter().filter(|f| f.covered_by.is_none()).collect();
                match uncovered.as_slice() {
                    [] => None,
                    [one] => Some(format!("new write to table {}", one.subject.name())),
                    many => Some(format!("{} new writes to existing tables", many.len())),
                }
            }
            FindingKind::NewCycle => cycles_phrase(diff, &findings),
            kind => (!findings.is_empty()).then(|| kind_phrase(kind, &findings)),
        };
        phrases.extend(phrase.map(|p| (severity, p)));
    }
    phrases.sort_by_key(|(severity, _)| *severity);
    let phrases: Vec<String> = phrases.into_iter().map(|(_, p)| p).collect();
    format!(
        "{} ({}): {}.",
        numbered(counted.len(), "finding"),
        severities.join(", "),
        phrases.join(", ")
    )
}

/// True for the kinds that tell a new call to a route (and cover the route's `route-added`).
fn is_call_kind(kind: FindingKind) -> bool {
    matches!(kind, FindingKind::NewCrossLanguageCall | FindingKind::NewCall)
}

/// `20 new routes (all called across languages by services.gen.ts)`, `new route POST /x (called
/// by page.tsx)`, `new route POST /x`. "Across languages" only when every such call crosses.
fn new_routes_phrase(diff: &GraphDiff, added: &[&Finding]) -> Option<String> {
    let called: Vec<&Finding> = diff
        .findings
        .iter()
        .filter(|f| is_call_kind(f.kind) && added.iter().any(|a| a.subject == f.subject))
        .collect();
    let across = if called.iter().all(|f| f.kind == FindingKind::NewCrossLanguageCall) {
        " across languages"
    } else {
        ""
    };
    let called_routes: BTreeSet<&Subject> = called.iter().map(|f| &f.subject).collect();
    let callers: BTreeSet<&str> = called
        .iter()
        .flat_map(|f| &f.edges)
        .filter(|e| e.edge.kind == EdgeKind::Calls)
        .map(|e| file_name(e.edge.from.name()))
        .collect();
    let shown: Vec<&str> = callers.iter().take(2).copied().collect();
    let mut by = shown.join(", ");
    if callers.len() > shown.len() {
        by.push_str(&format!(" and {} more", callers.len() - shown.len()));
    }
    let how = match (called_routes.len(), added.len()) {
        (0, _) => String::new(),
        (c, n) if c == n && n > 1 => format!(" (all called{across} by {by})"),
        (_, 1) => format!(" (called{across} by {by})"),
        (c, _) => format!(" ({c} called{across} by {by})"),
    };
    match added {
        [] => None,
        [one] => Some(format!("new route {}{how}", one.subject.name())),
        many => Some(format!("{} new routes{how}", many.len())),
    }
}

/// `2 new import cycles`, `an import cycle grew (259 → 279 modules)`, `4 new or grown import
/// cycles (3 grown)`. A head cycle grew when it shares modules with a base cycle that changed.
fn cycles_phrase(diff: &GraphDiff, findings: &[&Finding]) -> Option<String> {
    let sizes = |f: &Finding| -> Option<(usize, usize)> {
        let head = diff
            .cycles
            .added
            .iter()
            .find(|c| c.modules.first().map(NodeKey::id) == Some(f.subject.id()))?;
        let before: usize = diff
            .cycles
            .removed
            .iter()
            .filter(|b| b.modules.iter().any(|m| head.modules.binary_search(m).is_ok()))
            .map(|b| b.modules.len())
            .sum();
        (before > 0).then_some((before, head.modules.len()))
    };
    let grown: Vec<(usize, usize)> = findings.iter().filter_map(|f| sizes(f)).collect();
    match (findings.len(), grown.as_slice()) {
        (0, _) => None,
        (1, [(before, after)]) => Some(match after.cmp(before) {
            std::cmp::Ordering::Greater => {
                format!("an import cycle grew from {before} to {after} modules")
            }
            std::cmp::Ordering::Less => {
                format!("an import cycle shrank from {before} to {after} modules")
            }
            std::cmp::Ordering::Equal => format!("an import cycle of {after} modules changed"),
        }),
        (n, []) => Some(if n == 1 {
            format!("new import cycle through {}", findings[0].subject.name())
        } else {
            format!("{n} new import cycles")
        }),
        (n, g) if g.len() == n => Some(format!("{n} grown or merged import cycles")),
        (n, g) => Some(format!("{n} new or grown import cycles ({} grown)", g.len())),
    }
}

/// The last component of a path: `src/ui/services.gen.ts` → `services.gen.ts`.
fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
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
        FindingKind::RuleViolation => "rule violations",
        FindingKind::RuleViolationFixed => "rule violations fixed",
        FindingKind::StaleBaseline => "stale baseline entries",
        FindingKind::RouteRemoved => "routes removed",
        FindingKind::CallToRemovedRoute => "calls to removed routes",
        FindingKind::RouteAdded => "routes added",
        FindingKind::NewCrossLanguageCall => "new cross-language calls",
        FindingKind::NewCall => "new calls to routes",
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
    .map(|(n, noun, verb)| format!("{} {verb}", numbered(n, noun)))
    .collect()
}

#[cfg(test)]
mod tests;
