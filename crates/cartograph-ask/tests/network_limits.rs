//! The README's network promises for `cartograph-ask`, through the real binary against loopback
//! servers only: "at most `--concurrency` requests at once" (a fake provider that records the
//! peak number of requests in flight) and "no proxy unless `--proxy`" (a loopback listener named
//! by every proxy variable must see no connection).

use crate::common;

use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use cartograph_report::diff::{DiffDocument, STATUS_EXPLAINED, STATUS_UNAVAILABLE};
use common::*;

/// Every proxy variable ureq (or curl-style tooling) would read, in both cases.
const PROXY_VARIABLES: [&str; 6] =
    ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];

/// The binary confined to loopback with a cleared environment (so no `NO_PROXY` can exempt
/// loopback, and no key or session bus is inherited; see [`common::ask_binary`]), the fixture
/// report in `dir`, and the key in `ASK_TEST_KEY`.
fn attach(dir: &Path, base_url: &str, extra: &[&str]) -> Command {
    std::fs::write(dir.join("report.json"), fixture_report_text()).expect("write the report");
    let mut command = ask_binary(dir);
    command
        .env("ASK_TEST_KEY", fixture_key_text())
        .args(["attach", "report.json", "-o", "out.json"])
        .args(["--provider", "custom", "--model", "m", "--base-url", base_url])
        .args(["--api-key-env", "ASK_TEST_KEY"])
        .args(extra)
        .stdin(Stdio::null());
    command
}

fn run(command: &mut Command) -> Output {
    let output = command.output().expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    output
}

fn written(dir: &Path) -> DiffDocument {
    let text = std::fs::read_to_string(dir.join("out.json")).expect("out.json written");
    DiffDocument::from_json(&text).expect("the output reads")
}

/// What the gated provider saw.
#[derive(Default)]
struct Flight {
    in_flight: usize,
    peak: usize,
    done: usize,
}

/// A provider that answers every request validly, but holds each one until `hold_for` requests
/// are in flight together (or every request still to come is), then a little longer, so that a
/// client allowed `n` requests at once is seen with exactly `n` open: the overlap is forced by the
/// barrier, not left to timing. The generous deadline only turns a client that sends fewer at
/// once into a failed assertion rather than a hung test.
struct GatedProvider {
    flight: Arc<(Mutex<Flight>, Condvar)>,
    server: FakeServer,
}

impl GatedProvider {
    fn start(hold_for: usize, total: usize) -> Self {
        let flight = Arc::new((Mutex::new(Flight::default()), Condvar::new()));
        let shared = Arc::clone(&flight);
        let server = FakeServer::start(move |request| {
            let (lock, changed) = &*shared;
            let mut state = lock.lock().unwrap();
            state.in_flight += 1;
            state.peak = state.peak.max(state.in_flight);
            changed.notify_all();
            let deadline = Instant::now() + Duration::from_secs(30);
            while state.in_flight < hold_for.min(total - state.done) && Instant::now() < deadline {
                state = changed.wait_timeout(state, Duration::from_millis(100)).unwrap().0;
            }
            drop(state);
            // Held a moment more with the barrier met: a request beyond the bound, if the client
            // sent one, would be counted in flight now.
            std::thread::sleep(Duration::from_millis(50));
            let reply = valid_reply_for(request);
            let mut state = lock.lock().unwrap();
            state.in_flight -= 1;
            state.done += 1;
            changed.notify_all();
            reply
        });
        Self { flight, server }
    }

    fn peak(&self) -> usize {
        self.flight.0.lock().unwrap().peak
    }
}

#[test]
fn at_most_concurrency_requests_are_in_flight_and_exactly_that_many_when_there_is_work() {
    // `--max-edges 7` selects 7 of the fixture report's 24 changed edges: 7 requests, one per
    // edge (valid answers, so no retry). With `--concurrency N` the client runs min(N, 7)
    // workers, so the barrier (hold until N are open, or all that remain) sees exactly N at once:
    // 1 for N = 1, 3 for N = 3; and 7 for N = 16, where the work, not the bound, is the limit.
    for (concurrency, expected_peak) in [(1, 1), (3, 3), (16, 7)] {
        let provider = GatedProvider::start(concurrency, 7);
        let dir = tempfile::tempdir().unwrap();
        run(&mut attach(
            dir.path(),
            &provider.server.base_url(),
            &["--max-edges", "7", "--concurrency", &concurrency.to_string()],
        ));
        assert_eq!(provider.server.requests().len(), 7, "one request per selected edge");
        assert_eq!(provider.peak(), expected_peak, "--concurrency {concurrency}");
        let ex = written(dir.path()).explanations.expect("explanations");
        assert_eq!((ex.selected, ex.explained), (7, 7));
        assert!(ex.entries.iter().all(|e| e.status == STATUS_EXPLAINED));
    }
}

/// A loopback listener that accepts and counts connections, closing each at once.
struct CountingListener {
    port: u16,
    connections: Arc<AtomicUsize>,
}

impl CountingListener {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&connections);
        // The thread ends with the process; the listener is never dropped while it runs.
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stream.is_ok() {
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        Self { port, connections }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn count(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

#[test]
fn proxy_variables_are_ignored_without_the_proxy_flag() {
    let proxy = CountingListener::start();
    let provider = FakeServer::start(valid_reply_for);
    let dir = tempfile::tempdir().unwrap();
    let mut command =
        attach(dir.path(), &provider.base_url(), &["--max-edges", "3", "--concurrency", "1"]);
    for name in PROXY_VARIABLES {
        command.env(name, proxy.url());
    }
    run(&mut command);
    // ureq would route even a loopback URL through these (no NO_PROXY is set): zero connections
    // here means the environment was not consulted.
    assert_eq!(proxy.count(), 0, "no connection reached the proxy named by the environment");
    // `--max-edges 3`: three edges, one request each, all to the provider directly.
    assert_eq!(provider.requests().len(), 3);
    let ex = written(dir.path()).explanations.expect("explanations");
    assert_eq!((ex.selected, ex.explained, ex.unavailable), (3, 3, 0));
}

#[test]
fn the_proxy_flag_sends_every_request_through_the_proxy() {
    // The control for the test above: the same loopback provider, and the listener named by
    // `--proxy` instead. It accepts and closes, so each request fails at the transport; a
    // transport error is not retried (only 429 and 5xx answers are), so three edges make
    // exactly three connections, none reaches the provider, and each edge is unavailable.
    let proxy = CountingListener::start();
    let provider = FakeServer::start(|_| panic!("a request went around the configured proxy"));
    let dir = tempfile::tempdir().unwrap();
    run(&mut attach(
        dir.path(),
        &provider.base_url(),
        &["--max-edges", "3", "--concurrency", "1", "--proxy", &proxy.url()],
    ));
    assert_eq!(proxy.count(), 3);
    assert_eq!(provider.connections.load(Ordering::SeqCst), 0);
    let ex = written(dir.path()).explanations.expect("explanations");
    assert_eq!((ex.selected, ex.explained, ex.unavailable), (3, 0, 3));
    assert!(ex.entries.iter().all(|e| e.status == STATUS_UNAVAILABLE));
}
