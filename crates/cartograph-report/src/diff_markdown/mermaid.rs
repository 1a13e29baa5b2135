//! The bounded Mermaid diagram of a diff: the changed edges and their endpoints, added edges solid,
//! removed ones dashed, changed ones thick; modules grouped by component.
//!
//! Which edges are drawn when there are too many: first those a finding names (kind by kind in
//! turns, the most severe finding of each kind first), then by kind (calls, serves, writes, reads, defines, env reads, package imports, module
//! imports), then by identity. The diagram stays far below GitHub's Mermaid limits (50,000
//! characters, 500 edges); how many edges were not drawn is returned so the report can say so.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::escape::mermaid_label;
use super::node_name;
use crate::diff::DiffDocument;

/// Longest node label, in characters.
const MAX_LABEL_CHARS: usize = 44;
/// Module groups drawn as subgraphs only between these counts: one group adds nothing, many make
/// the layout harder to read than none.
const MIN_GROUPS: usize = 2;
const MAX_GROUPS: usize = 12;

const ADDED_STYLE: &str = "stroke:#1a7f37,stroke-width:2px";
const REMOVED_STYLE: &str = "stroke:#cf222e,stroke-width:2px,stroke-dasharray:5 4";
const CHANGED_STYLE: &str = "stroke:#9a6700,stroke-width:2px";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    Added,
    Removed,
    Changed,
}

/// (nth finding of its kind, position of the edge in the finding, finding index).
type FindingRank = (usize, usize, usize);
const NO_FINDING: FindingRank = (usize::MAX, usize::MAX, usize::MAX);

/// One changed edge that may be drawn.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Candidate<'a> {
    /// When this edge is drawn among the findings' edges; [`NO_FINDING`] for an edge no finding
    /// names.
    finding: FindingRank,
    change: Change,
    kind: &'a str,
    from: &'a str,
    to: &'a str,
}

/// A rendered diagram and how much of the diff it shows.
#[derive(Debug, Clone)]
pub(crate) struct Diagram {
    /// The fenced `mermaid` block, or empty when no edge is drawn.
    pub text: String,
    pub drawn: usize,
    pub total: usize,
    /// How many of the drawn edges a finding names.
    pub behind_findings: usize,
}

/// Every changed edge, in the order they are chosen for drawing.
pub(crate) fn candidates(doc: &DiffDocument) -> Vec<Candidate<'_>> {
    // Finding edges are taken kind by kind, in turns: the first edge of the first finding of
    // every kind, then their second edges, then the next finding of every kind. A small diagram
    // then shows a little of every kind of finding (a new route's call and handler, a new
    // table's model, a cycle's closing import) rather than all of the first kind.
    let mut finding_rank: BTreeMap<(&str, &str, &str), FindingRank> = BTreeMap::new();
    let mut nth_of_kind: BTreeMap<&str, usize> = BTreeMap::new();
    // A covered finding's edges are its cover's: it takes no turn of its own.
    for (i, finding) in doc.findings.iter().enumerate().filter(|(_, f)| f.covered_by.is_none()) {
        let nth = nth_of_kind.entry(finding.kind.as_str()).or_default();
        for (j, e) in finding.edges.iter().enumerate() {
            let rank = (*nth, j, i);
            let slot = finding_rank.entry((e.kind.as_str(), e.from.as_str(), e.to.as_str()));
            let best = slot.or_insert(rank);
            *best = (*best).min(rank);
        }
        *nth += 1;
    }
    let added =
        doc.edges.added.iter().map(|e| (Change::Added, &e.claim.kind, &e.claim.from, &e.claim.to));
    let removed = doc
        .edges
        .removed
        .iter()
        .map(|e| (Change::Removed, &e.claim.kind, &e.claim.from, &e.claim.to));
    let changed = doc.edges.changed.iter().map(|e| (Change::Changed, &e.kind, &e.from, &e.to));
    let mut all: Vec<Candidate<'_>> = added
        .chain(removed)
        .chain(changed)
        .map(|(change, kind, from, to)| Candidate {
            finding: finding_rank
                .get(&(kind.as_str(), from.as_str(), to.as_str()))
                .copied()
                .unwrap_or(NO_FINDING),
            change,
            kind,
            from,
            to,
        })
        .collect();
    all.sort_by_cached_key(|c| (c.finding, kind_rank(c.kind, c.to), c.clone()));
    all.dedup();
    all
}

