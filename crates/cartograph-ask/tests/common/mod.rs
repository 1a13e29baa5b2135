//! Shared test support: a fixture key generated at run time (no literal secret is a tracked file),
//! the fixture diff document, scripted and panicking transports, and a minimal HTTP/1.1 server on
//! loopback that plays an OpenAI-compatible provider.

#![allow(dead_code)]

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::transport::{Header, HttpResponse, Transport, TransportError};
use cartograph_core::Secret;
use cartograph_report::diff::DiffDocument;
use serde_json::{Value, json};

/// The `cartograph-ask` binary, confined to loopback (`CARTOGRAPH_ASK_LOOPBACK_ONLY=1`: an endpoint
/// off loopback is refused and the OS keychain is never opened), with a cleared environment (no
/// proxy, no key, no session bus), logging at debug so stderr checks cover log lines too, run in
/// `dir`. The only way a test starts the binary: `binary.rs` checks that no test file names it
/// otherwise, so no test can reach a real provider or a real keychain.
pub fn ask_binary(dir: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cartograph-ask"));
    command
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env(cartograph_ask::endpoint::LOOPBACK_ONLY_ENV, "1")
        .env("CARTOGRAPH_LOG", "debug")
        .env("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/cartograph-test-bus")
        .current_dir(dir);
    command
}

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

/// The fixture diff report's text (`cartograph diff tests/fixtures/diff/base …/head --json`).
pub fn fixture_report_text() -> String {
    std::fs::read_to_string(workspace().join("goldens/diff.snap.json"))
        .expect("goldens/diff.snap.json")
}

pub fn fixture_report() -> DiffDocument {
    DiffDocument::from_json(&fixture_report_text()).expect("the fixture report reads")
}

fn random_hex(n: usize) -> String {
    let mut out = String::new();
    while out.len() < n {
        let mut hasher = RandomState::new().build_hasher();
        hasher.write_usize(out.len());
        out.push_str(&format!("{:016x}", hasher.finish()));
    }
    out.truncate(n);
    out
}

/// A key made up at run time, shaped like a Groq key.
pub fn fixture_key_text() -> String {
    format!("gsk_fixture{}", random_hex(40))
}

pub fn fixture_key() -> Secret {
    Secret::new(fixture_key_text()).expect("not empty")
}

/// One request as a transport saw it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub url: String,
    /// Header name → the value as written on the wire.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

type Responder = dyn Fn(&Recorded) -> Result<HttpResponse, TransportError> + Send + Sync;

/// A transport that records every request and answers from a script (the last reply repeats).
pub struct MockTransport {
    pub requests: Mutex<Vec<Recorded>>,
    script: Mutex<Vec<Result<HttpResponse, TransportError>>>,
    responder: Option<Box<Responder>>,
}

impl MockTransport {
    pub fn scripted(script: Vec<Result<HttpResponse, TransportError>>) -> Self {
        Self { requests: Mutex::new(Vec::new()), script: Mutex::new(script), responder: None }
    }

    pub fn responding(
        f: impl Fn(&Recorded) -> Result<HttpResponse, TransportError> + Send + Sync + 'static,
    ) -> Self {
        Self {
            requests: Mutex::new(Vec::new()),
            script: Mutex::new(Vec::new()),
            responder: Some(Box::new(f)),
        }
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }
}

impl Transport for MockTransport {
    fn post_json(
        &self,
        url: &str,
        headers: &[Header<'_>],
        body: &str,
    ) -> Result<HttpResponse, TransportError> {
        let recorded = Recorded {
            url: url.to_owned(),
            headers: headers.iter().map(|h| (h.name.to_owned(), h.value.to_wire())).collect(),
            body: body.to_owned(),
        };
        self.requests.lock().unwrap().push(recorded.clone());
        if let Some(f) = &self.responder {
            return f(&recorded);
        }
        let mut script = self.script.lock().unwrap();
        if script.len() > 1 { script.remove(0) } else { script[0].clone() }
    }
}

/// A transport that fails the test if it is ever called.
pub struct PanickingTransport;

impl Transport for PanickingTransport {
    fn post_json(
        &self,
        _: &str,
        _: &[Header<'_>],
        _: &str,
    ) -> Result<HttpResponse, TransportError> {
        panic!("no request may be made here");
    }
}

pub fn response(status: u16, body: &str) -> HttpResponse {
    HttpResponse { status, retry_after_ms: None, retry_after: None, body: body.to_owned() }
}

/// A chat-completions envelope around `content`.
pub fn envelope(content: &str, finish_reason: &str) -> String {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{
            "index": 0,
            "finish_reason": finish_reason,
            "message": { "role": "assistant", "content": content, "reasoning": "thinking" }
        }],
        "usage": { "prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2 }
    })
    .to_string()
}

