//! The Markdown pull-request report of a [`DiffDocument`]: a one-line verdict, the architecture
//! rules the change breaks (when a rules file applied, see `rules_section`), the findings table
//! (findings of one kind and cause share a row, see [`grouping`]) with the edges that justify
//! each finding, the explanations `cartograph-ask` attached (when it has run), collapsible
//! sections per concern (routes, calls, tables, environment variables, packages, cycles, modules,
//! refusals), a bounded Mermaid diagram of the changed edges, and refusal counts.
//!
//! The report always fits in one GitHub comment. It is first written in full; while it is longer
//! than the budget, detail is taken away in reverse order of priority (see [`render_diff`]), and
//! every cut is stated where it happened and summarised under the verdict. Every string that came
//! from an analysed tree is escaped, so a hostile file name cannot break a table or inject HTML.

pub(crate) mod escape;
mod explanations;
pub(crate) mod findings;
mod group_text;
pub(crate) mod grouping;
mod mermaid;
mod route_moves;
mod rows;
mod rules_section;
pub(crate) mod sections;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::diff::DiffDocument;
use crate::words::plural;
use escape::{code, text, thousands};
use explanations::{ExplainPlan, PreparedExplanations};
use findings::{PreparedFinding, prepare_findings};
use sections::{Section, render_section, sections};

/// The most characters GitHub accepts in one comment.
pub const GITHUB_COMMENT_LIMIT: usize = 65_536;
/// The default budget: GitHub's limit less room for what a caller adds around the report (the
/// Action's hidden marker, a footer).
pub const DEFAULT_BUDGET: usize = 60_000;
/// The hidden line a sticky pull-request comment is found by.
pub const DEFAULT_MARKER: &str = "<!-- cartograph-report -->";

/// How a diff report is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffMarkdownOptions {
    /// The most characters (Unicode scalar values, not bytes) the report may have, marker
    /// included.
    pub budget: usize,
    /// A line written first, such as [`DEFAULT_MARKER`]; `None` writes none.
    pub marker: Option<String>,
    /// The most edges the diagram draws.
    pub diagram_max_edges: usize,
    /// The most nodes the diagram draws.
    pub diagram_max_nodes: usize,
}

impl Default for DiffMarkdownOptions {
    fn default() -> Self {
        Self { budget: DEFAULT_BUDGET, marker: None, diagram_max_edges: 60, diagram_max_nodes: 80 }
    }
}

/// Renders the report of a diff.
///
/// Findings of one kind, severity and cause share a row of the findings table (twenty new routes
/// under `/api/v2`, routes moved from one prefix to another), with the findings it stands for in
/// a collapsible list in its last cell; a grouped row counts as one row in every cut below, and
/// its evidence is that of all its findings.
///
/// When the full report is longer than `options.budget`, detail goes in this order until it fits:
/// 1. the diagram shrinks to 30 edges, then 15 (those behind findings first);
/// 2. each section's lists shrink to 25 rows per list, lowest-priority section first (refusal
///    lists, modules and imports, cycles, packages, environment variables, tables, calls,
///    routes), the blast radius to 40 lines, and each grouped row's list to 25 findings;
/// 3. each row shows at most 3 of its edges (10 for a high-severity one);
/// 4. section lists shrink to 5 rows, in the same order;
/// 5. every finding keeps 1 edge of evidence, a high one 3;
/// 6. section lists go (their counts stay), then the blast radius, then the diagram shrinks to
///    the first 8 edges behind the findings, then goes;
/// 7. the explanations keep only the entries of edges behind high and medium findings;
/// 8. info findings lose their evidence, then low ones, then medium ones, and high ones keep 1
///    edge;
/// 9. the explanations keep their first 10 entries, then 5, then only their counts;
/// 10. grouped rows' lists keep 5 findings, then go (the row's count and cause stay);
/// 11. info findings leave the table, then low, then medium ones;
/// 12. high findings lose their evidence, then the table keeps as many rows as fit.
///
/// The explanations rank below the findings table and above the section lists: for a reviewer
/// they are the reading of the findings' edges, worth more than the lists of every change.
/// The verdict, the counts and the findings table's header always stay; each cut says what it
/// left out, and a note under the verdict sums them up.
pub fn render_diff(doc: &DiffDocument, options: &DiffMarkdownOptions) -> String {
    render_diff_with_blast(doc, options, None)
}

