//! Shared helpers of the MCP tests: a session over granted trees, an in-process rmcp client on a
//! duplex pipe, git with a fixed identity, and the envelope schema.

#![allow(dead_code)]
#[path = "../../../../tests/support/git.rs"]
pub mod git;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cartograph_mcp::grant::Grant;
use cartograph_mcp::{Cartograph, Session};
use cartograph_pipeline::AnalysisOptions;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::Value;

pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("workspace root")
}

pub fn session(trees: &[&str], base: &Path) -> Arc<Session> {
    let trees: Vec<String> = trees.iter().map(|t| (*t).to_owned()).collect();
    let grant = Grant::new("test-session", &trees, base).expect("grant");
    Arc::new(Session::new(grant, AnalysisOptions { threads: Some(2), ..Default::default() }))
}

pub struct Connected {
    pub client: RunningService<RoleClient, ()>,
    pub server: tokio::task::JoinHandle<()>,
}

pub async fn connect(session: Arc<Session>) -> Connected {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    let server = tokio::spawn(async move {
        let running = Cartograph::new(session).serve(server_io).await.expect("server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(client_io).await.expect("client connects");
    Connected { client, server }
}

impl Connected {
    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else { panic!("arguments must be an object") };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .expect("the call is answered")
    }

    pub async fn close(self) {
        self.client.cancel().await.expect("client closes");
        self.server.await.expect("server ends");
    }
}

pub fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect()
}

/// The envelope schema every answer must match.
pub fn answer_schema() -> &'static jsonschema::Validator {
    static VALIDATOR: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let text = std::fs::read_to_string(workspace().join("schemas/mcp-answer.schema.json"))
            .expect("schema file");
        let schema: Value = serde_json::from_str(&text).expect("schema json");
        jsonschema::meta::validate(&schema).expect("a valid schema");
        jsonschema::draft202012::new(&schema).expect("a schema")
    })
}

/// The size of a tool result as it travels: its compact JSON.
pub fn result_bytes(result: &CallToolResult) -> usize {
    serde_json::to_vec(result).expect("serialisable").len()
}

/// The answer's document, after checking the call succeeded, the envelope matches its schema, the
/// document its own, and the answer names no machine path.
pub fn document(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{}", text(result));
    let envelope = result.structured_content.clone().expect("structured content");
    let errors: Vec<String> = answer_schema()
        .iter_errors(&envelope)
        .map(|e| format!("{} {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    if envelope["tool"] != "evidence" {
        cartograph_report::schema::validate(&envelope["document"]).expect("a valid document");
    }
    let body = text(result);
    assert!(!body.contains(&*workspace().to_string_lossy()), "an absolute path in {body}");
    let value = result.structured_content.clone().expect("structured content");
    assert_eq!(serde_json::from_str::<Value>(&body).expect("text is JSON"), value);
    let keys: Vec<&str> = body
        .trim_start_matches('{')
        .split(",\"")
        .take(2)
        .map(|k| k.trim_matches('"').split('"').next().unwrap_or(""))
        .collect();
    assert_eq!(keys, ["tool", "summary"], "summary first");
    // The answer is within its budget, measured as the client received it.
    let budget = value["max_bytes"].as_u64().expect("max_bytes") as usize;
    assert!(result_bytes(result) <= budget, "{} bytes > {budget}", result_bytes(result));
    for note in value["truncated"].as_array().expect("truncated") {
        assert_eq!(
            note["total"].as_u64(),
            Some(note["shown"].as_u64().unwrap_or(0) + note["omitted"].as_u64().unwrap_or(0)),
            "{note}"
        );
    }
    value["document"].clone()
}

pub fn refusal(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "expected a refusal, got {}", text(result));
    let message = text(result);
    assert!(!message.contains(&*workspace().to_string_lossy()), "{message}");
    message
}
