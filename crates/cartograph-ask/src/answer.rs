//! The citation contract (decision 0003), enforced: a model's answer is parsed and every
//! citation re-checked against the bundle that was actually sent. An [`Answer`] has private fields
//! and no public constructor; [`Answer::validate`] is the only way to obtain one, so an
//! unvalidated answer cannot be rendered.
//!
//! Checks, in order, for each item and each of its citations:
//! - the item's text is not empty ([`AnswerError::EmptyItem`]) and it has a citation
//!   ([`AnswerError::UncitedItem`]);
//! - the citation carries the bundle's scope id ([`CitationError::ForeignBundle`]);
//! - it names an edge of that bundle ([`CitationError::UnknownEdge`]);
//! - its text is not empty ([`CitationError::Empty`]);
//! - its text is a byte-for-byte substring of that edge's evidence ([`CitationError::NotVerbatim`]);
//! - it is at least [`MIN_QUOTE_BYTES`] long, or the whole evidence when that is shorter
//!   ([`CitationError::TooShort`]).
//!
//! Any failure rejects the whole answer, not the item: a partly valid answer looks checked, which
//! is worse than no answer. Errors name items, citations and bundle edges by position only; they
//! never quote the model's text or the evidence.

use serde::{Deserialize, Serialize};

use crate::bundle::EvidenceBundle;

/// The contract's quotation rules live with the document they protect, so that rendering a report
/// read from disk checks them again with the same code (`cartograph_report::explain::verify_entry`).
pub use cartograph_report::explain::{CitationError, MIN_QUOTE_BYTES};

/// Why an answer is refused as a whole. Positions are 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("the answer is not JSON")]
    NotJson,
    #[error("the answer does not have the required shape (items of text and citations)")]
    WrongShape,
    #[error("the answer has no items")]
    NoItems,
    #[error("item {item} has no text")]
    EmptyItem { item: usize },
    #[error("item {item} cites no evidence")]
    UncitedItem { item: usize },
    #[error("citation {citation} of item {item} {error}")]
    Citation { item: usize, citation: usize, error: CitationError },
}

/// The wire shape of an answer, as the response schema requires it.
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct WireAnswer {
    items: Vec<WireItem>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct WireItem {
    text: String,
    citations: Vec<WireCitation>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct WireCitation {
    bundle: String,
    edge: String,
    text: String,
}

/// A validated answer: every item has text and at least one citation, and every citation quotes
/// an edge of the bundle it was validated against, verbatim.
#[derive(Clone, PartialEq, Eq)]
pub struct Answer {
    scope: String,
    items: Vec<AnswerItem>,
}

/// One claim and the evidence it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerItem {
    text: String,
    citations: Vec<Citation>,
}

/// A verbatim quotation of one bundle edge's evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    edge: String,
    text: String,
}

impl std::fmt::Debug for Answer {
    /// The scope and the shape only: answer text is model output and stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answer")
            .field("scope", &self.scope)
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl Answer {
    /// Parses `content` (the model's message, a JSON document) and checks it against `bundle`.
    pub fn validate(bundle: &EvidenceBundle, content: &str) -> Result<Answer, AnswerError> {
        let value: serde_json::Value =
            serde_json::from_str(content).map_err(|_| AnswerError::NotJson)?;
        let wire: WireAnswer =
            serde_json::from_value(value).map_err(|_| AnswerError::WrongShape)?;
        if wire.items.is_empty() {
            return Err(AnswerError::NoItems);
        }
        let mut items = Vec::with_capacity(wire.items.len());
        for (i, item) in wire.items.into_iter().enumerate() {
            let item_no = i + 1;
            if item.text.trim().is_empty() {
                return Err(AnswerError::EmptyItem { item: item_no });
            }
            if item.citations.is_empty() {
                return Err(AnswerError::UncitedItem { item: item_no });
            }
            let mut citations = Vec::with_capacity(item.citations.len());
            for (c, citation) in item.citations.into_iter().enumerate() {
                check_citation(bundle, &citation).map_err(|error| AnswerError::Citation {
                    item: item_no,
                    citation: c + 1,
                    error,
                })?;
                citations.push(Citation { edge: citation.edge, text: citation.text });
            }
            items.push(AnswerItem { text: item.text, citations });
        }
        Ok(Answer { scope: bundle.scope().to_owned(), items })
    }

    /// The scope of the bundle this answer was validated against.
    pub fn scope(&self) -> &str {
        &self.scope
    }

    pub fn items(&self) -> &[AnswerItem] {
        &self.items
    }

    /// The answer in its wire shape (each citation carrying the scope), which
    /// [`Answer::validate`] reads back: what the explanation cache stores.
    pub fn to_wire_json(&self) -> String {
        let wire = WireAnswer {
            items: self
                .items
                .iter()
                .map(|item| WireItem {
                    text: item.text.clone(),
                    citations: item
                        .citations
                        .iter()
                        .map(|c| WireCitation {
                            bundle: self.scope.clone(),
                            edge: c.edge.clone(),
                            text: c.text.clone(),
                        })
                        .collect(),
                })
                .collect(),
        };
        serde_json::to_string(&wire).unwrap_or_default()
    }
}

impl AnswerItem {
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn citations(&self) -> &[Citation] {
        &self.citations
    }
}

impl Citation {
    /// The bundle-local id of the quoted edge.
    pub fn edge(&self) -> &str {
        &self.edge
    }

    /// The quotation: a substring of that edge's evidence.
    pub fn text(&self) -> &str {
        &self.text
    }
}

fn check_citation(bundle: &EvidenceBundle, citation: &WireCitation) -> Result<(), CitationError> {
    cartograph_report::explain::check_citation(
        bundle.scope(),
        bundle.edges(),
        &citation.bundle,
        &citation.edge,
        &citation.text,
    )
}
