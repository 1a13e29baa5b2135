//! `attach` over the fixture diff: selection and its cap, the evidence bundles (deterministic,
//! capped, truncation reported, neighbourhood from snapshots), the two bars of issue 6 at the
//! library level (no key: the input plus unavailable entries and zero requests, proved with a
//! panicking transport; one non-verbatim citation among valid ones: that edge refused with its
//! raw evidence kept), provider failures, and the output validated against the diff schema.

use crate::common;

use std::collections::BTreeSet;

use cartograph_ask::attach::{self, Asker, AttachOptions, KeyState, NO_KEY_REASON, Snapshots};
use cartograph_ask::bundle::{EvidenceBundle, is_relative_path};
use cartograph_ask::endpoint::{Endpoint, ProviderName};
use cartograph_ask::provider::ChatProvider;
use cartograph_ask::select::{self, Change, EdgePool};
use cartograph_ask::transport::TransportError;
use cartograph_report::diff::{DiffDocument, STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE};
use cartograph_report::diff_markdown::{DiffMarkdownOptions, render_diff};
use cartograph_report::schema;
use cartograph_report::snapshot::{EdgeClaimDoc, EdgeDoc, LocationDoc, SnapshotDocument};
use common::*;
use serde_json::{Value, json};

fn groq() -> Endpoint {
    Endpoint::resolve(ProviderName::Groq, None, None).unwrap()
}

/// The document without its explanations and with the input's schema version: must equal the
/// input exactly.
fn strip(doc: &DiffDocument, input: &DiffDocument) -> DiffDocument {
    let mut doc = doc.clone();
    doc.explanations = None;
    doc.schema_version = input.schema_version.clone();
    doc
}

