//! A diff as terminal text: the verdict (and what the `--fail-on` gate made of it) first, then the
//! findings grouped by severity, one line each plus where it is, then what changed, counted per
//! concern. With evidence, each finding lists the edges behind it with their sentences.
//!
//! The counts, the folding of covered findings into the finding that covers them, the labels and
//! the per-concern counts are the Markdown report's own (`diff_markdown`), so the two forms never
//! disagree.

use super::page::{Page, Role};
use super::{TextOptions, at, more_note, name};
use crate::diff::{DiffDocument, EdgeRefDoc};
use crate::diff_markdown::Counts;
use crate::diff_markdown::findings::{covered_kinds, shown_findings, shown_label};
use crate::diff_markdown::sections::sections;
use crate::words::plural;

/// Findings shown per severity without evidence; the rest are counted.
const FINDINGS_PER_SEVERITY: usize = 20;

/// What the `--fail-on` gate made of a diff, told under the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// The gate was met: the sentence says by what (`2 findings of kind route-removed`).
    Met(String),
    /// A gate was given and nothing met it.
    Passed,
}

/// How a diff is written as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiffTextOptions {
    pub text: TextOptions,
    /// The `--fail-on` gate's outcome, when one was given.
    pub gate: Option<Gate>,
}

const SEVERITIES: [(&str, &str); 4] =
    [("high", "High"), ("medium", "Medium"), ("low", "Low"), ("info", "Info")];

/// Renders a diff document as terminal text.
pub fn render_diff(doc: &DiffDocument, options: &DiffTextOptions) -> String {
    let o = &options.text;
    let mut page = Page::new(o.width);
    let counts = Counts::of(doc, str::to_owned);
    let worst = SEVERITIES
        .iter()
        .map(|(s, _)| *s)
        .find(|s| doc.findings.iter().any(|f| f.severity == *s && f.covered_by.is_none()));
    let (mark, role) = match worst {
        Some(s) => (if s == "high" { "✖" } else { "●" }, Role::of_severity(s)),
        None => ("✔", Role::Good),
    };
    // The verdict's head (`12 findings (3 high, …)`) stands out; what they are follows.
    let (lead, rest) = match doc.verdict.split_once(": ") {
        Some((lead, rest)) => (format!("{lead}:"), format!(" {rest}")),
        None => (doc.verdict.clone(), String::new()),
    };
    page.para(
        0,
        2,
        &[(role, mark), (Role::Plain, " "), (Role::Strong, &lead), (Role::Plain, &rest)],
    );
    // The findings are counted in the verdict; the line under it counts the rest.
    let mut line = format!("{} → {}", doc.base.label, doc.head.label);
    for part in &counts.changes {
        line.push_str(" · ");
        line.push_str(part);
    }
    page.para(2, 2, &[(Role::Dim, &line)]);
    match &options.gate {
        Some(Gate::Met(met)) => {
            page.para(2, 4, &[(Role::High, "fails --fail-on:"), (Role::Plain, &format!(" {met}"))]);
        }
        Some(Gate::Passed) => page.para(
            2,
            4,
            &[(Role::Good, "passes --fail-on:"), (Role::Plain, " no finding of those kinds")],
        ),
        None => {}
    }

    let also = covered_kinds(&doc.findings);
    let shown = shown_findings(&doc.findings, &also);
    let mut edges_behind = 0;
    for (severity, title) in SEVERITIES {
        let of: Vec<_> = shown.iter().filter(|s| s.finding.severity == severity).collect();
        if of.is_empty() {
            continue;
        }
        page.blank();
        let role = Role::of_severity(severity);
        page.para(0, 0, &[(role, title), (Role::Dim, &format!(" ({})", of.len()))]);
        let cap = if o.evidence { usize::MAX } else { FINDINGS_PER_SEVERITY };
        for s in of.iter().take(cap) {
            let f = s.finding;
            edges_behind += f.edges.len();
            let label = shown_label(s);
            page.para(
                2,
                4,
                &[
                    (role, "•"),
                    (Role::Plain, " "),
                    (Role::Strong, &label),
                    (Role::Plain, ": "),
                    (Role::Plain, &super::unquoted(&f.message)),
                ],
            );
            if o.evidence {
                for edge in &f.edges {
                    evidence(&mut page, edge);
                }
            } else if let Some(first) = f.edges.first() {
                let mut where_ = format!("at {}", at(&first.location));
                if first.side == "base" {
                    where_.push_str(" (in base)");
                }
                let more = f.edges.len() - 1;
                if more > 0 {
                    where_.push_str(&format!(" and {more} more edge{}", plural(more)));
                }
                page.para(4, 6, &[(Role::Dim, &where_)]);
            }
        }
        if of.len() > cap {
            let left = of.len() - cap;
            page.para(2, 4, &[(Role::Dim, &more_note(left, &format!("{severity} findings")))]);
        }
    }

    let concerns = sections(doc);
    if !concerns.is_empty() {
        page.blank();
        page.para(0, 0, &[(Role::Strong, "What changed")]);
        let width = concerns.iter().map(|s| s.title.chars().count()).max().unwrap_or(0);
        for s in &concerns {
            page.field(2, width, s.title, &s.summary().join(" · "));
        }
    }
    if let Some(x) = &doc.explanations {
        page.blank();
        let mut line = format!(
            "Explanations: {} explained, {} refused, {} unavailable",
            x.explained, x.refused, x.unavailable
        );
        if let Some(note) = &x.note {
            line.push_str(&format!(" ({note})"));
        }
        line.push_str("; --markdown shows them.");
        page.para(0, 2, &[(Role::Dim, &line)]);
    }
    if !o.evidence && edges_behind > 0 {
        page.blank();
        page.para(
            0,
            2,
            &[(
                Role::Dim,
                &format!(
                    "{edges_behind} edge{} behind these findings: --evidence shows them with their \
                     evidence; --markdown writes the pull-request report, --json everything.",
                    plural(edges_behind)
                ),
            )],
        );
    }
    if let Some(coverage) = &doc.head.coverage {
        super::coverage(&mut page, coverage, "What was not seen (head)");
    }
    page.finish(o.color)
}

/// One edge behind a finding: `from verb to (confidence, path:line)`, then its sentence.
fn evidence(page: &mut Page, edge: &EdgeRefDoc) {
    let verb = if edge.kind == "reads_env" { "reads" } else { edge.kind.as_str() };
    let mut place = format!("({}, {}", edge.confidence, super::place(&edge.location, &edge.from));
    if edge.side == "base" {
        place.push_str(", in base");
    }
    place.push(')');
    page.para(
        4,
        8,
        &[
            (Role::Dim, "-"),
            (Role::Plain, " "),
            (Role::Plain, name(&edge.from)),
            (Role::Plain, " "),
            (Role::Strong, verb),
            (Role::Plain, " "),
            (Role::Plain, name(&edge.to)),
            (Role::Plain, " "),
            (Role::Dim, &place),
        ],
    );
    page.para(8, 8, &[(Role::Dim, &edge.evidence)]);
}
