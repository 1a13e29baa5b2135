//! Snapshot documents (`cartograph snapshot`, read back as a TREE argument): the reader and its
//! re-validation into an analysis, then what a loaded snapshot feeds: the diff against a real
//! tree, its Markdown report with the blast radius, and the map.
#![no_main]

use cartograph_fuzz::{fixture_analysis, text};
use cartograph_graph::MapOptions;
use cartograph_query::{LoadedTree, diff_document, diff_markdown, map_document};
use cartograph_report::snapshot::SnapshotDocument;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(document) = SnapshotDocument::from_json(&text(data)) else { return };
    let Ok(analysis) = document.into_analysis() else { return };
    let snapshot = LoadedTree { analysis, source: "snapshot", label: "fuzz.json".to_owned() };
    let fixture = LoadedTree {
        analysis: fixture_analysis().clone(),
        source: "directory",
        label: "head".to_owned(),
    };
    let _ = map_document(snapshot.analysis.view(), &MapOptions::default());
    for (base, head) in [(&fixture, &snapshot), (&snapshot, &fixture)] {
        let doc = diff_document(base, head);
        let _ = diff_markdown(&doc, &base.analysis, &head.analysis, 3);
    }
    let _ = SnapshotDocument::from_analysis(&snapshot.analysis);
});
