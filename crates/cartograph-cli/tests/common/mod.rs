//! Shared helpers for the end-to-end tests: run the real binary, locate fixtures, check outputs.
#![allow(dead_code)]

use crate::leaks;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

pub fn fixture(name: &str) -> PathBuf {
    workspace().join("tests/fixtures").join(name)
}

/// Runs `cartograph` with a cleared environment (plus the given variables) in `dir`.
pub fn run_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_cartograph"));
    command.args(args).current_dir(dir).env_clear();
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("cartograph runs")
}

pub fn run(args: &[&str]) -> Output {
    run_in(&workspace(), args, &[])
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8")
}

/// Parses `text` as JSON and validates it against the schema its `schema` field names (the
/// schemas of `schemas/`, as embedded in `cartograph-report`).
pub fn valid_document(text: &str) -> serde_json::Value {
    let value: serde_json::Value = serde_json::from_str(text).expect("output is JSON");
    if let Err(error) = cartograph_report::schema::validate(&value) {
        panic!("document does not validate: {error}");
    }
    value
}

/// Asserts that no absolute machine path appears in `text`: any rooted path that is not a URL
/// path, and any root this process knows (`tests/support/leaks.rs`).
pub fn assert_no_absolute_paths(text: &str) {
    leaks::LeakCheck::new(&[], &[]).assert_clean("output", text);
}
