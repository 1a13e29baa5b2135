//! Analysing several trees together (as a diff does) gives each tree the analysis it gets alone,
//! and extracts a content present in several trees once.

use std::path::Path;

use cartograph_pipeline::{
    AnalysisOptions, DirectorySource, FactCache, FileSource, analyse_sources, analyse_tree,
};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").join(name)
}

#[test]
fn trees_analysed_together_match_trees_analysed_alone() {
    let options = AnalysisOptions::default();
    let base = DirectorySource::new(fixture("diff/base"));
    let head = DirectorySource::new(fixture("diff/head"));
    let cache = FactCache::in_memory();
    let sources: [&dyn FileSource; 2] = [&base, &head];
    let together = analyse_sources(&sources, &options, Some(&cache)).expect("analyses");
    let uncached = analyse_sources(&sources, &options, None).expect("analyses");
    assert_eq!(together.len(), 2);
    for ((analysis, plain), name) in together.iter().zip(&uncached).zip(["diff/base", "diff/head"])
    {
        let alone = analyse_tree(&fixture(name), &options).expect("analysis");
        for other in [&alone, plain] {
            assert_eq!(analysis.nodes, other.nodes, "{name}");
            assert_eq!(analysis.edges, other.edges, "{name}");
            assert_eq!(analysis.refusals, other.refusals, "{name}");
            assert_eq!(analysis.stats, other.stats, "{name}");
        }
        assert_eq!(analysis.file_versions, plain.file_versions, "{name}");
        assert_eq!(analysis.file_versions.len() as u64, analysis.stats.files_analysed, "{name}");
        assert!(alone.file_versions.is_empty(), "a tree analysed alone has no versions");
    }
    // Every base file is its path's first content; a head file has the base's version exactly
    // when its bytes are the same.
    let (a, b) = (&together[0].file_versions, &together[1].file_versions);
    assert!(a.values().all(|v| *v == 0), "{a:?}");
    let root = fixture("");
    for (path, version) in b {
        let head_bytes = std::fs::read(root.join("diff/head").join(path.as_str())).expect("head");
        let same = std::fs::read(root.join("diff/base").join(path.as_str()))
            .is_ok_and(|base_bytes| base_bytes == head_bytes);
        assert_eq!(a.get(path) == Some(version), same, "{path}: version {version}");
    }
    let shared = a.iter().filter(|(path, v)| b.get(*path) == Some(*v)).count();
    let distinct = a.len() + b.len() - shared;
    assert!(shared > 0 && shared < a.len(), "{shared} of {} files unchanged", a.len());
    // Each distinct content was extracted once: one miss (and one entry) per distinct content,
    // and every repeated content was a hit.
    assert_eq!(cache.len(), distinct, "each distinct content extracted once");
    let stats = cache.stats();
    assert_eq!(stats.misses, distinct as u64, "{stats:?}");
    assert_eq!(stats.hits, shared as u64, "{stats:?}");
    assert!(
        b.keys().any(|p| p.as_str() == "backend/app/audit/log.py"),
        "a file only in head has a version"
    );
}