fn assert_valid_against_the_schema(doc: &DiffDocument) {
    let value: Value = serde_json::from_str(&doc.to_json()).unwrap();
    schema::validate(&value).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn selection_puts_finding_edges_first_and_caps() {
    let doc = fixture_report();
    let all = select::select(&doc, 100);
    let changed = doc.edges.added.len() + doc.edges.removed.len() + doc.edges.changed.len();
    assert_eq!(all.selected.len(), changed);
    assert_eq!(all.skipped, 0);
    // The first findings are route-removed (high): their removed serves edges come first, from the
    // base graph.
    assert_eq!(all.selected[0].change, Change::Removed);
    assert_eq!(all.selected[0].facts.to, "route:DELETE /api/items/{}");
    assert_eq!(all.selected[0].findings, ["route-removed"]);
    // Edges named by findings precede every edge no finding names.
    let first_plain = all.selected.iter().position(|e| e.findings.is_empty()).unwrap();
    assert!(all.selected[first_plain..].iter().all(|e| e.findings.is_empty()));
    // No duplicates.
    let ids: BTreeSet<_> = all.selected.iter().map(|e| (e.side(), e.facts.identity())).collect();
    assert_eq!(ids.len(), all.selected.len());
    // An edge two findings name lists both kinds.
    let serves_archive = all
        .selected
        .iter()
        .find(|e| e.facts.to == "route:POST /api/items/{}/archive" && e.facts.kind == "serves")
        .unwrap();
    assert_eq!(serves_archive.findings, ["new-cross-language-call", "route-added"]);

    let capped = select::select(&doc, 5);
    assert_eq!(capped.selected.len(), 5);
    assert_eq!(capped.skipped as usize, changed - 5);
    assert_eq!(capped.selected[..], all.selected[..5]);
}

#[test]
fn bundles_are_deterministic_and_scoped() {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let mut scopes = BTreeSet::new();
    for edge in &selection.selected {
        let a = EvidenceBundle::build(edge, &pool, 6 * 1024);
        let b = EvidenceBundle::build(edge, &EdgePool::new(&doc, None, None), 6 * 1024);
        assert_eq!(a, b);
        assert_eq!(a.canonical_bytes(), b.canonical_bytes());
        assert!(a.scope().starts_with("b-") && a.scope().len() == 18);
        assert!(a.scope()[2..].bytes().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(a.changed_edge().id, "e1");
        assert_eq!(a.changed_edge().claim.evidence, edge.facts.evidence);
        for (i, e) in a.edges().iter().enumerate() {
            assert_eq!(e.id, format!("e{}", i + 1));
            assert!(is_relative_path(&e.claim.location.path));
            // Neighbours share an endpoint with the changed edge.
            if i > 0 {
                let ends = [&edge.facts.from, &edge.facts.to];
                assert!(ends.contains(&&e.claim.from) || ends.contains(&&e.claim.to));
            }
        }
        scopes.insert(a.scope().to_owned());
    }
    assert_eq!(scopes.len(), selection.selected.len(), "every bundle has its own scope");
}

#[test]
fn a_removed_edge_is_explained_in_the_base_graph() {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let removed = selection.selected.iter().find(|e| e.change == Change::Removed).unwrap();
    let bundle = EvidenceBundle::build(removed, &pool, 6 * 1024);
    let added: BTreeSet<_> =
        doc.edges.added.iter().map(|e| (&e.claim.kind, &e.claim.from, &e.claim.to)).collect();
    for edge in &bundle.edges()[1..] {
        assert!(
            !added.contains(&(&edge.claim.kind, &edge.claim.from, &edge.claim.to)),
            "a head-only edge in a base bundle"
        );
    }
}

#[test]
fn the_byte_cap_truncates_in_order_and_says_so() {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let (edge, full) = selection
        .selected
        .iter()
        .map(|e| (e, EvidenceBundle::build(e, &pool, 1 << 20)))
        .max_by_key(|(_, b)| b.edges().len())
        .unwrap();
    assert!(full.edges().len() >= 4, "a bundle with neighbours");
    assert!(!full.truncated());
    let e1_bytes = serde_json::to_vec(full.changed_edge()).unwrap().len();
    // Room for the changed edge only: everything else is omitted, and counted.
    let tight = EvidenceBundle::build(edge, &pool, e1_bytes);
    assert_eq!(tight.edges().len(), 1);
    assert!(tight.truncated());
    assert_eq!(tight.omitted_edges() as usize, full.edges().len() - 1);
    assert!(tight.render().contains("Truncated:"));
    // A middle cap keeps a prefix of the full order.
    let two = serde_json::to_vec(&full.edges()[..2]).unwrap().len();
    let middle = EvidenceBundle::build(edge, &pool, two);
    assert_eq!(middle.edges(), &full.edges()[..2]);
    assert_eq!(middle.omitted_edges() as usize, full.edges().len() - 2);
    assert_ne!(middle.scope(), full.scope(), "truncation changes the scope");
    // Even a cap below the changed edge's size keeps the changed edge.
    assert_eq!(EvidenceBundle::build(edge, &pool, 0).edges().len(), 1);
}

fn snapshot_with(edges: Vec<EdgeDoc>) -> SnapshotDocument {
    let text =
        std::fs::read_to_string(workspace().join("goldens/polyglot-snapshot.snap.json")).unwrap();
    let mut snapshot = SnapshotDocument::from_json(&text).unwrap();
    snapshot.edges = edges;
    snapshot
}

fn edge_doc(id: &str, kind: &str, from: &str, to: &str, evidence: &str, path: &str) -> EdgeDoc {
    EdgeDoc {
        id: id.into(),
        claim: EdgeClaimDoc {
            kind: kind.into(),
            from: from.into(),
            to: to.into(),
            evidence: evidence.into(),
            provenance: "syntactic".into(),
            confidence: "certain".into(),
            location: LocationDoc { path: path.into(), line: 1, column: 1 },
        },
        type_only: false,
        occurrences: 1,
    }
}

#[test]
fn snapshots_add_unchanged_neighbours_and_unsafe_locations_are_left_out() {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let edge = &selection.selected[0]; // removed: base graph
    let base = snapshot_with(vec![
        edge_doc(
            "e0",
            "imports",
            "module:backend/app/main.py",
            &edge.facts.from,
            "main imports the items router module",
            "backend/app/main.py",
        ),
        edge_doc(
            "e1",
            "imports",
            "module:elsewhere.py",
            "module:other.py",
            "an unrelated import of another module",
            "elsewhere.py",
        ),
        edge_doc(
            "e2",
            "imports",
            "module:evil.py",
            &edge.facts.from,
            "an import whose location is absolute",
            "/home/someone/evil.py",
        ),
    ]);
    let head = snapshot_with(vec![edge_doc(
        "e0",
        "imports",
        "module:x.py",
        &edge.facts.from,
        "a head-only neighbour of the module",
        "x.py",
    )]);
    let with =
        EvidenceBundle::build(edge, &EdgePool::new(&doc, Some(&base), Some(&head)), 6 * 1024);
    let without = EvidenceBundle::build(edge, &EdgePool::new(&doc, None, None), 6 * 1024);
    let evidence: Vec<&str> = with.edges().iter().map(|e| e.claim.evidence.as_str()).collect();
    assert!(evidence.contains(&"main imports the items router module"));
    assert!(!evidence.contains(&"an unrelated import of another module"));
    assert!(
        !evidence.contains(&"a head-only neighbour of the module"),
        "a removed edge's bundle is from the base graph"
    );
    assert!(!evidence.contains(&"an import whose location is absolute"));
    assert_eq!(with.edges().len(), without.edges().len() + 1);
    // Unchanged graph edges rank after the diff's own edges.
    assert_eq!(with.edges().last().unwrap().claim.evidence, "main imports the items router module");
}

#[test]
fn no_key_bar_identical_input_plus_unavailable_entries_and_zero_requests() {
    let input = fixture_report();
    let endpoint = groq();
    // The transport panics if it is ever called.
    let provider = ChatProvider::new(endpoint.clone(), PanickingTransport);
    let note = "no API key: run `cartograph-ask key set` or pass --api-key-env NAME".to_owned();
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Missing { note: note.clone() },
        cache: None,
    };
    let out = attach::attach(&input, Snapshots::default(), &asker, &AttachOptions::default());

    assert_eq!(strip(&out, &input), input, "the report is the input plus explanations");
    let ex = out.explanations.as_ref().unwrap();
    assert_eq!(ex.note.as_deref(), Some(note.as_str()));
    assert_eq!(ex.selected, 24);
    assert_eq!(ex.unavailable, 24);
    assert_eq!((ex.explained, ex.refused, ex.skipped), (0, 0, 0));
    assert_eq!(
        (ex.provider.host.as_str(), ex.provider.model.as_str()),
        ("api.groq.com", "openai/gpt-oss-120b")
    );
    for entry in &ex.entries {
        assert_eq!(entry.status, STATUS_UNAVAILABLE);
        assert_eq!(entry.reason.as_deref(), Some(NO_KEY_REASON));
        assert!(entry.items.is_empty() && !entry.cached);
        assert_eq!(entry.bundle.edges[0].id, "e1");
    }
    assert_valid_against_the_schema(&out);
    // The JSON is the input's bytes plus the section (and the version that defines it).
    let text = out.to_json();
    let mut value: Value = serde_json::from_str(&text).unwrap();
    value.as_object_mut().unwrap().remove("explanations");
    value["schema_version"] = json!(input.schema_version);
    let original: Value = serde_json::from_str(&fixture_report_text()).unwrap();
    assert_eq!(value, original);
}

#[test]
fn one_non_verbatim_citation_among_valid_ones_refuses_that_edge_and_keeps_its_evidence() {
    let input = fixture_report();
    let endpoint = groq();
    let victim = "route:DELETE /api/items/{}";
    let transport = MockTransport::responding(move |r| {
        let sent = read_sent_bundle(&r.body);
        let mut items = vec![json!({
            "text": "This edge changed.",
            "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }]
        })];
        if sent.changed_to == victim && sent.changed_kind == "serves" {
            items.push(json!({
                "text": "And an embellishment.",
                "citations": [
                    { "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 },
                    { "bundle": sent.scope, "edge": "e1", "text": "deletes every item in the database" }
                ]
            }));
        }
        Ok(response(200, &envelope(&json!({ "items": items }).to_string(), "stop")))
    });
    let provider = ChatProvider::new(endpoint.clone(), &transport);
    let key = fixture_key();
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: None,
    };
    let out = attach::attach(&input, Snapshots::default(), &asker, &AttachOptions::default());
    let ex = out.explanations.as_ref().unwrap();
    assert_eq!(transport.count(), 24);
    assert_eq!((ex.explained, ex.refused, ex.unavailable), (23, 1, 0));
    let refused = ex.entries.iter().find(|e| e.status == STATUS_REFUSED).unwrap();
    assert_eq!((refused.edge.kind.as_str(), refused.edge.to.as_str()), ("serves", victim));
    assert_eq!(
        refused.reason.as_deref(),
        Some("citation 2 of item 2 is not verbatim evidence of edge e1")
    );
    assert!(refused.items.is_empty(), "nothing of the refused answer is kept");
    assert_eq!(refused.bundle.edges[0].claim.evidence, input.findings[0].edges[0].evidence);
    for entry in ex.entries.iter().filter(|e| e.status == STATUS_EXPLAINED) {
        for item in &entry.items {
            for citation in &item.citations {
                let edge = entry.bundle.edge(&citation.edge).unwrap();
                assert!(edge.claim.evidence.contains(&citation.text));
            }
        }
    }
    assert_valid_against_the_schema(&out);
    assert_eq!(strip(&out, &input), input);
    let markdown = render_diff(&out, &DiffMarkdownOptions::default());
    assert!(markdown.contains("explanation refused"), "{markdown}");
    assert!(markdown.contains("not verbatim evidence of edge e1"));
    assert!(!markdown.contains("deletes every item in the database"));
}

#[test]
fn provider_failures_make_entries_unavailable_and_the_rest_still_run() {
    let input = fixture_report();
    let endpoint = groq();
    let transport = MockTransport::responding(|r| {
        let sent = read_sent_bundle(&r.body);
        if sent.changed_to.starts_with("route:") {
            Err(TransportError::Timeout)
        } else {
            Ok(response(401, "{\"error\":{\"type\":\"invalid_api_key\"}}"))
        }
    });
    let provider = ChatProvider::new(endpoint.clone(), &transport);
    let key = fixture_key();
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: None,
    };
    let out = attach::attach(
        &input,
        Snapshots::default(),
        &asker,
        &AttachOptions { concurrency: 3, ..AttachOptions::default() },
    );
    let ex = out.explanations.as_ref().unwrap();
    assert_eq!(ex.unavailable, 24);
    assert!(ex.note.is_none());
    let reasons: BTreeSet<&str> = ex.entries.iter().filter_map(|e| e.reason.as_deref()).collect();
    assert_eq!(
        reasons,
        BTreeSet::from(["the request timed out", "the provider rejected the API key (HTTP 401)"])
    );
    assert_valid_against_the_schema(&out);
}

