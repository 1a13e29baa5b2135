//! The Explanations part of the report: what `cartograph-ask` said about the changed edges.
//!
//! One line of counts and who answered; then, per selected edge in selection order, the edge and
//! either the explanation — each item followed by its citations, every citation a quote tied to
//! the bundle edge it was checked against (`“…”` over `— e2: calls a.ts → GET /x`) — or, when the answer
//! was refused or could not be had, why, and the raw evidence of the edge instead. A run that was
//! degraded as a whole (every entry unavailable for one reason, such as no API key) is written as
//! one sentence and a list of the raw evidence. Every string from the document is escaped.
//!
//! Nothing is shown as checked on the document's word: every `explained` entry is verified again
//! here against the evidence the document carries (`crate::explain::verify_entry`), and one that
//! fails — an edited report, a quotation that is not in its bundle — is shown as "explanation
//! unverified" with its raw evidence and without its answer. The counts are those of the entries
//! as verified, not the document's own.

use std::fmt::Write as _;

use super::escape::{code, prose, text, text_with_code, thousands};
use super::rows::{bundle_edge_row, edge_phrase, place};
use super::{Omitted, finding_label, node_name};
use crate::diff::{
    BundleEdgeDoc, CitationDoc, DiffDocument, ExplanationDoc, ExplanationsDoc, STATUS_EXPLAINED,
    STATUS_REFUSED,
};
use crate::explain::verify_entry;
use crate::words::plural;

/// How much of the part a rendering shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ExplainPlan {
    /// Only entries whose edge is behind a high or medium finding.
    pub(super) severe_only: bool,
    /// At most this many entries (0: the counts only).
    pub(super) max_entries: usize,
}

impl ExplainPlan {
    pub(super) const ALL: Self = Self { severe_only: false, max_entries: usize::MAX };
}

/// The part, rendered once; a plan only chooses which entries to show.
pub(super) struct PreparedExplanations {
    /// The collapsible's opening, the counts, who answered, and the run's note.
    head: String,
    /// Written before the entries when every entry is unavailable for one reason.
    shared: Option<String>,
    entries: Vec<PreparedEntry>,
}

struct PreparedEntry {
    /// The edge is behind a high or medium finding.
    severe: bool,
    body: String,
}

impl PreparedExplanations {
    pub(super) fn new(doc: &DiffDocument, explanations: &ExplanationsDoc) -> Self {
        let entries: Vec<Shown> = explanations
            .entries
            .iter()
            .map(|entry| Shown { entry, outcome: Outcome::of(doc, entry) })
            .collect();
        let shared_reason = match entries.first() {
            Some(first)
                if entries.len() > 1
                    && entries.iter().all(|e| {
                        e.outcome != Outcome::Explained
                            && e.outcome.label() == first.outcome.label()
                            && e.reason() == first.reason()
                    }) =>
            {
                Some(first)
            }
            _ => None,
        };
        let shared = shared_reason.map(|first| {
            format!(
                "**{}** for all {} selected edges: {} Their raw evidence:\n\n",
                first.outcome.label(),
                thousands(entries.len()),
                sentence(first.reason())
            )
        });
        let prepared = entries
            .iter()
            .enumerate()
            .map(|(i, shown)| PreparedEntry {
                severe: is_severe(doc, shown.entry),
                body: if shared.is_some() {
                    raw_evidence_row(doc, shown.entry)
                } else {
                    entry_body(doc, i + 1, shown)
                },
            })
            .collect();
        Self { head: head(explanations, &entries), shared, entries: prepared }
    }

    pub(super) fn render(&self, plan: ExplainPlan, out: &mut String, omitted: &mut Omitted) {
        out.push_str(&self.head);
        if self.entries.is_empty() {
            out.push_str("No changed edge was selected for explanation.\n\n</details>\n\n");
            return;
        }
        let shown: Vec<&PreparedEntry> = self
            .entries
            .iter()
            .filter(|e| !plan.severe_only || e.severe)
            .take(plan.max_entries)
            .collect();
        let left = self.entries.len() - shown.len();
        if shown.is_empty() {
            let _ = writeln!(
                out,
                "{} left out to fit one GitHub comment; the JSON report has every one.\n",
                if left == 1 {
                    "The one entry is".to_owned()
                } else {
                    format!("These {} entries are", thousands(left))
                }
            );
        } else {
            if let Some(shared) = &self.shared {
                out.push_str(shared);
            }
            for entry in &shown {
                out.push_str(&entry.body);
            }
            if self.shared.is_some() {
                out.push('\n');
            }
            if left > 0 {
                let _ = writeln!(
                    out,
                    "… {} more entr{} left out to fit one GitHub comment (those of edges behind \
                     high and medium findings are kept first); the JSON report has every one.\n",
                    thousands(left),
                    if left == 1 { "y" } else { "ies" }
                );
            }
        }
        omitted.explanations += left;
        out.push_str("</details>\n\n");
    }
}

