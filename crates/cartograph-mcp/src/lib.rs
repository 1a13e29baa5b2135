//! The Cartograph MCP server: `map`, `trace`, `blast`, `diff`, `check` and `evidence` over stdio
//! for the one repository a session was granted at launch (decision 0002).
//!
//! Layers, outermost first: [`server`] registers the tools with rmcp and runs each query on a
//! blocking thread; [`tools`] answers a query — authorize every named tree through the session's
//! [`grant::Grant`] first, then load the analyses, then build the same report documents as the
//! CLI through the query layer they share (`cartograph-query`), fitted to the query's byte budget
//! by [`budget`] (what each document gives up first: [`cuts`]) and wrapped in the envelope of
//! [`answer`], which names the commit or content fingerprint it was computed from; [`session`]
//! holds the grant and the session's caches (one content-addressed fact cache, and whole analyses
//! per tree and content stamp) and counts every file read, so a test can prove a refused query
//! read nothing; [`grant`] is the session's authorization, and the query layer only ever sees
//! sources the grant opened.

pub mod answer;
pub mod budget;
pub mod cuts;
pub mod grant;
pub mod server;
pub mod session;
pub mod tools;

pub use server::Cartograph;
pub use session::{Session, SessionTree};

use std::sync::Arc;

use cartograph_pipeline::AnalysisOptions;

use crate::grant::Grant;
use rmcp::ServiceExt;

/// Serves one session over stdin/stdout until stdin closes: the whole of `cartograph-mcp` (and of
/// a `cartograph mcp` subcommand) once the grant is built. Errors are one sentence naming no path.
pub fn serve_stdio(grant: Grant, options: AnalysisOptions) -> Result<(), String> {
    let server = Cartograph::new(Arc::new(Session::new(grant, options)));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime ({})", e.kind()))?;
    runtime.block_on(async move {
        let running = server
            .serve((tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|_| "the MCP session could not start".to_owned())?;
        running.waiting().await.map_err(|_| "the MCP session ended abnormally".to_owned())?;
        Ok(())
    })
}