/// A valid answer for `bundle`: one item per edge (at most three), each quoting its edge's
/// whole evidence.
pub fn valid_answer(bundle: &EvidenceBundle) -> String {
    let items: Vec<Value> = bundle
        .edges()
        .iter()
        .take(3)
        .map(|e| {
            json!({
                "text": format!("Edge {} is a {} edge.", e.id, e.claim.kind),
                "citations": [{ "bundle": bundle.scope(), "edge": e.id, "text": e.claim.evidence }]
            })
        })
        .collect();
    json!({ "items": items }).to_string()
}

/// The bundle id and the edges' evidence, read back from a request body's user message.
pub struct SentBundle {
    pub scope: String,
    /// `(id, evidence)` in order.
    pub edges: Vec<(String, String)>,
    /// e1's `kind` and `to` lines.
    pub changed_kind: String,
    pub changed_to: String,
}

pub fn read_sent_bundle(body: &str) -> SentBundle {
    let value: Value = serde_json::from_str(body).expect("the body is JSON");
    let user = value["messages"][1]["content"].as_str().expect("user message").to_owned();
    let mut scope = String::new();
    let mut edges = Vec::new();
    let mut current = String::new();
    let mut changed_to = String::new();
    let mut changed_kind = String::new();
    for line in user.lines() {
        if let Some(s) = line.strip_prefix("Bundle: ") {
            scope = s.to_owned();
        } else if line.starts_with("[e") && line.ends_with(']') {
            current = line[1..line.len() - 1].to_owned();
        } else if let Some(e) = line.strip_prefix("evidence: ") {
            edges.push((current.clone(), e.to_owned()));
        } else if let Some(t) = line.strip_prefix("to: ")
            && current == "e1"
        {
            changed_to = t.to_owned();
        } else if let Some(k) = line.strip_prefix("kind: ")
            && current == "e1"
        {
            changed_kind = k.to_owned();
        }
    }
    SentBundle { scope, edges, changed_kind, changed_to }
}

/// What the fake server answers.
#[derive(Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub delay: Duration,
}

impl Reply {
    pub fn new(status: u16, body: impl Into<String>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// One request as the fake server read it.
#[derive(Debug, Clone)]
pub struct ServerRequest {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl ServerRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

type Handler = dyn Fn(&ServerRequest) -> Reply + Send + Sync;

/// A minimal HTTP/1.1 server on 127.0.0.1: one request per connection, answered by a handler.
pub struct FakeServer {
    pub port: u16,
    pub requests: Arc<Mutex<Vec<ServerRequest>>>,
    pub connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeServer {
    pub fn start(handler: impl Fn(&ServerRequest) -> Reply + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let (requests, connections, stop) =
                (requests.clone(), connections.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    connections.fetch_add(1, Ordering::SeqCst);
                    let (requests, handler) = (requests.clone(), handler.clone());
                    std::thread::spawn(move || serve(stream, &requests, &*handler));
                }
            })
        };
        Self { port, requests, connections, stop, thread: Some(thread) }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn requests(&self) -> Vec<ServerRequest> {
        self.requests.lock().unwrap().clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, requests: &Mutex<Vec<ServerRequest>>, handler: &Handler) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    let request =
        ServerRequest { method, path, headers, body: String::from_utf8_lossy(&body).into_owned() };
    requests.lock().unwrap().push(request.clone());
    let reply = handler(&request);
    std::thread::sleep(reply.delay);
    let mut out = format!("HTTP/1.1 {} Fake\r\n", reply.status);
    for (name, value) in &reply.headers {
        out.push_str(&format!("{name}: {value}\r\n"));
    }
    out.push_str(&format!("content-length: {}\r\nconnection: close\r\n\r\n", reply.body.len()));
    out.push_str(&reply.body);
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.flush();
}

/// Answers every chat request with a valid answer for the bundle it carries, citing e1 (and e2
/// when there is one).
pub fn valid_reply_for(request: &ServerRequest) -> Reply {
    let sent = read_sent_bundle(&request.body);
    let items: Vec<Value> = sent
        .edges
        .iter()
        .take(2)
        .map(|(id, evidence)| {
            json!({
                "text": format!("{id} is part of this change."),
                "citations": [{ "bundle": sent.scope, "edge": id, "text": evidence }]
            })
        })
        .collect();
    Reply::new(200, envelope(&json!({ "items": items }).to_string(), "stop"))
}
