//! MCP requests: one line of the stdio transport decoded as rmcp decodes it (a client JSON-RPC
//! message); a `tools/call` has its arguments decoded into the tool's argument type as rmcp's
//! `Parameters` does, and the query runs against a session granted the fixture trees
//! `tests/fixtures/rules/{base,head}` — authorization of the named trees, the bounds, target
//! resolution, and the answer.
#![no_main]

use std::sync::{Arc, OnceLock};

use cartograph_fuzz::{options, repository};
use cartograph_mcp::Session;
use cartograph_mcp::grant::Grant;
use cartograph_mcp::tools;
use libfuzzer_sys::fuzz_target;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonObject, JsonRpcMessage};
use serde::de::DeserializeOwned;

fn session() -> &'static Arc<Session> {
    static SESSION: OnceLock<Arc<Session>> = OnceLock::new();
    SESSION.get_or_init(|| {
        let base = repository().join("tests/fixtures/rules");
        let grant = Grant::new("fuzz", &["base".to_owned(), "head".to_owned()], &base)
            .expect("the fixture trees exist");
        Arc::new(Session::new(grant, options()))
    })
}

/// The arguments as rmcp's `Parameters<A>` decodes them: a missing object is an empty one.
fn args<A: DeserializeOwned>(arguments: Option<JsonObject>) -> Option<A> {
    serde_json::from_value(serde_json::Value::Object(arguments.unwrap_or_default())).ok()
}

fuzz_target!(|data: &[u8]| {
    let line = data.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(data);
    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(line) else { return };
    let JsonRpcMessage::Request(request) = message else { return };
    let ClientRequest::CallToolRequest(call) = request.request else { return };
    let session = session();
    let arguments = call.params.arguments;
    let _ = match call.params.name.as_ref() {
        "map" => args(arguments).map(|a| tools::map(session, &a)),
        "trace" => args(arguments).map(|a| tools::trace(session, &a)),
        "blast" => args(arguments).map(|a| tools::blast(session, &a)),
        "diff" => args(arguments).map(|a| tools::diff(session, &a)),
        "check" => args(arguments).map(|a| tools::check(session, &a)),
        "evidence" => args(arguments).map(|a| tools::evidence(session, &a)),
        _ => None,
    };
});
