//! Diff documents (`cartograph diff --json`, read by `cartograph-ask` and `cartograph report`):
//! the reader, then what a read document feeds: the Markdown report, the JSON writer and the MCP
//! answer's bounds.
#![no_main]

use cartograph_fuzz::text;
use cartograph_mcp::tools::bound_diff;
use cartograph_report::diff::DiffDocument;
use cartograph_report::diff_markdown::{DiffMarkdownOptions, render_diff};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut doc) = DiffDocument::from_json(&text(data)) else { return };
    let _ = render_diff(&doc, &DiffMarkdownOptions::default());
    let json = doc.to_json();
    let _ = DiffDocument::from_json(&json);
    let _ = bound_diff(&mut doc, 2, 2);
    let _ = render_diff(&doc, &DiffMarkdownOptions::default());
});
