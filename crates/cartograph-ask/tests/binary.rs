//! End to end: the real `cartograph-ask` binary against a fake OpenAI-compatible server on
//! loopback, with the key in an environment variable named by `--api-key-env`. Both bars of issue
//! 6 through the binary, the Markdown report, schema validation of the output, and `key status`
//! on a machine whose keychain cannot be reached.

use crate::common;
use crate::leaks;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use cartograph_report::diff::{DiffDocument, STATUS_EXPLAINED, STATUS_REFUSED, STATUS_UNAVAILABLE};
use cartograph_report::schema;
use common::*;
use serde_json::{Value, json};

/// The binary, confined to loopback with a cleared environment (see [`common::ask_binary`]).
fn ask(dir: &Path) -> Command {
    ask_binary(dir)
}

fn write_report(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("report.json");
    std::fs::write(&path, fixture_report_text()).unwrap();
    path
}

fn run(command: &mut Command) -> (Output, String) {
    let output = command.stdin(Stdio::null()).output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stderr)
}

fn check_output_document(path: &Path) -> DiffDocument {
    let text = std::fs::read_to_string(path).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    schema::validate(&value).unwrap_or_else(|e| panic!("{e}"));
    let doc = DiffDocument::from_json(&text).unwrap();
    assert_eq!(doc.to_json(), text, "written with DiffDocument::to_json");
    doc
}

fn same_as_input_apart_from_explanations(doc: &DiffDocument) {
    let input = fixture_report();
    let mut stripped = doc.clone();
    stripped.explanations = None;
    stripped.schema_version = input.schema_version.clone();
    assert_eq!(stripped, input);
}

#[test]
fn explains_every_changed_edge_against_a_fake_provider() {
    let server = FakeServer::start(valid_reply_for);
    let dir = tempfile::tempdir().unwrap();
    let report = write_report(dir.path());
    let key = fixture_key_text();
    let (output, stderr) = run(ask(dir.path())
        .env("ASK_TEST_KEY", &key)
        .args(["attach", "report.json", "-o", "out.json", "--markdown", "out.md"])
        .args(["--provider", "custom", "--model", "test-model", "--base-url", &server.base_url()])
        .args(["--api-key-env", "ASK_TEST_KEY", "--concurrency", "3"]));
    assert!(output.status.success(), "{stderr}");
    assert!(output.stdout.is_empty(), "the JSON went to -o");
    let doc = check_output_document(&dir.path().join("out.json"));
    same_as_input_apart_from_explanations(&doc);
    let ex = doc.explanations.as_ref().unwrap();
    assert_eq!((ex.selected, ex.explained, ex.refused, ex.unavailable), (24, 24, 0, 0));
    assert_eq!(ex.provider.host, format!("127.0.0.1:{}", server.port));
    assert_eq!(ex.provider.model, "test-model");
    // One request per edge, each with the bearer key, to the chat-completions path.
    let requests = server.requests();
    assert_eq!(requests.len(), 24);
    for r in &requests {
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.header("authorization"), Some(format!("Bearer {key}").as_str()));
        assert!(!r.body.contains(&key));
    }
    // The key is in no output, no log line, no file; nor is a machine path.
    let json = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    let markdown = std::fs::read_to_string(dir.path().join("out.md")).unwrap();
    let leaks = leaks::LeakCheck::new(std::slice::from_ref(&key), &[dir.path()]);
    for (channel, text) in [("stderr", &stderr), ("JSON", &json), ("Markdown", &markdown)] {
        leaks.assert_clean(channel, text);
    }
    // The Markdown ties quotations to bundle edges, and re-verifying what ASK wrote (the renderer
    // checks every explained entry again) finds every one as sent.
    assert!(markdown.contains("e1"), "{markdown}");
    assert!(markdown.contains("<b>Explanations</b> · 24 explained"), "{markdown}");
    assert!(!markdown.contains("unverified"), "{markdown}");
    let _ = report;
}

