//! The architecture diff of two analysed trees, and the findings a reviewer should look at.
//!
//! Everything is compared by identity, never by analysis-local ids:
//! - **nodes** by [`NodeKey`]: added, removed, or changed when their attributes differ; a route
//!   whose handler (module or function) differs on both sides is *moved*;
//! - **edges** by (kind, from, to): added, removed, or changed when confidence, provenance or
//!   type-only status differ. Evidence, location and occurrence counts alone are not changes:
//!   lines shift on every edit;
//! - **refusals** as a multiset keyed by (kind, file, reason), ignoring line and column, plus
//!   per-kind counts;
//! - **import cycles** as sets of sorted module lists.
//!
//! On top of that raw diff, [`findings`](GraphDiff::findings) ranks what deserves a reviewer's
//! attention (see [`FindingKind`] for each rule and its severity). Every output collection is
//! sorted, so a diff is deterministic whatever order its inputs came in.
//!
//! ```
//! use cartograph_graph::{GraphView, diff};
//! let empty = GraphView { nodes: &[], edges: &[], refusals: &[] };
//! assert!(diff(empty, empty).is_empty());
//! ```

mod adjust;
mod findings;
mod rules;
#[cfg(test)]
pub(crate) mod tests;

use std::collections::{BTreeMap, BTreeSet};

use cartograph_core::{Edge, EdgeKind, Node, NodeKey, NodeKind, Refusal, RefusalKind};

use crate::{ArchitectureGraph, GraphView, ImportCycle};

pub use adjust::{Noise, is_reserved_host, noise_of_path};
pub use findings::{
    CoveredBy, EdgeRef, Finding, FindingKind, MAX_COMPONENT_EDGES, MAX_CYCLE_EDGES, Severity, Side,
    Subject,
};

/// What changed between a base and a head tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphDiff {
    pub nodes: NodesDiff,
    pub edges: EdgesDiff,
    pub refusals: RefusalsDiff,
    pub cycles: CyclesDiff,
    /// Ranked: severity, then kind order, then subject, then the edges named.
    pub findings: Vec<Finding>,
}

impl GraphDiff {
    /// True when nothing at all differs: no node, edge, refusal or cycle change.
    pub fn is_empty(&self) -> bool {
        self.nodes.added.is_empty()
            && self.nodes.removed.is_empty()
            && self.nodes.changed.is_empty()
            && self.edges.added.is_empty()
            && self.edges.removed.is_empty()
            && self.edges.changed.is_empty()
            && self.refusals.added.is_empty()
            && self.refusals.removed.is_empty()
            && self.cycles.added.is_empty()
            && self.cycles.removed.is_empty()
    }
}

/// Nodes by identity, each list in identity order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodesDiff {
    pub added: Vec<Node>,
    pub removed: Vec<Node>,
    pub changed: Vec<NodeChange>,
}

/// A node present on both sides whose attributes differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeChange {
    pub before: Node,
    pub after: Node,
    /// True for a route whose handler is known on both sides and differs in module or function.
    pub moved: bool,
}

/// Edges by identity (kind, from, to), each list in identity order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EdgesDiff {
    pub added: Vec<Edge>,
    pub removed: Vec<Edge>,
    pub changed: Vec<EdgeChange>,
}

/// An edge present on both sides whose claim changed strength or kind of derivation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeChange {
    pub before: Edge,
    pub after: Edge,
    /// What changed, in [`EdgeField`] order; never empty.
    pub fields: Vec<EdgeField>,
}

/// The parts of an edge whose change makes it a changed edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeField {
    Confidence,
    Provenance,
    TypeOnly,
}

impl EdgeField {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeField::Confidence => "confidence",
            EdgeField::Provenance => "provenance",
            EdgeField::TypeOnly => "type_only",
        }
    }
}

/// Refusal deltas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefusalsDiff {
    /// Every refusal kind present on either side, in kind order.
    pub by_kind: Vec<RefusalCount>,
    /// Head refusals beyond the base's count for their (kind, file, reason), sorted.
    pub added: Vec<Refusal>,
    /// Base refusals beyond the head's count for their (kind, file, reason), sorted.
    pub removed: Vec<Refusal>,
}

/// How many refusals of one kind each side has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefusalCount {
    pub kind: RefusalKind,
    pub base: u64,
    pub head: u64,
}

/// Import cycles present on one side only, compared as sets of modules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CyclesDiff {
    pub added: Vec<ImportCycle>,
    pub removed: Vec<ImportCycle>,
}

