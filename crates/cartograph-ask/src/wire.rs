//! The chat-completions wire format (decision 0001 rule 7, decision 0003 rule 1): the request body
//! this crate builds byte for byte, and the reading of the response envelope.
//!
//! The request is one system message (a compile-time constant stating the contract) and one user
//! message (a fixed question plus the rendered bundle), `temperature: 0`, `max_completion_tokens`,
//! `stream: false` and a strict `json_schema` response format. Nothing else: no repository name,
//! no timestamp, no tool version, no identity.
//!
//! [`ChatRequest`] and [`ChatResponse`] have hand-written `Debug` that print no body.

use std::fmt;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::bundle::EvidenceBundle;
use crate::endpoint::Endpoint;
use crate::select::Change;

/// Changes whenever the system message, the question, the rendering or the response schema
/// changes; part of the cache key, so a new prompt never reuses an old answer.
pub const PROMPT_VERSION: &str = "cartograph-ask-prompt/1";

/// The response format's name.
pub const SCHEMA_NAME: &str = "cartograph_answer";

/// Decision 0001 rule 7.
pub const MAX_COMPLETION_TOKENS: u32 = 2048;

/// The system message: the contract, fixed at compile time.
pub const SYSTEM_PROMPT: &str = "You explain one change to a software architecture graph for a code reviewer, using only \
the evidence you are given.\n\
The user message names an evidence bundle by its id and lists its edges e1, e2, ...; e1 is the \
changed edge. Each edge has a kind, from, to, evidence, provenance, confidence and location.\n\
Rules:\n\
1. Every item you write must cite at least one edge.\n\
2. A citation gives the bundle id exactly as shown, the edge id (e1, e2, ...) and a quotation \
copied exactly, character for character, from that edge's evidence line. Quote at least 12 \
characters, or the whole evidence when it is shorter. Never quote the kind, from, to, provenance, \
confidence or location lines, only evidence.\n\
3. Do not invent an edge, and do not cite an edge that is not in the bundle.\n\
4. Do not describe anything that is not in the evidence. If the evidence does not say why or how, \
say that it is unknown rather than guessing.\n\
5. Write two to five short items, plain sentences, no Markdown.\n\
Answer only with the JSON object the response schema describes.";

/// The question asked about every bundle: fixed text plus the change and the finding kinds
/// (which come from a fixed vocabulary).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question(String);

impl Question {
    pub fn for_edge(change: Change, findings: &[String]) -> Self {
        let mut text = format!(
            "Explain what the changed edge e1 ({}) means for this codebase's architecture: what it \
connects, what depends on it, and what a reviewer should check.",
            change.as_str()
        );
        let kinds: Vec<&str> = findings
            .iter()
            .map(String::as_str)
            .filter(|k| k.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'))
            .collect();
        if !kinds.is_empty() {
            text.push_str(&format!(" Cartograph's findings on it: {}.", kinds.join(", ")));
        }
        Self(text)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The strict response schema (decision 0003 rule 1, with the bundle id on every citation per
/// rule 3): every property required, every object closed.
pub fn answer_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "text": { "type": "string" },
                        "citations": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "bundle": { "type": "string" },
                                    "edge": { "type": "string" },
                                    "text": { "type": "string" }
                                },
                                "required": ["bundle", "edge", "text"],
                                "additionalProperties": false
                            }
                        }
                    },
                    "required": ["text", "citations"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["items"],
        "additionalProperties": false
    })
}

/// A request body, built once and sent as is.
#[derive(Clone, PartialEq, Eq)]
pub struct ChatRequest {
    body: String,
}

impl fmt::Debug for ChatRequest {
    /// The body's length only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatRequest").field("body_bytes", &self.body.len()).finish_non_exhaustive()
    }
}

impl ChatRequest {
    /// The request for one bundle.
    pub fn build(endpoint: &Endpoint, bundle: &EvidenceBundle, question: &Question) -> Self {
        let user = format!("{}\n\n{}", question.as_str(), bundle.render());
        let body = json!({
            "model": endpoint.model(),
            "messages": [
                { "role": "system", "content": SYSTEM_PROMPT },
                { "role": "user", "content": user }
            ],
            "temperature": 0,
            "max_completion_tokens": MAX_COMPLETION_TOKENS,
            "stream": false,
            "response_format": {
                "type": "json_schema",
                "json_schema": {
                    "name": SCHEMA_NAME,
                    "strict": true,
                    "schema": answer_schema()
                }
            }
        });
        Self { body: body.to_string() }
    }

