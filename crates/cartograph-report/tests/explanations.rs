//! The `explanations` section of the diff document (schema 1.1): the hand-made fixture validates
//! with all three statuses and a truncated bundle, reads back to the same bytes, and the schema
//! refuses what the citation contract forbids; `DiffDocument::from_json` reads 1.0 and 1.1
//! documents and refuses anything else with a sentence that quotes none of the file.

use std::path::Path;

use cartograph_report::diff::{
    DiffDocError, DiffDocument, STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE,
};
use cartograph_report::schema::{self, SchemaError};
use serde_json::{Value, json};

fn workspace_file(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path);
    std::fs::read_to_string(full).expect("fixture file")
}

fn fixture_text() -> String {
    workspace_file("tests/fixtures/explained/diff.explained.json")
}

fn fixture_value() -> Value {
    serde_json::from_str(&fixture_text()).expect("fixture is JSON")
}

/// An edit that makes the fixture invalid.
type Change = dyn Fn(&mut Value);
/// Whether an error is the one expected.
type Expected = fn(&DiffDocError) -> bool;

fn assert_invalid(doc: &Value, why: &str) {
    assert!(
        matches!(schema::validate(doc), Err(SchemaError::Invalid { .. })),
        "the schema accepts {why}"
    );
}

#[test]
fn the_fixture_has_every_status_and_a_truncated_bundle_and_validates() {
    let value = fixture_value();
    schema::validate(&value).expect("fixture validates against schemas/diff.schema.json");
    let doc = DiffDocument::from_json(&fixture_text()).expect("fixture reads");
    let explanations = doc.explanations.as_ref().expect("fixture has explanations");
    let statuses: Vec<&str> = explanations.entries.iter().map(|e| e.status.as_str()).collect();
    for status in [STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE] {
        assert!(statuses.contains(&status), "the fixture has no {status} entry");
    }
    assert!(explanations.entries.iter().any(|e| e.bundle.truncated && e.bundle.omitted_edges > 0));
    assert!(explanations.entries.iter().any(|e| e.cached));
    // The counts agree with the entries.
    let count = |s: &str| statuses.iter().filter(|x| **x == s).count() as u64;
    assert_eq!(explanations.explained, count(STATUS_EXPLAINED));
    assert_eq!(explanations.refused, count(STATUS_REFUSED));
    assert_eq!(explanations.unavailable, count(STATUS_UNAVAILABLE));
    assert_eq!(explanations.selected, explanations.entries.len() as u64);
    // Every citation of an explained entry quotes its bundle edge verbatim.
    for entry in &explanations.entries {
        for item in &entry.items {
            for citation in &item.citations {
                let edge = entry.bundle.edge(&citation.edge).expect("cited edge in the bundle");
                assert!(edge.claim.evidence.contains(&citation.text));
            }
        }
    }
}

#[test]
fn a_document_reads_back_to_the_same_document_and_the_same_bytes() {
    let text = fixture_text();
    let doc = DiffDocument::from_json(&text).expect("reads");
    assert_eq!(doc.to_json(), text, "to_json writes the fixture's bytes back");
    assert_eq!(DiffDocument::from_json(&doc.to_json()).expect("reads again"), doc);

    let mut plain = doc;
    plain.explanations = None;
    let plain_text = plain.to_json();
    assert!(!plain_text.contains("\"explanations\""), "an absent section is not written");
    assert_eq!(DiffDocument::from_json(&plain_text).expect("reads"), plain);
    schema::validate(&serde_json::from_str(&plain_text).expect("JSON")).expect("validates");
}

#[test]
fn a_1_0_document_reads_without_explanations() {
    let mut value = fixture_value();
    let object = value.as_object_mut().expect("object");
    object.remove("explanations");
    object.insert("schema_version".into(), json!("1.0"));
    let text = serde_json::to_string_pretty(&value).expect("serialises");
    let doc = DiffDocument::from_json(&text).expect("a 1.0 diff reads");
    assert_eq!(doc.schema_version, "1.0");
    assert_eq!(doc.explanations, None);
}

