//! Fingerprints the sources that decide what extraction produces (this crate and the core types
//! its facts are made of), so that a persistent fact cache never serves facts written by a
//! different build of the extractor, even one with the same version number.
//!
//! Sources that cannot change an extracted fact are left out, so editing them keeps every cached
//! entry valid: the link half of each recogniser family (a file named `link.rs` or anything under
//! a `link/` folder: it reads facts after extraction), the tree index (`tree.rs`: resolution
//! probes it), and tests (`tests.rs`, `tests/`). The list of fingerprinted files is written to
//! `OUT_DIR` so a test can check that rule against the tree.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let roots = [manifest.join("src"), manifest.join("../cartograph-core/src")];
    let mut files = Vec::new();
    for root in &roots {
        println!("cargo::rerun-if-changed={}", root.display());
        collect(root, root, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    let mut listed = String::new();
    for (root, file) in &files {
        // The path relative to its root keeps the fingerprint independent of where the
        // workspace lives.
        let relative = file.strip_prefix(root).unwrap_or(file.as_path());
        let relative = relative.to_string_lossy().replace('\\', "/");
        hasher.write(relative.as_bytes());
        hasher.write(&std::fs::read(file).unwrap_or_default());
        let crate_dir = if root == &roots[0] { "cartograph-extract" } else { "cartograph-core" };
        listed.push_str(&format!("{crate_dir}/src/{relative}\n"));
    }
    println!("cargo::rustc-env=CARTOGRAPH_EXTRACT_FINGERPRINT={:016x}", hasher.finish());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    std::fs::write(out.join("fingerprinted.txt"), listed).expect("OUT_DIR is writable");
}

/// True for a source under `root` that cannot change what extraction returns.
fn cannot_change_facts(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else { return false };
    let names: Vec<_> = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect();
    let last = names.len().saturating_sub(1);
    names.iter().enumerate().any(|(i, name)| {
        let stem = if i == last { name.strip_suffix(".rs").unwrap_or(name) } else { name };
        stem == "link" || stem == "tests" || (i == 0 && i == last && stem == "tree")
    })
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(PathBuf, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if cannot_change_facts(root, &path) {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push((root.to_path_buf(), path));
        }
    }
}
