//! How each tool's document is cut to its budget ([`Fit`]): which lists it reports on, which it
//! gives up first, and how its own counts follow a cut so that they agree with the entries shown.
//!
//! - map: packages and external services first, then environment variables, tables and component
//!   dependencies, then routes and components; each section's `shown` and `truncated` follow.
//! - trace: the paths (in enumeration order); `truncation.paths` follows.
//! - blast: the affected nodes (ranked: the nearest are kept); `truncation.shown` follows, the
//!   nodes cut join `beyond_node_limit` and `bounds.max_nodes` becomes the number listed, and the
//!   component groups are recounted over the nodes kept.
//! - diff: the raw lists (nodes, edges, refusals, cycles), then the findings that are not high,
//!   then the high findings; each finding names at most [`FINDING_EDGES`] edges.
//! - check: the findings that are not high, then the high ones.
//! - evidence: the edges.

use std::collections::BTreeSet;

use cartograph_report::blast::BlastDocument;
use cartograph_report::diff::{DiffDocument, DiffEdgeDoc, FindingDoc};
use cartograph_report::map::{MapDocument, SectionDoc};
use cartograph_report::rules::CheckDocument;
use cartograph_report::trace::TraceDocument;
use serde::{Serialize, Serializer};

use crate::budget::{Fit, ListCount};

/// Edges named per finding in an answer.
pub const FINDING_EDGES: usize = 3;

/// Modules named per import cycle in a diff answer.
pub const CYCLE_MODULES: usize = 20;

fn section_count<T>(name: &str, section: &SectionDoc<T>) -> ListCount {
    ListCount::new(name, section.items.len(), Some(section.total as usize))
}

fn cut_section<T>(section: &mut SectionDoc<T>, cap: usize) {
    section.items.truncate(cap);
    section.shown = section.items.len() as u64;
    section.truncated = section.shown < section.total;
}

impl Fit for MapDocument {
    fn lists(&self) -> Vec<ListCount> {
        vec![
            section_count("components", &self.components),
            section_count("component_edges", &self.component_edges),
            section_count("routes", &self.routes),
            section_count("tables", &self.tables),
            section_count("env_vars", &self.env_vars),
            section_count("externals", &self.externals),
            section_count("packages", &self.packages),
        ]
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        vec![
            vec![self.packages.items.len(), self.externals.items.len()],
            vec![
                self.env_vars.items.len(),
                self.tables.items.len(),
                self.component_edges.items.len(),
            ],
            vec![self.routes.items.len(), self.components.items.len()],
        ]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        cut_section(&mut self.packages, caps[0][0]);
        cut_section(&mut self.externals, caps[0][1]);
        cut_section(&mut self.env_vars, caps[1][0]);
        cut_section(&mut self.tables, caps[1][1]);
        cut_section(&mut self.component_edges, caps[1][2]);
        cut_section(&mut self.routes, caps[2][0]);
        cut_section(&mut self.components, caps[2][1]);
        self.truncated = self.components.truncated
            || self.component_edges.truncated
            || self.routes.truncated
            || self.tables.truncated
            || self.env_vars.truncated
            || self.externals.truncated
            || self.packages.truncated;
    }
}

/// A trace document with the number of paths its search found, so a cut one still says how many
/// there were.
#[derive(Debug, Clone)]
pub struct TraceCut {
    pub doc: TraceDocument,
    found: usize,
    complete: bool,
}

impl TraceCut {
    pub fn new(doc: TraceDocument) -> Self {
        let complete = !doc.truncation.by_paths && !doc.truncation.by_budget;
        Self { found: doc.paths.len(), complete, doc }
    }
}

impl Serialize for TraceCut {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(serializer)
    }
}

impl Fit for TraceCut {
    fn lists(&self) -> Vec<ListCount> {
        let total = self.complete.then_some(self.found);
        vec![ListCount::new("paths", self.doc.paths.len(), total)]
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        vec![vec![self.doc.paths.len()]]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        let t = &mut self.doc.truncation;
        if self.doc.paths.len() > caps[0][0] {
            self.doc.paths.truncate(caps[0][0]);
            // More paths exist than are listed.
            t.by_paths = true;
            t.truncated = true;
        }
        t.paths = self.doc.paths.len() as u64;
    }
}