/// The collapsible's opening with the counts in its summary, then who answered and under which
/// contract, then the run's note.
fn head(x: &ExplanationsDoc, entries: &[Shown]) -> String {
    let count =
        |outcome: fn(&Outcome) -> bool| entries.iter().filter(|e| outcome(&e.outcome)).count();
    let explained = count(|o| *o == Outcome::Explained);
    let mut counts: Vec<String> = [
        (explained, "explained"),
        (count(|o| matches!(o, Outcome::Unverified(_))), "unverified"),
        (count(|o| *o == Outcome::Refused), "refused"),
        (count(|o| *o == Outcome::Unavailable), "unavailable"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, word)| format!("{} {word}", thousands(*n)))
    .collect();
    if x.skipped > 0 {
        let n = to_usize(x.skipped);
        counts.push(format!("{} changed edge{} not selected", thousands(n), plural(n)));
    }
    if counts.is_empty() {
        counts.push("none".to_owned());
    }
    let mut out = format!(
        "<details open><summary><b>Explanations</b> · {}</summary>\n\n",
        counts.join(" · ")
    );
    let (model, host) = (code(&x.provider.model), code(&x.provider.host));
    if explained > 0 {
        let _ = writeln!(
            out,
            "<sub>By {model} at {host}, from the evidence alone. Each quote was checked to appear \
             word for word in the evidence of the edge it names; an answer that fails any check is \
             refused whole, and the raw evidence is shown instead.</sub>\n"
        );
    } else {
        let _ = writeln!(
            out,
            "<sub>Provider: {model} at {host}. No explanation passed its checks or could be had; \
             the raw evidence is shown instead.</sub>\n"
        );
    }
    if let Some(note) = &x.note {
        let _ = writeln!(out, "> ⚠️ {}\n", text_with_code(note));
    }
    out
}

/// An entry and what is shown of it.
struct Shown<'a> {
    entry: &'a ExplanationDoc,
    outcome: Outcome,
}

impl Shown<'_> {
    /// The sentence shown for an entry that is not explained: why it failed verification, else the
    /// document's reason.
    fn reason(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Unverified(why) => Some(why),
            _ => self.entry.reason.as_deref(),
        }
    }
}

/// An entry's outcome as rendered: `explained` only when its answer passes [`verify_entry`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Explained,
    /// Written as explained, but fails verification: why, as a sentence.
    Unverified(String),
    Refused,
    /// `unavailable`, or any status this renderer does not know.
    Unavailable,
}

impl Outcome {
    fn of(doc: &DiffDocument, entry: &ExplanationDoc) -> Self {
        match entry.status.as_str() {
            STATUS_EXPLAINED => match verify_entry(doc, entry) {
                Ok(()) => Self::Explained,
                Err(why) => Self::Unverified(format!("{why}; its answer is not shown")),
            },
            STATUS_REFUSED => Self::Refused,
            _ => Self::Unavailable,
        }
    }

    fn label(&self) -> &'static str {
        match self {
            Self::Explained => "explained",
            Self::Unverified(_) => "explanation unverified",
            Self::Refused => "explanation refused",
            Self::Unavailable => "explanation unavailable",
        }
    }
}

/// Whether the entry's edge is behind a high or medium finding: the findings it names, matched
/// by the edge where one lists it, else by kind alone.
fn is_severe(doc: &DiffDocument, entry: &ExplanationDoc) -> bool {
    let e = &entry.edge;
    let named: Vec<_> = doc.findings.iter().filter(|f| entry.findings.contains(&f.kind)).collect();
    let by_edge: Vec<_> = named
        .iter()
        .filter(|f| f.edges.iter().any(|r| r.kind == e.kind && r.from == e.from && r.to == e.to))
        .collect();
    let severe = |s: &str| s == "high" || s == "medium";
    if by_edge.is_empty() {
        named.iter().any(|f| severe(&f.severity))
    } else {
        by_edge.iter().any(|f| severe(&f.severity))
    }
}