/// [`render_diff`] with a blast-radius section: `blast` is that section's Markdown body, without a
/// heading (lists or tables, one item per line), placed in a collapsible section after the others.
/// Under budget pressure it is cut by lines, then left out, and the report says so. With `None`
/// the report has no blast-radius section at all.
pub fn render_diff_with_blast(
    doc: &DiffDocument,
    options: &DiffMarkdownOptions,
    blast: Option<&str>,
) -> String {
    let prepared = Prepared::new(doc, blast);
    let candidates = mermaid::candidates(doc);
    let mut diagrams = DiagramCache {
        doc,
        candidates,
        max_nodes: options.diagram_max_nodes,
        by_size: BTreeMap::new(),
    };
    let full = Plan::full(&prepared, options.diagram_max_edges);
    let fits = |s: &str| s.chars().count() <= options.budget;

    let mut last = full.clone();
    for plan in prepared.degradations(&full) {
        let out = prepared.render(&plan, &full, options, &mut diagrams);
        if fits(&out) {
            return out;
        }
        last = plan;
    }
    // Keep as many findings rows as fit.
    let (mut lo, mut hi) = (0, last.finding_rows);
    let mut best = None;
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        let plan = Plan { finding_rows: mid, ..last.clone() };
        let out = prepared.render(&plan, &full, options, &mut diagrams);
        if fits(&out) {
            best = Some(out);
            lo = mid + 1;
        } else if mid == 0 {
            break;
        } else {
            hi = mid - 1;
        }
    }
    if let Some(out) = best {
        return out;
    }
    let plan = Plan { finding_rows: 0, ..last };
    hard_cut(&prepared.render(&plan, &full, options, &mut diagrams), options.budget)
}

/// The last resort when even the shortest report is over budget (a budget of a few hundred
/// characters): cut at a line and say so.
fn hard_cut(report: &str, budget: usize) -> String {
    const NOTE: &str = "\n… cut here to fit the size limit; the JSON report has everything.\n";
    let room = budget.saturating_sub(NOTE.chars().count());
    let kept: String = report.chars().take(room).collect();
    let kept = match kept.rfind('\n') {
        Some(i) => &kept[..i],
        None => "",
    };
    let out = format!("{kept}{NOTE}");
    out.chars().take(budget).collect()
}

/// How much of each part a rendering shows.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    diagram_edges: usize,
    /// Per section (in [`Prepared::sections`] order): rows shown per list.
    rows: Vec<usize>,
    /// Per severity (high, medium, low, info): evidence edges shown per row.
    evidence: [usize; 4],
    finding_rows: usize,
    /// Entries shown of each grouped row's list of findings.
    group_members: usize,
    blast_lines: usize,
    explain: ExplainPlan,
}

