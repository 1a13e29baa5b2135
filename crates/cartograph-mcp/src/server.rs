//! The rmcp front: the six tools, their input schemas (from the argument types' doc comments) and
//! their descriptions. Each call runs its query on a blocking thread (analysis is synchronous and
//! parallel) and answers with the tool result the query built ([`crate::answer::tool_result`]:
//! structured content plus the same JSON as text, within the query's `max_bytes`); a refused or
//! failed query is a tool error (`isError: true`) whose one sentence names only what the client
//! sent.

use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

use crate::session::Session;
use crate::tools::{self, BlastArgs, CheckArgs, DiffArgs, EvidenceArgs, MapArgs, Reply, TraceArgs};

/// The MCP server of one session.
#[derive(Clone, Debug)]
pub struct Cartograph {
    session: Arc<Session>,
}

impl Cartograph {
    pub fn new(session: Arc<Session>) -> Self {
        Self { session }
    }

    /// The session this server answers for.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    async fn run<A: Send + 'static>(
        &self,
        args: A,
        query: fn(&Session, &A) -> Result<Reply, String>,
    ) -> CallToolResult {
        let session = Arc::clone(&self.session);
        let outcome = tokio::task::spawn_blocking(move || query(&session, &args)).await;
        match outcome {
            Ok(Ok(reply)) => reply.result,
            Ok(Err(message)) => CallToolResult::error(vec![ContentBlock::text(message)]),
            Err(_) => CallToolResult::error(vec![ContentBlock::text(
                "the query stopped before it answered",
            )]),
        }
    }
}

#[tool_router]
impl Cartograph {
    /// What is this system? Components (groups of modules) and the dependencies between them,
    /// HTTP routes, database tables, environment variables, external services and packages —
    /// each list bounded, most significant first. Every answer is {tool, summary,
    /// computed_from, max_bytes, truncated, document}: `computed_from` names the commit or the
    /// content fingerprint of the tree, the answer is at most `max_bytes` bytes (default 40000),
    /// and `truncated` says what was left out of each list. The document is Cartograph's map
    /// document.
    #[tool(annotations(read_only_hint = true))]
    async fn map(&self, Parameters(args): Parameters<MapArgs>) -> CallToolResult {
        self.run(args, tools::map).await
    }

    /// Dependency paths from a node (a file, directory, route, table, environment variable,
    /// package or node id), or between two nodes, through imports, calls, route handlers, table
    /// reads/writes and environment reads. Bounded by depth and path count. The document is
    /// Cartograph's trace document: each path a list of hops with the edge's evidence.
    #[tool(annotations(read_only_hint = true))]
    async fn trace(&self, Parameters(args): Parameters<TraceArgs>) -> CallToolResult {
        self.run(args, tools::trace).await
    }

    /// Blast radius: what a change to the targets can affect — every node that depends on them,
    /// by depth, grouped by component, with the path that reaches each. The document is
    /// Cartograph's blast document.
    #[tool(annotations(read_only_hint = true))]
    async fn blast(&self, Parameters(args): Parameters<BlastArgs>) -> CallToolResult {
        self.run(args, tools::blast).await
    }

    /// Architecture diff between two granted trees (or revisions of the granted repository):
    /// findings first (removed routes, calls to removed routes, new calls to routes across
    /// stacks or within one, new cycles, new tables and env vars, ...), then the
    /// added/removed/changed nodes, edges, refusals and
    /// cycles, each list cut to `limit` if given, then to fit `max_bytes` (raw lists first, then
    /// findings that are not high, high findings last). `truncated` says what was cut. The
    /// document is Cartograph's diff document.
    #[tool(annotations(read_only_hint = true))]
    async fn diff(&self, Parameters(args): Parameters<DiffArgs>) -> CallToolResult {
        self.run(args, tools::diff).await
    }

    /// Architecture rules: the tree checked against the rules file at its root
    /// (`cartograph.toml`) — every violation its baseline does not accept, as a finding naming
    /// the rule and the edges that break it (a transitive rule's whole path), and every baseline
    /// entry that no longer fires. Summary first; every violation of an error rule is listed, the
    /// rest bounded by `limit`. The document is Cartograph's check document.
    #[tool(annotations(read_only_hint = true))]
    async fn check(&self, Parameters(args): Parameters<CheckArgs>) -> CallToolResult {
        self.run(args, tools::check).await
    }

    /// One edge's evidence: for the edges of `kind` from node `from` to node `to`, the evidence
    /// sentence, provenance (how it was found), confidence (certain / likely / possible) and
    /// source location (file and line).
    #[tool(annotations(read_only_hint = true))]
    async fn evidence(&self, Parameters(args): Parameters<EvidenceArgs>) -> CallToolResult {
        self.run(args, tools::evidence).await
    }
}

#[tool_handler(
    name = "cartograph",
    version = "0.1.0",
    instructions = "Cartograph answers architecture questions (map, trace, blast, diff, check, evidence) about the trees granted to this session at launch. Name a tree as it was granted, or rev:REV for a revision of the granted git repository. Anything else is refused before it is read."
)]
impl ServerHandler for Cartograph {}
