//! Every transport case of decision 0001 rule 14, with the real ureq transport against a fake
//! provider on loopback: timeout, connection failure, 400, 401, 413, 422, 429 with retry-after,
//! 500, 502, 503, a body that is not JSON — plus a redirect that is not followed, https enforced
//! for a non-loopback URL, and the read limit. Retries sleep through a recorder, so nothing waits.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cartograph_ask::answer::Answer;
use cartograph_ask::bundle::EvidenceBundle;
use cartograph_ask::endpoint::{Endpoint, ProviderName};
use cartograph_ask::provider::{ChatProvider, Provider, ProviderError};
use cartograph_ask::retry::{RetryPolicy, Sleep};
use cartograph_ask::select::{self, EdgePool};
use cartograph_ask::transport::{Transport, TransportConfig, TransportError, UreqTransport};
use cartograph_ask::wire::{EnvelopeError, Question};
use common::*;

#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Vec<Duration>>>);

impl Sleep for Recorder {
    fn sleep(&self, duration: Duration) {
        self.0.lock().unwrap().push(duration);
    }
}

fn bundle() -> EvidenceBundle {
    let doc = fixture_report();
    let selection = select::select(&doc, 1);
    EvidenceBundle::build(&selection.selected[0], &EdgePool::new(&doc, None, None), 6 * 1024)
}

fn loopback_config(timeout: Duration) -> TransportConfig {
    TransportConfig { timeout, allow_plain_http: true, ..TransportConfig::default() }
}

/// Asks the fake server at `base_url`; returns the result and the recorded sleeps.
fn ask(base_url: &str, timeout: Duration) -> (Result<Answer, ProviderError>, Vec<Duration>) {
    let endpoint =
        Endpoint::resolve(ProviderName::Custom, Some(base_url), Some("test-model")).unwrap();
    let transport = UreqTransport::new(&loopback_config(timeout)).unwrap();
    let sleeps = Recorder::default();
    let provider = ChatProvider::new(endpoint, transport)
        .with_retry(RetryPolicy { max_attempts: 3, ..RetryPolicy::default() })
        .with_sleep(sleeps.clone());
    let b = bundle();
    let result = provider.explain(&b, &Question::for_edge(b.change(), &[]), &fixture_key());
    let slept = sleeps.0.lock().unwrap().clone();
    (result, slept)
}

fn error_body(kind: &str) -> String {
    format!(
        "{{\"error\":{{\"message\":\"secret detail the user must not see\",\"type\":\"{kind}\"}}}}"
    )
}

#[test]
fn success_over_real_http() {
    let server = FakeServer::start(valid_reply_for);
    let (result, slept) = ask(&server.base_url(), Duration::from_secs(10));
    let answer = result.expect("a valid answer");
    assert!(!answer.items().is_empty());
    assert!(slept.is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/v1/chat/completions");
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.header("authorization").is_some_and(|v| v.starts_with("Bearer gsk_fixture")));
    assert!(r.header("user-agent").is_some_and(|v| v.starts_with("cartograph-ask/")));
}

#[test]
fn timeout() {
    let server = FakeServer::start(|r| valid_reply_for(r).delayed(Duration::from_secs(3)));
    let (result, _) = ask(&server.base_url(), Duration::from_millis(400));
    assert_eq!(result.unwrap_err(), ProviderError::Transport(TransportError::Timeout));
}

#[test]
fn connection_failure() {
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (result, slept) = ask(&format!("http://127.0.0.1:{port}/v1"), Duration::from_secs(5));
    assert_eq!(result.unwrap_err(), ProviderError::Transport(TransportError::ConnectionFailed));
    assert!(slept.is_empty(), "a transport failure is not retried");
}

fn status_case(status: u16, kind: &str) -> (ProviderError, usize, Vec<Duration>) {
    let body = error_body(kind);
    let server = FakeServer::start(move |_| Reply::new(status, body.clone()));
    let (result, slept) = ask(&server.base_url(), Duration::from_secs(5));
    (result.unwrap_err(), server.requests().len(), slept)
}

#[test]
fn status_400() {
    let (error, n, slept) = status_case(400, "invalid_request_error");
    assert_eq!(error, ProviderError::Rejected { status: 400, error_type: "invalid_request_error" });
    assert_eq!((n, slept.len()), (1, 0));
}

#[test]
fn status_401() {
    let (error, n, _) = status_case(401, "invalid_api_key");
    assert_eq!(error, ProviderError::Unauthorized { status: 401 });
    assert_eq!(n, 1);
}

#[test]
fn status_413() {
    let (error, n, _) = status_case(413, "invalid_request_error");
    assert_eq!(error, ProviderError::TooLarge);
    assert_eq!(n, 1);
}

#[test]
fn status_422() {
    let (error, n, _) = status_case(422, "unprocessable_entity");
    assert_eq!(error, ProviderError::Rejected { status: 422, error_type: "other" });
    assert_eq!(n, 1);
}