impl Plan {
    fn full(prepared: &Prepared, diagram_edges: usize) -> Self {
        Self {
            diagram_edges,
            rows: vec![usize::MAX; prepared.sections.len()],
            evidence: [usize::MAX; 4],
            finding_rows: prepared.findings.len(),
            group_members: usize::MAX,
            blast_lines: usize::MAX,
            explain: ExplainPlan::ALL,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Severity {
    High = 0,
    Medium = 1,
    Low = 2,
    Info = 3,
}

impl Severity {
    fn parse(s: &str) -> Self {
        match s {
            "high" => Self::High,
            "medium" => Self::Medium,
            "low" => Self::Low,
            _ => Self::Info,
        }
    }
}

fn glyph(severity: &str) -> &'static str {
    match severity {
        "high" => "🔴",
        "medium" => "🟠",
        "low" => "🟡",
        _ => "🔵",
    }
}

/// Everything rendered once; a plan only chooses how much of it to show.
struct Prepared {
    head: String,
    /// The architecture-rules section, first after the counts; empty without rule findings.
    rules: String,
    /// How the table's paths were shortened, under the table; empty when none was.
    paths_note: String,
    /// One per row of the table: a finding, or a group of them.
    findings: Vec<PreparedFinding>,
    /// In document order; `priority` orders the cuts.
    sections: Vec<Section>,
    blast: Option<Vec<String>>,
    explanations: Option<PreparedExplanations>,
}

/// What a rendering left out to fit the budget.
#[derive(Debug, Default)]
struct Omitted {
    findings: usize,
    evidence_edges: usize,
    /// Entries of grouped rows' lists of findings.
    group_members: usize,
    rows: usize,
    diagram_edges: usize,
    blast_lines: usize,
    explanations: usize,
}

struct DiagramCache<'a> {
    doc: &'a DiffDocument,
    candidates: Vec<mermaid::Candidate<'a>>,
    max_nodes: usize,
    by_size: BTreeMap<usize, mermaid::Diagram>,
}

impl DiagramCache<'_> {
    fn get(&mut self, max_edges: usize) -> &mermaid::Diagram {
        let Self { doc, candidates, max_nodes, by_size } = self;
        by_size
            .entry(max_edges)
            .or_insert_with(|| mermaid::render(doc, candidates, max_edges, *max_nodes))
    }
}

impl Prepared {
    fn new(doc: &DiffDocument, blast: Option<&str>) -> Self {
        // Rule findings are told in their own section, not again in the findings table.
        let findings = if doc.findings.iter().any(rules_section::is_rule_finding) {
            let mut table = doc.clone();
            table.findings.retain(|f| !rules_section::is_rule_finding(f));
            prepare_findings(&table)
        } else {
            prepare_findings(doc)
        };
        Self {
            head: head(doc),
            rules: rules_section::render(doc),
            findings: findings.rows,
            paths_note: findings.paths_note,
            sections: sections(doc),
            blast: blast.map(|b| b.lines().map(str::to_owned).collect()),
            explanations: doc.explanations.as_ref().map(|x| PreparedExplanations::new(doc, x)),
        }
    }

