//! The request, checked byte for byte against a runtime-generated fixture key (decision 0001
//! rule 14, "Request"): the endpoint, the `Authorization: Bearer <key>` header, a strict
//! `json_schema` response format whose schema is a valid JSON Schema, the constant system
//! message, and a body that carries no key, no source text, no absolute path and no identity.

use crate::common;

use crate::leaks;

use cartograph_ask::attach::{AttachOptions, Snapshots};
use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::endpoint::{Endpoint, ProviderName};
use cartograph_ask::provider::{ChatProvider, Provider};
use cartograph_ask::select::{self, EdgePool};
use cartograph_ask::wire::{self, ChatRequest, Question, SYSTEM_PROMPT};
use common::*;
use serde_json::Value;

fn first_bundle() -> (EvidenceBundle, Vec<String>) {
    let doc = fixture_report();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let edge = &selection.selected[0];
    (
        EvidenceBundle::build(edge, &pool, AttachOptions::default().max_bundle_bytes),
        edge.findings.clone(),
    )
}

fn send_one() -> (Recorded, String) {
    let (bundle, findings) = first_bundle();
    let key = fixture_key();
    let transport = MockTransport::responding({
        let answer = valid_answer(&bundle);
        move |_| Ok(response(200, &envelope(&answer, "stop")))
    });
    let endpoint = Endpoint::resolve(ProviderName::Groq, None, None).unwrap();
    let provider = ChatProvider::new(endpoint, &transport);
    let question = Question::for_edge(bundle.change(), &findings);
    provider.explain(&bundle, &question, &key).expect("a valid answer");
    assert_eq!(transport.count(), 1);
    let recorded = transport.requests.lock().unwrap()[0].clone();
    (recorded, key.expose().to_owned())
}

#[test]
fn the_request_goes_to_chat_completions_with_a_bearer_header() {
    let (recorded, key) = send_one();
    assert_eq!(recorded.url, "https://api.groq.com/openai/v1/chat/completions");
    let auth: Vec<&(String, String)> =
        recorded.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("authorization")).collect();
    assert_eq!(auth.len(), 1);
    assert_eq!(auth[0].1, format!("Bearer {key}"));
    // The key is in that header and nowhere else.
    assert!(!recorded.body.contains(&key));
    for (name, value) in &recorded.headers {
        if !name.eq_ignore_ascii_case("authorization") {
            assert!(!value.contains(&key), "{name}");
        }
    }
}

#[test]
fn the_body_has_exactly_the_fields_the_ask_boundary_allows() {
    let (recorded, _) = send_one();
    let body: Value = serde_json::from_str(&recorded.body).unwrap();
    let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    let mut expected = vec![
        "max_completion_tokens",
        "messages",
        "model",
        "response_format",
        "stream",
        "temperature",
    ];
    expected.sort_unstable();
    assert_eq!(keys, expected);
    assert_eq!(body["model"], "openai/gpt-oss-120b");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["stream"], false);
    assert_eq!(body["max_completion_tokens"], wire::MAX_COMPLETION_TOKENS);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(messages[0]["content"], SYSTEM_PROMPT);
    assert_eq!(messages[1]["role"], "user");
    for message in messages {
        assert_eq!(message.as_object().unwrap().len(), 2, "only role and content");
    }
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "cartograph_answer");
    assert_eq!(format["json_schema"]["strict"], true);
    assert_eq!(format["json_schema"]["schema"], wire::answer_schema());
}

