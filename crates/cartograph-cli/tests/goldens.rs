//! The goldens: the fixtures' outputs (snapshot, summary, diff, map, blast, trace, and the
//! Markdown rendering of a hand-made diff with explanations), compared byte for byte, validated
//! against their schemas, and identical across runs and thread counts.
//!
//! Regenerate after an intended change with `scripts/regenerate-goldens.sh`.

mod common;

use std::path::Path;

use common::{assert_no_absolute_paths, run_in, stdout, valid_document, workspace};

/// (golden file, arguments run from the fixtures folder)
const CASES: &[(&str, &[&str])] = &[
    ("polyglot.snapshot.json", &["snapshot", "polyglot"]),
    ("polyglot.summary.json", &["summary", "polyglot", "--json"]),
    ("polyglot.summary.md", &["summary", "polyglot"]),
    ("diff.json", &["diff", "diff/base", "diff/head", "--json"]),
    ("diff.md", &["diff", "diff/base", "diff/head"]),
    ("diff.explained.md", &["render", "explained/diff.explained.json"]),
    ("fullstack.map.json", &["map", "fullstack", "--json"]),
    ("fullstack.map.md", &["map", "fullstack"]),
    ("fullstack.blast.md", &["blast", "backend/app/models.py", "--in", "fullstack"]),
    (
        "fullstack.trace.md",
        &[
            "trace",
            "frontend/src/features/orders/useOrders.ts",
            "--to",
            "table:item",
            "--max-paths",
            "6",
            "--in",
            "fullstack",
        ],
    ),
];

fn produce(args: &[&str], threads: &str) -> String {
    let dir = workspace().join("tests/fixtures");
    let output = run_in(&dir, args, &[("RAYON_NUM_THREADS", threads)]);
    assert!(output.status.success(), "{args:?} failed: {}", common::stderr(&output));
    stdout(&output)
}

#[test]
fn goldens_match_byte_for_byte() {
    let update = std::env::var_os("CARTOGRAPH_UPDATE_GOLDENS").is_some();
    let goldens = workspace().join("goldens");
    let mut stale = Vec::new();
    for (name, args) in CASES {
        let produced = produce(args, "2");
        assert_no_absolute_paths(&produced);
        if name.ends_with(".json") {
            valid_document(&produced);
        }
        let path = goldens.join(name);
        if update {
            std::fs::write(&path, &produced).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != produced {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "goldens differ: {stale:?}; if the change is intended, run scripts/regenerate-goldens.sh \
         and say why in the commit"
    );
}

#[test]
fn output_is_identical_across_thread_counts_and_runs() {
    for (name, args) in CASES {
        let one = produce(args, "1");
        let eight = produce(args, "8");
        let again = produce(args, "8");
        assert!(one == eight, "{name}: 1 thread and 8 threads differ");
        assert!(eight == again, "{name}: two runs differ");
    }
}

#[test]
fn every_golden_json_validates() {
    for entry in std::fs::read_dir(workspace().join("goldens")).expect("goldens dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            let text = std::fs::read_to_string(&path).expect("read golden");
            valid_document(&text);
            assert_no_absolute_paths(&text);
        }
    }
    assert!(Path::new(&workspace().join("goldens/polyglot.snapshot.json")).exists());
}
