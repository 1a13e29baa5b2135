//! The `blast` document: everything that depends on some targets — each affected node with its
//! depth, component and the chain of edges that explains why — and its Markdown, both as a whole
//! report ([`render_blast`]) and as a bounded fragment for a pull-request report
//! ([`render_blast_section`]).

use std::fmt::Write as _;

use cartograph_core::{Edge, NodeKey};
use cartograph_graph::Blast;
use serde::{Deserialize, Serialize};

use crate::TOOL_VERSION;
use crate::words::plural;

mod section;

pub const SCHEMA_NAME: &str = "blast";
pub const SCHEMA_VERSION: &str = "1.0";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlastDocument {
    pub schema: String,
    pub schema_version: String,
    pub tool_version: String,
    /// The targets' node ids, in identity order.
    pub targets: Vec<String>,
    /// Targets that are not nodes of the graph.
    pub unknown_targets: Vec<String>,
    pub bounds: BlastBoundsDoc,
    pub truncation: BlastTruncationDoc,
    /// The listed nodes by component, components in name order, nodes without one last.
    pub components: Vec<BlastComponentDoc>,
    /// Ranked: depth, then kind, then name.
    pub affected: Vec<AffectedDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlastBoundsDoc {
    pub max_depth: u64,
    pub max_nodes: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlastTruncationDoc {
    /// Every node reachable from the targets, whatever the bounds.
    pub reachable: u64,
    /// Nodes listed in `affected`.
    pub shown: u64,
    /// Reachable nodes deeper than `max_depth`.
    pub beyond_depth: u64,
    /// Nodes within the depth bound left out by `max_nodes`.
    pub beyond_node_limit: u64,
    /// True when anything reachable is not listed.
    pub truncated: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BlastComponentDoc {
    /// Absent for nodes that belong to no component.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    pub affected: u64,
    pub modules: u64,
    pub routes: u64,
    /// The smallest depth of the component's affected nodes.
    pub nearest_depth: u64,
    /// Node ids, in rank order.
    pub nodes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct AffectedDoc {
    pub id: String,
    pub kind: String,
    pub depth: u64,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub component: Option<String>,
    /// The path goes through a type-only import.
    pub type_only: bool,
    /// From a target to this node: each edge as it is in the graph.
    pub path: Vec<PathEdgeDoc>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PathEdgeDoc {
    pub kind: String,
    pub from: String,
    pub to: String,
    pub evidence: String,
    pub confidence: String,
    pub type_only: bool,
}

impl PathEdgeDoc {
    pub fn from_edge(edge: &Edge) -> Self {
        Self {
            kind: edge.kind.as_str().to_owned(),
            from: edge.from.id(),
            to: edge.to.id(),
            evidence: edge.evidence.as_str().to_owned(),
            confidence: edge.confidence.as_str().to_owned(),
            type_only: edge.type_only,
        }
    }
}

impl BlastDocument {
    pub fn from_blast(blast: &Blast<'_>) -> Self {
        let t = &blast.truncation;
        let components = blast
            .components
            .iter()
            .map(|group| {
                let members: Vec<_> =
                    blast.affected.iter().filter(|a| a.component == group.component).collect();
                let count = |kind| members.iter().filter(|a| a.key.kind() == kind).count() as u64;
                BlastComponentDoc {
                    component: group.component.clone(),
                    affected: group.nodes.len() as u64,
                    modules: count(cartograph_core::NodeKind::Module),
                    routes: count(cartograph_core::NodeKind::Route),
                    nearest_depth: members.iter().map(|a| a.depth as u64).min().unwrap_or(0),
                    nodes: group.nodes.iter().map(NodeKey::id).collect(),
                }
            })
            .collect();
        Self {
            schema: SCHEMA_NAME.to_owned(),
            schema_version: SCHEMA_VERSION.to_owned(),
            tool_version: TOOL_VERSION.to_owned(),
            targets: blast.targets.iter().map(NodeKey::id).collect(),
            unknown_targets: blast.unknown_targets.iter().map(NodeKey::id).collect(),
            bounds: BlastBoundsDoc {
                max_depth: blast.options.max_depth as u64,
                max_nodes: blast.options.max_nodes as u64,
            },
            truncation: BlastTruncationDoc {
                reachable: t.reachable as u64,
                shown: blast.affected.len() as u64,
                beyond_depth: t.beyond_depth as u64,
                beyond_node_limit: t.beyond_node_limit as u64,
                truncated: t.is_truncated(),
            },
            components,
            affected: blast
                .affected
                .iter()
                .map(|a| AffectedDoc {
                    id: a.key.id(),
                    kind: a.key.kind().as_str().to_owned(),
                    depth: a.depth as u64,
                    component: a.component.clone(),
                    type_only: a.type_only,
                    path: a.path.iter().map(|e| PathEdgeDoc::from_edge(e)).collect(),
                })
                .collect(),
        }
    }
}

/// The explaining chain as text: `` `a` —serves→ `b` ←calls— `c` ``, starting at the target.
fn chain(affected: &AffectedDoc) -> String {
    walked_chain(&affected.path, code, str::to_owned).unwrap_or_else(|| String::from("(target)"))
}

/// A chain of edges as blast walked them, from the changed node on, with `node` showing a node
/// id and `verb` an edge kind; `None` for a target (no edges). Blast walks every edge backwards
/// (from what is depended on to its dependant) except `serves`, which it walks forwards; so each
/// edge's walked direction follows from its kind.
pub(crate) fn walked_chain(
    path: &[PathEdgeDoc],
    mut node: impl FnMut(&str) -> String,
    verb: impl Fn(&str) -> String,
) -> Option<String> {
    let first = path.first()?;
    let forward = |e: &PathEdgeDoc| e.kind == "serves";
    let mut out = node(if forward(first) { &first.from } else { &first.to });
    for edge in path {
        let kind = verb(&edge.kind);
        if forward(edge) {
            let _ = write!(out, " —{kind}→ {}", node(&edge.to));
        } else {
            let _ = write!(out, " ←{kind}— {}", node(&edge.from));
        }
    }
    Some(out)
}

/// One sentence on what the bounds left out, or `None`.
pub(crate) fn truncation_sentence(doc: &BlastDocument) -> Option<String> {
    let t = &doc.truncation;
    if !t.truncated {
        return None;
    }
    let mut parts = Vec::new();
    if t.beyond_depth > 0 {
        parts.push(format!(
            "{} node{} deeper than {} edges",
            t.beyond_depth,
            plural(t.beyond_depth),
            doc.bounds.max_depth
        ));
    }
    if t.beyond_node_limit > 0 {
        parts.push(format!(
            "{} node{} past the limit of {}",
            t.beyond_node_limit,
            plural(t.beyond_node_limit),
            doc.bounds.max_nodes
        ));
    }
    Some(format!("Truncated: {} not listed.", parts.join(" and ")))
}

pub(crate) fn headline(doc: &BlastDocument) -> String {
    let t = &doc.truncation;
    let groups = doc.components.len() as u64;
    let mut line = format!(
        "{} target{} reach{} {} node{} ({} listed, in {} component{}).",
        doc.targets.len(),
        plural(doc.targets.len() as u64),
        if doc.targets.len() == 1 { "es" } else { "" },
        t.reachable,
        plural(t.reachable),
        t.shown,
        groups,
        plural(groups)
    );
    if let Some(sentence) = truncation_sentence(doc) {
        line.push(' ');
        line.push_str(&sentence);
    }
    if !doc.unknown_targets.is_empty() {
        let _ = write!(
            line,
            " {} target{} not in the graph.",
            doc.unknown_targets.len(),
            plural(doc.unknown_targets.len() as u64)
        );
    }
    line
}

fn component_table(doc: &BlastDocument) -> String {
    let mut out = String::from(
        "| component | affected | modules | routes | nearest depth |\n|---|---:|---:|---:|---:|\n",
    );
    for c in &doc.components {
        let name = c.component.as_deref().map_or_else(|| String::from("(none)"), code);
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} |",
            c.affected, c.modules, c.routes, c.nearest_depth
        );
    }
    out
}

fn affected_row(a: &AffectedDoc) -> String {
    let component = a.component.as_deref().map_or_else(|| String::from("(none)"), code);
    let type_only = if a.type_only { " (type-only)" } else { "" };
    format!("| {} | {} | {component} | {}{type_only} |\n", a.depth, code(&a.id), chain(a))
}

const AFFECTED_HEADER: &str = "| depth | node | component | why |\n|---:|---|---|---|\n";

/// Renders a blast document as a GitHub-flavoured Markdown report.
pub fn render_blast(doc: &BlastDocument) -> String {
    let mut out = String::from("# Blast radius\n\n");
    let _ = writeln!(out, "{}\n", headline(doc));
    let _ = writeln!(out, "Targets: {}.\n", list_ids(&doc.targets, 20));
    if !doc.unknown_targets.is_empty() {
        let _ = writeln!(out, "Not in the graph: {}.\n", list_ids(&doc.unknown_targets, 20));
    }
    if doc.affected.is_empty() {
        out.push_str("Nothing depends on the targets.\n");
        return out;
    }
    out.push_str("## By component\n\n");
    out.push_str(&component_table(doc));
    out.push_str("\n## Affected nodes\n\n");
    let long = doc.affected.len() > 25;
    if long {
        out.push_str(&details_open(&format!("{} affected nodes", doc.affected.len())));
    }
    out.push_str(AFFECTED_HEADER);
    for a in &doc.affected {
        out.push_str(&affected_row(a));
    }
    if long {
        out.push_str(&details_close());
    }
    if let Some(sentence) = truncation_sentence(doc) {
        let _ = writeln!(out, "\n{sentence}");
    }
    out
}

/// A bounded fragment (at most `max_chars` bytes, so at most that many characters) for the body
/// of another report's blast-radius section, as `render_diff_with_blast` takes it: no heading and
/// no collapsible block of its own (the host supplies both), one item per line, so that a host
/// cutting it by lines keeps valid tables. See [`section`] for what it holds; when not even its
/// first line fits, the result is empty.
pub fn render_blast_section(doc: &BlastDocument, max_chars: usize) -> String {
    section::render(doc, max_chars)
}

fn list_ids(ids: &[String], max: usize) -> String {
    let mut parts: Vec<String> = ids.iter().take(max).map(|id| code(id)).collect();
    if ids.len() > max {
        parts.push(format!("and {} more", ids.len() - max));
    }
    if parts.is_empty() { String::from("none") } else { parts.join(", ") }
}

/// An inline code span that is safe in a table cell: backticks become quotes, pipes are escaped.
pub(crate) fn code(text: &str) -> String {
    format!("`{}`", text.replace('`', "'").replace('|', "\\|"))
}

/// Opens a collapsible section (GitHub renders `<details>`), with a blank line so Markdown inside
/// it is rendered.
pub(crate) fn details_open(summary: &str) -> String {
    format!("<details><summary>{}</summary>\n\n", html_text(summary))
}

pub(crate) fn details_close() -> String {
    String::from("\n</details>\n")
}

/// Text safe inside an HTML element.
pub(crate) fn html_text(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
