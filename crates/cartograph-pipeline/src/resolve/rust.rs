//! Rust import resolution: `use` paths and `mod` declarations to module files, crates of the
//! workspace, third-party crates and the standard crates.
//!
//! A crate is a folder with a `Cargo.toml` and a `src/` beside it; its root module is
//! `src/lib.rs` or `src/main.rs`, and a file's module path follows from its place under `src/`
//! (`src/a/b.rs` and `src/a/b/mod.rs` are `crate::a::b`; `src/bin/x.rs` is a crate root of its
//! own). A path is read from its first segment: `crate` (the file's crate), `self` and `super`
//! (its module, its parent), a child module of the file's module (the 2018 edition's uniform
//! paths from a `mod`-declared name), a crate of the workspace by its package or `[lib]` name (`-` read as
//! `_`), the standard crates (`std`, `core`, `alloc`, `proc_macro`, `test`: built-in), or else a
//! third-party crate. From its module the path takes the longest run of segments that are module
//! files; the first segment after it is an item of that module (`crate::controller::handshake`
//! is the function `handshake` of `src/controller.rs`). Everything is built once in
//! [`RustResolver::new`]; each import is hash look-ups.

use std::collections::HashMap;

use cartograph_core::{Ecosystem, RepoPath};
use cartograph_extract::{RustImport, TreeIndex};

use super::Resolution;

/// The standard crates, always in scope.
const STANDARD: &[&str] = &["std", "core", "alloc", "proc_macro", "test"];

/// One crate of the tree.
#[derive(Debug, Clone)]
struct Crate {
    /// The folder of its sources, `…/src`.
    src: String,
    /// Its root module file.
    root: Option<String>,
}

/// Resolves Rust imports against the crates of one tree.
pub struct RustResolver {
    /// Crates by the folder of their `Cargo.toml`.
    crates: HashMap<String, Crate>,
    /// Workspace crates by name (package and `[lib]` names, `-` as `_`), to their folder.
    names: HashMap<String, String>,
}

/// One resolved import: where it leads and whether its last segment is that module itself.
pub struct RustTarget {
    pub written: String,
    pub resolution: Resolution,
    /// The last segment and whether it names the module (true) or an item of it (false).
    pub names: Vec<(String, bool)>,
}

impl RustResolver {
    /// Finds the crates of `index`; `read` gives a `Cargo.toml`'s text for the crate's names.
    pub fn new(index: &TreeIndex, read: &dyn Fn(&RepoPath) -> Option<String>) -> Self {
        let mut crates = HashMap::new();
        let mut names = HashMap::new();
        for file in index.files() {
            let path = file.as_str();
            let Some(dir) = path.strip_suffix("Cargo.toml") else { continue };
            if !(dir.is_empty() || dir.ends_with('/')) {
                continue;
            }
            let dir = dir.trim_end_matches('/').to_owned();
            let src = join(&dir, "src");
            let root =
                ["lib.rs", "main.rs"].iter().map(|f| join(&src, f)).find(|f| index.is_file(f));
            for name in read(file).map(|text| crate_names(&text)).unwrap_or_default() {
                names.entry(name).or_insert_with(|| dir.clone());
            }
            crates.insert(dir, Crate { src, root });
        }
        Self { crates, names }
    }