/// One side of the diff, indexed by identity: sorted lists searched by bisection.
struct Indexed<'a> {
    /// Nodes in key order, one per key.
    nodes: Vec<&'a Node>,
    /// Edges in identity order, one per identity.
    edges: Vec<&'a Edge>,
    /// The same edges by target, each target's in identity order.
    incoming: Vec<&'a Edge>,
    refusals: &'a [Refusal],
    cycles: Vec<ImportCycle>,
}

impl<'a> Indexed<'a> {
    /// Indexes a view. A duplicated node or edge identity (impossible in an analysis, possible in
    /// a hand-edited snapshot) keeps its first occurrence.
    fn new(view: GraphView<'a>) -> Self {
        let nodes = first_of_each(view.nodes, |node| &node.key);
        let edges = first_of_each(view.edges, Edge::identity);
        let mut incoming = edges.clone();
        // Stable: each target's edges stay in identity order.
        incoming.sort_by(|a, b| a.to.cmp(&b.to));
        let cycles = ArchitectureGraph::new(view.nodes, view.edges).import_cycles(view.edges);
        Self { nodes, edges, incoming, refusals: view.refusals, cycles }
    }

    fn node(&self, key: &NodeKey) -> Option<&'a Node> {
        let at = self.nodes.binary_search_by(|node| node.key.cmp(key)).ok()?;
        Some(self.nodes[at])
    }

    /// Edges of `kind` into `to`, in identity order.
    fn edges_into(&self, to: &NodeKey, kind: EdgeKind) -> impl Iterator<Item = &'a Edge> + '_ {
        let start = self.incoming.partition_point(|e| e.to < *to);
        let len = self.incoming[start..].partition_point(|e| e.to == *to);
        self.incoming[start..start + len].iter().copied().filter(move |e| e.kind == kind)
    }

    fn has_edge(&self, edge: &Edge) -> bool {
        self.edges.binary_search_by(|e| e.identity().cmp(&edge.identity())).is_ok()
    }
}

