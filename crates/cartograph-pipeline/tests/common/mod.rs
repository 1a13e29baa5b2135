//! Shared by the pipeline's integration tests: analyse a small tree written to a temporary folder.

use cartograph_pipeline::{Analysis, AnalysisOptions, analyse_tree};

/// The data-driven tests' `check!(args…)`: snapshots the text of the test file's
/// `described(args…)` (an insta snapshot in `tests/snapshots/`, named after the test, which a
/// helper function could not do) and returns the value the test reads further.
#[allow(unused_macros)]
macro_rules! check {
    ($($arg:expr),+ $(,)?) => {{
        let (facts, value) = described($($arg),+);
        insta::assert_snapshot!(facts);
        value
    }};
}

/// Writes `(path, text)` files under a fresh temporary folder and analyses it with the defaults.
pub fn analyse_files(files: &[(&str, &str)]) -> Analysis {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let full = dir.path().join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&full, text).expect("write");
    }
    analyse_tree(dir.path(), &AnalysisOptions::default()).expect("analysis")
}