fn kind_rank(kind: &str, to: &str) -> u8 {
    match kind {
        "calls" => 0,
        "serves" => 1,
        "writes" => 2,
        "reads" => 3,
        "defines" => 4,
        "reads_env" => 5,
        "imports" if !to.starts_with("module:") => 6,
        "imports" => 7,
        _ => 8,
    }
}

/// Draws at most `max_edges` of the candidates, touching at most `max_nodes` nodes.
pub(crate) fn render(
    doc: &DiffDocument,
    candidates: &[Candidate<'_>],
    max_edges: usize,
    max_nodes: usize,
) -> Diagram {
    let mut nodes: BTreeSet<&str> = BTreeSet::new();
    let mut chosen: Vec<&Candidate<'_>> = Vec::new();
    for c in candidates {
        if chosen.len() >= max_edges {
            break;
        }
        let new = usize::from(!nodes.contains(c.from))
            + usize::from(c.from != c.to && !nodes.contains(c.to));
        if nodes.len() + new > max_nodes {
            continue;
        }
        nodes.insert(c.from);
        nodes.insert(c.to);
        chosen.push(c);
    }
    if chosen.is_empty() {
        return Diagram {
            text: String::new(),
            drawn: 0,
            total: candidates.len(),
            behind_findings: 0,
        };
    }

    let ids: BTreeMap<&str, String> =
        nodes.iter().enumerate().map(|(i, n)| (*n, format!("n{i}"))).collect();
    let node_id = |n: &str| ids.get(n).cloned().unwrap_or_default();
    let status = node_status(doc);
    let components = components(doc);

    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    // Grouping is by the full component; only the subgraph title is shortened.
    let mut loose: Vec<&str> = Vec::new();
    for n in &nodes {
        match n.strip_prefix("module:") {
            Some(path) => groups.entry(group_of(path, &components)).or_default().push(n),
            None => loose.push(n),
        }
    }
    let grouped = (MIN_GROUPS..=MAX_GROUPS).contains(&groups.len());

    let mut out = String::from("```mermaid\nflowchart LR\n");
    if grouped {
        for (g, (name, members)) in groups.iter().enumerate() {
            let title = mermaid_label(name, MAX_LABEL_CHARS);
            let _ = writeln!(out, "  subgraph g{g}[\"{title}\"]");
            for n in members {
                let _ = writeln!(out, "    {}", node_decl(&node_id(n), n, Some(name)));
            }
            let _ = writeln!(out, "  end");
        }
    } else {
        for members in groups.values() {
            for n in members {
                let _ = writeln!(out, "  {}", node_decl(&node_id(n), n, None));
            }
        }
    }
    for n in &loose {
        let _ = writeln!(out, "  {}", node_decl(&node_id(n), n, None));
    }

    let mut edges = chosen;
    edges.sort_by(|a, b| (a.from, a.to, a.kind, a.change).cmp(&(b.from, b.to, b.kind, b.change)));
    let mut by_change: BTreeMap<Change, Vec<String>> = BTreeMap::new();
    for (i, e) in edges.iter().enumerate() {
        let arrow = match e.change {
            Change::Added => "-->",
            Change::Removed => "-.->",
            Change::Changed => "==>",
        };
        let label = if e.kind == "imports" {
            String::new()
        } else {
            format!("|{}|", mermaid_label(&e.kind.replace('_', " "), MAX_LABEL_CHARS))
        };
        let _ = writeln!(out, "  {} {arrow}{label} {}", node_id(e.from), node_id(e.to));
        by_change.entry(e.change).or_default().push(i.to_string());
    }

    let mut added_nodes: Vec<String> = Vec::new();
    let mut removed_nodes: Vec<String> = Vec::new();
    for n in &nodes {
        match status.get(n) {
            Some(Change::Added) => added_nodes.push(node_id(n)),
            Some(Change::Removed) => removed_nodes.push(node_id(n)),
            _ => {}
        }
    }
    if !added_nodes.is_empty() {
        let _ = writeln!(out, "  classDef added {ADDED_STYLE}");
        let _ = writeln!(out, "  class {} added", added_nodes.join(","));
    }
    if !removed_nodes.is_empty() {
        let _ = writeln!(out, "  classDef removed {REMOVED_STYLE}");
        let _ = writeln!(out, "  class {} removed", removed_nodes.join(","));
    }
    for (change, indices) in &by_change {
        let style = match change {
            Change::Added => ADDED_STYLE,
            Change::Removed => REMOVED_STYLE,
            Change::Changed => CHANGED_STYLE,
        };
        let _ = writeln!(out, "  linkStyle {} {style}", indices.join(","));
    }
    out.push_str("```\n");
    let behind_findings = edges.iter().filter(|e| e.finding != NO_FINDING).count();
    Diagram { text: out, drawn: edges.len(), total: candidates.len(), behind_findings }
}

/// A node's declaration, its shape saying its kind: modules are boxes, routes stadiums, tables
/// cylinders, environment variables hexagons, packages subroutines, external services
/// parallelograms. Inside a group's subgraph a module is labelled by its path within the group.
fn node_decl(id: &str, node: &str, group: Option<&str>) -> String {
    let name = node_name(node);
    let name = group
        .and_then(|g| name.strip_prefix(g))
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(name);
    let label = mermaid_label(name, MAX_LABEL_CHARS);
    let kind = node.split_once(':').map_or("", |(k, _)| k);
    match kind {
        "route" => format!("{id}([\"{label}\"])"),
        "table" => format!("{id}[(\"{label}\")]"),
        "env_var" => format!("{id}{{{{\"{label}\"}}}}"),
        "package" => format!("{id}[[\"{label}\"]]"),
        "external" => format!("{id}[/\"{label}\"/]"),
        _ => format!("{id}[\"{label}\"]"),
    }
}

fn node_status(doc: &DiffDocument) -> BTreeMap<&str, Change> {
    let mut status = BTreeMap::new();
    for n in &doc.nodes.added {
        status.insert(n.id.as_str(), Change::Added);
    }
    for n in &doc.nodes.removed {
        status.insert(n.id.as_str(), Change::Removed);
    }
    status
}

/// What the document says about components: the component of every module it describes, and
/// every component it names (a module's, or a finding's subject).
struct Components<'a> {
    of_module: BTreeMap<&'a str, &'a str>,
    known: BTreeSet<&'a str>,
}

