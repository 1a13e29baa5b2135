//! The `explanations` section of the diff document: what `cartograph-ask` attached to the changed
//! edges of a diff — per selected edge, the evidence bundle that was (or would have been) sent to
//! the model, the outcome, and, for an explained edge, the explanation items with their citations.
//!
//! The citation contract (every citation names an edge of the bundle that was sent and quotes that
//! edge's evidence byte for byte; every item is cited; any failure refuses the whole answer) is
//! written here once, and enforced twice: by `cartograph-ask` before an entry is written as
//! `explained` ([`check_citation`]), and again whenever a document read from disk is rendered
//! ([`verify_entry`]): the bundle must still hash to its scope id, its first edge must be the
//! diff's own changed edge, and every citation must quote that bundle. An entry that fails is
//! shown as unverified, never as checked. Model output is never read back into a graph; it only
//! travels in this section.
//!
//! The section is optional (diff schema 1.1): absent when ASK has not run.

use serde::{Deserialize, Serialize};

use crate::diff::DiffDocument;

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

/// The shortest quotation accepted, in bytes, unless the quotation is the cited edge's whole
/// evidence. Short fragments ("the", "GET") are substrings of almost anything and support no
/// claim.
pub const MIN_QUOTE_BYTES: usize = 12;

/// The format tag hashed into every scope id.
const BUNDLE_FORMAT: &str = "cartograph-bundle/1";

/// Why one citation is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CitationError {
    #[error("belongs to another bundle")]
    ForeignBundle,
    #[error("names an edge that is not in the bundle")]
    UnknownEdge,
    #[error("is empty")]
    Empty,
    #[error("is not verbatim evidence of edge e{edge}")]
    NotVerbatim { edge: usize },
    #[error("is shorter than {min} bytes (quoting edge e{edge})")]
    TooShort { edge: usize, min: usize },
}

/// Checks one citation — `bundle` (the scope id it carries), `edge` (a bundle-local id) and its
/// quotation `text` — against a bundle's `scope` and `edges`: it must carry that scope, name one
/// of those edges, be non-empty, quote that edge's evidence byte for byte, and be at least
/// [`MIN_QUOTE_BYTES`] long or the whole evidence. Errors name the edge by position only.
pub fn check_citation(
    scope: &str,
    edges: &[BundleEdgeDoc],
    bundle: &str,
    edge: &str,
    text: &str,
) -> Result<(), CitationError> {
    if bundle != scope {
        return Err(CitationError::ForeignBundle);
    }
    let (number, cited) =
        edges.iter().enumerate().find(|(_, e)| e.id == edge).ok_or(CitationError::UnknownEdge)?;
    let number = number + 1;
    if text.trim().is_empty() {
        return Err(CitationError::Empty);
    }
    if !cited.claim.evidence.contains(text) {
        return Err(CitationError::NotVerbatim { edge: number });
    }
    let min = MIN_QUOTE_BYTES.min(cited.claim.evidence.len());
    if text.len() < min {
        return Err(CitationError::TooShort { edge: number, min });
    }
    Ok(())
}

/// What the scope hash is computed over: the format tag, the side, the change, the edges in order
/// and the truncation. Serialised compactly by serde_json with fields in declaration order, so the
/// bytes are a function of the bundle alone.
#[derive(Serialize)]
struct Canonical<'a> {
    format: &'static str,
    side: &'a str,
    change: &'a str,
    edges: &'a [BundleEdgeDoc],
    truncated: bool,
    omitted_edges: u64,
}

/// The canonical bytes of a bundle: what its scope id and the explanation cache key are computed
/// from. `side` is `base` or `head`, `change` is `added`, `removed` or `changed`.
pub fn bundle_canonical_bytes(
    side: &str,
    change: &str,
    edges: &[BundleEdgeDoc],
    truncated: bool,
    omitted_edges: u64,
) -> Vec<u8> {
    let canonical =
        Canonical { format: BUNDLE_FORMAT, side, change, edges, truncated, omitted_edges };
    // Strings, numbers and booleans only: serialising cannot fail.
    serde_json::to_vec(&canonical).unwrap_or_default()
}