impl Fit for BlastDocument {
    fn lists(&self) -> Vec<ListCount> {
        // Every reachable node (targets excluded) is listed, or counted beyond the depth or the
        // node bound: `reachable` is their sum.
        let total = self.truncation.reachable as usize;
        vec![ListCount::new("affected", self.affected.len(), Some(total))]
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        vec![vec![self.affected.len()]]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        let cap = caps[0][0];
        if self.affected.len() <= cap {
            return;
        }
        let cut = self.affected.len() - cap;
        self.affected.truncate(cap);
        let t = &mut self.truncation;
        t.shown = self.affected.len() as u64;
        t.beyond_node_limit += cut as u64;
        t.truncated = true;
        self.bounds.max_nodes = t.shown;
        let kept: BTreeSet<&str> = self.affected.iter().map(|a| a.id.as_str()).collect();
        let affected = &self.affected;
        self.components.retain_mut(|group| {
            group.nodes.retain(|id| kept.contains(id.as_str()));
            let members: Vec<_> =
                affected.iter().filter(|a| a.component == group.component).collect();
            let count = |kind: &str| members.iter().filter(|a| a.kind == kind).count() as u64;
            group.affected = group.nodes.len() as u64;
            group.modules = count("module");
            group.routes = count("route");
            group.nearest_depth = members.iter().map(|a| a.depth).min().unwrap_or(0);
            !group.nodes.is_empty()
        });
    }
}

/// Findings as an answer holds them: every finding of the full document counted, each finding's
/// edges counted before they were cut to [`FINDING_EDGES`].
#[derive(Debug, Clone)]
struct Findings {
    total: usize,
    /// Edges each finding named before the cut, in finding order.
    edges: Vec<usize>,
}

impl Findings {
    /// Counts `findings` and cuts each finding's edges to [`FINDING_EDGES`].
    fn cap_edges(findings: &mut [FindingDoc]) -> Self {
        let edges = findings
            .iter_mut()
            .map(|f| {
                let n = f.edges.len();
                f.edges.truncate(FINDING_EDGES);
                n
            })
            .collect();
        Self { total: findings.len(), edges }
    }

    fn lists(&self, findings: &[FindingDoc]) -> [ListCount; 2] {
        let shown = findings.iter().map(|f| f.edges.len()).sum();
        let total = self.edges.iter().take(findings.len()).sum();
        [
            ListCount::new("findings", findings.len(), Some(self.total)),
            ListCount::nested("findings[].edges", shown, total),
        ]
    }

    /// `[others, high]`: the findings that are not high, and the high ones.
    fn knobs(findings: &[FindingDoc]) -> [usize; 2] {
        let high = findings.iter().filter(|f| f.severity == "high").count();
        [findings.len() - high, high]
    }

    /// Keeps the first `others` findings that are not high and the first `high` high ones, in
    /// their order.
    fn cut(&mut self, findings: &mut Vec<FindingDoc>, others: usize, high: usize) {
        let (mut seen_others, mut seen_high) = (0, 0);
        let keep: Vec<bool> = findings
            .iter()
            .map(|f| {
                let (seen, cap) = if f.severity == "high" {
                    (&mut seen_high, high)
                } else {
                    (&mut seen_others, others)
                };
                *seen += 1;
                *seen <= cap
            })
            .collect();
        let mut i = 0;
        findings.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        let mut i = 0;
        self.edges.retain(|_| {
            i += 1;
            keep.get(i - 1).copied().unwrap_or(false)
        });
    }
}

/// A diff document as an answer holds it, with what it needs to count what a cut left out.
#[derive(Debug, Clone)]
pub struct DiffCut {
    pub doc: DiffDocument,
    findings: Findings,
    /// Modules of each added and removed cycle before they were cut to [`CYCLE_MODULES`].
    cycles_added: Vec<usize>,
    cycles_removed: Vec<usize>,
}

impl DiffCut {
    /// The answer's starting point: with `limit`, at most that many entries in each raw list
    /// and that many findings besides the high ones; every finding names at most
    /// [`FINDING_EDGES`] edges and every cycle at most [`CYCLE_MODULES`] modules.
    pub fn new(mut doc: DiffDocument, limit: Option<usize>) -> Self {
        let findings = Findings::cap_edges(&mut doc.findings);
        let cycle_modules = limit.map_or(CYCLE_MODULES, |l| l.clamp(2, CYCLE_MODULES));
        let cap_cycles = |cycles: &mut Vec<Vec<String>>| -> Vec<usize> {
            cycles
                .iter_mut()
                .map(|c| {
                    let n = c.len();
                    c.truncate(cycle_modules);
                    n
                })
                .collect()
        };
        let cycles_added = cap_cycles(&mut doc.cycles.added);
        let cycles_removed = cap_cycles(&mut doc.cycles.removed);
        let mut cut = Self { doc, findings, cycles_added, cycles_removed };
        if let Some(limit) = limit {
            let [others, high] = Findings::knobs(&cut.doc.findings);
            let raw = cut.knobs()[0].iter().map(|&n| n.min(limit)).collect();
            cut.cut(&[raw, vec![others.min(limit)], vec![high]]);
        }
        cut
    }
}

impl Serialize for DiffCut {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(serializer)
    }
}

