//! The registry of recognisers: one row per recogniser file, the source of `cartograph
//! recognisers` and of the documentation.

use cartograph_core::{EdgeKind, Language};

/// One recogniser: what it is, where it lives, what it reads and what edges it yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recogniser {
    /// Stable name, e.g. `fastapi`.
    pub name: &'static str,
    /// The file that implements it, or the folder (ending in `/`) that holds its syntax half
    /// (`mod.rs`) and its link half (`link.rs`), relative to `crates/cartograph-extract/src/recognise/`.
    pub file: &'static str,
    pub languages: &'static [Language],
    pub edges: &'static [EdgeKind],
    /// One line: what it recognises.
    pub summary: &'static str,
}

/// Every recogniser of every family, in name order.
pub fn all() -> Vec<&'static Recogniser> {
    let mut all: Vec<&'static Recogniser> = [
        super::calls::RECOGNISERS,
        super::env::RECOGNISERS,
        super::js_routes::RECOGNISERS,
        super::py_routes::RECOGNISERS,
        super::rust_routes::RECOGNISERS,
        super::tables::RECOGNISERS,
    ]
    .into_iter()
    .flatten()
    .collect();
    all.sort_by_key(|r| r.name);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_files_exist() {
        let all = all();
        assert!(all.windows(2).all(|w| w[0].name < w[1].name), "recogniser names must be unique");
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/recognise");
        for r in all {
            let found = match r.file.strip_suffix('/') {
                Some(folder) => base.join(folder).join("mod.rs").is_file(),
                None => base.join(r.file).is_file(),
            };
            assert!(found, "{} names a missing file or folder {}", r.name, r.file);
            assert!(!r.languages.is_empty() && !r.edges.is_empty() && !r.summary.is_empty());
        }
    }
}
