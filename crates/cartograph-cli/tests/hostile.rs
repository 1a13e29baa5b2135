//! Bad input never panics: empty trees, trees with nothing analysable, odd file names, deep
//! nesting, huge lines, and the size cap. Each gives a valid document and honest refusals.

use crate::common;

use std::path::Path;

use common::{assert_no_absolute_paths, run_in, stderr, stdout, valid_document};

fn snapshot(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["snapshot", "."];
    args.extend_from_slice(extra);
    let output = run_in(dir, &args, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert_no_absolute_paths(&text);
    valid_document(&text)
}

fn refusal_kinds(doc: &serde_json::Value) -> Vec<(String, String)> {
    doc["refusals"]
        .as_array()
        .expect("refusals")
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or_default().to_owned(),
                r["location"]["path"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn empty_tree_gives_an_empty_valid_snapshot_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = snapshot(dir.path(), &[]);
    assert_eq!(doc["nodes"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["stats"]["files_analysed"], 0);
    let output = run_in(dir.path(), &["snapshot", "."], &[]);
    assert!(stderr(&output).contains("no analysable source files"), "{}", stderr(&output));
    let summary = run_in(dir.path(), &["summary", "."], &[]);
    assert!(stdout(&summary).contains("No analysable source files"));
}

#[test]
fn nothing_analysable_is_reported_not_hidden() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("data.bin.py"), b"\x00\x01\x02binary").expect("write");
    std::fs::write(dir.path().join("README.md"), "# hi").expect("write");
    let doc = snapshot(dir.path(), &[]);
    assert_eq!(doc["stats"]["files_analysed"], 0);
    assert_eq!(doc["stats"]["files_skipped"], 1);
    assert_eq!(refusal_kinds(&doc), [("binary-file".to_owned(), "data.bin.py".to_owned())]);
}

#[test]
fn size_cap_is_configurable_and_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.py"), "import os\n".repeat(50)).expect("write");
    let doc = snapshot(dir.path(), &["--max-file-size", "100"]);
    assert_eq!(refusal_kinds(&doc), [("file-too-large".to_owned(), "a.py".to_owned())]);
    let doc = snapshot(dir.path(), &[]);
    assert!(refusal_kinds(&doc).is_empty());
}

#[cfg(unix)]
#[test]
fn non_utf8_file_names_are_refused_with_a_readable_path() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.py");
    std::fs::write(dir.path().join(name), "import json\n").expect("write");
    std::fs::write(dir.path().join("ok.py"), "import requests\n").expect("write");
    let doc = snapshot(dir.path(), &[]);
    let kinds = refusal_kinds(&doc);
    assert_eq!(kinds.len(), 1, "{kinds:?}");
    assert_eq!(kinds[0].0, "invalid-path");
    assert!(kinds[0].1.starts_with("caf"));
    assert_eq!(doc["stats"]["files_analysed"], 1);
}

#[test]
fn deep_nesting_and_long_lines_do_not_crash() {
    let dir = tempfile::tempdir().expect("tempdir");
    let depth = 20_000;
    let deep_py = format!("import os\nx = {}1{}\n", "[".repeat(depth), "]".repeat(depth));
    std::fs::write(dir.path().join("deep.py"), deep_py).expect("write");
    let deep_ts =
        format!("import x from \"y\";\nconst a = {}1{};\n", "(".repeat(depth), ")".repeat(depth));
    std::fs::write(dir.path().join("deep.ts"), deep_ts).expect("write");
    let bundle = format!("var a=1;{}\n", "a+=1;".repeat(3000));
    std::fs::write(dir.path().join("bundle.js"), bundle).expect("write");
    let doc = snapshot(dir.path(), &[]);
    let kinds = refusal_kinds(&doc);
    assert!(kinds.contains(&("minified-bundle".to_owned(), "bundle.js".to_owned())), "{kinds:?}");
    let edges = doc["edges"].as_array().expect("edges");
    assert!(edges.iter().any(|e| e["from"] == "module:deep.ts" && e["to"] == "package:npm:y"));
}

#[test]
fn unterminated_and_garbage_sources_give_refusals() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.py"), "def (((:\n  \"\"\"never closed\n").expect("write");
    std::fs::write(dir.path().join("b.tsx"), "<div><<<>>> import from").expect("write");
    std::fs::write(dir.path().join("c.js"), "\u{feff}require(").expect("write");
    let doc = snapshot(dir.path(), &[]);
    let kinds = refusal_kinds(&doc);
    for file in ["a.py", "b.tsx", "c.js"] {
        assert!(
            kinds.contains(&("syntax-errors".to_owned(), file.to_owned())),
            "{file}: {kinds:?}"
        );
    }
}
