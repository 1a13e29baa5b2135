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
    let together = analyse_sources(&sources, &options, &cache).expect("analyses");
    assert_eq!(together.len(), 2);
    for (analysis, name) in together.iter().zip(["diff/base", "diff/head"]) {
        let alone = analyse_tree(&fixture(name), &options).expect("analysis");
        assert_eq!(analysis.nodes, alone.nodes, "{name}");
        assert_eq!(analysis.edges, alone.edges, "{name}");
        assert_eq!(analysis.refusals, alone.refusals, "{name}");
        assert_eq!(analysis.stats, alone.stats, "{name}");
        assert_eq!(analysis.file_keys.len() as u64, analysis.stats.files_analysed, "{name}");
    }
    // Unchanged files share one key (and one extraction); changed ones differ.
    let (a, b) = (&together[0].file_keys, &together[1].file_keys);
    let shared = a.iter().filter(|(path, key)| b.get(*path) == Some(*key)).count();
    let distinct: std::collections::BTreeSet<_> = a.values().chain(b.values()).collect();
    assert_eq!(cache.len(), distinct.len(), "each distinct content extracted once");
    // Every distinct content missed the cache once and was extracted; every other file was a hit.
    let stats = cache.stats();
    assert_eq!(stats.misses, distinct.len() as u64, "{stats:?}");
    assert_eq!(stats.hits, (a.len() + b.len() - distinct.len()) as u64, "{stats:?}");
    assert!(shared > 0 && shared < a.len(), "{shared} of {} files unchanged", a.len());
    assert!(
        b.keys().any(|p| p.as_str() == "backend/app/audit/log.py"),
        "a file only in head has a key"
    );
}
