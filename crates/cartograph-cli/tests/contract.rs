//! The command-line contract as insta snapshots: exit code, stdout and stderr of the real binary,
//! run with a cleared environment, with the version and temporary paths redacted (as ruff's CLI
//! tests do), so a change to a message or an exit code shows up as a snapshot to review.

mod common;

use std::path::Path;

use common::{run_in, workspace};

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