#[test]
fn the_schema_refuses_what_the_citation_contract_forbids() {
    let base = fixture_value();
    let cases: Vec<(&str, Box<Change>)> = vec![
        (
            "a scope that is not b- and 16 hex digits",
            Box::new(|v| {
                v["explanations"]["entries"][0]["bundle"]["scope"] = json!("b-XYZ");
            }),
        ),
        (
            "a bundle edge id that is not eN",
            Box::new(|v| {
                v["explanations"]["entries"][0]["bundle"]["edges"][0]["id"] = json!("edge-1");
            }),
        ),
        (
            "a citation of an id that is not eN",
            Box::new(|v| {
                v["explanations"]["entries"][0]["items"][0]["citations"][0]["edge"] = json!("e0");
            }),
        ),
        (
            "an empty quote",
            Box::new(|v| {
                v["explanations"]["entries"][0]["items"][0]["citations"][0]["text"] = json!("");
            }),
        ),
        (
            "an uncited item",
            Box::new(|v| {
                v["explanations"]["entries"][0]["items"][0]["citations"] = json!([]);
            }),
        ),
        (
            "an empty item",
            Box::new(|v| {
                v["explanations"]["entries"][0]["items"][0]["text"] = json!("");
            }),
        ),
        (
            "an unknown status",
            Box::new(|v| {
                v["explanations"]["entries"][0]["status"] = json!("maybe");
            }),
        ),
        (
            "an explained entry without items",
            Box::new(|v| {
                v["explanations"]["entries"][0]["items"] = json!([]);
            }),
        ),
        (
            "an explained entry with a reason",
            Box::new(|v| {
                v["explanations"]["entries"][0]["reason"] = json!("because");
            }),
        ),
        (
            "a refused entry without a reason",
            Box::new(|v| {
                v["explanations"]["entries"][1].as_object_mut().unwrap().remove("reason");
            }),
        ),
        (
            "a refused entry with items",
            Box::new(|v| {
                let items = v["explanations"]["entries"][0]["items"].clone();
                v["explanations"]["entries"][1]["items"] = items;
            }),
        ),
        (
            "a bundle without edges",
            Box::new(|v| {
                v["explanations"]["entries"][3]["bundle"]["edges"] = json!([]);
            }),
        ),
        (
            "an absolute location in a bundle",
            Box::new(|v| {
                v["explanations"]["entries"][0]["bundle"]["edges"][0]["location"]["path"] =
                    json!("/home/me/repo/a.py");
            }),
        ),
        (
            "a provider host with a path",
            Box::new(|v| {
                v["explanations"]["provider"]["host"] = json!("api.groq.com/openai/v1?key=x");
            }),
        ),
        (
            "a provider host with credentials",
            Box::new(|v| {
                v["explanations"]["provider"]["host"] = json!("user:pw@api.groq.com");
            }),
        ),
        (
            "an unknown field in an entry",
            Box::new(|v| {
                v["explanations"]["entries"][0]["answer"] = json!("raw provider body");
            }),
        ),
        (
            "an unknown finding kind",
            Box::new(|v| {
                v["explanations"]["entries"][0]["findings"] = json!(["route-renamed"]);
            }),
        ),
        (
            "an edge side that is neither base nor head",
            Box::new(|v| {
                v["explanations"]["entries"][0]["edge"]["side"] = json!("both");
            }),
        ),
        (
            "a change that is not added, removed or changed",
            Box::new(|v| {
                v["explanations"]["entries"][0]["edge"]["change"] = json!("moved");
            }),
        ),
        (
            "a note over two lines",
            Box::new(|v| {
                v["explanations"]["note"] = json!("one\ntwo");
            }),
        ),
        (
            "a negative count",
            Box::new(|v| {
                v["explanations"]["skipped"] = json!(-1);
            }),
        ),
    ];
    for (why, change) in cases {
        let mut doc = base.clone();
        change(&mut doc);
        assert_invalid(&doc, why);
    }
    // And it accepts a degraded run's note.
    let mut noted = base;
    noted["explanations"]["note"] =
        json!("no API key: run `cartograph-ask key set` or pass --api-key-env NAME");
    schema::validate(&noted).expect("a note validates");
}

#[test]
fn bad_files_get_one_sentence_that_quotes_none_of_them() {
    let secret = "hunter2-0123456789abcdef";
    let not_json = format!("DATABASE_URL=postgres://u:{secret}@h/db");
    let cases: Vec<(String, Expected)> = vec![
        (not_json, |e| matches!(e, DiffDocError::NotJson { .. })),
        (format!("[\"{secret}\"]"), |e| matches!(e, DiffDocError::NotAnObject)),
        (format!("{{\"password\": \"{secret}\"}}"), |e| matches!(e, DiffDocError::NoSchema)),
        (format!("{{\"schema\": \"{secret}\", \"schema_version\": \"1.0\"}}"), |e| {
            matches!(e, DiffDocError::UnknownDocument)
        }),
        ("{\"schema\": \"snapshot\", \"schema_version\": \"1.1\"}".to_owned(), |e| {
            *e == DiffDocError::WrongDocument("snapshot")
        }),
        ("{\"schema\": \"diff\", \"schema_version\": \"2.0\"}".to_owned(), |e| {
            *e == DiffDocError::NewerMajor { found: 2 }
        }),
        ("{\"schema\": \"diff\", \"schema_version\": \"0.9\"}".to_owned(), |e| {
            *e == DiffDocError::OlderMajor { found: 0 }
        }),
        (format!("{{\"schema\": \"diff\", \"schema_version\": \"{secret}\"}}"), |e| {
            matches!(e, DiffDocError::BadVersion)
        }),
        (
            format!(
                "{{\"schema\": \"diff\", \"schema_version\": \"1.1\", \"verdict\": [\"{secret}\"]}}"
            ),
            |e| matches!(e, DiffDocError::Shape { .. }),
        ),
    ];
    for (text, expected) in cases {
        let error = DiffDocument::from_json(&text).expect_err("refused");
        assert!(expected(&error), "unexpected error {error:?}");
        let message = error.to_string();
        assert!(!message.contains("hunter2"), "the message quotes the file: {message}");
        assert!(!message.contains('\n'), "one line: {message}");
    }

    // A wrong type deep inside names no value either.
    let mut value = fixture_value();
    value["explanations"]["entries"][0]["cached"] = json!(secret);
    let text = serde_json::to_string_pretty(&value).expect("serialises");
    let error = DiffDocument::from_json(&text).expect_err("refused");
    assert!(!error.to_string().contains("hunter2"), "{error}");
    let mut value = fixture_value();
    value["explanations"]["entries"][0].as_object_mut().expect("entry").remove("bundle");
    let text = serde_json::to_string_pretty(&value).expect("serialises");
    let error = DiffDocument::from_json(&text).expect_err("refused");
    assert!(error.to_string().contains("the field `bundle` is missing"), "{error}");
}