/// `items` in `key` order, the first of each key only. An analysis's lists are already in order
/// with one item per key, which is checked first.
fn first_of_each<'a, T, K: Ord>(items: &'a [T], key: impl Fn(&'a T) -> K) -> Vec<&'a T> {
    if items.windows(2).all(|pair| key(&pair[0]) < key(&pair[1])) {
        return items.iter().collect();
    }
    let mut sorted: Vec<&T> = items.iter().collect();
    // Stable, so the first occurrence of a key comes first and is the one kept.
    sorted.sort_by_key(|item| key(item));
    sorted.dedup_by(|later, earlier| key(later) == key(earlier));
    sorted
}

/// Walks two lists in `key` order (one item per key) side by side, calling `visit` once per key
/// with the item each side has.
fn merge_join<'a, T, K: Ord>(
    base: &[&'a T],
    head: &[&'a T],
    key: impl Fn(&'a T) -> K,
    mut visit: impl FnMut(Option<&'a T>, Option<&'a T>),
) {
    let (mut b, mut h) = (0, 0);
    loop {
        let order = match (base.get(b), head.get(h)) {
            (Some(before), Some(after)) => key(before).cmp(&key(after)),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return,
        };
        match order {
            std::cmp::Ordering::Less => {
                visit(Some(base[b]), None);
                b += 1;
            }
            std::cmp::Ordering::Greater => {
                visit(None, Some(head[h]));
                h += 1;
            }
            std::cmp::Ordering::Equal => {
                visit(Some(base[b]), Some(head[h]));
                b += 1;
                h += 1;
            }
        }
    }
}

/// The identity of an edge across analyses.
type EdgeId<'a> = (EdgeKind, &'a NodeKey, &'a NodeKey);

/// Compares two analysed trees by identity and derives the ranked findings.
pub fn diff(base: GraphView<'_>, head: GraphView<'_>) -> GraphDiff {
    let base = Indexed::new(base);
    let head = Indexed::new(head);
    let nodes = diff_nodes(&base, &head);
    let edges = diff_edges(&base, &head);
    let refusals = diff_refusals(base.refusals, head.refusals);
    let cycles = diff_cycles(&base.cycles, &head.cycles);
    let findings = rules::derive(&base, &head, &nodes, &edges, &cycles);
    GraphDiff { nodes, edges, refusals, cycles, findings }
}

fn diff_nodes(base: &Indexed<'_>, head: &Indexed<'_>) -> NodesDiff {
    let mut diff = NodesDiff::default();
    merge_join(
        &base.nodes,
        &head.nodes,
        |node| &node.key,
        |before, after| match (before, after) {
            (Some(before), None) => diff.removed.push(before.clone()),
            (None, Some(after)) => diff.added.push(after.clone()),
            (Some(before), Some(after)) if after.attrs != before.attrs => {
                diff.changed.push(NodeChange {
                    moved: moved(before, after),
                    before: before.clone(),
                    after: after.clone(),
                });
            }
            _ => {}
        },
    );
    diff
}

/// A route is moved when its handler is known on both sides and is not the same: another
/// module, or another function. A handler that became known or unknown is a change, not a move.
fn moved(before: &Node, after: &Node) -> bool {
    before.key.kind() == NodeKind::Route
        && matches!(
            (&before.attrs.handler, &after.attrs.handler),
            (Some(b), Some(a)) if a != b
        )
}

fn diff_edges(base: &Indexed<'_>, head: &Indexed<'_>) -> EdgesDiff {
    let mut diff = EdgesDiff::default();
    merge_join(&base.edges, &head.edges, Edge::identity, |before, after| match (before, after) {
        (Some(before), None) => diff.removed.push(before.clone()),
        (None, Some(after)) => diff.added.push(after.clone()),
        (Some(before), Some(after)) => {
            let fields = changed_fields(before, after);
            if !fields.is_empty() {
                diff.changed.push(EdgeChange {
                    before: before.clone(),
                    after: after.clone(),
                    fields,
                });
            }
        }
        (None, None) => {}
    });
    diff
}

fn changed_fields(before: &Edge, after: &Edge) -> Vec<EdgeField> {
    let mut fields = Vec::new();
    if before.confidence != after.confidence {
        fields.push(EdgeField::Confidence);
    }
    if before.provenance != after.provenance {
        fields.push(EdgeField::Provenance);
    }
    if before.type_only != after.type_only {
        fields.push(EdgeField::TypeOnly);
    }
    fields
}

/// The multiset key of a refusal: what it is about, not the line it sits on.
type RefusalId<'a> = (RefusalKind, &'a str, &'a str);

fn refusal_groups(refusals: &[Refusal]) -> BTreeMap<RefusalId<'_>, Vec<&Refusal>> {
    let mut groups: BTreeMap<RefusalId<'_>, Vec<&Refusal>> = BTreeMap::new();
    for refusal in refusals {
        groups
            .entry((refusal.kind, refusal.location.path.as_str(), refusal.reason.as_str()))
            .or_default()
            .push(refusal);
    }
    for group in groups.values_mut() {
        group.sort();
    }
    groups
}

fn diff_refusals(base: &[Refusal], head: &[Refusal]) -> RefusalsDiff {
    let base_groups = refusal_groups(base);
    let head_groups = refusal_groups(head);
    // When a side has more of one (kind, file, reason) than the other, its last occurrences (in
    // location order) are taken as the extra ones: an edit more often appends than prepends.
    let surplus = |ours: &BTreeMap<RefusalId<'_>, Vec<&Refusal>>,
                   theirs: &BTreeMap<RefusalId<'_>, Vec<&Refusal>>| {
        let mut extra: Vec<Refusal> = ours
            .iter()
            .flat_map(|(id, group)| {
                let other = theirs.get(id).map_or(0, Vec::len);
                group.iter().skip(other).map(|r| (*r).clone())
            })
            .collect();
        extra.sort();
        extra
    };
    let mut counts: BTreeMap<RefusalKind, (u64, u64)> = BTreeMap::new();
    for refusal in base {
        counts.entry(refusal.kind).or_default().0 += 1;
    }
    for refusal in head {
        counts.entry(refusal.kind).or_default().1 += 1;
    }
    RefusalsDiff {
        by_kind: counts
            .into_iter()
            .map(|(kind, (base, head))| RefusalCount { kind, base, head })
            .collect(),
        added: surplus(&head_groups, &base_groups),
        removed: surplus(&base_groups, &head_groups),
    }
}

fn diff_cycles(base: &[ImportCycle], head: &[ImportCycle]) -> CyclesDiff {
    let base_set: BTreeSet<&ImportCycle> = base.iter().collect();
    let head_set: BTreeSet<&ImportCycle> = head.iter().collect();
    CyclesDiff {
        added: head_set.difference(&base_set).map(|c| (*c).clone()).collect(),
        removed: base_set.difference(&head_set).map(|c| (*c).clone()).collect(),
    }
}
