//! The public documents: JSON structs, their schemas, and Markdown rendering.
//!
//! Core types describe the domain; the documents here are their own structs, converted explicitly
//! ([`snapshot::SnapshotDocument::from_analysis`], [`summary::SummaryDocument::from_analysis`]), so
//! a refactor elsewhere cannot silently change the contract. Every document carries `schema`,
//! `schema_version` and `tool_version`, has a JSON Schema in `schemas/` (embedded here), and is
//! written deterministically: fields in a fixed order, collections sorted by identity, two-space
//! indentation and a final newline.

pub mod blast;
pub mod cache_stats;
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
pub mod trace;
pub mod words;

use serde::Serialize;

/// The version of the Cartograph that wrote a document.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Serialises a document the one way every document is written: pretty JSON plus a newline.
pub fn to_json<T: Serialize>(document: &T) -> String {
    // Documents are plain data (strings, numbers, maps with string keys); serialising them
    // cannot fail.
    let mut text = serde_json::to_string_pretty(document).unwrap_or_else(|_| String::from("{}"));
    text.push('\n');
    text
}
