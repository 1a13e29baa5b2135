//! Every response case of decision 0001 rule 14, through the provider and a scripted
//! transport: success, malformed JSON, valid JSON of the wrong shape, missing items, an item with
//! no citation, an item with empty text, a citation naming a foreign bundle, one naming an edge
//! outside the bundle, a non-verbatim citation, an empty citation, multiple citations on one item,
//! a valid multi-item answer — plus a too-short quotation, a body that is not JSON, and a
//! `finish_reason` other than `stop`. Any failure refuses the whole answer.

use crate::common;

use cartograph_ask::answer::{Answer, AnswerError, CitationError, MIN_QUOTE_BYTES};
use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::endpoint::{Endpoint, ProviderName};
use cartograph_ask::provider::{ChatProvider, Provider, ProviderError};
use cartograph_ask::select::{self, EdgePool};
use cartograph_ask::wire::{EnvelopeError, FinishReason, Question};
use common::*;
use serde_json::{Value, json};

/// A bundle with at least three edges: the fixture's `items.py` serves edge, whose neighbourhood
/// in the head graph is large.
fn bundle() -> EvidenceBundle {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    selection
        .selected
        .iter()
        .map(|e| EvidenceBundle::build(e, &pool, 6 * 1024))
        .find(|b| b.edges().len() >= 3)
        .expect("a bundle with three edges")
}

fn ask_with_content(bundle: &EvidenceBundle, content: &str) -> Result<Answer, ProviderError> {
    ask_with_body(bundle, &envelope(content, "stop"))
}

fn ask_with_body(bundle: &EvidenceBundle, body: &str) -> Result<Answer, ProviderError> {
    let transport = MockTransport::scripted(vec![Ok(response(200, body))]);
    let provider =
        ChatProvider::new(Endpoint::resolve(ProviderName::Groq, None, None).unwrap(), &transport);
    let result =
        provider.explain(bundle, &Question::for_edge(bundle.change(), &[]), &fixture_key());
    assert_eq!(transport.count(), 1, "one request, no retry for a 200");
    result
}

fn citation(bundle: &EvidenceBundle, edge: &str, text: &str) -> Value {
    json!({ "bundle": bundle.scope(), "edge": edge, "text": text })
}

fn answer(items: Vec<Value>) -> String {
    json!({ "items": items }).to_string()
}

fn evidence(bundle: &EvidenceBundle, n: usize) -> String {
    bundle.edges()[n].claim.evidence.clone()
}

fn refused(result: Result<Answer, ProviderError>) -> AnswerError {
    match result {
        Err(ProviderError::Answer(error)) => error,
        other => panic!("expected a refused answer, got {other:?}"),
    }
}

#[test]
fn success() {
    let b = bundle();
    let a = ask_with_content(&b, &valid_answer(&b)).expect("valid");
    assert_eq!(a.scope(), b.scope());
    assert_eq!(a.items().len(), 3);
    assert_eq!(a.items()[0].citations()[0].edge(), "e1");
    assert_eq!(a.items()[0].citations()[0].text(), evidence(&b, 0));
}

#[test]
fn malformed_json() {
    let b = bundle();
    assert_eq!(refused(ask_with_content(&b, "{\"items\": [")), AnswerError::NotJson);
    assert_eq!(refused(ask_with_content(&b, "Sure! Here is the answer")), AnswerError::NotJson);
}

#[test]
fn valid_json_of_the_wrong_shape() {
    let b = bundle();
    for content in [
        json!({ "answer": "x" }),
        json!([1, 2]),
        json!({ "items": "x" }),
        json!({ "items": [{ "text": "x", "citations": [{ "edge": "e1", "text": "y" }] }] }),
        json!({ "items": [{ "text": "x", "citations": [], "extra": 1 }] }),
    ] {
        assert_eq!(
            refused(ask_with_content(&b, &content.to_string())),
            AnswerError::WrongShape,
            "{content}"
        );
    }
}

#[test]
fn missing_items() {
    let b = bundle();
    assert_eq!(refused(ask_with_content(&b, "{}")), AnswerError::WrongShape);
    assert_eq!(refused(ask_with_content(&b, "{\"items\": []}")), AnswerError::NoItems);
}

#[test]
fn item_with_no_citation() {
    let b = bundle();
    let content = answer(vec![
        json!({ "text": "cited", "citations": [citation(&b, "e1", &evidence(&b, 0))] }),
        json!({ "text": "uncited", "citations": [] }),
    ]);
    assert_eq!(refused(ask_with_content(&b, &content)), AnswerError::UncitedItem { item: 2 });
}

#[test]
fn item_with_empty_text() {
    let b = bundle();
    let content =
        answer(vec![json!({ "text": "  ", "citations": [citation(&b, "e1", &evidence(&b, 0))] })]);
    assert_eq!(refused(ask_with_content(&b, &content)), AnswerError::EmptyItem { item: 1 });
}

#[test]
fn citation_naming_a_foreign_bundle() {
    let b = bundle();
    let foreign = json!({ "bundle": "b-0000000000000000", "edge": "e1", "text": evidence(&b, 0) });
    let content = answer(vec![json!({ "text": "x", "citations": [foreign] })]);
    assert_eq!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation { item: 1, citation: 1, error: CitationError::ForeignBundle }
    );
}

#[test]
fn citation_naming_an_edge_outside_the_bundle() {
    let b = bundle();
    let outside = format!("e{}", b.edges().len() + 1);
    let content = answer(vec![
        json!({ "text": "x", "citations": [citation(&b, &outside, &evidence(&b, 0))] }),
    ]);
    assert_eq!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation { item: 1, citation: 1, error: CitationError::UnknownEdge }
    );
}

