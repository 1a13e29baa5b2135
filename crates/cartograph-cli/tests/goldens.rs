//! The goldens: the fixtures' outputs (snapshot, summary, diff, map, blast, trace, and the
//! Markdown rendering of a hand-made diff with explanations), compared byte for byte, validated
//! against their schemas, and identical across runs and thread counts.
//!
//! The goldens are insta snapshots: `goldens/NAME.snap` holds insta's metadata and
//! `goldens/NAME.snap.EXT` the output itself, byte for byte (insta's binary snapshots compare
//! bytes, never a normalised text). Regenerate after an intended change with
//! `scripts/regenerate-goldens.sh`, or review with `cargo insta review`.

use crate::common;

use std::path::Path;

use common::{assert_no_absolute_paths, run_in, stdout, valid_document, workspace};

/// (golden: insta's snapshot name and the output's extension, arguments run from the fixtures
/// folder)
const CASES: &[(&str, &[&str])] = &[
    ("polyglot-snapshot.json", &["snapshot", "polyglot"]),
    ("polyglot-summary.json", &["summary", "polyglot", "--json"]),
    ("polyglot-summary-report.md", &["summary", "polyglot"]),
    ("diff.json", &["diff", "diff/base", "diff/head", "--json"]),
    ("diff-report.md", &["diff", "diff/base", "diff/head"]),
    (
        "diff-same-language.json",
        &["diff", "diff-same-language/base", "diff-same-language/head", "--json"],
    ),
    (
        "diff-same-language-report.md",
        &["diff", "diff-same-language/base", "diff-same-language/head"],
    ),
    ("diff-explained-report.md", &["render", "explained/diff.explained.json"]),
    ("rules-check.json", &["check", "rules/head", "--json"]),
    ("rules-check-report.md", &["check", "rules/head"]),
    ("rules-check-sarif.sarif", &["check", "rules/head", "--sarif", "-"]),
    ("rules-baseline.json", &["baseline", "write", "rules/base", "--output", "-"]),
    ("rules-diff.json", &["diff", "rules/base", "rules/head", "--json"]),
    ("rules-diff-report.md", &["diff", "rules/base", "rules/head"]),
    ("rules-diff-sarif.sarif", &["diff", "rules/base", "rules/head", "--sarif", "-"]),
    ("fullstack-map.json", &["map", "fullstack", "--json"]),
    ("fullstack-map-report.md", &["map", "fullstack"]),
    ("fullstack-blast-report.md", &["blast", "backend/app/models.py", "--in", "fullstack"]),
    (
        "fullstack-trace-report.md",
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
    // `check` exits 1 when a rule of severity error is broken, as the fixture's head does.
    let failed_check = args[0] == "check" && output.status.code() == Some(1);
    assert!(
        output.status.success() || failed_check,
        "{args:?} failed: {}",
        common::stderr(&output)
    );
    stdout(&output)
}

#[test]
fn goldens_match_byte_for_byte() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(workspace().join("goldens"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (name, args) in CASES {
            let produced = produce(args, "2");
            assert_no_absolute_paths(&produced);
            if name.ends_with(".json") {
                valid_document(&produced);
            }
            insta::assert_binary_snapshot!(*name, produced.into_bytes());
        }
    });
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
    assert!(Path::new(&workspace().join("goldens/polyglot-snapshot.snap.json")).exists());
}