fn components(doc: &DiffDocument) -> Components<'_> {
    let changed = doc.nodes.changed.iter().flat_map(|c| [&c.before, &c.after]);
    let of_module: BTreeMap<&str, &str> = doc
        .nodes
        .added
        .iter()
        .chain(doc.nodes.removed.iter())
        .chain(changed)
        .filter_map(|n| Some((n.name.as_str(), n.component.as_deref()?)))
        .collect();
    let mut known: BTreeSet<&str> = of_module.values().copied().collect();
    known.extend(doc.findings.iter().filter_map(|f| f.subject.strip_prefix("component:")));
    Components { of_module, known }
}

/// A module's group: its component when the document names it, else the longest component the
/// document names that holds its path, else its directory.
fn group_of(path: &str, components: &Components<'_>) -> String {
    if let Some(c) = components.of_module.get(path) {
        return (*c).to_owned();
    }
    let holder = components
        .known
        .iter()
        .filter(|c| path.strip_prefix(**c).is_some_and(|rest| rest.starts_with('/')))
        .max_by_key(|c| c.len());
    if let Some(c) = holder {
        return (*c).to_owned();
    }
    match path.rsplit_once('/') {
        Some((dir, _)) => dir.to_owned(),
        None => "(root)".to_owned(),
    }
}
