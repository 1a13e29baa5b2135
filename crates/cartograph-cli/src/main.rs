//! The `cartograph` binary: parses arguments, calls the library crates, prints.
//!
//! Exit codes: 0 success; 1 a `--fail-on` condition met; 2 bad usage or bad input. Errors are one
//! sentence on stderr that never holds an absolute path.

mod args;
mod commands;
mod output;
mod trees;

use std::process::ExitCode;

use clap::Parser;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    init_tracing();
    match commands::run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

/// Diagnostics go to stderr, and only when asked for with `CARTOGRAPH_LOG` (e.g. `debug`).
fn init_tracing() {
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