#[test]
fn the_response_schema_is_valid_and_strict_mode_compliant() {
    let schema = wire::answer_schema();
    jsonschema::meta::validate(&schema).expect("a valid JSON Schema");
    // Strict mode: every object closed, every property required.
    fn check(value: &Value) {
        if let Some(object) = value.as_object() {
            if object.get("type") == Some(&Value::from("object")) {
                assert_eq!(object["additionalProperties"], false, "{value}");
                let mut props: Vec<&String> =
                    object["properties"].as_object().unwrap().keys().collect();
                let mut required: Vec<&str> = object["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                props.sort();
                required.sort_unstable();
                assert_eq!(props, required, "{value}");
            }
            for child in object.values() {
                check(child);
            }
        } else if let Some(array) = value.as_array() {
            array.iter().for_each(check);
        }
    }
    check(&schema);
    // A valid answer validates against it, and one missing the bundle id does not.
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let (bundle, _) = first_bundle();
    let answer: Value = serde_json::from_str(&valid_answer(&bundle)).unwrap();
    assert!(validator.is_valid(&answer));
    let mut unscoped = answer;
    unscoped["items"][0]["citations"][0].as_object_mut().unwrap().remove("bundle");
    assert!(!validator.is_valid(&unscoped));
}

#[test]
fn the_user_message_is_the_question_and_the_rendered_bundle() {
    let (recorded, _) = send_one();
    let (bundle, findings) = first_bundle();
    let body: Value = serde_json::from_str(&recorded.body).unwrap();
    let user = body["messages"][1]["content"].as_str().unwrap();
    let question = Question::for_edge(bundle.change(), &findings);
    assert_eq!(user, format!("{}\n\n{}", question.as_str(), bundle.render()));
    // Every edge is rendered with exactly its id, kind, from, to, evidence, provenance, confidence
    // and location.
    for edge in bundle.edges() {
        assert!(user.contains(&format!(
            "[{}]\nkind: {}\nfrom: {}\nto: {}\nevidence: {}\n",
            edge.id, edge.claim.kind, edge.claim.from, edge.claim.to, edge.claim.evidence
        )));
    }
    let labels: std::collections::BTreeSet<&str> = user
        .lines()
        .filter_map(|l| l.split_once(": ").map(|(k, _)| k))
        .filter(|k| !k.contains(' '))
        .collect();
    let allowed = [
        "Bundle",
        "edge",
        "kind",
        "from",
        "to",
        "evidence",
        "provenance",
        "confidence",
        "location",
        "Truncated",
    ];
    for label in labels {
        assert!(allowed.contains(&label), "unexpected field {label}");
    }
}

#[test]
fn the_body_carries_no_source_text_no_absolute_path_and_no_identity() {
    let root = workspace();
    let doc = fixture_report();
    let endpoint = Endpoint::resolve(ProviderName::Groq, None, None).unwrap();
    let selection = select::select(&doc, 25);
    let pool = EdgePool::new(&doc, None, None);
    let mut bodies = Vec::new();
    for edge in &selection.selected {
        let bundle = EvidenceBundle::build(edge, &pool, 6 * 1024);
        bodies.push(
            ChatRequest::build(
                &endpoint,
                &bundle,
                &Question::for_edge(edge.change, &edge.findings),
            )
            .body()
            .to_owned(),
        );
    }
    assert_eq!(bodies.len(), 24);
    // Source text: no line of any fixture source file longer than 40 characters (a statement,
    // not a name) appears in any body.
    let mut source_lines = Vec::new();
    for side in ["base", "head"] {
        collect_lines(&root.join("tests/fixtures/diff").join(side), &mut source_lines);
    }
    assert!(source_lines.len() > 20, "the fixture has source to compare with");
    let home = std::env::var("HOME").unwrap_or_default();
    let leaks = leaks::LeakCheck::new(&[], &[&root]);
    for body in &bodies {
        leaks.assert_clean("request body", body);
        for line in &source_lines {
            assert!(!body.contains(line.as_str()), "source line sent: {line}");
        }
        assert!(!body.contains(root.to_str().unwrap()), "the workspace path was sent");
        assert!(home.len() < 2 || !body.contains(&home), "the home directory was sent");
        let value: Value = serde_json::from_str(body).unwrap();
        let user = value["messages"][1]["content"].as_str().unwrap();
        let locations: Vec<&str> =
            user.lines().filter_map(|l| l.strip_prefix("location: ")).collect();
        assert!(!locations.is_empty());
        for location in locations {
            let path = location.rsplitn(3, ':').last().unwrap();
            assert!(
                cartograph_ask::bundle::is_relative_path(path),
                "an absolute path was sent: {path}"
            );
        }
        for field in ["tool_version", "base", "head", "label", "verdict"] {
            assert!(!body.contains(&format!("\"{field}\"")), "{field} was sent");
        }
        assert!(!body.contains(&doc.tool_version) || doc.tool_version.len() < 6);
    }
    let _ = Snapshots::default();
}

fn collect_lines(dir: &std::path::Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_lines(&path, out);
        } else if matches!(path.extension().and_then(|e| e.to_str()), Some("py" | "ts" | "tsx")) {
            for line in std::fs::read_to_string(&path).unwrap().lines() {
                let line = line.trim();
                if line.len() > 40 {
                    out.push(line.to_owned());
                }
            }
        }
    }
}
