//! Fingerprints every source that decides what an analysis holds — this crate (discovery,
//! resolution, assembly), the extractor and its linkers, the graph model and the core types — so
//! that a cached whole-tree analysis is never served to a different build, even one with the same
//! version number. Unlike the fact fingerprint (`cartograph-extract/build.rs`), nothing is left
//! out but tests: a linker that changes changes analyses, though not facts.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let crates = manifest.join("..");
    let mut files = Vec::new();
    for name in ["cartograph-pipeline", "cartograph-extract", "cartograph-graph", "cartograph-core"]
    {
        let root = crates.join(name).join("src");
        println!("cargo::rerun-if-changed={}", root.display());
        collect(name, &root, &root, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for (listed, file) in &files {
        // The name relative to `crates/` keeps the fingerprint independent of where the
        // workspace lives.
        hasher.write(listed.as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
    }
    println!("cargo::rustc-env=CARTOGRAPH_ANALYSIS_FINGERPRINT={:016x}", hasher.finish());
}

fn collect(name: &str, root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if stem == "tests" {
            continue;
        }
        if path.is_dir() {
            collect(name, root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let relative = relative.to_string_lossy().replace('\\', "/");
            files.push((format!("{name}/src/{relative}"), path));
        }
    }
}