#[test]
fn non_verbatim_citation() {
    let b = bundle();
    // The right words from the wrong edge, and a paraphrase.
    let wrong_edge =
        answer(vec![json!({ "text": "x", "citations": [citation(&b, "e1", &evidence(&b, 1))] })]);
    let e1 = evidence(&b, 0);
    let paraphrase =
        answer(vec![json!({ "text": "x", "citations": [citation(&b, "e1", &e1.to_uppercase())] })]);
    for content in [wrong_edge, paraphrase] {
        assert_eq!(
            refused(ask_with_content(&b, &content)),
            AnswerError::Citation {
                item: 1,
                citation: 1,
                error: CitationError::NotVerbatim { edge: 1 }
            }
        );
    }
}

#[test]
fn empty_citation() {
    let b = bundle();
    let content = answer(vec![json!({ "text": "x", "citations": [citation(&b, "e2", "")] })]);
    assert_eq!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation { item: 1, citation: 1, error: CitationError::Empty }
    );
}

#[test]
fn too_short_citation() {
    let b = bundle();
    let e1 = evidence(&b, 0);
    assert!(e1.len() > MIN_QUOTE_BYTES);
    let content = answer(vec![json!({ "text": "x", "citations": [citation(&b, "e1", &e1[..5])] })]);
    assert_eq!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation {
            item: 1,
            citation: 1,
            error: CitationError::TooShort { edge: 1, min: MIN_QUOTE_BYTES }
        }
    );
    // Exactly the minimum is enough.
    let content = answer(vec![
        json!({ "text": "x", "citations": [citation(&b, "e1", &e1[..MIN_QUOTE_BYTES])] }),
    ]);
    ask_with_content(&b, &content).expect("12 bytes are enough");
}

#[test]
fn multiple_citations_on_one_item() {
    let b = bundle();
    let content = answer(vec![json!({
        "text": "spans three edges",
        "citations": [
            citation(&b, "e1", &evidence(&b, 0)),
            citation(&b, "e2", &evidence(&b, 1)),
            citation(&b, "e3", &evidence(&b, 2)[..MIN_QUOTE_BYTES.min(evidence(&b, 2).len())]),
        ]
    })]);
    let a = ask_with_content(&b, &content).expect("valid");
    let edges: Vec<&str> = a.items()[0].citations().iter().map(|c| c.edge()).collect();
    assert_eq!(edges, ["e1", "e2", "e3"]);
    // One bad citation among them refuses the whole answer.
    let content = answer(vec![json!({
        "text": "spans three edges",
        "citations": [
            citation(&b, "e1", &evidence(&b, 0)),
            citation(&b, "e2", "not in the evidence at all, no"),
            citation(&b, "e3", &evidence(&b, 2)),
        ]
    })]);
    assert_eq!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation {
            item: 1,
            citation: 2,
            error: CitationError::NotVerbatim { edge: 2 }
        }
    );
}

#[test]
fn valid_multi_item_answer() {
    let b = bundle();
    let a = ask_with_content(&b, &valid_answer(&b)).expect("valid");
    assert_eq!(a.items().len(), 3);
    for (i, item) in a.items().iter().enumerate() {
        assert!(!item.text().is_empty());
        assert_eq!(item.citations()[0].edge(), format!("e{}", i + 1));
    }
    // A later invalid item refuses the whole answer, the valid items before it included.
    let content = answer(vec![
        json!({ "text": "ok", "citations": [citation(&b, "e1", &evidence(&b, 0))] }),
        json!({ "text": "ok", "citations": [citation(&b, "e2", &evidence(&b, 1))] }),
        json!({ "text": "bad", "citations": [citation(&b, "e3", "an invented quotation here")] }),
    ]);
    assert!(matches!(
        refused(ask_with_content(&b, &content)),
        AnswerError::Citation {
            item: 3,
            citation: 1,
            error: CitationError::NotVerbatim { edge: 3 }
        }
    ));
}

#[test]
fn a_body_that_is_not_json_or_has_no_message() {
    let b = bundle();
    assert_eq!(
        ask_with_body(&b, "<html>Bad gateway</html>").unwrap_err(),
        ProviderError::Envelope(EnvelopeError::NotJson)
    );
    assert_eq!(
        ask_with_body(&b, "{\"choices\": []}").unwrap_err(),
        ProviderError::Envelope(EnvelopeError::NoMessage)
    );
    assert_eq!(
        ask_with_body(
            &b,
            "{\"choices\": [{\"finish_reason\": \"stop\", \"message\": {\"content\": null}}]}"
        )
        .unwrap_err(),
        ProviderError::Envelope(EnvelopeError::NoMessage)
    );
}

#[test]
fn finish_reason_must_be_stop() {
    let b = bundle();
    let content = valid_answer(&b);
    for (reason, expected) in [
        ("length", FinishReason::Length),
        ("content_filter", FinishReason::ContentFilter),
        ("tool_calls", FinishReason::ToolCalls),
        ("weird", FinishReason::Other),
    ] {
        let error = ask_with_body(&b, &envelope(&content, reason)).unwrap_err();
        assert_eq!(error, ProviderError::Envelope(EnvelopeError::Unfinished(expected)));
        assert!(error.is_refusal());
    }
}

#[test]
fn an_answer_validated_for_one_bundle_is_foreign_to_another() {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let a = EvidenceBundle::build(&selection.selected[0], &pool, 6 * 1024);
    let b = EvidenceBundle::build(&selection.selected[1], &pool, 6 * 1024);
    assert_ne!(a.scope(), b.scope());
    let content = valid_answer(&a);
    Answer::validate(&a, &content).expect("valid for its own bundle");
    assert!(matches!(
        Answer::validate(&b, &content),
        Err(AnswerError::Citation { error: CitationError::ForeignBundle, .. })
    ));
}