    /// The successive plans tried, each taking away more than the one before.
    fn degradations(&self, full: &Plan) -> Vec<Plan> {
        let mut order: Vec<usize> = (0..self.sections.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.sections[i].priority));
        let mut plans = vec![full.clone()];
        let mut plan = full.clone();
        let mut step = |plans: &mut Vec<Plan>, change: &dyn Fn(&mut Plan)| {
            change(&mut plan);
            if plans.last() != Some(&plan) {
                plans.push(plan.clone());
            }
        };
        step(&mut plans, &|p| p.diagram_edges = p.diagram_edges.min(30));
        step(&mut plans, &|p| p.diagram_edges = p.diagram_edges.min(15));
        for &s in &order {
            step(&mut plans, &|p| p.rows[s] = p.rows[s].min(25));
        }
        step(&mut plans, &|p| p.blast_lines = p.blast_lines.min(40));
        step(&mut plans, &|p| p.group_members = p.group_members.min(25));
        step(&mut plans, &|p| p.evidence = cap(p.evidence, [10, 3, 3, 3]));
        for &s in &order {
            step(&mut plans, &|p| p.rows[s] = p.rows[s].min(5));
        }
        // Every finding keeps an edge a reviewer can check it by, low and info ones included,
        // for longer than the lists of every change, the blast radius and the diagram.
        step(&mut plans, &|p| p.evidence = cap(p.evidence, [3, 1, 1, 1]));
        for &s in &order {
            step(&mut plans, &|p| p.rows[s] = 0);
        }
        step(&mut plans, &|p| p.blast_lines = 0);
        // The diagram's first edges are the findings' own: a small picture of what the findings
        // say is worth more than the lists of every change, so it goes only after them.
        step(&mut plans, &|p| p.diagram_edges = p.diagram_edges.min(8));
        step(&mut plans, &|p| p.diagram_edges = 0);
        step(&mut plans, &|p| p.explain.severe_only = true);
        step(&mut plans, &|p| p.evidence = cap(p.evidence, [3, 1, 1, 0]));
        step(&mut plans, &|p| p.evidence = cap(p.evidence, [3, 1, 0, 0]));
        step(&mut plans, &|p| p.evidence = cap(p.evidence, [1, 0, 0, 0]));
        for most in [10, 5, 0] {
            step(&mut plans, &|p| p.explain.max_entries = p.explain.max_entries.min(most));
        }
        // A grouped row's list names its findings; the row itself says how many and why, so
        // the list goes before any row does.
        step(&mut plans, &|p| p.group_members = p.group_members.min(5));
        step(&mut plans, &|p| p.group_members = 0);
        for below in [Severity::Info, Severity::Low, Severity::Medium] {
            let keep = self.findings.iter().filter(|f| f.severity < below).count();
            step(&mut plans, &|p| p.finding_rows = p.finding_rows.min(keep));
        }
        step(&mut plans, &|p| p.evidence = [0; 4]);
        plans
    }

    fn render(
        &self,
        plan: &Plan,
        full: &Plan,
        options: &DiffMarkdownOptions,
        diagrams: &mut DiagramCache<'_>,
    ) -> String {
        let mut omitted = Omitted::default();
        let mut body = String::new();
        self.render_findings(plan, &mut body, &mut omitted);
        if let Some(explanations) = &self.explanations {
            explanations.render(plan.explain, &mut body, &mut omitted);
        }
        for (i, section) in self.sections.iter().enumerate() {
            if !section.trailing {
                render_section(section, plan.rows[i], &mut body, &mut omitted);
            }
        }
        if let Some(lines) = &self.blast {
            render_blast(lines, plan.blast_lines, &mut body, &mut omitted);
        }
        let full_drawn = diagrams.get(full.diagram_edges).drawn;
        let diagram = diagrams.get(plan.diagram_edges);
        omitted.diagram_edges = full_drawn.saturating_sub(diagram.drawn);
        render_diagram(diagram, &mut body);
        for (i, section) in self.sections.iter().enumerate() {
            if section.trailing {
                render_section(section, plan.rows[i], &mut body, &mut omitted);
            }
        }

        let mut out = String::with_capacity(body.len() + self.head.len() + 512);
        if let Some(marker) = &options.marker {
            out.push_str(marker);
            out.push('\n');
        }
        out.push_str(&self.head);
        out.push_str(&omission_note(&omitted));
        out.push_str(&self.rules);
        out.push_str(&body);
        out
    }

    fn render_findings(&self, plan: &Plan, out: &mut String, omitted: &mut Omitted) {
        if self.findings.is_empty() {
            out.push_str("No findings: nothing a reviewer needs to look at first.\n\n");
            return;
        }
        out.push_str(findings::TABLE_HEADER);
        let shown = plan.finding_rows.min(self.findings.len());
        for f in &self.findings[..shown] {
            let (row, left_out) = f.row(plan.group_members);
            out.push_str(&row);
            omitted.group_members += left_out;
        }
        if shown < self.findings.len() {
            // Rows left out are counted by the findings they stand for.
            let mut left: BTreeMap<Severity, usize> = BTreeMap::new();
            for f in &self.findings[shown..] {
                *left.entry(f.severity).or_default() += f.findings;
            }
            let by: Vec<String> = left
                .iter()
                .map(|(s, n)| format!("{} {}", thousands(*n), severity_name(*s)))
                .collect();
            let n: usize = left.values().sum();
            let _ = writeln!(
                out,
                "\n… {} more finding{} ({}) left out to fit one GitHub comment; the JSON report \
                 lists them.",
                thousands(n),
                plural(n),
                by.join(", ")
            );
            omitted.findings += n;
        }
        if !self.paths_note.is_empty() {
            out.push('\n');
            out.push_str(&self.paths_note);
        }
        out.push('\n');

        let mut evidence = String::new();
        let mut edges_shown = 0;
        for f in &self.findings[..shown] {
            let cap = plan.evidence[f.severity as usize];
            if f.evidence.is_empty() || cap == 0 {
                omitted.evidence_edges += f.evidence.len();
                continue;
            }
            let _ = writeln!(evidence, "{}", f.evidence_title);
            let take = cap.min(f.evidence.len());
            for row in &f.evidence[..take] {
                evidence.push_str(row);
            }
            edges_shown += take;
            if take < f.evidence.len() {
                let n = f.evidence.len() - take;
                let _ = writeln!(evidence, "- … {} more edge{}", thousands(n), plural(n));
                omitted.evidence_edges += n;
            }
            evidence.push('\n');
        }
        if edges_shown > 0 {
            let _ = writeln!(
                out,
                "<details><summary><b>Evidence</b>: the {} edge{} behind the findings</summary>\n\n\
                 {evidence}</details>\n",
                thousands(edges_shown),
                plural(edges_shown)
            );
        }
    }
}