/// `b-` and the first 16 hex digits of the BLAKE3 hash of [`bundle_canonical_bytes`].
pub fn bundle_scope(canonical_bytes: &[u8]) -> String {
    format!("b-{}", &blake3::hash(canonical_bytes).to_hex()[..16])
}

/// The scope id an entry's bundle hashes to (its side and change are the entry's edge's): what
/// `cartograph-ask` wrote as `bundle.scope` for that very bundle.
pub fn entry_scope(entry: &ExplanationDoc) -> String {
    let bundle = &entry.bundle;
    bundle_scope(&bundle_canonical_bytes(
        &entry.edge.side,
        &entry.edge.change,
        &bundle.edges,
        bundle.truncated,
        bundle.omitted_edges,
    ))
}

/// Why an entry written as `explained` cannot be shown as checked. Fixed sentences; positions are
/// 1-based; neither the answer nor the evidence is quoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unverified {
    #[error(
        "its evidence bundle no longer matches its scope id (the document was changed after ASK ran)"
    )]
    BundleChanged,
    #[error("its evidence bundle does not begin with this diff's own evidence of the changed edge")]
    NotThisEdge,
    #[error("it has no explanation items")]
    NoItems,
    #[error("item {item} has no text")]
    EmptyItem { item: usize },
    #[error("item {item} cites no evidence")]
    UncitedItem { item: usize },
    #[error("citation {citation} of item {item} {error}")]
    Citation { item: usize, citation: usize, error: CitationError },
}

/// Re-checks an `explained` entry against the evidence the document itself carries: the bundle
/// hashes to its scope id, its `e1` is the changed edge with the diff's own evidence sentence for
/// it (when the diff lists that edge), and every item is cited with quotations that pass
/// [`check_citation`]. `Ok` for entries of any other status: they show raw evidence only.
pub fn verify_entry(doc: &DiffDocument, entry: &ExplanationDoc) -> Result<(), Unverified> {
    if entry.status != STATUS_EXPLAINED {
        return Ok(());
    }
    let bundle = &entry.bundle;
    if entry_scope(entry) != bundle.scope {
        return Err(Unverified::BundleChanged);
    }
    let e = &entry.edge;
    let first = bundle
        .edge("e1")
        .filter(|b| b.claim.kind == e.kind && b.claim.from == e.from && b.claim.to == e.to);
    let Some(first) = first else { return Err(Unverified::NotThisEdge) };
    let listed = if e.side == "base" {
        doc.edges.removed.iter().collect::<Vec<_>>()
    } else {
        doc.edges.added.iter().chain(doc.edges.changed.iter().map(|c| &c.after)).collect()
    };
    let same = |d: &&crate::diff::DiffEdgeDoc| {
        d.claim.kind == e.kind && d.claim.from == e.from && d.claim.to == e.to
    };
    if let Some(own) = listed.into_iter().find(same)
        && own.claim.evidence != first.claim.evidence
    {
        return Err(Unverified::NotThisEdge);
    }
    if entry.items.is_empty() {
        return Err(Unverified::NoItems);
    }
    for (i, item) in entry.items.iter().enumerate() {
        let item_no = i + 1;
        if item.text.trim().is_empty() {
            return Err(Unverified::EmptyItem { item: item_no });
        }
        if item.citations.is_empty() {
            return Err(Unverified::UncitedItem { item: item_no });
        }
        for (c, citation) in item.citations.iter().enumerate() {
            check_citation(
                &bundle.scope,
                &bundle.edges,
                &bundle.scope,
                &citation.edge,
                &citation.text,
            )
            .map_err(|error| Unverified::Citation {
                item: item_no,
                citation: c + 1,
                error,
            })?;
        }
    }
    Ok(())
}
