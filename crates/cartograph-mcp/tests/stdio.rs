//! End to end: the real `cartograph-mcp` binary, launched with a grant in argv, spoken to in raw
//! JSON-RPC over its stdin and stdout — initialize, tools/list, tools/call (granted and refused).
//! stdout must carry JSON-RPC only, and neither stream an absolute path.

use crate::leaks;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

#[test]
fn the_binary_speaks_json_rpc_over_stdio() {
    let root = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_cartograph-mcp"))
        .args(["--grant", "e2e", "--tree", "tests/fixtures/fullstack", "--threads", "2"])
        .current_dir(&root)
        // Diagnostics on, so the redaction of stderr is exercised too.
        .env("CARTOGRAPH_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    // Drained as it comes: the debug log could fill the pipe and stall the server.
    let mut server_stderr = child.stderr.take().expect("stderr");
    let stderr_reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut server_stderr, &mut text).expect("stderr");
        text
    });
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").expect("write a request");
        stdin.flush().expect("flush");
    };
    let mut all_stdout = String::new();
    let mut raw_results = std::collections::HashMap::new();
    let mut receive = |id: u64| -> Value {
        loop {
            let line = lines.next().expect("a response line").expect("readable stdout");
            all_stdout.push_str(&line);
            let message: Value = serde_json::from_str(&line).expect("stdout is JSON-RPC only");
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            if message["id"] == id {
                // The bytes of the result as they travelled (the last member of the response).
                if let Some(at) = line.find("\"result\":") {
                    raw_results.insert(id, line[at + 9..line.len() - 1].len());
                }
                return message;
            }
        }
    };

    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "e2e", "version": "0"}}}));
    let init = receive(1);
    assert_eq!(init["result"]["serverInfo"]["name"], "cartograph", "{init}");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = receive(2);
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["blast", "check", "diff", "evidence", "map", "trace"]);

    send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "map", "arguments": {"tree": "tests/fixtures/fullstack"}}}));
    let map = receive(3);
    assert_eq!(map["result"]["isError"], false, "{map}");
    let doc = &map["result"]["structuredContent"]["document"];
    cartograph_report::schema::validate(doc).expect("a valid map document");

    // A small budget, measured on the wire: the result's bytes as sent are within it, and are
    // what the server measures (the compact JSON of the result).
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "map", "arguments": {"tree": "tests/fixtures/fullstack",
                                                "max_bytes": 10000}}}));
    let small = receive(5);
    assert_eq!(small["result"]["isError"], false, "{small}");
    let envelope = &small["result"]["structuredContent"];
    assert_eq!(envelope["max_bytes"], 10000);
    assert!(!envelope["truncated"].as_array().expect("truncated").is_empty(), "{envelope}");
    let measured = serde_json::to_string(&small["result"]).expect("json").len();
    assert!(measured <= 10000, "{measured} bytes");

    send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "map", "arguments": {"tree": "tests/fixtures/polyglot"}}}));
    let refused = receive(4);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(
        refused["result"]["content"][0]["text"],
        "tree `tests/fixtures/polyglot` is not granted to this session"
    );

    assert_eq!(raw_results.get(&5), Some(&measured), "the wire bytes are the measured bytes");
    drop(stdin);
    let status = child.wait().expect("the server exits when stdin closes");
    assert!(status.success(), "{status}");
    let stderr = stderr_reader.join().expect("the stderr reader");
    let leaks = leaks::LeakCheck::new(&[], &[&root]);
    leaks.assert_clean("stdout", &all_stdout);
    leaks.assert_clean("stderr", &stderr);
    assert!(stderr.contains("extracted and resolved"), "no diagnostics on stderr: {stderr}");
}

#[test]
fn a_bad_grant_stops_the_server_before_it_serves() {
    let root = workspace();
    for args in [
        vec!["--grant", "", "--tree", "tests/fixtures/fullstack"],
        vec!["--grant", "x", "--tree", "tests/fixtures/nowhere"],
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_cartograph-mcp"))
            .args(&args)
            .current_dir(&root)
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("error: "), "{stderr}");
        assert!(!stderr.contains(&*root.to_string_lossy()), "{stderr}");
    }
}
