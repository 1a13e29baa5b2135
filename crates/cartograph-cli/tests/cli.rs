//! The command-line contract: exit codes, one-sentence errors with no absolute path, help and
//! version, schema printing, and output files.

use crate::common;

use common::{assert_no_absolute_paths, run, run_in, stderr, stdout, valid_document, workspace};

#[test]
fn version_and_help() {
    let version = run(&["--version"]);
    assert!(version.status.success());
    assert!(stdout(&version).starts_with("cartograph "));
    let help = run(&["--help"]);
    assert!(help.status.success());
    let text = stdout(&help);
    for needle in ["snapshot", "summary", "schema", "Examples:", "Exit codes"] {
        assert!(text.contains(needle), "help lacks {needle}");
    }
}

#[test]
fn missing_path_is_one_sentence_exit_2_naming_the_argument() {
    let output = run(&["snapshot", "no/such/dir"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert_eq!(
        err.trim_end(),
        "error: `no/such/dir` is neither a directory, a snapshot file nor a revision of the \
         repository at hand"
    );
    assert!(stdout(&output).is_empty());
}

#[test]
fn absolute_missing_path_is_not_echoed_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("gone");
    let output = run(&["summary", missing.to_str().expect("utf-8")]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("gone") && err.contains("is neither a directory"), "{err}");
    assert_no_absolute_paths(&err);
    assert!(!err.contains(dir.path().to_str().expect("utf-8")));
}

#[test]
fn a_file_that_is_not_a_snapshot_is_bad_input() {
    let output = run(&["snapshot", "Cargo.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output).trim_end(),
        "error: `Cargo.toml` is a file, not a directory or a snapshot document (a snapshot is the \
         JSON `cartograph snapshot` writes)"
    );
}

#[test]
fn bad_usage_exits_2() {
    assert_eq!(run(&["snapshot", "--no-such-flag"]).status.code(), Some(2));
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
    let bad_rule = run(&["summary", ".", "--components", "folders"]);
    assert_eq!(bad_rule.status.code(), Some(2));
    assert!(stderr(&bad_rule).contains("--components `folders` is not a rule"));
    assert_eq!(run(&["summary", ".", "--threads", "0"]).status.code(), Some(2));
}

#[test]
fn schema_lists_and_prints_schemas() {
    let list = run(&["schema"]);
    assert!(list.status.success());
    assert_eq!(
        stdout(&list),
        "baseline\nblast\ncache-stats\ncheck\nconfig\ndiff\nmap\nsnapshot\nsummary\ntrace\n"
    );
    for name in ["baseline", "blast", "cache-stats", "check", "config", "diff", "map", "snapshot"]
        .into_iter()
        .chain(["summary", "trace"])
    {
        let output = run(&["schema", name]);
        assert!(output.status.success());
        let printed: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
        let on_disk: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(workspace().join(format!("schemas/{name}.schema.json")))
                .expect("schema file"),
        )
        .expect("json");
        assert_eq!(printed, on_disk);
    }
    let unknown = run(&["schema", "nope"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("there is no schema named `nope`"));
}

#[test]
fn output_file_is_written_and_unwritable_output_is_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fixtures = workspace().join("tests/fixtures");
    let out = dir.path().join("snap.json");
    let output =
        run_in(&fixtures, &["snapshot", "polyglot", "-o", out.to_str().expect("utf-8")], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).is_empty());
    valid_document(&std::fs::read_to_string(&out).expect("written"));

    let bad = run_in(dir.path(), &["summary", ".", "-o", "no/such/dir/out.md"], &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("error: cannot write `no/such/dir/out.md`"), "{}", stderr(&bad));
}

#[test]
fn no_progress_output_when_stderr_is_not_a_terminal() {
    let fixtures = workspace().join("tests/fixtures");
    let output = run_in(&fixtures, &["summary", "polyglot"], &[]);
    assert!(output.status.success());
    assert!(stderr(&output).is_empty(), "stderr: {}", stderr(&output));
}

#[test]
fn recognisers_are_listed_and_imports_only_skips_them() {
    let output = run(&["recognisers"]);
    assert!(output.status.success());
    let text = stdout(&output);
    for name in [
        "fastapi",
        "flask",
        "django",
        "express",
        "nestjs",
        "nextjs",
        "fetch",
        "axios",
        "requests",
        "httpx",
        "sqlalchemy",
        "prisma",
        "python-env",
        "js-env",
    ] {
        assert!(text.contains(&format!("| `{name}` |")), "{name} is not listed");
    }
    let fixtures = workspace().join("tests/fixtures");
    let full = valid_document(&stdout(&run_in(&fixtures, &["snapshot", "fullstack"], &[])));
    let imports = valid_document(&stdout(&run_in(
        &fixtures,
        &["snapshot", "fullstack", "--imports-only"],
        &[],
    )));
    let kinds = |doc: &serde_json::Value| -> std::collections::BTreeSet<String> {
        doc["edges"]
            .as_array()
            .expect("edges")
            .iter()
            .filter_map(|e| e["kind"].as_str().map(str::to_owned))
            .collect()
    };
    assert!(kinds(&full).len() > 1);
    assert_eq!(kinds(&imports).into_iter().collect::<Vec<_>>(), ["imports"]);
}