/// A reason as a sentence with its final stop.
fn sentence(reason: Option<&str>) -> String {
    let reason = reason.map(str::trim).filter(|r| !r.is_empty()).unwrap_or("no reason given");
    let mut out = text_with_code(reason);
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    out
}

/// The entry's heading: its number, the edge, and what it is to the diff.
fn entry_heading(n: usize, entry: &ExplanationDoc) -> String {
    let e = &entry.edge;
    let mut notes = vec![text(&e.change)];
    if !entry.findings.is_empty() {
        let labels: Vec<String> = entry.findings.iter().map(|k| finding_label(k)).collect();
        notes.push(labels.join(", "));
    }
    if entry.cached {
        notes.push("cached answer".to_owned());
    }
    if entry.bundle.truncated || entry.bundle.omitted_edges > 0 {
        let n = to_usize(entry.bundle.omitted_edges);
        notes.push(format!(
            "evidence bundle cut to its size cap: {} neighbouring edge{} not sent",
            thousands(n),
            plural(n)
        ));
    }
    format!(
        "**{n}.** {} <sub>({})</sub>\n\n",
        edge_phrase(&e.kind, &e.from, &e.to),
        notes.join(" · ")
    )
}

fn entry_body(doc: &DiffDocument, n: usize, shown: &Shown) -> String {
    let entry = shown.entry;
    let mut out = entry_heading(n, entry);
    if shown.outcome == Outcome::Explained {
        for item in &entry.items {
            let _ = writeln!(out, "- {}", prose(&item.text));
            for (i, citation) in item.citations.iter().enumerate() {
                if i > 0 {
                    out.push_str("  >\n");
                }
                let _ = writeln!(out, "  > {}", quote(entry, citation));
            }
        }
        out.push('\n');
    } else {
        let (evidence, where_) = raw_evidence(doc, entry);
        let _ = writeln!(
            out,
            "**{}**: {}\n\n- raw evidence of this edge: {evidence}{where_}\n",
            shown.outcome.label(),
            sentence(shown.reason())
        );
    }
    out
}

/// A citation as a quote tied to the bundle edge it quotes.
fn quote(entry: &ExplanationDoc, citation: &CitationDoc) -> String {
    let tie = match entry.bundle.edge(&citation.edge) {
        Some(edge) => format!(
            "<b>{}</b>: {} {} → {}",
            text(&edge.id),
            text(&edge.claim.kind),
            code(node_name(&edge.claim.from)),
            code(node_name(&edge.claim.to))
        ),
        None => format!("<b>{}</b>: not an edge of the bundle", text(&citation.edge)),
    };
    format!("“{}”<br><sub>— {tie}</sub>", text(&citation.text))
}

/// The changed edge's evidence and where it was found: from the bundle (its e1), else from the
/// diff's own lists.
fn raw_evidence(doc: &DiffDocument, entry: &ExplanationDoc) -> (String, String) {
    if let Some(edge) = changed_edge(doc, entry) {
        return (
            text(&edge.claim.evidence),
            format!(
                " <sub>({} · {})</sub>",
                text(&edge.claim.confidence),
                place(&edge.claim.location, &edge.claim.from)
            ),
        );
    }
    ("none recorded.".to_owned(), String::new())
}

/// One row of raw evidence for a run degraded as a whole.
fn raw_evidence_row(doc: &DiffDocument, entry: &ExplanationDoc) -> String {
    match changed_edge(doc, entry) {
        Some(edge) => bundle_edge_row(&edge),
        None => {
            let e = &entry.edge;
            format!("- {} — no evidence recorded\n", edge_phrase(&e.kind, &e.from, &e.to))
        }
    }
}

/// The changed edge with its evidence: e1 of the bundle when it is that edge, else the edge of
/// the same identity in the diff's lists.
fn changed_edge(doc: &DiffDocument, entry: &ExplanationDoc) -> Option<BundleEdgeDoc> {
    let e = &entry.edge;
    let same = |kind: &str, from: &str, to: &str| kind == e.kind && from == e.from && to == e.to;
    if let Some(first) =
        entry.bundle.edge("e1").filter(|b| same(&b.claim.kind, &b.claim.from, &b.claim.to))
    {
        return Some(first.clone());
    }
    let listed = doc
        .edges
        .added
        .iter()
        .chain(&doc.edges.removed)
        .chain(doc.edges.changed.iter().map(|c| &c.after))
        .find(|d| same(&d.claim.kind, &d.claim.from, &d.claim.to))?;
    Some(BundleEdgeDoc { id: "e1".to_owned(), claim: listed.claim.clone() })
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
