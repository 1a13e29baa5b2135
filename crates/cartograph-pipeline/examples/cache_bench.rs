//! Measures the persistent fact cache on a real tree: a cold analysis, a cold analysis that fills a
//! cache directory, a warm one, and the warm run's parts (discovery, read and hash; cache load;
//! the rest, resolution and linking). Also compares the entry encodings.
//!
//! `cargo run --release -p cartograph-pipeline --example cache_bench -- TREE [RUNS [warm]]`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cartograph_extract::{FileFacts, HeldFacts};
use cartograph_pipeline::cache::DEFAULT_MAX_BYTES;
use cartograph_pipeline::discover::{SourceText, read_source};
use cartograph_pipeline::{
    AnalysisOptions, DirectorySource, FactCache, FactKey, FileSource, analyse_source,
};
use rayon::prelude::*;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("at least one run"))
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let tree = PathBuf::from(args.next().ok_or("usage: cache_bench TREE [RUNS]")?);
    let runs: usize = args.next().map_or(Ok(3), |r| r.parse())?;
    let source = DirectorySource::new(&tree);
    let options = AnalysisOptions::default();
    let dir = tempfile::tempdir()?;
    if let Some(profile) = args.next() {
        // `cache_bench TREE RUNS warm`: fill a cache, then only warm runs, for a profiler.
        let fill = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES)?;
        analyse_source(&source, &options, Some(&fill))?;
        drop(fill);
        let (warm, _) = best(runs, || {
            let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).expect("cache");
            analyse_source(&source, &options, Some(&cache)).expect("analysis");
        });
        println!("{profile}: best warm run {}", ms(warm));
        return Ok(());
    }

    let (cold, analysis) = best(runs, || analyse_source(&source, &options, None));
    let analysis = analysis?;
    println!("files analysed: {}", analysis.stats.files_analysed);
    println!("cold, no cache:            {}", ms(cold));

    let (filling, stats) = best(runs, || {
        let fresh = tempfile::tempdir().expect("tempdir");
        let cache = FactCache::with_dir(fresh.path(), DEFAULT_MAX_BYTES).expect("cache");
        analyse_source(&source, &options, Some(&cache)).expect("analysis");
        (cache.finish(), cache, fresh)
    });
    let stats = stats.0;
    println!("cold, filling the cache:   {} ({stats:?})", ms(filling));
    let fill = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES)?;
    analyse_source(&source, &options, Some(&fill))?;
    drop(fill);

    let (warm, stats) = best(runs, || {
        let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).expect("cache");
        let result = analyse_source(&source, &options, Some(&cache)).expect("analysis");
        assert_eq!(result.edges, analysis.edges);
        cache.finish()
    });
    println!("warm (whole analysis):     {} ({stats:?})", ms(warm));

    let (warm_two, _) = best(runs, || {
        let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).expect("cache");
        analyse_source(&source, &options, Some(&cache)).expect("analysis");
        analyse_source(&source, &options, Some(&cache)).expect("analysis");
        cache.finish()
    });
    println!("warm, the same tree twice on one cache (a diff's two analyses): {}", ms(warm_two));

    // The same warm run without the recognisers' linking: what linking costs.
    let imports_only = AnalysisOptions { imports_only: true, ..AnalysisOptions::default() };
    let imports_dir = tempfile::tempdir()?;
    let fill = FactCache::with_dir(imports_dir.path(), DEFAULT_MAX_BYTES)?;
    analyse_source(&source, &imports_only, Some(&fill))?;
    drop(fill);
    let (warm_imports, _) = best(runs, || {
        let cache = FactCache::with_dir(imports_dir.path(), DEFAULT_MAX_BYTES).expect("cache");
        analyse_source(&source, &imports_only, Some(&cache)).expect("analysis");
    });
    println!("warm, imports only (no linking): {}", ms(warm_imports));

    let inventory = source.discover(&options.discovery)?;
    let texts = |source: &DirectorySource| -> Vec<(FactKey, usize)> {
        inventory
            .sources
            .par_iter()
            .filter_map(|c| match read_source(source, c) {
                SourceText::Text { text, .. } => {
                    Some((FactKey::new(&c.path, c.grammar, false, &text), text.len()))
                }
                SourceText::Skipped(_) => None,
            })
            .collect()
    };
    let (discover, _) = best(runs, || source.discover(&options.discovery));
    let (read_hash, keys) = best(runs, || texts(&source));
    println!("  discovery:               {}", ms(discover));
    println!("  read + hash (parallel):  {}", ms(read_hash));
    let (load, facts) = best(runs, || {
        let cache = FactCache::with_dir(dir.path(), DEFAULT_MAX_BYTES).expect("cache");
        let facts: Vec<Arc<HeldFacts>> =
            keys.par_iter().filter_map(|(key, _)| cache.get(key)).collect();
        facts
    });
    println!("  cache load (parallel):   {} for {} entries", ms(load), facts.len());
    println!(
        "  the rest (resolve, link, merge), by difference: {}",
        ms(warm.saturating_sub(discover + read_hash + load))
    );

    let (write, _) = best(runs, || {
        let fresh = tempfile::tempdir().expect("tempdir");
        let cache = FactCache::with_dir(fresh.path(), DEFAULT_MAX_BYTES).expect("cache");
        keys.par_iter().zip(facts.par_iter()).for_each(|((key, _), f)| cache.put(*key, f));
        cache.finish();
        // Removed after the timing.
        (cache, fresh)
    });
    println!("  writing every entry to an empty directory (parallel): {}", ms(write));

    // Encodings of the decoded facts, decoded on one thread.
    let facts: Vec<FileFacts> = facts.iter().map(|f| f.unpack().expect("decode")).collect();
    let postcard: Vec<Vec<u8>> =
        facts.iter().map(|f| postcard::to_stdvec(f).expect("encode")).collect();
    let json: Vec<Vec<u8>> = facts.iter().map(|f| serde_json::to_vec(f).expect("encode")).collect();
    let size = |v: &[Vec<u8>]| v.iter().map(Vec::len).sum::<usize>();
    let (pc, _) = best(runs, || {
        postcard
            .iter()
            .map(|b| postcard::from_bytes::<FileFacts>(b).expect("decode"))
            .collect::<Vec<_>>()
    });
    let (js, _) = best(runs, || {
        json.iter()
            .map(|b| serde_json::from_slice::<FileFacts>(b).expect("decode"))
            .collect::<Vec<_>>()
    });
    let (clone, _) = best(runs, || facts.to_vec());
    println!("postcard: {} bytes, decode all on one thread {}", size(&postcard), ms(pc));
    println!("json:     {} bytes, decode all on one thread {}", size(&json), ms(js));
    println!("clone of all facts (a memory hit's cost): {}", ms(clone));
    println!("cache directory: {} bytes", walk(dir.path()));
    Ok(())
}

fn walk(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| {
            let path = e.path();
            if path.is_dir() { walk(&path) } else { e.metadata().map_or(0, |m| m.len()) }
        })
        .sum()
}
