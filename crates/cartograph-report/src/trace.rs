//! The `trace` document: data-flow paths from some nodes (optionally to some), each hop with its
//! edge's evidence, provenance, confidence and location — and its Markdown.
//!
//! A path walked `forward` (from a module or route) follows the data; one walked `backward` (from a
//! table, env var, external or package) goes against it, from the data's end to its sources. Hops
//! are listed in the order walked; each names its edge as it is in the graph and says whether the
//! walk went along the edge (`forward`) or against it (`backward`, e.g. a route to the module
//! that serves it).

use std::fmt::Write as _;

use cartograph_core::NodeKey;
use cartograph_graph::Trace;
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
use crate::blast::{code, details_close, details_open};
use crate::snapshot::LocationDoc;
use crate::words::plural;

pub const SCHEMA_NAME: &str = "trace";
pub const SCHEMA_VERSION: &str = "1.1";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TraceDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    /// Start node ids, in identity order.
    pub from: Vec<String>,
    /// End node ids when the trace was asked for paths to them; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub to: Option<Vec<String>>,
    pub bounds: TraceBoundsDoc,
    pub truncation: TraceTruncationDoc,
    /// In enumeration order: by start node, then depth-first, steps tried by edge kind (calls,
    /// serves, writes, reads, reads_env, imports) then by the reached node's identity.
    pub paths: Vec<TracePathDoc>,
    /// What the paths cannot show (since 1.1): for each start module in which no HTTP call was
    /// recognised and none refused, that its calls are unknown rather than none.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TraceBoundsDoc {
    pub max_depth: u64,
    pub max_paths: u64,
    pub include_type_only: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TraceTruncationDoc {
    /// Paths listed.
    pub paths: u64,
    /// More paths existed than `max_paths`.
    pub by_paths: bool,
    /// Some path could have gone deeper than `max_depth`.
    pub by_depth: bool,
    /// The search-step budget ran out.
    pub by_budget: bool,
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct TracePathDoc {
    pub from: String,
    /// The node the path ends at.
    pub to: String,
    /// `forward` (along the data flow) or `backward` (against it).
    pub direction: String,
    /// The depth bound stopped this path while it could go on.
    pub cut_by_depth: bool,
    pub hops: Vec<HopDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HopDoc {
    pub kind: String,
    /// The edge's own ends.
    pub from: String,
    pub to: String,
    /// The node this hop reached.
    pub reached: String,
    /// `forward` when the walk went from the edge's `from` to its `to`, else `backward`.
    pub walked: String,
    pub evidence: String,
    pub provenance: String,
    pub confidence: String,
    pub location: LocationDoc,
    pub type_only: bool,
}

impl TraceDocument {
    pub fn from_trace(trace: &Trace<'_>) -> Self {
        let t = &trace.truncation;
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            from: trace.from.iter().map(NodeKey::id).collect(),
            to: trace.to.as_ref().map(|to| to.iter().map(NodeKey::id).collect()),
            bounds: TraceBoundsDoc {
                max_depth: trace.options.max_depth as u64,
                max_paths: trace.options.max_paths as u64,
                include_type_only: trace.options.include_type_only,
            },
            truncation: TraceTruncationDoc {
                paths: trace.paths.len() as u64,
                by_paths: t.by_paths,
                by_depth: t.by_depth,
                by_budget: t.by_budget,
                truncated: t.is_truncated(),
            },
            paths: trace
                .paths
                .iter()
                .map(|p| TracePathDoc {
                    from: p.from.id(),
                    to: p.end().id(),
                    direction: p.direction.as_str().to_owned(),
                    cut_by_depth: p.cut_by_depth,
                    hops: p
                        .hops
                        .iter()
                        .map(|h| HopDoc {
                            kind: h.edge.kind.as_str().to_owned(),
                            from: h.edge.from.id(),
                            to: h.edge.to.id(),
                            reached: h.reached.id(),
                            walked: if h.reached == h.edge.to { "forward" } else { "backward" }
                                .to_owned(),
                            evidence: h.edge.evidence.as_str().to_owned(),
                            provenance: h.edge.provenance.as_str().to_owned(),
                            confidence: h.edge.confidence.as_str().to_owned(),
                            location: LocationDoc::from_location(&h.edge.location),
                            type_only: h.edge.type_only,
                        })
                        .collect(),
                })
                .collect(),
            notes: Vec::new(),
        }
    }

    /// The same trace with the notes on what its paths cannot show.
    pub fn with_notes(mut self, notes: Vec<String>) -> Self {
        self.notes = notes;
        self
    }
}

pub(crate) fn truncation_sentence(doc: &TraceDocument) -> Option<String> {
    let t = &doc.truncation;
    let mut parts = Vec::new();
    if t.by_paths {
        parts.push(format!("more paths exist than the limit of {}", doc.bounds.max_paths));
    }
    if t.by_depth {
        parts.push(format!("some paths go on past {} hops", doc.bounds.max_depth));
    }
    if t.by_budget {
        parts.push(String::from("the search stopped at its step budget"));
    }
    (!parts.is_empty()).then(|| format!("Truncated: {}.", parts.join("; ")))
}

/// Renders a trace document as a GitHub-flavoured Markdown report.
pub fn render_trace(doc: &TraceDocument) -> String {
    let mut out = String::from("# Trace\n\n");
    let from: Vec<String> = doc.from.iter().map(|id| code(id)).collect();
    let _ = write!(out, "From {}", from.join(", "));
    if let Some(to) = &doc.to {
        let to: Vec<String> = to.iter().map(|id| code(id)).collect();
        let _ = write!(out, " to {}", to.join(", "));
    }
    let n = doc.paths.len() as u64;
    let _ = writeln!(out, ": {n} path{}.", plural(n));
    if let Some(sentence) = truncation_sentence(doc) {
        let _ = writeln!(out, "\n{sentence}");
    }
    for note in &doc.notes {
        let _ = writeln!(out, "\n{}", crate::diff_markdown::escape::text_with_code(note));
    }
    if doc.paths.iter().any(|p| p.direction == "backward") {
        out.push_str(
            "\nPaths from a table, env var, external or package are walked backward, against the \
             data flow: from where the data ends up to where it comes from.\n",
        );
    }
    for (i, path) in doc.paths.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n## Path {}: {} → {} ({} hop{}{})\n",
            i + 1,
            code(&path.from),
            code(&path.to),
            path.hops.len(),
            plural(path.hops.len() as u64),
            if path.cut_by_depth { ", cut by the depth bound" } else { "" }
        );
        let long = path.hops.len() > 10;
        if long {
            out.push_str(&details_open(&format!("{} hops", path.hops.len())));
        }
        out.push_str("| # | edge | reached | confidence | evidence | location |\n");
        out.push_str("|---:|---|---|---|---|---|\n");
        for (j, hop) in path.hops.iter().enumerate() {
            let arrow = if hop.walked == "forward" {
                format!("{} —{}→ {}", code(&hop.from), hop.kind, code(&hop.to))
            } else {
                format!("{} ←{}— {}", code(&hop.to), hop.kind, code(&hop.from))
            };
            let _ = writeln!(
                out,
                "| {} | {arrow} | {} | {} | {} | {} |",
                j + 1,
                code(&hop.reached),
                hop.confidence,
                cell(&hop.evidence),
                code(&format!("{}:{}", hop.location.path, hop.location.line)),
            );
        }
        if long {
            out.push_str(&details_close());
        }
    }
    out
}

/// Plain text safe in a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('<', "&lt;").replace('>', "&gt;")
}