fn cap(current: [usize; 4], limit: [usize; 4]) -> [usize; 4] {
    let mut out = current;
    for (o, l) in out.iter_mut().zip(limit) {
        *o = (*o).min(l);
    }
    out
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
        Severity::Info => "info",
    }
}

/// The verdict, the two trees and the counts: never cut.
fn head(doc: &DiffDocument) -> String {
    let s = &doc.summary;
    let worst = ["high", "medium", "low", "info"]
        .into_iter()
        .find(|k| s.findings_by_severity.get(*k).copied().unwrap_or(0) > 0);
    let glyph = worst.map_or("✅", glyph);
    let mut out = String::new();
    let _ = writeln!(out, "### {glyph} {}\n", text(&doc.verdict));
    let _ = writeln!(
        out,
        "Architecture diff of {} → {}\n",
        code(&doc.base.label),
        code(&doc.head.label)
    );

    let counts = Counts::of(doc, text);
    let mut parts = Vec::new();
    match &counts.findings {
        Some(f) => parts.push(format!(
            "**{} finding{}** ({}{})",
            thousands(f.total),
            plural(f.total),
            f.by_severity.join(", "),
            f.folded
        )),
        None => parts.push("**no findings**".to_owned()),
    }
    parts.extend(counts.changes);
    if counts.findings.is_none() && parts.len() == 1 {
        parts.push("no architectural change".to_owned());
    }
    let _ = writeln!(out, "{}\n", parts.join(" · "));
    out
}

/// The counts under the verdict, shared by the Markdown report and the terminal text.
pub(crate) struct Counts {
    /// `None` when there are no findings.
    pub(crate) findings: Option<FindingCounts>,
    /// `edges: 18 added, 6 removed`, `nodes: …`, `import cycles: …`, `refusals: …`, those that
    /// are not zero.
    pub(crate) changes: Vec<String>,
}

/// The findings a reader sees (those another one covers are not counted again).
pub(crate) struct FindingCounts {
    pub(crate) total: usize,
    /// `3 high`, `2 medium`, … (severities with findings only).
    pub(crate) by_severity: Vec<String>,
    /// `, and 2 more reported within them (in the JSON as info)`, or empty.
    pub(crate) folded: String,
}