impl Fit for DiffCut {
    fn lists(&self) -> Vec<ListCount> {
        let d = &self.doc;
        let s = &d.summary;
        let n = |v: u64| Some(v as usize);
        let mut lists = self.findings.lists(&d.findings).to_vec();
        lists.extend([
            ListCount::new("nodes.added", d.nodes.added.len(), n(s.nodes_added)),
            ListCount::new("nodes.removed", d.nodes.removed.len(), n(s.nodes_removed)),
            ListCount::new("nodes.changed", d.nodes.changed.len(), n(s.nodes_changed)),
            ListCount::new("edges.added", d.edges.added.len(), n(s.edges_added)),
            ListCount::new("edges.removed", d.edges.removed.len(), n(s.edges_removed)),
            ListCount::new("edges.changed", d.edges.changed.len(), n(s.edges_changed)),
            ListCount::new("refusals.added", d.refusals.added.len(), n(s.refusals_added)),
            ListCount::new("refusals.removed", d.refusals.removed.len(), n(s.refusals_removed)),
            ListCount::new("cycles.added", d.cycles.added.len(), n(s.cycles_added)),
            ListCount::new("cycles.removed", d.cycles.removed.len(), n(s.cycles_removed)),
        ]);
        for (side, cycles, lens) in [
            ("added", &d.cycles.added, &self.cycles_added),
            ("removed", &d.cycles.removed, &self.cycles_removed),
        ] {
            for (i, (cycle, &len)) in cycles.iter().zip(lens).enumerate() {
                lists.push(ListCount::nested(format!("cycles.{side}[{i}]"), cycle.len(), len));
            }
        }
        lists
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        let d = &self.doc;
        let [others, high] = Findings::knobs(&d.findings);
        vec![
            vec![
                d.nodes.added.len(),
                d.nodes.removed.len(),
                d.nodes.changed.len(),
                d.edges.added.len(),
                d.edges.removed.len(),
                d.edges.changed.len(),
                d.refusals.added.len(),
                d.refusals.removed.len(),
                d.cycles.added.len(),
                d.cycles.removed.len(),
            ],
            vec![others],
            vec![high],
        ]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        let d = &mut self.doc;
        let raw = &caps[0];
        d.nodes.added.truncate(raw[0]);
        d.nodes.removed.truncate(raw[1]);
        d.nodes.changed.truncate(raw[2]);
        d.edges.added.truncate(raw[3]);
        d.edges.removed.truncate(raw[4]);
        d.edges.changed.truncate(raw[5]);
        d.refusals.added.truncate(raw[6]);
        d.refusals.removed.truncate(raw[7]);
        d.cycles.added.truncate(raw[8]);
        d.cycles.removed.truncate(raw[9]);
        self.cycles_added.truncate(raw[8]);
        self.cycles_removed.truncate(raw[9]);
        self.findings.cut(&mut d.findings, caps[1][0], caps[2][0]);
    }
}

/// A check document as an answer holds it.
#[derive(Debug, Clone)]
pub struct CheckCut {
    pub doc: CheckDocument,
    findings: Findings,
}

impl CheckCut {
    /// Every finding names at most [`FINDING_EDGES`] edges; at most `limit` findings besides the
    /// high ones (violations of error rules) are kept.
    pub fn new(mut doc: CheckDocument, limit: usize) -> Self {
        let findings = Findings::cap_edges(&mut doc.findings);
        let mut cut = Self { doc, findings };
        let [others, high] = Findings::knobs(&cut.doc.findings);
        cut.cut(&[vec![others.min(limit)], vec![high]]);
        cut
    }
}

impl Serialize for CheckCut {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.doc.serialize(serializer)
    }
}

impl Fit for CheckCut {
    fn lists(&self) -> Vec<ListCount> {
        self.findings.lists(&self.doc.findings).to_vec()
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        let [others, high] = Findings::knobs(&self.doc.findings);
        vec![vec![others], vec![high]]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        self.findings.cut(&mut self.doc.findings, caps[0][0], caps[1][0]);
    }
}

/// An `evidence` document: the edges of one kind between two nodes (usually one). Its schema is
/// `schemas/mcp-answer.schema.json#/$defs/evidence_document`.
#[derive(Debug, Clone, Serialize)]
pub struct EvidenceDoc {
    pub schema: &'static str,
    pub schema_version: &'static str,
    pub tool_version: &'static str,
    pub tree: String,
    pub kind: String,
    pub from: String,
    pub to: String,
    /// Edges found, whether or not all are listed.
    pub total: usize,
    pub edges: Vec<DiffEdgeDoc>,
}

impl Fit for EvidenceDoc {
    fn lists(&self) -> Vec<ListCount> {
        vec![ListCount::new("edges", self.edges.len(), Some(self.total))]
    }

    fn knobs(&self) -> Vec<Vec<usize>> {
        vec![vec![self.edges.len()]]
    }

    fn cut(&mut self, caps: &[Vec<usize>]) {
        self.edges.truncate(caps[0][0]);
    }
}
