//! The redaction rules, one by one, and the writer under a scoped subscriber.

use std::io::Write;
use std::sync::{Arc, Mutex};

use cartograph_core::Secret;

use super::*;
use crate::RedactingMakeWriter;

fn redactor() -> Redactor {
    let r = Redactor::new();
    {
        let mut rules = r.rules.write().expect("fresh lock");
        rules.home.clear();
        push_path_forms(&mut rules.home, "/home/alice");
    }
    r
}

#[test]
fn a_registered_secret_is_redacted_wherever_it_appears() {
    let r = redactor();
    let key = Secret::new(format!("fixture{}", std::process::id())).expect("not empty");
    r.register_secret(&key);
    let line = format!("sending key={} and again {}x", key.expose(), key.expose());
    let out = r.redact(&line);
    assert!(!out.contains(key.expose()), "{out}");
    assert_eq!(out, "sending key=<redacted> and again <redacted>x");
}

#[test]
fn bearer_tokens_and_key_shaped_tokens_are_redacted() {
    let r = redactor();
    assert_eq!(
        r.redact("Authorization: Bearer abc.DEF-123_x= done"),
        "Authorization: Bearer <redacted> done"
    );
    assert_eq!(r.redact("key gsk_0123456789abcdef end"), "key <redacted> end");
    assert_eq!(r.redact("(sk-proj-0123456789)"), "(<redacted>)");
    // Too short to be a key, or inside a word: left alone.
    assert_eq!(r.redact("task-sk-1 gsk_abc"), "task-sk-1 gsk_abc");
}

#[test]
fn repository_root_then_home_then_other_absolute_paths() {
    let r = redactor();
    r.set_repo_root(Path::new("/home/alice/src/shop"));
    assert_eq!(r.redact("read /home/alice/src/shop/app/main.py"), "read <repo>/app/main.py");
    assert_eq!(r.redact("cache at /home/alice/.cache/x"), "cache at <home>/.cache/x");
    // A home-relative path written as such is a machine path too.
    assert_eq!(r.redact("read ~/secrets/x and ~\\y\\z"), "read <abs> and <abs>");
    assert_eq!(r.redact("tmp \"/tmp/abc/def\" end"), "tmp \"<abs>\" end");
    // A prefix of a longer name is not that directory.
    assert_eq!(r.redact("/home/alicexyz/file"), "<abs>");
}

#[test]
fn windows_paths_plain_and_debug_escaped() {
    let r = redactor();
    assert_eq!(r.redact(r"open C:\Users\bob\repo\x.ts failed"), "open <abs> failed");
    assert_eq!(r.redact(r#"path: "C:\\Users\\bob\\x""#), "path: \"<abs>\"");
    assert_eq!(r.redact(r"share \\server\share\x"), "share <abs>");
    r.set_repo_root(Path::new(r"D:\work\shop"));
    assert_eq!(r.redact(r"at D:\work\shop\src\a.ts"), r"at <repo>\src\a.ts");
    assert_eq!(r.redact(r#"at "D:\\work\\shop\\src""#), r#"at "<repo>\\src""#);
}

#[test]
fn route_paths_urls_and_relative_paths_are_left_alone() {
    let r = redactor();
    for line in [
        "route GET /api/items/{} matched",
        "POST https://api.groq.com/openai/v1/chat/completions status 429",
        "file backend/app/main.py line 3",
        "ratio 3/4",
    ] {
        assert_eq!(r.redact(line), line);
    }
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("capture lock").extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn events_and_span_fields_reach_the_writer_redacted() {
    let r = redactor();
    let key = Secret::new(format!("gsk_fixture_{:x}", std::process::id() as u64 * 7919))
        .expect("not empty");
    r.register_secret(&key);
    let capture = Capture::default();
    let sink = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(RedactingMakeWriter::new(move || sink.clone(), r))
        .with_ansi(false)
        .without_time()
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("request", root = "/home/alice/src/shop");
        let _entered = span.enter();
        tracing::warn!(header = %format!("Bearer {}", key.expose()), "retrying after /tmp/x/y");
    });
    let text = String::from_utf8(capture.0.lock().expect("capture lock").clone()).expect("utf-8");
    assert!(text.contains("retrying"), "{text}");
    assert!(!text.contains(key.expose()), "{text}");
    assert!(!text.contains("/home/alice"), "{text}");
    assert!(!text.contains("/tmp/x"), "{text}");
    assert!(text.contains("<home>/src/shop"), "{text}");
}
