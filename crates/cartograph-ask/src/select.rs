//! Which changed edges are explained, and in what order: the edges named by findings, most severe
//! finding first (the document already sorts findings that way), then every other added, removed
//! or changed edge in document order; each edge once, at most `max_edges`, the rest counted as
//! skipped.
//!
//! Also the edge pool a bundle's neighbourhood is drawn from ([`EdgePool`]): the diff's own edges
//! and — when snapshots of the two trees are given — the unchanged edges findings name (ranked
//! next) and every other edge of the head graph (the base graph for a removed edge).

use std::collections::{BTreeMap, BTreeSet};

use cartograph_report::diff::{DiffDocument, EdgeRefDoc};
use cartograph_report::snapshot::{EdgeClaimDoc, SnapshotDocument};

/// The default `--max-edges`.
pub const DEFAULT_MAX_EDGES: usize = 25;

/// Which graph an edge belongs to (the diff engine's own type).
pub use cartograph_graph::diff::Side;

/// How the changed edge changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    Added,
    Removed,
    Changed,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }

    /// The graph the edge is explained in: the base graph for a removed edge, else the head graph.
    pub fn side(self) -> Side {
        match self {
            Change::Removed => Side::Base,
            Change::Added | Change::Changed => Side::Head,
        }
    }
}

/// An edge's derived facts, exactly the fields a bundle may carry (decision 0001 rule 5): the
/// claim every edge document shares.
pub type EdgeFacts = EdgeClaimDoc;

/// The facts of a finding's edge, whose provenance the finding gives separately.
fn finding_facts(edge: &EdgeRefDoc, provenance: String) -> EdgeFacts {
    EdgeFacts {
        kind: edge.kind.clone(),
        from: edge.from.clone(),
        to: edge.to.clone(),
        evidence: edge.evidence.clone(),
        provenance,
        confidence: edge.confidence.clone(),
        location: edge.location.clone(),
    }
}

/// One selected changed edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedEdge {
    pub change: Change,
    pub facts: EdgeFacts,
    /// The kinds of the findings that name this edge, in finding order, each once.
    pub findings: Vec<String>,
}

impl ChangedEdge {
    pub fn side(&self) -> Side {
        self.change.side()
    }
}

/// The selected edges and how many changed edges were left out by the cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub selected: Vec<ChangedEdge>,
    pub skipped: u64,
}

type Key = (Side, String, String, String);

fn key(side: Side, kind: &str, from: &str, to: &str) -> Key {
    (side, kind.to_owned(), from.to_owned(), to.to_owned())
}

/// Selects the edges to explain from a diff document.
pub fn select(doc: &DiffDocument, max_edges: usize) -> Selection {
    // Every changed edge, by identity, with its facts (a changed edge's facts are its head state).
    let mut changed: BTreeMap<Key, (Change, EdgeFacts)> = BTreeMap::new();
    let mut document_order: Vec<Key> = Vec::new();
    let mut add = |change: Change, facts: EdgeFacts| {
        let k = key(change.side(), &facts.kind, &facts.from, &facts.to);
        if let std::collections::btree_map::Entry::Vacant(slot) = changed.entry(k.clone()) {
            slot.insert((change, facts));
            document_order.push(k);
        }
    };
    for edge in &doc.edges.added {
        add(Change::Added, edge.claim.clone());
    }
    for edge in &doc.edges.removed {
        add(Change::Removed, edge.claim.clone());
    }
    for edge in &doc.edges.changed {
        add(Change::Changed, edge.after.claim.clone());
    }

    // Finding kinds per edge, and the order findings name changed edges in.
    let mut findings_of: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    let mut seen: BTreeSet<Key> = BTreeSet::new();
    for finding in &doc.findings {
        for edge in &finding.edges {
            let side = if edge.side == "base" { Side::Base } else { Side::Head };
            let k = key(side, &edge.kind, &edge.from, &edge.to);
            let kinds = findings_of.entry(k.clone()).or_default();
            if !kinds.contains(&finding.kind) {
                kinds.push(finding.kind.clone());
            }
            if changed.contains_key(&k) && seen.insert(k.clone()) {
                order.push(k);
            }
        }
    }
    for k in document_order {
        if seen.insert(k.clone()) {
            order.push(k);
        }
    }

    let skipped = order.len().saturating_sub(max_edges) as u64;
    let selected = order
        .into_iter()
        .take(max_edges)
        .filter_map(|k| {
            let (change, facts) = changed.get(&k)?.clone();
            let findings = findings_of.get(&k).cloned().unwrap_or_default();
            Some(ChangedEdge { change, facts, findings })
        })
        .collect();
    Selection { selected, skipped }
}