#[test]
fn no_key_bar_through_the_binary() {
    let server = FakeServer::start(|_| panic!("no request may reach the provider"));
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let (output, stderr) = run(ask(dir.path())
        .args(["attach", "report.json", "--markdown", "out.md"])
        .args(["--provider", "custom", "--model", "m", "--base-url", &server.base_url()])
        .args(["--api-key-env", "ASK_TEST_KEY_THAT_IS_NOT_SET"]));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(server.connections.load(std::sync::atomic::Ordering::SeqCst), 0, "zero requests");
    // Exactly one line on stderr, saying how to enable ASK (logging is at debug, and still only
    // this line: nothing else happens).
    let lines: Vec<&str> =
        stderr.lines().filter(|l| !l.contains("DEBUG") && !l.contains("INFO")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("no API key") && lines[0].contains("enable ASK"), "{stderr}");
    // Without -o the document is on stdout.
    let text = String::from_utf8(output.stdout).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    schema::validate(&value).unwrap();
    let doc = DiffDocument::from_json(&text).unwrap();
    same_as_input_apart_from_explanations(&doc);
    let ex = doc.explanations.as_ref().unwrap();
    assert_eq!((ex.selected, ex.unavailable), (24, 24));
    assert!(ex.entries.iter().all(|e| e.status == STATUS_UNAVAILABLE));
    assert!(ex.note.as_deref().is_some_and(|n| n.contains("ASK_TEST_KEY_THAT_IS_NOT_SET")));
    let markdown = std::fs::read_to_string(dir.path().join("out.md")).unwrap();
    assert!(markdown.contains("unavailable"), "{markdown}");
}

#[test]
fn no_key_and_no_keychain_degrades_without_a_request() {
    // No --api-key-env or --api-key-stdin: the keychain is the source, and a confined binary never
    // opens it (on any platform), so the edges are unavailable and nothing is sent.
    let server = FakeServer::start(|_| panic!("no request may reach the provider"));
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let (output, stderr) = run(ask(dir.path())
        .args(["attach", "report.json", "-o", "out.json"])
        .args(["--provider", "custom", "--model", "m", "--base-url", &server.base_url()]));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let doc = check_output_document(&dir.path().join("out.json"));
    let ex = doc.explanations.unwrap();
    assert_eq!((ex.selected, ex.unavailable), (24, 24));
    assert_eq!(ex.provider.host, format!("127.0.0.1:{}", server.port));
    assert!(stderr.contains("keychain is not used while CARTOGRAPH_ASK_LOOPBACK_ONLY"), "{stderr}");
    assert_eq!(server.connections.load(std::sync::atomic::Ordering::SeqCst), 0, "zero requests");
}