#[test]
fn status_429_with_retry_after_is_retried_then_succeeds() {
    let calls = Arc::new(Mutex::new(0));
    let server = FakeServer::start({
        move |r| {
            let mut n = calls.lock().unwrap();
            *n += 1;
            match *n {
                1 => Reply::new(429, error_body("rate_limit_exceeded")).header("retry-after", "7"),
                2 => Reply::new(429, error_body("rate_limit_exceeded"))
                    .header("retry-after-ms", "1500")
                    .header("retry-after", "9"),
                _ => valid_reply_for(r),
            }
        }
    });
    let (result, slept) = ask(&server.base_url(), Duration::from_secs(5));
    result.expect("the third attempt succeeds");
    assert_eq!(slept, vec![Duration::from_secs(7), Duration::from_millis(1500)]);
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn status_429_retry_after_is_capped_and_attempts_are_bounded() {
    let server = FakeServer::start(|_| {
        Reply::new(429, error_body("rate_limit_exceeded")).header("retry-after", "86400")
    });
    let (result, slept) = ask(&server.base_url(), Duration::from_secs(5));
    assert_eq!(result.unwrap_err(), ProviderError::RateLimited { attempts: 3 });
    assert_eq!(slept, vec![RetryPolicy::default().max_delay; 2]);
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn status_500_502_503_are_retried_with_backoff() {
    for status in [500, 502, 503] {
        let (error, n, slept) = status_case(status, "server_error");
        assert_eq!(error, ProviderError::ServerError { status, attempts: 3 });
        assert_eq!(n, 3, "{status}");
        assert_eq!(slept.len(), 2);
        // Exponential backoff with jitter: base, then twice base, each plus at most half.
        let base = RetryPolicy::default().base_delay;
        assert!(slept[0] >= base && slept[0] <= base * 3 / 2, "{slept:?}");
        assert!(slept[1] >= base * 2 && slept[1] <= base * 3, "{slept:?}");
    }
}

#[test]
fn status_503_then_success() {
    let calls = Arc::new(Mutex::new(0));
    let server = FakeServer::start({
        move |r| {
            let mut n = calls.lock().unwrap();
            *n += 1;
            if *n == 1 { Reply::new(503, "upstream down") } else { valid_reply_for(r) }
        }
    });
    let (result, slept) = ask(&server.base_url(), Duration::from_secs(5));
    result.expect("the retry succeeds");
    assert_eq!(slept.len(), 1);
}

#[test]
fn a_body_that_is_not_json() {
    let server = FakeServer::start(|_| {
        Reply::new(200, "<html>502 Bad Gateway</html>").header("content-type", "text/html")
    });
    let (result, _) = ask(&server.base_url(), Duration::from_secs(5));
    assert_eq!(result.unwrap_err(), ProviderError::Envelope(EnvelopeError::NotJson));
}

#[test]
fn a_redirect_is_not_followed() {
    let server = FakeServer::start(|_| {
        Reply::new(307, "").header("location", "http://127.0.0.1:9/elsewhere")
    });
    let (result, _) = ask(&server.base_url(), Duration::from_secs(5));
    assert_eq!(result.unwrap_err(), ProviderError::Redirect { status: 307 });
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn plain_http_is_refused_unless_allowed() {
    let server = FakeServer::start(valid_reply_for);
    let transport = UreqTransport::new(&TransportConfig::default()).unwrap();
    let error = transport
        .post_json(&format!("{}/chat/completions", server.base_url()), &[], "{}")
        .unwrap_err();
    assert_eq!(error, TransportError::InsecureUrl);
    assert_eq!(
        server.connections.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "no connection was made"
    );
}

#[test]
fn the_body_read_is_limited() {
    let big = "x".repeat(4096);
    let server = FakeServer::start(move |_| Reply::new(200, big.clone()));
    let config = TransportConfig { body_limit: 1024, ..loopback_config(Duration::from_secs(5)) };
    let transport = UreqTransport::new(&config).unwrap();
    let error = transport
        .post_json(&format!("{}/chat/completions", server.base_url()), &[], "{}")
        .unwrap_err();
    assert_eq!(error, TransportError::BodyTooLarge);
}

#[test]
fn a_bad_proxy_url_is_a_fixed_error() {
    let config =
        TransportConfig { proxy: Some("::not a proxy::".into()), ..TransportConfig::default() };
    assert_eq!(UreqTransport::new(&config).unwrap_err(), TransportError::Proxy);
}

#[test]
fn provider_error_text_never_includes_the_body() {
    for status in [400, 401, 403, 413, 422] {
        let (error, _, _) = status_case(status, "invalid_request_error");
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains("secret detail"), "{shown}");
        assert!(shown.contains(&status.to_string()) || status == 413, "{shown}");
    }
}