/// Where an edge of the pool came from, which is also its rank in a bundle: changed edges first,
/// then edges findings name, then the rest of the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    Changed,
    Finding,
    Graph,
}

/// Every edge known on one side, deduplicated by identity (the highest-ranked origin wins).
#[derive(Debug, Clone, Default)]
pub struct EdgePool {
    base: BTreeMap<(String, String, String), (Origin, EdgeFacts)>,
    head: BTreeMap<(String, String, String), (Origin, EdgeFacts)>,
}

impl EdgePool {
    /// Builds the pool from the diff document and, optionally, snapshots of the base and head
    /// trees (the unchanged part of each graph is known only from a snapshot).
    pub fn new(
        doc: &DiffDocument,
        base: Option<&SnapshotDocument>,
        head: Option<&SnapshotDocument>,
    ) -> Self {
        let mut pool = Self::default();
        for edge in &doc.edges.added {
            pool.insert(Side::Head, Origin::Changed, edge.claim.clone());
        }
        for edge in &doc.edges.removed {
            pool.insert(Side::Base, Origin::Changed, edge.claim.clone());
        }
        for edge in &doc.edges.changed {
            pool.insert(Side::Head, Origin::Changed, edge.after.claim.clone());
            pool.insert(Side::Base, Origin::Changed, edge.before.claim.clone());
        }
        let snapshot_provenance = |side: Side, edge: &EdgeRefDoc| -> Option<String> {
            let snapshot = match side {
                Side::Base => base,
                Side::Head => head,
            }?;
            snapshot
                .edges
                .iter()
                .find(|e| {
                    e.claim.kind == edge.kind && e.claim.from == edge.from && e.claim.to == edge.to
                })
                .map(|e| e.claim.provenance.clone())
        };
        for finding in &doc.findings {
            for edge in &finding.edges {
                let side = if edge.side == "base" { Side::Base } else { Side::Head };
                // A finding names an edge without its provenance. An unchanged one (the diff's
                // lists have the changed ones) is included only when a snapshot supplies it: a
                // bundle edge's facts are never made up.
                if let Some(provenance) = snapshot_provenance(side, edge) {
                    pool.insert(side, Origin::Finding, finding_facts(edge, provenance));
                }
            }
        }
        for (side, snapshot) in [(Side::Base, base), (Side::Head, head)] {
            for edge in snapshot.map(|s| s.edges.as_slice()).unwrap_or_default() {
                pool.insert(side, Origin::Graph, edge.claim.clone());
            }
        }
        pool
    }

    fn insert(&mut self, side: Side, origin: Origin, facts: EdgeFacts) {
        let map = match side {
            Side::Base => &mut self.base,
            Side::Head => &mut self.head,
        };
        let k = (facts.kind.clone(), facts.from.clone(), facts.to.clone());
        map.entry(k).or_insert((origin, facts));
    }

    /// The edges on `side` that share an endpoint with `edge` (the edge itself excluded), in rank
    /// order, then by identity.
    pub fn neighbours(&self, side: Side, edge: &EdgeFacts) -> Vec<(Origin, &EdgeFacts)> {
        let map = match side {
            Side::Base => &self.base,
            Side::Head => &self.head,
        };
        let ends = [edge.from.as_str(), edge.to.as_str()];
        let mut out: Vec<(Origin, &EdgeFacts)> = map
            .values()
            .filter(|(_, f)| f.identity() != edge.identity())
            .filter(|(_, f)| ends.contains(&f.from.as_str()) || ends.contains(&f.to.as_str()))
            .map(|(origin, f)| (*origin, f))
            .collect();
        // The map iterates in identity order; a stable sort by rank keeps it within a rank.
        out.sort_by_key(|(origin, _)| *origin);
        out
    }
}
