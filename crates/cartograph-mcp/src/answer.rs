//! The envelope every tool answers with, and the tool result it travels in.
//!
//! An answer is summary first: `tool`, a one-sentence `summary`, `computed_from` (the trees it was
//! computed from: a revision's commit, or a directory's content fingerprint — never a path),
//! `max_bytes` (the budget it was fitted to), `truncated` (every list that is not whole: shown,
//! omitted, total and what cut it), then `document`. Its schema is
//! `schemas/mcp-answer.schema.json`.
//!
//! The budget is measured on what the client receives for the call: the serialized
//! `CallToolResult` — the answer as JSON text in a text block *and* the same answer as structured
//! content — built here by [`tool_result`], the one function both the budget and the server use.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use crate::budget::Truncation;

/// The budget of an answer when the client names none: the serialized tool result, in bytes.
pub const DEFAULT_MAX_BYTES: usize = 40_000;
/// The smallest and largest budget a client may ask for.
pub const MIN_MAX_BYTES: usize = 1_000;
pub const MAX_MAX_BYTES: usize = 1_000_000;

/// The envelope of every answer, summary first.
#[derive(Debug, Serialize)]
pub struct Answer<'a, D> {
    pub tool: &'static str,
    pub summary: String,
    pub computed_from: &'a [ComputedFrom],
    pub max_bytes: usize,
    pub truncated: Vec<Truncation>,
    pub document: &'a D,
}

/// Where a tree's analysis came from: enough for a client to tell whether two answers describe
/// the same content, and never a machine path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeOrigin {
    /// `directory` or `revision`.
    pub source: &'static str,
    /// How the tree is named: a directory's own name, or `REV (commit)` as the client wrote REV.
    pub label: String,
    /// For a revision: the commit it resolved to, full hex.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// For a directory: `blake3:` and 32 hex digits, a hash of the path and content of every file
    /// the analysis read. The same content gives the same fingerprint in any session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_fingerprint: Option<String>,
}

/// One tree an answer was computed from, and its part in the query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComputedFrom {
    /// `tree` for a one-tree query; `base` or `head` for a diff.
    pub role: &'static str,
    #[serde(flatten)]
    pub origin: TreeOrigin,
}

/// An answer as the client receives it, and its size.
#[derive(Debug, Clone)]
pub struct Reply {
    pub result: CallToolResult,
    /// The serialized size of `result`: what the budget bounds.
    pub bytes: usize,
}

impl Reply {
    /// Serialises an answer into its tool result: the envelope as JSON text (field order kept,
    /// summary first) and as structured content.
    pub fn new<D: Serialize>(answer: &Answer<'_, D>) -> Result<Self, String> {
        let text = serde_json::to_string(answer).map_err(|_| internal())?;
        let value = serde_json::to_value(answer).map_err(|_| internal())?;
        let result = tool_result(text, value);
        let bytes = result_bytes(&result)?;
        Ok(Self { result, bytes })
    }
}

/// The tool result of a successful answer: `text` in one text block, `value` as structured
/// content.
pub fn tool_result(text: String, value: serde_json::Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// The size of a tool result as it is sent: its compact JSON serialization (the `result` member
/// of the JSON-RPC response).
pub fn result_bytes(result: &CallToolResult) -> Result<usize, String> {
    serde_json::to_vec(result).map(|bytes| bytes.len()).map_err(|_| internal())
}

pub fn internal() -> String {
    "the answer could not be serialised".to_owned()
}

/// The budget a client asked for, or the default; one sentence when it is out of range.
pub fn max_bytes(asked: Option<usize>) -> Result<usize, String> {
    match asked {
        None => Ok(DEFAULT_MAX_BYTES),
        Some(n) if n < MIN_MAX_BYTES => {
            Err(format!("`max_bytes` must be at least {MIN_MAX_BYTES}"))
        }
        Some(n) if n > MAX_MAX_BYTES => Err(format!("`max_bytes` must be at most {MAX_MAX_BYTES}")),
        Some(n) => Ok(n),
    }
}