#[test]
fn builtins_and_default_excludes_are_options() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("app.py"), "import os\nimport requests\n").expect("write");
    std::fs::create_dir_all(dir.path().join("node_modules/lib")).expect("mkdir");
    std::fs::write(dir.path().join("node_modules/lib/index.js"), "require('fs');\n")
        .expect("write");
    let packages = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["snapshot", "."];
        all.extend_from_slice(args);
        let doc = valid_document(&stdout(&run_in(dir.path(), &all, &[])));
        let mut ids: Vec<String> = doc["nodes"]
            .as_array()
            .expect("nodes")
            .iter()
            .filter_map(|n| n["id"].as_str().map(str::to_owned))
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(packages(&[]), ["module:app.py", "package:pypi:requests"]);
    assert_eq!(
        packages(&["--include-builtins"]),
        ["module:app.py", "package:pypi:requests", "package:python:os"]
    );
    assert_eq!(
        packages(&["--no-default-excludes"]),
        ["module:app.py", "module:node_modules/lib/index.js", "package:pypi:requests"]
    );
}

#[test]
fn mcp_speaks_json_rpc_on_stdio_for_the_granted_tree() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_cartograph"))
        .args(["mcp", "--grant", "cli-test", "--tree", "diff/head"])
        .current_dir(workspace().join("tests/fixtures"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cartograph mcp starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
    ];
    for request in requests {
        writeln!(stdin, "{request}").expect("write request");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("cartograph mcp ends when stdin closes");
    let text = stdout(&output);
    let replies: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON-RPC"))
        .collect();
    assert_eq!(replies.len(), 2, "{text}");
    let tools: Vec<&str> = replies[1]["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for tool in ["map", "trace", "blast", "diff", "evidence"] {
        assert!(tools.contains(&tool), "{tool} missing from {tools:?}");
    }
    assert_no_absolute_paths(&text);
    assert_no_absolute_paths(&stderr(&output));
    // A session needs at least one granted tree.
    assert_eq!(run(&["mcp", "--grant", "x"]).status.code(), Some(2));
}

#[test]
fn trace_logging_on_an_absolute_tree_writes_no_absolute_path() {
    // Every log line goes through the redaction writer (cartograph-diagnostics): even at `trace`,
    // on a tree named by its absolute path, stderr holds events but no machine path.
    let dir = tempfile::tempdir().expect("tempdir");
    let tree = dir.path().join("shop");
    std::fs::create_dir_all(tree.join("app")).expect("mkdir");
    std::fs::write(tree.join("app/main.py"), "import os\nfrom app import db\n").expect("write");
    std::fs::write(tree.join("app/db.py"), "X = 1\n").expect("write");
    let tree_arg = tree.to_str().expect("utf-8");
    let output = run_in(
        dir.path(),
        &["snapshot", tree_arg],
        &[("CARTOGRAPH_LOG", "trace"), ("HOME", dir.path().to_str().expect("utf-8"))],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("extracted and resolved"), "no events were logged: {err}");
    assert!(!err.contains(tree_arg), "stderr holds the tree's absolute path: {err}");
    assert_no_absolute_paths(&err);
    assert_no_absolute_paths(&stdout(&output));
}

/// `trace` from a frontend module in which no call was recognised says so: its import paths
/// alone must not read as "this module calls nothing". A module with a call gets no such note.
#[test]
fn trace_says_when_no_call_was_recognised_in_a_module() {
    let tree = common::fixture("fullstack");
    let tree = tree.to_str().unwrap();
    let silent = run(&["trace", "frontend/src/main.tsx", "--in", tree, "--json", "-"]);
    assert!(silent.status.success(), "{}", stderr(&silent));
    let doc = valid_document(&stdout(&silent));
    let notes = doc["notes"].as_array().expect("notes");
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("No HTTP call was recognised in `frontend/src/main.tsx`")
    );
    let markdown = run(&["trace", "frontend/src/main.tsx", "--in", tree]);
    assert!(stdout(&markdown).contains("No HTTP call was recognised"));

    let calling =
        run(&["trace", "frontend/src/features/orders/useOrders.ts", "--in", tree, "--json", "-"]);
    assert!(calling.status.success(), "{}", stderr(&calling));
    let doc = valid_document(&stdout(&calling));
    assert!(doc.get("notes").is_none(), "a module with a recognised call has no note");
}
