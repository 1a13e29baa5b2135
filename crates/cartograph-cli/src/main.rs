//! The `cartograph` binary: parses arguments, calls the library crates, prints.
//!
//! Exit codes: 0 success; 1 a `--fail-on` condition met; 2 bad usage or bad input. Errors are one
//! sentence on stderr that never holds an absolute path.

mod args;
mod commands;
mod output;
mod terminal;
mod trees;

use std::process::ExitCode;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = cartograph_diagnostics::parse_args::<args::Cli>();
    cartograph_diagnostics::init_from_env();
    match commands::run(cli) {
        Ok(code) => code,
        Err(error) => {
            cartograph_diagnostics::stderr_line(&format!("error: {error}"));
            ExitCode::from(2)
        }
    }
}