    /// Resolves one import of the file at `from`.
    pub fn resolve(&self, index: &TreeIndex, from: &RepoPath, import: &RustImport) -> RustTarget {
        let written = import.path.join("::");
        let last = import.path.last().cloned().unwrap_or_default();
        let unresolved = |reason: String| RustTarget {
            written: written.clone(),
            resolution: Resolution::Unresolved { reason },
            names: Vec::new(),
        };
        let Some(first) = import.path.first() else {
            return unresolved("an empty use path".to_owned());
        };
        if STANDARD.contains(&first.as_str()) {
            return RustTarget {
                written: written.clone(),
                resolution: Resolution::Builtin { ecosystem: Ecosystem::Rust, name: first.clone() },
                names: Vec::new(),
            };
        }
        let here = self.place(from);
        // The module the path starts from, and the segments left to read.
        let (krate, mut module, rest): (Option<&Crate>, Vec<String>, &[String]) =
            match (first.as_str(), &here) {
                ("crate", Some((krate, _))) => (Some(*krate), Vec::new(), &import.path[1..]),
                ("self", Some((krate, m))) => (Some(*krate), m.clone(), &import.path[1..]),
                ("super", Some((krate, m))) => {
                    let mut m = m.clone();
                    let mut rest = &import.path[..];
                    while rest.first().is_some_and(|s| s == "super") {
                        if m.pop().is_none() {
                            return unresolved(format!("{written} climbs above its crate root"));
                        }
                        rest = &rest[1..];
                    }
                    (Some(*krate), m, rest)
                }
                ("crate" | "self" | "super", None) => {
                    return unresolved(format!("{written}: the file belongs to no crate's src/"));
                }
                // The 2018 edition's uniform paths: a child module of the file's own module.
                (name, Some((krate, m)))
                    if module_file(index, krate, &[&m[..], &[name.to_owned()]].concat())
                        .is_some() =>
                {
                    (Some(*krate), m.clone(), &import.path[..])
                }
                (name, _) => match self.names.get(name).and_then(|d| self.crates.get(d)) {
                    Some(other) => (Some(other), Vec::new(), &import.path[1..]),
                    None => {
                        return RustTarget {
                            written: written.clone(),
                            resolution: Resolution::Package {
                                ecosystem: Ecosystem::Cargo,
                                name: name.to_owned(),
                            },
                            names: Vec::new(),
                        };
                    }
                },
            };
        let Some(krate) = krate else { return unresolved(format!("{written}: no crate")) };
        let mut read = 0;
        for segment in rest {
            let mut next = module.clone();
            next.push(segment.clone());
            if module_file(index, krate, &next).is_none() {
                break;
            }
            module = next;
            read += 1;
        }
        let Some(file) = module_file(index, krate, &module) else {
            return unresolved(format!("{written}: no module file for it"));
        };
        let Ok(path) = RepoPath::new(&file) else {
            return unresolved(format!("{written}: not a repository path"));
        };
        // `mod x;` must find its file; so must a glob or a path read to its end.
        let whole = read == rest.len();
        if import.declares && !whole {
            return unresolved(format!("mod {last}: no module file for it"));
        }
        RustTarget { written, resolution: Resolution::module(path), names: vec![(last, whole)] }
    }

    /// The crate a file belongs to and its module path, when it sits under a crate's `src/`.
    fn place(&self, from: &RepoPath) -> Option<(&Crate, Vec<String>)> {
        let path = from.as_str();
        let mut dir = from.parent();
        while let Some(d) = dir {
            if let Some(krate) = self.crates.get(d.as_str()) {
                return module_of(krate, path).map(|m| (krate, m));
            }
            dir = d.parent();
        }
        let krate = self.crates.get("")?;
        module_of(krate, path).map(|m| (krate, m))
    }
}

/// The file of the module `module` (segments below the crate root) of `krate`.
fn module_file(index: &TreeIndex, krate: &Crate, module: &[String]) -> Option<String> {
    if module.is_empty() {
        return krate.root.clone();
    }
    let base = join(&krate.src, &module.join("/"));
    [format!("{base}.rs"), format!("{base}/mod.rs")].into_iter().find(|f| index.is_file(f))
}

/// The module path of `path` in `krate`: `src/a/b.rs` is `a::b`; the crate root is empty.
fn module_of(krate: &Crate, path: &str) -> Option<Vec<String>> {
    let below = path.strip_prefix(&krate.src)?.strip_prefix('/')?;
    let below = below.strip_suffix(".rs")?;
    let mut segments: Vec<String> = below.split('/').map(str::to_owned).collect();
    match segments.as_slice() {
        [only] if only == "lib" || only == "main" => return Some(Vec::new()),
        [bin, _] if bin == "bin" => return Some(Vec::new()),
        _ => {}
    }
    if segments.last().is_some_and(|s| s == "mod") {
        segments.pop();
    }
    Some(segments)
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// The names a crate is used by: `[package] name` and `[lib] name`, `-` read as `_`.
fn crate_names(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut section = "";
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if !matches!(section, "[package]" | "[lib]") {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim().trim_matches('"').trim_matches('\'');
        if !value.is_empty() && !value.contains(['"', '\'', ' ']) {
            names.push(value.replace('-', "_"));
        }
    }
    names
}