#[test]
fn entries_keep_selection_order_whatever_the_concurrency() {
    let input = fixture_report();
    let endpoint = groq();
    let key = fixture_key();
    let run = |concurrency: usize| {
        let transport = MockTransport::responding(|r| {
            let sent = read_sent_bundle(&r.body);
            let items = json!({ "items": [{ "text": "x", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }] }] });
            Ok(response(200, &envelope(&items.to_string(), "stop")))
        });
        let provider = ChatProvider::new(endpoint.clone(), &transport);
        let asker = Asker {
            provider: &provider,
            endpoint: &endpoint,
            key: KeyState::Present(&key),
            cache: None,
        };
        attach::attach(
            &input,
            Snapshots::default(),
            &asker,
            &AttachOptions { concurrency, ..AttachOptions::default() },
        )
    };
    let one = run(1);
    assert_eq!(one.explanations.as_ref().unwrap().explained, 24);
    assert_eq!(one, run(8));
    let order: Vec<(String, String)> = one
        .explanations
        .unwrap()
        .entries
        .iter()
        .map(|e| (e.edge.kind.clone(), e.edge.to.clone()))
        .collect();
    let expected: Vec<(String, String)> = select::select(&input, 25)
        .selected
        .iter()
        .map(|e| (e.facts.kind.clone(), e.facts.to.clone()))
        .collect();
    assert_eq!(order, expected);
}

