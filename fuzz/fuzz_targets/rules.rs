//! The rules file, `cartograph.toml`, and its baseline: the reader (TOML, rule kinds, selectors,
//! globs), then the policy evaluated on a real tree, judged against the baseline, and written as
//! the check document, its Markdown and a new baseline.
//!
//! The input is the rules file; after a NUL byte, the rest is the baseline's JSON.
#![no_main]

use std::path::PathBuf;

use cartograph_fuzz::{fixture_analysis, split, text};
use cartograph_query::LoadedTree;
use cartograph_query::config::parse_config;
use cartograph_query::rules::{Rules, baseline_document, check_document};
use cartograph_report::rules::{BaselineDocument, render_check};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let pieces = split(data, 2);
    let config = parse_config(&text(pieces[0]));
    let baseline_text = pieces.get(1).map(|p| text(p).into_owned());
    let baseline = baseline_text.as_deref().and_then(|t| BaselineDocument::from_json(t).ok());
    let Ok(config) = config else { return };
    let rules = Rules {
        policy: config.policy,
        baseline_path: PathBuf::from(&config.baseline),
        baseline_name: config.baseline,
        baseline,
        baseline_text,
    };
    let tree = LoadedTree {
        analysis: fixture_analysis().clone(),
        source: "directory",
        label: "head".to_owned(),
    };
    let doc = check_document(&tree, &rules);
    let _ = render_check(&doc);
    let _ = baseline_document(&tree, &rules);
});
