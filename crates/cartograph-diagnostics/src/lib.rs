//! Diagnostics for Cartograph's binaries: `tracing` events go to stderr, filtered by
//! `CARTOGRAPH_LOG` (a filter such as `debug` or `cartograph_pipeline=debug`; `warn` when unset),
//! and every line passes through a [`Redactor`] before it is written.
//!
//! Redaction is installed once, first thing in `main`, before any file is read or any request is
//! made, so it holds for code that has not been written yet rather than at each call site. It is
//! defence in depth: events are written to name phases, counts and repository-relative paths, and
//! request bodies are never logged at all. What the redactor removes, in order, is listed on
//! [`Redactor::redact`].
//!
//! Lines a binary writes to stderr itself — an error, a note, a verdict — go through
//! [`stderr_line`], which redacts them with the installed redactor too: no binary writes to stderr
//! any other way (a tidy test rejects `eprintln!` outside this crate).
//!
//! stdout stays for documents and, in the MCP server, for JSON-RPC alone.

mod redact;
mod writer;

use std::io::Write as _;
use std::sync::OnceLock;

pub use redact::{REDACTED, Redactor};
pub use writer::{RedactingMakeWriter, RedactingWriter};

/// The redactor [`init_from_env`] installed, for [`stderr_line`].
static INSTALLED: OnceLock<Redactor> = OnceLock::new();

/// Installs the global stderr subscriber, with every line redacted, and returns the redactor so a
/// binary can register a secret (an API key) with [`Redactor::register_secret`] before using it.
///
/// The filter comes from `CARTOGRAPH_LOG`; an unset or unreadable filter means `warn`. Calling it
/// twice keeps the first subscriber (the second call's redactor is then not the installed one; a
/// binary calls it once).
pub fn init_from_env() -> Redactor {
    let redactor = INSTALLED.get_or_init(Redactor::new).clone();
    let filter = std::env::var("CARTOGRAPH_LOG")
        .ok()
        .and_then(|f| tracing_subscriber::EnvFilter::try_new(f).ok())
        .unwrap_or_else(|| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(RedactingMakeWriter::new(std::io::stderr, redactor.clone()))
        .with_ansi(false)
        .without_time()
        .try_init();
    redactor
}

/// Writes one line to stderr, redacted like every log line: the way a binary prints an error, a
/// note or a verdict. Before [`init_from_env`] the rules are a fresh redactor's (absolute paths and
/// key-shaped tokens are still taken out). A failed write is ignored, as `eprintln!`'s would panic.
pub fn stderr_line(line: &str) {
    let redacted = INSTALLED.get_or_init(Redactor::new).redact(line);
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{redacted}");
}

/// Parses the command line. Help and version print as clap prints them (they hold no argument
/// the user typed); a usage error — which quotes the offending argument, perhaps an absolute
/// path — is written line by line through [`stderr_line`], and the process exits with clap's code
/// (2).
pub fn parse_args<T: clap::Parser>() -> T {
    match T::try_parse() {
        Ok(parsed) => parsed,
        Err(error) => {
            use clap::error::ErrorKind;
            if matches!(
                error.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                error.exit();
            }
            for line in error.render().to_string().lines() {
                stderr_line(line);
            }
            std::process::exit(error.exit_code());
        }
    }
}