impl Counts {
    /// The counts of `doc`; `name` writes a severity name Cartograph does not know (escaped in
    /// Markdown, as it is in text).
    pub(crate) fn of(doc: &DiffDocument, name: impl Fn(&str) -> String) -> Self {
        let s = &doc.summary;
        // Findings another one covers are not counted again: the table has no row for them.
        let covered = doc.findings.iter().filter(|f| f.covered_by.is_some()).count();
        let mut by_severity = s.findings_by_severity.clone();
        for f in doc.findings.iter().filter(|f| f.covered_by.is_some()) {
            if let Some(n) = by_severity.get_mut(&f.severity) {
                *n = n.saturating_sub(1);
            }
        }
        let total: u64 = by_severity.values().sum();
        let findings = (total > 0).then(|| {
            let mut by: Vec<String> = Vec::new();
            let known = ["high", "medium", "low", "info"];
            for k in known {
                if let Some(n) = by_severity.get(k).filter(|n| **n > 0) {
                    by.push(format!("{} {k}", thousands(*n as usize)));
                }
            }
            for (k, n) in &by_severity {
                if !known.contains(&k.as_str()) && *n > 0 {
                    by.push(format!("{} {}", thousands(*n as usize), name(k)));
                }
            }
            let folded = if covered > 0 {
                format!(
                    ", and {} more reported within them (in the JSON as info)",
                    thousands(covered)
                )
            } else {
                String::new()
            };
            FindingCounts { total: total as usize, by_severity: by, folded }
        });
        let mut parts = Vec::new();
        let counts = |what: &str, numbers: [(u64, &str); 3]| {
            let bits: Vec<String> = numbers
                .iter()
                .filter(|(n, _)| *n > 0)
                .map(|(n, word)| format!("{} {word}", thousands(*n as usize)))
                .collect();
            (!bits.is_empty()).then(|| format!("{what}: {}", bits.join(", ")))
        };
        let changes = |a, r, c| [(a, "added"), (r, "removed"), (c, "changed")];
        parts.extend(counts("edges", changes(s.edges_added, s.edges_removed, s.edges_changed)));
        parts.extend(counts("nodes", changes(s.nodes_added, s.nodes_removed, s.nodes_changed)));
        let new_gone = |a, r| [(a, "new"), (r, "gone"), (0, "")];
        // A head cycle sharing modules with a base cycle grew, shrank, split or merged: it is
        // neither new nor is the base one gone.
        let overlaps = |a: &[String], b: &[String]| a.iter().any(|m| b.binary_search(m).is_ok());
        let cycles = &doc.cycles;
        let count = |n: usize| n as u64;
        let changed = count(
            cycles.added.iter().filter(|a| cycles.removed.iter().any(|r| overlaps(a, r))).count(),
        );
        let gone = count(
            cycles.removed.iter().filter(|r| !cycles.added.iter().any(|a| overlaps(a, r))).count(),
        );
        parts.extend(counts(
            "import cycles",
            [(count(cycles.added.len()) - changed, "new"), (changed, "changed"), (gone, "gone")],
        ));
        parts.extend(counts("refusals", new_gone(s.refusals_added, s.refusals_removed)));
        Self { findings, changes: parts }
    }
}

fn omission_note(o: &Omitted) -> String {
    let mut parts = Vec::new();
    if o.findings > 0 {
        parts.push(format!("{} finding{}", thousands(o.findings), plural(o.findings)));
    }
    if o.evidence_edges > 0 {
        parts.push(format!(
            "{} evidence edge{} of the findings",
            thousands(o.evidence_edges),
            plural(o.evidence_edges)
        ));
    }
    if o.group_members > 0 {
        parts.push(format!(
            "{} name{} in the lists of grouped findings",
            thousands(o.group_members),
            plural(o.group_members)
        ));
    }
    if o.explanations > 0 {
        parts.push(format!(
            "{} explanation entr{}",
            thousands(o.explanations),
            if o.explanations == 1 { "y" } else { "ies" }
        ));
    }
    if o.rows > 0 {
        parts.push(format!("{} listed change{}", thousands(o.rows), plural(o.rows)));
    }
    if o.blast_lines > 0 {
        parts.push(format!(
            "{} line{} of the blast radius",
            thousands(o.blast_lines),
            plural(o.blast_lines)
        ));
    }
    if o.diagram_edges > 0 {
        parts.push(format!(
            "{} edge{} of the diagram",
            thousands(o.diagram_edges),
            plural(o.diagram_edges)
        ));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "> ✂️ **Shortened to fit one GitHub comment.** Left out: {}. The JSON report \
         (`--json`) has everything.\n\n",
        parts.join(", ")
    )
}