#[test]
fn max_edges_counts_the_rest_as_skipped() {
    let input = fixture_report();
    let endpoint = groq();
    let provider = ChatProvider::new(endpoint.clone(), PanickingTransport);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Missing { note: "n".into() },
        cache: None,
    };
    let out = attach::attach(
        &input,
        Snapshots::default(),
        &asker,
        &AttachOptions { max_edges: 3, ..AttachOptions::default() },
    );
    let ex = out.explanations.unwrap();
    assert_eq!((ex.selected, ex.skipped, ex.entries.len()), (3, 21, 3));
}

#[test]
fn a_changed_edge_with_an_absolute_location_is_never_sent() {
    let mut input = fixture_report();
    input.edges.added[0].claim.location.path = "/home/someone/app.py".into();
    input.findings.clear();
    let endpoint = groq();
    let transport = MockTransport::responding(|r| {
        assert!(!r.body.contains("/home/someone"), "an absolute path was sent");
        let sent = read_sent_bundle(&r.body);
        let items = json!({ "items": [{ "text": "x", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }] }] });
        Ok(response(200, &envelope(&items.to_string(), "stop")))
    });
    let provider = ChatProvider::new(endpoint.clone(), &transport);
    let key = fixture_key();
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: None,
    };
    let out = attach::attach(&input, Snapshots::default(), &asker, &AttachOptions::default());
    let ex = out.explanations.unwrap();
    assert_eq!(ex.unavailable, 1);
    assert_eq!(ex.entries[0].reason.as_deref(), Some(attach::UNSAFE_LOCATION_REASON));
    assert_eq!(transport.count(), 23);
}
