//! Checks incremental parsing on real releases: for every source file whose content differs
//! between two trees, the facts `Extractor::extract_versions` gives for the new version must equal
//! a fresh `Extractor::extract` of it. Prints how many files were compared and the parse time of
//! both ways (one thread).
//!
//! `cargo run --release -p cartograph-extract --example incremental_check -- OLD_DIR NEW_DIR`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cartograph_core::RepoPath;
use cartograph_extract::{Extractor, grammar_for};

fn main() {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [old_root, new_root] = args.as_slice() else {
        eprintln!("usage: incremental_check OLD_DIR NEW_DIR");
        std::process::exit(2);
    };
    let mut compared = 0usize;
    let mut differing = 0usize;
    let (mut fresh_time, mut incremental_time) = (Duration::ZERO, Duration::ZERO);
    for entry in ignore::WalkBuilder::new(new_root).build().flatten() {
        let path = entry.path();
        let Ok(relative) = path.strip_prefix(new_root) else { continue };
        let Some(relative) = relative.to_str().and_then(|r| RepoPath::new(r).ok()) else {
            continue;
        };
        let Some(grammar) = grammar_for(&relative) else { continue };
        let (Some(old), Some(new)) = (read(&old_root.join(relative.as_str())), read(path)) else {
            continue;
        };
        if old == new || new.len() > 1 << 20 {
            continue;
        }
        let mut extractor = Extractor::new();
        let started = Instant::now();
        let _ = extractor.extract(&relative, grammar, &old);
        let fresh = extractor.extract(&relative, grammar, &new);
        fresh_time += started.elapsed();
        let started = Instant::now();
        let versions = extractor.extract_versions(&relative, grammar, &[&old, &new]);
        incremental_time += started.elapsed();
        compared += 1;
        if versions[1] != fresh {
            differing += 1;
            eprintln!("facts differ: {}", relative.as_str());
        }
    }
    println!(
        "{compared} changed files compared, {differing} differ; both versions extracted: \
         {fresh_time:?} parsing each from scratch, {incremental_time:?} parsing the new one \
         incrementally"
    );
    if differing > 0 {
        std::process::exit(1);
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read(path).ok().and_then(|bytes| String::from_utf8(bytes).ok())
}
