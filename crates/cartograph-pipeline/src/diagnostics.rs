//! Diagnostics for the binaries: `tracing` events go to stderr, and only when asked for with
//! `CARTOGRAPH_LOG` (a filter such as `debug` or `cartograph_pipeline=debug`). stdout stays for
//! documents and, in the MCP server, for JSON-RPC alone. Events name phases, counts and
//! repository-relative paths, never an absolute path or file content.

/// Installs the stderr subscriber when `CARTOGRAPH_LOG` is set; does nothing otherwise.
pub fn init_from_env() {
    let Ok(filter) = std::env::var("CARTOGRAPH_LOG") else { return };
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .try_init();
}
