//! The `explanations` section of the diff document: what `cartograph-ask` attached to the changed
//! edges of a diff — per selected edge, the evidence bundle that was (or would have been) sent to
//! the model, the outcome, and, for an explained edge, the explanation items with their citations.
//!
//! These are plain documents: the citation contract (every citation names an edge of the bundle
//! that was sent and quotes that edge's evidence byte for byte; every item is cited; any failure
//! refuses the whole answer) is enforced by `cartograph-ask` before an entry is written as
//! `explained`. Model output is never read back into a graph; it only travels in this section.
//!
//! The section is optional (diff schema 1.1): absent when ASK has not run.

use serde::{Deserialize, Serialize};

use crate::snapshot::EdgeClaimDoc;

/// The entry's answer passed every citation check and is shown.
pub const STATUS_EXPLAINED: &str = "explained";
/// The provider answered but the answer failed validation; the raw evidence is shown instead.
pub const STATUS_REFUSED: &str = "refused";
/// No answer could be had (no key, no network, a provider error); the raw evidence is shown.
pub const STATUS_UNAVAILABLE: &str = "unavailable";

/// What `cartograph-ask` attached to a diff.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExplanationsDoc {
    /// The provider's host and model, e.g. "api.groq.com", "openai/gpt-oss-120b". Never a key,
    /// never a path or query.
    pub provider: ProviderDoc,
    /// Edges selected for explanation (at most `--max-edges`).
    pub selected: u64,
    /// Changed edges that were not selected (beyond the cap).
    pub skipped: u64,
    /// Entries whose status is `explained`.
    pub explained: u64,
    /// Entries whose status is `refused`.
    pub refused: u64,
    /// Entries whose status is `unavailable`.
    pub unavailable: u64,
    /// One line when the whole run was degraded, e.g. "no API key: run `cartograph-ask key set`
    /// or pass --api-key-env NAME".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// In selection order: edges of findings, most severe first, then other changed edges.
    pub entries: Vec<ExplanationDoc>,
}

/// Where explanations were asked for.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ProviderDoc {
    /// The host name (with a port when not the default), e.g. "api.groq.com".
    pub host: String,
    pub model: String,
}

/// The outcome for one changed edge.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExplanationDoc {
    /// The changed edge.
    pub edge: ExplainedEdgeDoc,
    /// Finding kinds that name this edge (may be empty).
    pub findings: Vec<String>,
    /// [`STATUS_EXPLAINED`], [`STATUS_REFUSED`] or [`STATUS_UNAVAILABLE`].
    pub status: String,
    /// For refused and unavailable entries: a fixed sentence, e.g. "citation 2 of item 1 is not
    /// verbatim evidence of edge e3".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Whether the answer came from the explanation cache.
    pub cached: bool,
    /// The evidence bundle that was (or would have been) sent.
    pub bundle: BundleDoc,
    /// Empty unless `status` is `explained`.
    pub items: Vec<ExplanationItemDoc>,
}

/// A changed edge of the diff, by identity.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExplainedEdgeDoc {
    /// `base` for a removed edge, else `head`: the graph its bundle was taken from.
    pub side: String,
    pub kind: String,
    pub from: String,
    pub to: String,
    /// `added`, `removed` or `changed`.
    pub change: String,
}

/// The evidence an explanation may cite: the changed edge and its neighbourhood.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BundleDoc {
    /// "b-" and the first 16 hex digits of a blake3 hash over the bundle's canonical bytes;
    /// citations must carry it.
    pub scope: String,
    /// Bundle-local ids "e1", "e2", …; e1 is always the changed edge itself.
    pub edges: Vec<BundleEdgeDoc>,
    /// Whether neighbourhood edges were left out to keep the bundle under its size cap.
    pub truncated: bool,
    /// How many were left out.
    pub omitted_edges: u64,
}

/// One edge of an evidence bundle.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BundleEdgeDoc {
    /// Bundle-local: "e1", "e2", ….
    pub id: String,
    /// The edge; its `evidence` is the sentence citations quote, never source text.
    #[serde(flatten)]
    pub claim: EdgeClaimDoc,
}

/// One claim of an explanation, with the evidence it rests on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ExplanationItemDoc {
    pub text: String,
    /// At least one for every item of an explained entry.
    pub citations: Vec<CitationDoc>,
}

/// A quotation from one edge of the bundle.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CitationDoc {
    /// The bundle-local id of the quoted edge.
    pub edge: String,
    /// A verbatim, non-empty substring of that edge's evidence.
    pub text: String,
}

impl BundleDoc {
    /// The bundle edge with this bundle-local id.
    pub fn edge(&self, id: &str) -> Option<&BundleEdgeDoc> {
        self.edges.iter().find(|e| e.id == id)
    }
}