    /// The exact bytes sent.
    pub fn body(&self) -> &str {
        &self.body
    }
}

/// Why a 2xx response carries no usable answer content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("the provider's response was not JSON")]
    NotJson,
    #[error("the provider's response had no answer message")]
    NoMessage,
    #[error("the provider did not finish its answer ({0})")]
    Unfinished(FinishReason),
}

/// `finish_reason` when it is not `stop`, as one of a fixed set of words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    Length,
    ContentFilter,
    ToolCalls,
    Missing,
    Other,
}

impl fmt::Display for FinishReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FinishReason::Length => "finish_reason length: the token limit was reached",
            FinishReason::ContentFilter => "finish_reason content_filter",
            FinishReason::ToolCalls => "finish_reason tool_calls",
            FinishReason::Missing => "no finish_reason",
            FinishReason::Other => "an unexpected finish_reason",
        })
    }
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    finish_reason: Option<String>,
    #[serde(default)]
    message: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    content: Option<String>,
}

/// The answer content of a successful response.
#[derive(Clone, PartialEq, Eq)]
pub struct ChatResponse {
    content: String,
}

impl fmt::Debug for ChatResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatResponse")
            .field("content_bytes", &self.content.len())
            .finish_non_exhaustive()
    }
}

impl ChatResponse {
    /// Reads `choices[0]`: `finish_reason` must be `stop` and `message.content` a string.
    pub fn parse(body: &str) -> Result<Self, EnvelopeError> {
        let value: Value = serde_json::from_str(body).map_err(|_| EnvelopeError::NotJson)?;
        let envelope: Envelope =
            serde_json::from_value(value).map_err(|_| EnvelopeError::NoMessage)?;
        let choice = envelope.choices.into_iter().next().ok_or(EnvelopeError::NoMessage)?;
        match choice.finish_reason.as_deref() {
            Some("stop") => {}
            Some("length") => return Err(EnvelopeError::Unfinished(FinishReason::Length)),
            Some("content_filter") => {
                return Err(EnvelopeError::Unfinished(FinishReason::ContentFilter));
            }
            Some("tool_calls") => return Err(EnvelopeError::Unfinished(FinishReason::ToolCalls)),
            Some(_) => return Err(EnvelopeError::Unfinished(FinishReason::Other)),
            None => return Err(EnvelopeError::Unfinished(FinishReason::Missing)),
        }
        let content = choice.message.and_then(|m| m.content).ok_or(EnvelopeError::NoMessage)?;
        Ok(Self { content })
    }

    /// The model's message: the answer document, still unvalidated.
    pub fn content(&self) -> &str {
        &self.content
    }
}

/// The `error.type` of an error body, as one of the types providers document (anything else is
/// `other`): the provider's message is never read.
pub fn error_type(body: &str) -> &'static str {
    #[derive(Deserialize)]
    struct ErrorBody {
        error: Option<ErrorField>,
    }
    #[derive(Deserialize)]
    struct ErrorField {
        #[serde(rename = "type", default)]
        kind: Option<Value>,
    }
    let kind = serde_json::from_str::<ErrorBody>(body)
        .ok()
        .and_then(|b| b.error)
        .and_then(|e| e.kind)
        .and_then(|k| k.as_str().map(str::to_owned));
    match kind.as_deref() {
        Some("invalid_request_error") => "invalid_request_error",
        Some("authentication_error") => "authentication_error",
        Some("permission_error") => "permission_error",
        Some("not_found_error") => "not_found_error",
        Some("rate_limit_error") | Some("rate_limit_exceeded") => "rate_limit_error",
        Some("insufficient_quota") => "insufficient_quota",
        Some("server_error") | Some("api_error") | Some("internal_server_error") => "server_error",
        Some(_) => "other",
        None => "none",
    }
}