/// A finding kind as a reader says it.
pub(crate) fn finding_label(kind: &str) -> String {
    match known_label(kind) {
        Some(label) => label.to_owned(),
        None => text(&kind.replace('-', " ")),
    }
}

/// A finding kind as [`finding_label`] says it, unescaped: for terminal text.
pub(crate) fn finding_words(kind: &str) -> String {
    known_label(kind).map_or_else(|| kind.replace('-', " "), str::to_owned)
}

fn known_label(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "route-removed" => "route removed",
        "call-to-removed-route" => "call to removed route",
        "route-added" => "route added",
        "new-cross-language-call" => "new cross-language call",
        "new-call" => "new call to a route",
        "new-table" => "new table",
        "new-table-write" => "new table write",
        "new-env-var" => "new env var",
        "new-external-service" => "new external service",
        "new-package" => "new package",
        "new-cycle" => "new import cycle",
        "new-component-dependency" => "new component dependency",
        _ => return None,
    })
}

/// A node id without its kind: `route:GET /items/{}` is shown as `GET /items/{}`.
pub(crate) fn node_name(id: &str) -> &str {
    const KINDS: [&str; 7] =
        ["module:", "package:", "route:", "table:", "env_var:", "external:", "component:"];
    KINDS.iter().find_map(|k| id.strip_prefix(k)).unwrap_or(id)
}

fn render_blast(lines: &[String], cap: usize, out: &mut String, omitted: &mut Omitted) {
    out.push_str("<details><summary><b>Blast radius</b> of the changed files</summary>\n\n");
    let take = cap.min(lines.len());
    let mut fences = 0usize;
    for line in &lines[..take] {
        if line.trim_start().starts_with("```") {
            fences += 1;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !fences.is_multiple_of(2) {
        out.push_str("```\n");
    }
    let left = lines.len() - take;
    if left > 0 {
        let _ = writeln!(
            out,
            "\n… {} more line{} left out to fit one GitHub comment; see the JSON report.",
            thousands(left),
            plural(left)
        );
        omitted.blast_lines += left;
    }
    out.push_str("\n</details>\n\n");
}

fn render_diagram(diagram: &mermaid::Diagram, out: &mut String) {
    if diagram.total == 0 {
        return;
    }
    if diagram.drawn == 0 {
        let _ = writeln!(
            out,
            "The diagram of the {} changed edge{} was left out to fit one GitHub comment.\n",
            thousands(diagram.total),
            plural(diagram.total)
        );
        return;
    }
    let shown = if diagram.drawn < diagram.total && diagram.behind_findings == diagram.drawn {
        format!(
            "the first {} edge{} behind the findings, of the {} changed edges ({} more not drawn)",
            thousands(diagram.drawn),
            plural(diagram.drawn),
            thousands(diagram.total),
            thousands(diagram.total - diagram.drawn)
        )
    } else if diagram.drawn < diagram.total {
        format!(
            "{} of the {} changed edges ({} more edges not drawn)",
            thousands(diagram.drawn),
            thousands(diagram.total),
            thousands(diagram.total - diagram.drawn)
        )
    } else {
        format!("the {} changed edge{}", thousands(diagram.total), plural(diagram.total))
    };
    let _ = writeln!(
        out,
        "<details open><summary><b>Diagram</b>: {shown}</summary>\n\n{}\n\
         <sub>Green solid arrows were added, red dashed ones removed, amber thick ones changed \
         (confidence, provenance or type-only). Boxes are modules, rounded boxes routes, \
         cylinders tables, hexagons environment variables, double-edged boxes packages, slanted \
         boxes external services.</sub>\n\n</details>\n",
        diagram.text
    );
}
