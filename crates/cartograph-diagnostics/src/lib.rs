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
//! stdout stays for documents and, in the MCP server, for JSON-RPC alone.

mod redact;
mod writer;

pub use redact::{REDACTED, Redactor};
pub use writer::{RedactingMakeWriter, RedactingWriter};

/// Installs the global stderr subscriber, with every line redacted, and returns the redactor so a
/// binary can register a secret (an API key) with [`Redactor::register_secret`] before using it.
///
/// The filter comes from `CARTOGRAPH_LOG`; an unset or unreadable filter means `warn`. Calling it
/// twice keeps the first subscriber (the second call's redactor is then not the installed one; a
/// binary calls it once).
pub fn init_from_env() -> Redactor {
    let redactor = Redactor::new();
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
