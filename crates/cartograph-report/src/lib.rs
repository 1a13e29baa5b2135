//! The public documents: JSON structs, their schemas, Markdown rendering, and plain text for a
//! terminal ([`text`]).
//!
//! Core types describe the domain; the documents here are their own structs, converted explicitly
//! ([`snapshot::SnapshotDocument::from_analysis`], [`summary::SummaryDocument::from_analysis`]), so
//! a refactor elsewhere cannot silently change the contract. Every document carries `schema`,
//! `schema_version` and `tool_version`, has a JSON Schema in `schemas/` (embedded here), and is
//! written deterministically: fields in a fixed order, collections sorted by identity, two-space
//! indentation and a final newline.

pub mod blast;
pub mod cache_stats;
pub mod coverage;
pub mod diff;
pub mod diff_markdown;
pub mod explain;
pub mod map;
pub mod markdown;
pub mod rules;
pub mod sarif;
pub mod schema;
mod short_path;
pub mod snapshot;
pub mod summary;
pub mod text;
pub mod trace;
pub mod words;

use serde::Serialize;

/// The version of the Cartograph that wrote a document.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Writes a document to `out` as [`to_json`] would give it, byte for byte, without holding the
/// whole text in memory (a large tree's snapshot is hundreds of megabytes of JSON).
pub fn write_json<T: Serialize>(document: &T, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, document).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// Serialises a document the one way every document is written: pretty JSON plus a newline.
pub fn to_json<T: Serialize>(document: &T) -> String {
    // Documents are plain data (strings, numbers, maps with string keys); serialising them
    // cannot fail.
    let mut text = serde_json::to_string_pretty(document).unwrap_or_else(|_| String::from("{}"));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_document_is_the_serialised_one_byte_for_byte() {
        let document = serde_json::json!({
            "schema": "snapshot",
            "nodes": [{"id": "module:a.py", "name": "ä \"quoted\" \\ path"}],
            "edges": [],
            "stats": {"files": 1, "ratio": 0.5, "none": null}
        });
        let mut streamed = Vec::new();
        write_json(&document, &mut streamed).expect("writes to memory");
        assert_eq!(String::from_utf8(streamed).expect("utf-8"), to_json(&document));
    }
}
