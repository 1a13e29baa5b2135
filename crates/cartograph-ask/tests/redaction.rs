//! The key, the evidence and the provider's bodies never reach an error, a `Debug` output or a log
//! (decision 0007): every error variant's `Debug` and `Display` are checked against the fixture key
//! and the evidence; a whole run is logged at TRACE level, unredacted, and the log checked; and a
//! source-level check over `src/` finds no tracing macro naming a body, header, payload or key.

use crate::common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use cartograph_ask::answer::{Answer, AnswerError, CitationError};
use cartograph_ask::attach::{self, Asker, AttachOptions, KeyState, Snapshots};
use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::cache::CacheError;
use cartograph_ask::endpoint::{Endpoint, EndpointError, ProviderName};
use cartograph_ask::keychain::KeychainError;
use cartograph_ask::provider::{ChatProvider, ProviderError};
use cartograph_ask::select::{self, EdgePool};
use cartograph_ask::transport::{
    Header, HeaderValue, TransportConfig, TransportError, UreqTransport,
};
use cartograph_ask::wire::{ChatRequest, ChatResponse, EnvelopeError, FinishReason, Question};
use common::*;
use serde_json::json;

fn all_errors() -> Vec<Box<dyn std::fmt::Debug>> {
    let transport = [
        TransportError::Timeout,
        TransportError::ConnectionFailed,
        TransportError::Tls,
        TransportError::InsecureUrl,
        TransportError::BodyTooLarge,
        TransportError::Proxy,
        TransportError::Protocol,
    ];
    let citation = [
        CitationError::ForeignBundle,
        CitationError::UnknownEdge,
        CitationError::Empty,
        CitationError::NotVerbatim { edge: 2 },
        CitationError::TooShort { edge: 1, min: 12 },
    ];
    let mut answer = vec![
        AnswerError::NotJson,
        AnswerError::WrongShape,
        AnswerError::NoItems,
        AnswerError::EmptyItem { item: 1 },
        AnswerError::UncitedItem { item: 2 },
    ];
    answer.extend(citation.iter().map(|&error| AnswerError::Citation {
        item: 1,
        citation: 2,
        error,
    }));
    let envelope = [
        EnvelopeError::NotJson,
        EnvelopeError::NoMessage,
        EnvelopeError::Unfinished(FinishReason::Length),
        EnvelopeError::Unfinished(FinishReason::ContentFilter),
        EnvelopeError::Unfinished(FinishReason::ToolCalls),
        EnvelopeError::Unfinished(FinishReason::Missing),
        EnvelopeError::Unfinished(FinishReason::Other),
    ];
    let mut provider: Vec<ProviderError> = vec![
        ProviderError::Unauthorized { status: 401 },
        ProviderError::Forbidden { status: 403, error_type: "permission_error" },
        ProviderError::NotFound,
        ProviderError::TooLarge,
        ProviderError::Rejected { status: 422, error_type: "other" },
        ProviderError::RateLimited { attempts: 4 },
        ProviderError::ServerError { status: 503, attempts: 4 },
        ProviderError::Redirect { status: 302 },
        ProviderError::UnexpectedStatus { status: 600 },
    ];
    provider.extend(transport.iter().map(|&e| ProviderError::Transport(e)));
    provider.extend(envelope.iter().map(|&e| ProviderError::Envelope(e)));
    provider.extend(answer.iter().map(|&e| ProviderError::Answer(e)));
    let mut all: Vec<Box<dyn std::fmt::Debug>> = Vec::new();
    for e in provider {
        all.push(Box::new(format!("{e}")));
        all.push(Box::new(e));
    }
    for e in [
        EndpointError::MissingBaseUrl,
        EndpointError::MissingModel,
        EndpointError::Malformed,
        EndpointError::Insecure,
        EndpointError::NotPlain,
        EndpointError::BadModel,
    ] {
        all.push(Box::new(format!("{e}")));
        all.push(Box::new(e));
    }
    for e in [KeychainError::Unavailable, KeychainError::PermissionDenied, KeychainError::Backend] {
        all.push(Box::new(format!("{e}")));
        all.push(Box::new(e));
    }
    for e in [CacheError::Directory, CacheError::Write] {
        all.push(Box::new(format!("{e}")));
        all.push(Box::new(e));
    }
    all
}

