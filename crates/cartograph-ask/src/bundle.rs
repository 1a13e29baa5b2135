//! The evidence bundle: what is sent about one changed edge, and the only thing a citation may
//! quote.
//!
//! A bundle holds the changed edge as `e1` and then its neighbourhood — the edges of the same graph
//! (the head graph; the base graph for a removed edge) that share an endpoint with it — in a fixed
//! order: changed edges, then edges findings name, then the rest of the graph, each group by
//! identity. Each edge carries exactly kind, from, to, evidence, provenance, confidence and
//! location (decision 0001 rule 5): never source text (evidence describes a claim, it does not
//! quote a file), and never an absolute path (a neighbour whose location is not a plain
//! repository-relative path is left out, and a bundle whose changed edge has one is not sent).
//!
//! The bundle is capped by its serialised bytes: neighbours are added in order while they fit, and
//! what was left out is counted (`truncated`, `omitted_edges`), never dropped silently. The scope
//! id is `b-` plus 16 hex digits of the BLAKE3 hash of the bundle's canonical bytes; every
//! citation must carry it.

use cartograph_report::explain::{bundle_canonical_bytes, bundle_scope};

use crate::select::{Change, ChangedEdge, EdgeFacts, EdgePool, Side};

/// The default byte cap of a bundle's edges.
pub const DEFAULT_MAX_BUNDLE_BYTES: usize = 6 * 1024;

/// One edge of a bundle, with its bundle-local id (`e1`, `e2`, …; `e1` is the changed edge):
/// the very document the report shows, so what was sent and what is shown cannot drift apart.
pub use cartograph_report::explain::BundleEdgeDoc as BundleEdge;

/// The evidence sent about one changed edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceBundle {
    scope: String,
    side: Side,
    change: Change,
    edges: Vec<BundleEdge>,
    truncated: bool,
    omitted_edges: u64,
}

impl EvidenceBundle {
    /// Builds the bundle of `edge` from the pool, at most `max_bytes` of serialised edges (the
    /// changed edge itself is always included; see [`EvidenceBundle::is_sendable`]).
    pub fn build(edge: &ChangedEdge, pool: &EdgePool, max_bytes: usize) -> Self {
        let side = edge.side();
        let first = bundle_edge(1, &edge.facts);
        let mut used = serialised_len(&first);
        let mut edges = vec![first];
        let mut omitted = 0u64;
        let mut full = false;
        for (_, facts) in pool.neighbours(side, &edge.facts) {
            if !is_relative_path(&facts.location.path) {
                continue;
            }
            if full {
                omitted += 1;
                continue;
            }
            let candidate = bundle_edge(edges.len() + 1, facts);
            let len = serialised_len(&candidate) + 1; // the separating comma
            if used + len > max_bytes {
                // Stop at the first edge that does not fit, so the order stays a prefix of the
                // full order (a later, smaller edge does not jump the queue).
                full = true;
                omitted += 1;
                continue;
            }
            used += len;
            edges.push(candidate);
        }
        Self::from_parts(side, edge.change, edges, omitted > 0, omitted)
    }

    fn from_parts(
        side: Side,
        change: Change,
        edges: Vec<BundleEdge>,
        truncated: bool,
        omitted_edges: u64,
    ) -> Self {
        let mut bundle =
            Self { scope: String::new(), side, change, edges, truncated, omitted_edges };
        bundle.scope = bundle_scope(&bundle.canonical_bytes());
        bundle
    }

    /// The canonical bytes: what the scope and the cache key are computed from.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        bundle_canonical_bytes(
            self.side.as_str(),
            self.change.as_str(),
            &self.edges,
            self.truncated,
            self.omitted_edges,
        )
    }

    /// Whether the bundle may be sent: its changed edge's location is a plain repository-relative
    /// path. (Neighbours with any other location are never included.)
    pub fn is_sendable(&self) -> bool {
        is_relative_path(&self.changed_edge().claim.location.path)
    }

    /// `b-` plus 16 hex digits.
    pub fn scope(&self) -> &str {
        &self.scope
    }

    pub fn side(&self) -> Side {
        self.side
    }

    pub fn change(&self) -> Change {
        self.change
    }

    pub fn edges(&self) -> &[BundleEdge] {
        &self.edges
    }

    /// The edge with this bundle-local id.
    pub fn edge(&self, id: &str) -> Option<&BundleEdge> {
        self.edges.iter().find(|e| e.id == id)
    }

    /// The changed edge itself (`e1`).
    pub fn changed_edge(&self) -> &BundleEdge {
        &self.edges[0]
    }

    pub fn truncated(&self) -> bool {
        self.truncated
    }

    pub fn omitted_edges(&self) -> u64 {
        self.omitted_edges
    }

    /// The bundle as the user message shows it: every edge with exactly its id, kind, from, to,
    /// evidence, provenance, confidence and location, one field per line, evidence verbatim.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("Bundle: {}\n", self.scope));
        out.push_str(&format!(
            "Changed edge: e1, {} ({} graph)\n",
            self.change.as_str(),
            self.side.as_str()
        ));
        for edge in &self.edges {
            out.push('\n');
            out.push_str(&format!("[{}]\n", edge.id));
            out.push_str(&format!("kind: {}\n", edge.claim.kind));
            out.push_str(&format!("from: {}\n", edge.claim.from));
            out.push_str(&format!("to: {}\n", edge.claim.to));
            out.push_str(&format!("evidence: {}\n", edge.claim.evidence));
            out.push_str(&format!("provenance: {}\n", edge.claim.provenance));
            out.push_str(&format!("confidence: {}\n", edge.claim.confidence));
            out.push_str(&format!(
                "location: {}:{}:{}\n",
                edge.claim.location.path, edge.claim.location.line, edge.claim.location.column
            ));
        }
        if self.truncated {
            out.push_str(&format!(
                "\nTruncated: {} more edge(s) sharing an endpoint were left out to fit the size limit.\n",
                self.omitted_edges
            ));
        }
        out
    }
}

fn bundle_edge(number: usize, facts: &EdgeFacts) -> BundleEdge {
    BundleEdge { id: format!("e{number}"), claim: facts.clone() }
}

fn serialised_len(edge: &BundleEdge) -> usize {
    serde_json::to_vec(edge).map(|v| v.len()).unwrap_or(usize::MAX / 4)
}

/// A plain repository-relative path: not empty-rooted, no drive letter, no UNC prefix, no `..`
/// component, no backslash, no control character.
pub fn is_relative_path(path: &str) -> bool {
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    !(path.starts_with('/')
        || path.starts_with('~')
        || path.contains('\\')
        || drive
        || path.chars().any(char::is_control)
        || path.split('/').any(|c| c == ".."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_only() {
        for ok in ["src/a.py", "a", "web/src/api.ts", "a..b/c"] {
            assert!(is_relative_path(ok), "{ok}");
        }
        for bad in ["/etc/passwd", "C:\\x", "c:/x", "\\\\server\\x", "a/../b", "~/x", "a\nb"] {
            assert!(!is_relative_path(bad), "{bad}");
        }
    }
}
