//! Fingerprints the sources that decide what extraction produces (this crate and the core types
//! its facts are made of), so that a persistent fact cache never serves facts written by a
//! different build of the extractor, even one with the same version number.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let roots = [manifest.join("src"), manifest.join("../cartograph-core/src")];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo::rerun-if-changed={}", root.display());
        collect(root, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        // The path relative to its root keeps the fingerprint independent of where the
        // workspace lives.
        let relative =
            roots.iter().find_map(|root| file.strip_prefix(root).ok()).unwrap_or(file.as_path());
        hasher.write(relative.to_string_lossy().as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
    }
    println!("cargo::rustc-env=CARTOGRAPH_EXTRACT_FINGERPRINT={:016x}", hasher.finish());
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
