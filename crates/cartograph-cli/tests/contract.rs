//! The command-line contract as insta snapshots: exit code, stdout and stderr of the real binary,
//! run with a cleared environment, with the version and temporary paths redacted (as ruff's CLI
//! tests do), so a change to a message or an exit code shows up as a snapshot to review.

use crate::common;
use crate::git;

use std::path::Path;

use common::{run_in, workspace};
use git::git_in;

/// Exit code, stdout and stderr of `cartograph ARGS` run in `dir`, with the tool version and
/// `tmp` redacted.
fn contract(dir: &Path, args: &[&str], tmp: Option<&Path>) -> String {
    let output = run_in(dir, args, &[]);
    let mut text = format!(
        "args: {}\nexit: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        output.status.code().map_or("signal".to_owned(), |c| c.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    if let Some(tmp) = tmp {
        text = text.replace(tmp.to_str().expect("utf-8 temporary path"), "[TMP]");
    }
    text.replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

/// Snapshots each case under `name`.
fn check(name: &str, dir: &Path, args: &[&str], tmp: Option<&Path>) {
    insta::with_settings!({ omit_expression => true }, {
        insta::assert_snapshot!(name, contract(dir, args, tmp));
    });
}

#[test]
fn version() {
    check("version", &workspace(), &["--version"], None);
}

#[test]
fn errors_are_one_sentence_with_exit_2() {
    let root = workspace();
    check("missing-tree", &root, &["snapshot", "no/such/dir"], None);
    check("not-a-snapshot", &root, &["snapshot", "Cargo.toml"], None);
    check("bad-component-rule", &root, &["summary", ".", "--components", "folders"], None);
    check("zero-threads", &root, &["summary", ".", "--threads", "0"], None);
    check("unknown-flag", &root, &["snapshot", "--no-such-flag"], None);
    check("unknown-command", &root, &["frobnicate"], None);
}

#[test]
fn an_absolute_path_is_never_echoed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("gone");
    let missing = missing.to_str().expect("utf-8");
    check("absolute-missing-tree", &workspace(), &["summary", missing], Some(dir.path()));
}

#[test]
fn listings() {
    let root = workspace();
    check("schema-list", &root, &["schema"], None);
    check("recognisers", &root, &["recognisers"], None);
}

/// Every error of issue 20's list: one sentence, exit 2, naming what the argument is and what to
/// do, with no absolute path, no file content and no environment value.
#[test]
fn errors_that_say_what_the_argument_is() {
    let dir = tempfile::tempdir().expect("tempdir");
    let tmp = dir.path();
    // Outside any git repository.
    let plain = tmp.join("plain");
    std::fs::create_dir_all(plain.join("app")).expect("mkdir");
    std::fs::write(plain.join("file.py"), "TOKEN = 'hunter2'\n").expect("write");
    std::fs::write(plain.join("notes.txt"), "DATABASE_URL=postgres://u:hunter2@h/db\n")
        .expect("write");
    std::fs::write(plain.join("app/main.py"), "import os\n").expect("write");
    std::fs::write(plain.join("package.json"), "{\"name\": \"hunter2\"}\n").expect("write");
    let golden = std::fs::read_to_string(workspace().join("goldens/polyglot-snapshot.snap.json"))
        .expect("golden snapshot");
    let mut bad: serde_json::Value = serde_json::from_str(&golden).expect("json");
    bad["nodes"][1]["kind"] = "hunter2".into();
    std::fs::write(plain.join("bad-kind.json"), bad.to_string()).expect("write");
    let mut missing: serde_json::Value = serde_json::from_str(&golden).expect("json");
    missing["edges"][0].as_object_mut().expect("edge").remove("confidence");
    std::fs::write(plain.join("bad-edge.json"), missing.to_string()).expect("write");

    let cases: [(&str, &[&str]); 9] = [
        ("file-as-tree-snapshot", &["snapshot", "file.py"]),
        ("file-as-tree-diff", &["diff", "notes.txt", "app"]),
        ("json-file-as-tree", &["summary", "package.json"]),
        ("snapshot-bad-field", &["summary", "bad-kind.json"]),
        ("snapshot-missing-field", &["diff", "bad-edge.json", "app"]),
        ("revision-outside-repository", &["diff", "main", "app"]),
        ("tagged-revision-outside-repository", &["snapshot", "rev:v1.2.0"]),
        ("fail-on-empty", &["diff", "app", "app", "--fail-on", ""]),
        ("check-fail-on-empty", &["check", "app", "--fail-on", " "]),
    ];
    for (name, args) in cases {
        let text = contract(&plain, args, Some(tmp));
        assert!(!text.contains("hunter2"), "{name}: {text}");
        common::assert_no_absolute_paths(&text);
        check(name, &plain, args, Some(tmp));
    }

    // Inside a git repository: a misspelt tag or branch is named with the nearest one.
    let repo = tmp.join("repo");
    std::fs::create_dir_all(repo.join("app")).expect("mkdir");
    std::fs::write(repo.join("app/main.py"), "import os\n").expect("write");
    git_in(&repo, &["init", "-q"]);
    git_in(&repo, &["add", "."]);
    git_in(&repo, &["commit", "-q", "-m", "one"]);
    git_in(&repo, &["tag", "v1.2.0"]);
    git_in(&repo, &["branch", "release/2026"]);
    check("misspelt-tag", &repo, &["snapshot", "v1.2.O"], Some(tmp));
    check("misspelt-tagged-revision", &repo, &["diff", "rev:relaese/2026", "HEAD"], Some(tmp));
    check("misspelt-revision-far-from-any", &repo, &["snapshot", "no-such-thing"], Some(tmp));
}
