//! Compares the analyser's import edges on the polyglot fixture with the hand-written list in
//! `tests/fixtures/polyglot/EXPECTED_IMPORTS.md`: every expected edge is found (recall), nothing
//! else is (precision), type-only flags agree, and the expected refusals and cycles are there.

use crate::common;

use std::collections::BTreeSet;

use common::{fixture, run, stdout, valid_document};

/// `(from, to, type_only)` with `to` a module path or a package name such as `pypi:httpx`.
type EdgeLine = (String, String, bool);

fn expected_edges() -> BTreeSet<EdgeLine> {
    let text = std::fs::read_to_string(fixture("polyglot/EXPECTED_IMPORTS.md")).expect("list");
    let mut edges = BTreeSet::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if !in_block {
            continue;
        }
        let claim = line.split('#').next().unwrap_or("").trim();
        let Some((from, rest)) = claim.split_once("->") else { continue };
        let rest = rest.trim();
        let (to, type_only) = match rest.strip_suffix("[type-only]") {
            Some(to) => (to.trim(), true),
            None => (rest, false),
        };
        edges.insert((from.trim().to_owned(), to.to_owned(), type_only));
    }
    edges
}

fn analysed() -> serde_json::Value {
    let path = fixture("polyglot");
    let output = run(&["snapshot", path.to_str().expect("utf-8 path")]);
    assert!(output.status.success());
    valid_document(&stdout(&output))
}

fn strip_id(id: &str) -> String {
    id.strip_prefix("module:").or_else(|| id.strip_prefix("package:")).unwrap_or(id).to_owned()
}

#[test]
fn import_edges_match_the_hand_written_list() {
    let expected = expected_edges();
    assert!(expected.len() > 100, "the list parsed to only {} edges", expected.len());
    let doc = analysed();
    let found: BTreeSet<EdgeLine> = doc["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["kind"] == "imports")
        .map(|e| {
            (
                strip_id(e["from"].as_str().unwrap_or_default()),
                strip_id(e["to"].as_str().unwrap_or_default()),
                e["type_only"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    let missing: Vec<_> = expected.difference(&found).collect();
    let unexpected: Vec<_> = found.difference(&expected).collect();
    let recall = (expected.len() - missing.len()) as f64 / expected.len() as f64;
    let precision = (found.len() - unexpected.len()) as f64 / found.len().max(1) as f64;
    println!(
        "imports: precision {precision:.3}, recall {recall:.3} over {} expected",
        expected.len()
    );
    assert!(
        missing.is_empty() && unexpected.is_empty(),
        "missing: {missing:#?}\nunexpected: {unexpected:#?}"
    );
}

#[test]
fn expected_refusals_and_cycles_are_reported() {
    let doc = analysed();
    let refusals: BTreeSet<(String, String)> = doc["refusals"]
        .as_array()
        .expect("refusals")
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap_or_default().to_owned(),
                r["location"]["path"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    for (kind, path) in [
        ("unresolved-import", "backend/src/shipyard/services/shipping.py"),
        ("dynamic-import", "backend/src/shipyard/plugin_loader.py"),
        ("dynamic-import", "web/src/i18n.ts"),
        ("syntax-errors", "backend/src/shipyard/broken_syntax.py"),
        ("syntax-errors", "web/src/broken.ts"),
        ("binary-file", "web/src/assets/blob.js"),
        ("file-too-large", "backend/src/shipyard/generated/huge_table.py"),
        ("invalid-utf8", "backend/src/shipyard/latin1_notes.py"),
        ("symlink", "backend/src/shipyard/outside_link.py"),
        ("symlink", "web/src/linked_dir"),
    ] {
        assert!(
            refusals.contains(&(kind.to_owned(), path.to_owned())),
            "no {kind} refusal for {path}; got {refusals:#?}"
        );
    }
    // The file and import refusals are exactly those; the architecture recognisers add their
    // own kinds (unmatched calls, computed URLs), which `tests/fullstack.rs` holds to account.
    let file_and_import: BTreeSet<_> = refusals
        .iter()
        .filter(|(kind, _)| {
            !matches!(
                kind.as_str(),
                "computed-url"
                    | "unmatched-call"
                    | "computed-env-key"
                    | "computed-route"
                    | "unresolved-mount"
                    | "computed-table"
            )
        })
        .collect();
    assert_eq!(file_and_import.len(), 10, "unexpected refusals: {file_and_import:#?}");

    let cycles: Vec<Vec<String>> = serde_json::from_value(doc["cycles"].clone()).expect("cycles");
    let cycles: Vec<Vec<String>> =
        cycles.into_iter().map(|c| c.iter().map(|m| strip_id(m)).collect()).collect();
    assert_eq!(
        cycles,
        vec![
            vec![
                "backend/src/shipyard/services/billing.py",
                "backend/src/shipyard/services/invoices.py"
            ],
            vec!["web/src/api/orders.ts", "web/src/hooks/useOrders.ts"],
            vec!["worker/queue.py", "worker/tasks.py"],
        ]
    );

    let nodes: Vec<&str> =
        doc["nodes"].as_array().expect("nodes").iter().filter_map(|n| n["id"].as_str()).collect();
    for absent in
        ["node_modules", "/dist/", ".venv", "tmp/scratch", "linked_dir", "pandas", "blob.js"]
    {
        assert!(!nodes.iter().any(|n| n.contains(absent)), "a node mentions {absent}");
    }
    let excluded: Vec<&str> = doc["stats"]["excluded_dirs"]
        .as_array()
        .expect("excluded")
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    assert_eq!(excluded, ["backend/.venv", "web/dist", "web/node_modules"]);
}
