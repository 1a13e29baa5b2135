//! The registry of recognisers: one row per recogniser file, the source of `cartograph
//! recognisers` and of the documentation.

use cartograph_core::{EdgeKind, Language};

/// One recogniser: what it is, where it lives, what it reads and what edges it yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recogniser {
    /// Stable name, e.g. `fastapi`.
    pub name: &'static str,
    /// The file that implements it, relative to `crates/cartograph-extract/src/recognise/`.
    pub file: &'static str,
    pub languages: &'static [Language],
    pub edges: &'static [EdgeKind],
    /// One line: what it recognises.
    pub summary: &'static str,
}

/// Every recogniser, in name order.
pub const RECOGNISERS: &[Recogniser] = &[];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_names_existing_files() {
        assert!(RECOGNISERS.windows(2).all(|w| w[0].name < w[1].name), "keep RECOGNISERS sorted");
        let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/recognise");
        for r in RECOGNISERS {
            assert!(base.join(r.file).is_file(), "{} names a missing file {}", r.name, r.file);
            assert!(!r.languages.is_empty() && !r.edges.is_empty() && !r.summary.is_empty());
        }
    }
}
