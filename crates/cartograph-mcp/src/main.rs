//! The `cartograph-mcp` binary: `cartograph-mcp --grant ID --tree PATH [--tree PATH ...]`.
//!
//! The grant (one opaque identity and the trees it covers) comes from argv and is fixed before the
//! first request is read. stdout carries JSON-RPC only; diagnostics go to stderr, one sentence that
//! names no absolute path (with `CARTOGRAPH_LOG=debug`, the pipeline's timings too). The server
//! exits when stdin closes.

use std::process::ExitCode;

use cartograph_mcp::grant::Grant;
use cartograph_pipeline::AnalysisOptions;
use clap::Parser;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Serve Cartograph's map, trace, blast, diff and evidence tools over MCP (stdio) for the trees
/// granted here, and nothing else.
#[derive(Debug, Parser)]
#[command(name = "cartograph-mcp", version)]
struct Args {
    /// The session's repository identity: an opaque word chosen by whoever launches the server.
    #[arg(long, value_name = "ID")]
    grant: String,
    /// A tree the session may analyse (repeatable): a directory, relative to the working
    /// directory or absolute. When it is a git repository root, its revisions are granted too.
    #[arg(long = "tree", value_name = "PATH", required = true)]
    trees: Vec<String>,
    /// Worker threads for analysis (default: every core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let args = cartograph_diagnostics::parse_args::<Args>();
    cartograph_diagnostics::init_from_env();
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => {
            cartograph_diagnostics::stderr_line(&format!(
                "error: cannot read the current directory ({})",
                error.kind()
            ));
            return ExitCode::from(2);
        }
    };
    let grant = match Grant::new(&args.grant, &args.trees, &cwd) {
        Ok(grant) => grant,
        Err(error) => {
            cartograph_diagnostics::stderr_line(&format!("error: {error}"));
            return ExitCode::from(2);
        }
    };
    if args.threads == Some(0) {
        cartograph_diagnostics::stderr_line("error: --threads must be at least 1");
        return ExitCode::from(2);
    }
    let options = AnalysisOptions { threads: args.threads, ..AnalysisOptions::default() };
    match cartograph_mcp::serve_stdio(grant, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            cartograph_diagnostics::stderr_line(&format!("error: {message}"));
            ExitCode::from(1)
        }
    }
}