fn evidence_texts() -> Vec<String> {
    let doc = fixture_report();
    doc.edges.added.iter().chain(&doc.edges.removed).map(|e| e.claim.evidence.clone()).collect()
}

#[test]
fn no_error_variant_shows_the_key_or_evidence() {
    let key = fixture_key();
    let evidence = evidence_texts();
    let errors = all_errors();
    assert!(errors.len() > 70);
    for error in errors {
        let shown = format!("{error:?}");
        assert!(!shown.contains(key.expose()), "{shown}");
        assert!(!shown.contains("gsk_"), "{shown}");
        for text in &evidence {
            assert!(!shown.contains(text.as_str()), "{shown}");
        }
        assert!(!shown.contains("http://") && !shown.contains("https://"), "no URL: {shown}");
    }
}

#[test]
fn no_debug_output_shows_the_key_the_body_or_the_evidence() {
    let key = fixture_key();
    let doc = fixture_report();
    let selection = select::select(&doc, 1);
    let bundle =
        EvidenceBundle::build(&selection.selected[0], &EdgePool::new(&doc, None, None), 6 * 1024);
    let endpoint =
        Endpoint::resolve(ProviderName::Custom, Some("https://llm.example.com/v1"), Some("m"))
            .unwrap();
    let request = ChatRequest::build(&endpoint, &bundle, &Question::for_edge(bundle.change(), &[]));
    let answer_text = valid_answer(&bundle);
    let response = ChatResponse::parse(&envelope(&answer_text, "stop")).unwrap();
    let answer = Answer::validate(&bundle, response.content()).unwrap();
    let header = Header { name: "Authorization", value: HeaderValue::Bearer(&key) };
    let http = cartograph_ask::transport::HttpResponse {
        status: 200,
        retry_after_ms: None,
        retry_after: None,
        body: envelope(&answer_text, "stop"),
    };
    let config = TransportConfig {
        proxy: Some("http://user:proxypass@127.0.0.1:3128".into()),
        ..TransportConfig::default()
    };
    let transport = UreqTransport::new(&TransportConfig::default()).unwrap();
    let provider = ChatProvider::new(endpoint.clone(), transport);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: None,
    };
    let shown = format!(
        "{request:?} {response:?} {answer:?} {header:?} {http:?} {config:?} {provider:?} {asker:?} {endpoint:?} {key:?}"
    );
    assert!(!shown.contains(key.expose()), "{shown}");
    assert!(!shown.contains("proxypass"), "{shown}");
    assert!(!shown.contains("/v1"), "no URL: {shown}");
    assert!(shown.contains("Bearer <redacted>"));
    for edge in bundle.edges() {
        assert!(!shown.contains(&edge.claim.evidence), "{shown}");
    }
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = Capture;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[test]
fn a_whole_run_logged_at_trace_level_shows_no_key_body_or_evidence() {
    let capture = Capture::default();
    // Unredacted on purpose: the absence must hold before any redaction.
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(capture.clone())
        .with_ansi(false)
        .finish();
    let key = fixture_key();
    let input = fixture_report();
    let endpoint = Endpoint::resolve(ProviderName::Groq, None, None).unwrap();
    let calls = Arc::new(Mutex::new(0usize));
    let transport = MockTransport::responding({
        move |r| {
            let mut n = calls.lock().unwrap();
            *n += 1;
            let sent = read_sent_bundle(&r.body);
            match *n % 4 {
                0 => Ok(response(
                    429,
                    "{\"error\":{\"message\":\"body text\",\"type\":\"rate_limit_exceeded\"}}",
                )),
                1 => Ok(response(500, "internal body text")),
                2 => {
                    let items = json!({ "items": [{ "text": "explained", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": "not a quote at all, invented" }] }] });
                    Ok(response(200, &envelope(&items.to_string(), "stop")))
                }
                _ => {
                    let items = json!({ "items": [{ "text": "explained", "citations": [{ "bundle": sent.scope, "edge": "e1", "text": sent.edges[0].1 }] }] });
                    Ok(response(200, &envelope(&items.to_string(), "stop")))
                }
            }
        }
    });
    let provider = ChatProvider::new(endpoint.clone(), &transport).with_sleep(NoSleep);
    let asker = Asker {
        provider: &provider,
        endpoint: &endpoint,
        key: KeyState::Present(&key),
        cache: None,
    };
    let out = tracing::subscriber::with_default(subscriber, || {
        attach::attach(
            &input,
            Snapshots::default(),
            &asker,
            &AttachOptions { concurrency: 1, ..AttachOptions::default() },
        )
    });
    let ex = out.explanations.unwrap();
    assert!(ex.explained > 0 && ex.refused > 0, "{} {}", ex.explained, ex.refused);
    let log = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(log.contains("explanations attached"), "the run was logged: {log}");
    assert!(log.contains("provider asked to retry"));
    assert!(!log.contains(key.expose()));
    assert!(!log.contains("Bearer"));
    assert!(!log.contains("body text"));
    assert!(!log.contains("explained\""));
    assert!(!log.contains("not a quote at all"));
    for text in evidence_texts() {
        assert!(!log.contains(&text), "evidence in the log: {text}");
    }
}

struct NoSleep;

impl cartograph_ask::retry::Sleep for NoSleep {
    fn sleep(&self, _: std::time::Duration) {}
}

#[test]
fn the_redactor_removes_a_registered_key_from_a_log_line() {
    let key = fixture_key();
    let redactor = cartograph_diagnostics::Redactor::new();
    redactor.register_secret(&key);
    let line = format!("header was Bearer {}", key.expose());
    let redacted = redactor.redact(&line);
    assert!(!redacted.contains(key.expose()), "{redacted}");
}

/// Names a tracing macro call may not mention: bodies, headers, payloads, keys and what holds
/// them.
const FORBIDDEN: &[&str] = &[
    "body",
    "header",
    "headers",
    "payload",
    "key",
    "secret",
    "credential",
    "authorization",
    "bearer",
    "content",
    "evidence",
    "expose",
    "request",
    "answer",
    "text",
    "url",
];

#[test]
fn no_tracing_macro_names_a_body_header_payload_or_key() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut calls = 0;
    let mut files = Vec::new();
    collect(&src, &mut files);
    assert!(files.len() >= 10);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for call in macro_calls(&text) {
            calls += 1;
            for word in identifiers(&call) {
                assert!(
                    !FORBIDDEN.contains(&word.to_ascii_lowercase().as_str()),
                    "{}: a tracing call names `{word}`: {call}",
                    path.display()
                );
            }
        }
    }
    assert!(calls >= 5, "the check found the crate's tracing calls ({calls})");
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The argument text of every `tracing::x!(…)` / `x!(…)` call for the five level macros and
/// `event!`/`span!`-family macros.
fn macro_calls(text: &str) -> Vec<String> {
    let names = [
        "trace!",
        "debug!",
        "info!",
        "warn!",
        "error!",
        "event!",
        "span!",
        "info_span!",
        "debug_span!",
        "trace_span!",
        "warn_span!",
        "error_span!",
    ];
    let mut out = Vec::new();
    for name in names {
        let mut from = 0;
        while let Some(pos) = text[from..].find(name) {
            let start = from + pos;
            from = start + name.len();
            // A whole macro name: not `my_info!`, not `eprintln!`.
            let before = text[..start].chars().last();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[from..];
            let Some(open) = rest.find('(') else { continue };
            if !rest[..open].trim().is_empty() {
                continue;
            }
            let mut depth = 0;
            let mut end = open;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push(rest[open + 1..end].to_owned());
        }
    }
    out
}

/// Identifiers outside string literals.
fn identifiers(call: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut word = String::new();
    for c in call.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}