#[test]
fn a_confined_binary_refuses_every_endpoint_off_loopback() {
    // The default provider (api.groq.com), OpenAI, and a custom https host: each refused with exit
    // 2 before a key is looked for or an agent is built, and no report is written.
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let key = fixture_key_text();
    for provider_args in [
        vec![],
        vec!["--provider", "openai"],
        vec!["--provider", "custom", "--model", "m", "--base-url", "https://llm.example.com/v1"],
    ] {
        let (output, stderr) = run(ask(dir.path())
            .env("ASK_TEST_KEY", &key)
            .args(["attach", "report.json", "-o", "out.json", "--api-key-env", "ASK_TEST_KEY"])
            .args(&provider_args));
        assert_eq!(output.status.code(), Some(2), "{provider_args:?}: {stderr}");
        assert!(stderr.contains("CARTOGRAPH_ASK_LOOPBACK_ONLY is set"), "{stderr}");
        assert!(!stderr.contains("API key found"), "refused before the key: {stderr}");
        assert!(!dir.path().join("out.json").exists());
    }
    // https to localhost is loopback too: accepted (nothing listens; the edge is unavailable).
    let (output, stderr) = run(ask(dir.path())
        .args(["attach", "report.json", "-o", "out.json"])
        .args(["--provider", "custom", "--model", "m", "--base-url", "https://localhost:9/v1"]));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

#[test]
fn no_test_starts_the_binary_unconfined() {
    // The binary's path is named in `common/mod.rs` only, by `ask_binary`, which sets
    // CARTOGRAPH_ASK_LOOPBACK_ONLY: a test that built its own Command could reach a real provider
    // or the developer's keychain.
    let tests = workspace().join("crates/cartograph-ask/tests");
    let needle = concat!("CARGO_BIN_EXE_", "cartograph-ask");
    let mut naming = Vec::new();
    let mut stack = vec![tests.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).unwrap().contains(needle)
            {
                naming
                    .push(path.strip_prefix(&tests).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    naming.sort();
    assert_eq!(naming, ["common/mod.rs"]);
    let common = std::fs::read_to_string(tests.join("common/mod.rs")).unwrap();
    assert_eq!(common.matches(needle).count(), 1, "one constructor");
    assert!(common.contains(".env(cartograph_ask::endpoint::LOOPBACK_ONLY_ENV, \"1\")"));
}

#[test]
fn one_non_verbatim_citation_bar_through_the_binary() {
    let victim = "route:DELETE /api/items/{}";
    let server = FakeServer::start(move |r| {
        let sent = read_sent_bundle(&r.body);
        if sent.changed_to != victim || sent.changed_kind != "serves" {
            return valid_reply_for(r);
        }
        let items = json!({ "items": [
            { "text": "The DELETE route was removed.", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }] },
            { "text": "It was the only way to delete items.", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": "the only way to delete items" }] }
        ] });
        Reply::new(200, envelope(&items.to_string(), "stop"))
    });
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let key = fixture_key_text();
    let (output, stderr) = run(ask(dir.path())
        .env("ASK_TEST_KEY", &key)
        .args(["attach", "report.json", "-o", "out.json", "--markdown", "out.md"])
        .args(["--provider", "custom", "--model", "m", "--base-url", &server.base_url()])
        .args(["--api-key-env", "ASK_TEST_KEY"]));
    assert!(output.status.success(), "{stderr}");
    let doc = check_output_document(&dir.path().join("out.json"));
    let ex = doc.explanations.as_ref().unwrap();
    assert_eq!((ex.explained, ex.refused), (23, 1));
    let refused = ex.entries.iter().find(|e| e.status == STATUS_REFUSED).unwrap();
    assert_eq!((refused.edge.kind.as_str(), refused.edge.to.as_str()), ("serves", victim));
    assert!(refused.items.is_empty());
    assert_eq!(
        refused.reason.as_deref(),
        Some("citation 1 of item 2 is not verbatim evidence of edge e1")
    );
    assert!(
        ex.entries
            .iter()
            .filter(|e| e.status != STATUS_REFUSED)
            .all(|e| e.status == STATUS_EXPLAINED)
    );
    let markdown = std::fs::read_to_string(dir.path().join("out.md")).unwrap();
    assert!(markdown.contains("explanation refused"), "{markdown}");
    // The raw evidence of the refused edge is shown; the refused answer's text is not.
    let evidence = &refused.bundle.edges[0].claim.evidence;
    let fragment = "FastAPI route DELETE";
    assert!(evidence.contains(fragment));
    assert!(markdown.contains(fragment), "{markdown}");
    assert!(!markdown.contains("It was the only way to delete items"));
    assert!(!stderr.contains(&key));
}

#[test]
fn provider_errors_leave_exit_zero_and_unavailable_entries() {
    let server = FakeServer::start(|_| {
        Reply::new(
            401,
            "{\"error\":{\"message\":\"Invalid API Key\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}",
        )
    });
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let key = fixture_key_text();
    let (output, stderr) = run(ask(dir.path())
        .env("ASK_TEST_KEY", &key)
        .args(["attach", "report.json", "-o", "out.json", "--max-edges", "3"])
        .args(["--provider", "custom", "--model", "m", "--base-url", &server.base_url()])
        .args(["--api-key-env", "ASK_TEST_KEY"]));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let doc = check_output_document(&dir.path().join("out.json"));
    let ex = doc.explanations.unwrap();
    assert_eq!((ex.selected, ex.skipped, ex.unavailable), (3, 21, 3));
    assert!(
        ex.entries
            .iter()
            .all(|e| e.reason.as_deref() == Some("the provider rejected the API key (HTTP 401)"))
    );
    assert!(!stderr.contains("Invalid API Key"), "the provider's body is not shown: {stderr}");
    assert!(!stderr.contains(&key));
}

#[test]
fn the_key_from_stdin_and_the_cache_on_a_rerun() {
    let server = FakeServer::start(valid_reply_for);
    let dir = tempfile::tempdir().unwrap();
    write_report(dir.path());
    let key = fixture_key_text();
    let attach = |out: &str| {
        let mut child = ask(dir.path())
            .args(["attach", "report.json", "-o", out, "--cache", "cache"])
            .args(["--provider", "custom", "--model", "m", "--base-url", &server.base_url()])
            .arg("--api-key-stdin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(format!("{key}\n").as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        check_output_document(&dir.path().join(out))
    };
    let first = attach("one.json");
    assert_eq!(server.requests().len(), 24);
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.header("authorization") == Some(format!("Bearer {key}").as_str()))
    );
    let second = attach("two.json");
    assert_eq!(server.requests().len(), 24, "the re-run asked nothing");
    let ex = second.explanations.as_ref().unwrap();
    assert!(ex.entries.iter().all(|e| e.cached && e.status == STATUS_EXPLAINED));
    let items = |d: &DiffDocument| {
        d.explanations.as_ref().unwrap().entries.iter().map(|e| e.items.clone()).collect::<Vec<_>>()
    };
    assert_eq!(items(&first), items(&second));
    // No cache file holds the key.
    for entry in std::fs::read_dir(dir.path().join("cache")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        assert!(!text.contains(&key));
    }
}

#[test]
fn usage_errors_exit_2_without_machine_paths() {
    let dir = tempfile::tempdir().unwrap();
    let absolute = dir.path().join("missing.json");
    let (output, stderr) = run(ask(dir.path()).args(["attach"]).arg(&absolute));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("missing.json"), "{stderr}");
    assert!(!stderr.contains(dir.path().to_str().unwrap()), "{stderr}");

    write_report(dir.path());
    let (output, stderr) =
        run(ask(dir.path()).args(["attach", "report.json", "--base-url", "http://example.com/v1"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("https"), "{stderr}");

    std::fs::write(dir.path().join("snap.json"), "{}").unwrap();
    let (output, _) =
        run(ask(dir.path()).args(["attach", "report.json", "--head-snapshot", "snap.json"]));
    assert_eq!(output.status.code(), Some(2));

    let (output, stderr) = run(ask(dir.path()).args(["attach", "report.json", "--api-key", "x"]));
    assert_eq!(output.status.code(), Some(2), "there is no argv key option: {stderr}");
}

#[test]
fn key_commands_of_a_confined_binary_never_open_the_keychain() {
    let dir = tempfile::tempdir().unwrap();
    let (output, stderr) = run(ask(dir.path()).args(["key", "status"]));
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout,
        "groq: unavailable: the OS keychain is not used while CARTOGRAPH_ASK_LOOPBACK_ONLY is set\n"
    );
    let (output, stderr) = run(ask(dir.path()).args(["key", "delete", "--provider", "openai"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("keychain is not used"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let (output, stderr) = run(ask(dir.path()).args(["key", "set"]));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr.contains("keychain is not used"), "{stderr}");
}

#[test]
fn help_documents_the_output_and_key_sources() {
    let (output, _) = run(ask(Path::new(".")).args(["attach", "--help"]));
    let help = String::from_utf8_lossy(&output.stdout);
    for needle in [
        "--api-key-env",
        "--api-key-stdin",
        "standard output",
        "--max-edges",
        "--cache",
        "--base-url",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
}
