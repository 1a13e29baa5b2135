//! ASK: verified, cited explanations of the changed edges of a diff report.
//!
//! `cartograph-ask attach REPORT.json` reads a diff document written by `cartograph diff --json`,
//! selects its changed edges (those findings name first, most severe first; at most
//! `--max-edges`), builds one evidence bundle per edge, asks an OpenAI-compatible chat-completions
//! provider to explain it, checks every citation of the answer against the bundle, and writes the
//! document back with an `explanations` section (diff schema 1.1). Without `-o` the JSON goes to
//! standard output; `--markdown FILE` also writes the Markdown report, where every quotation is
//! tied to its bundle edge, and a refused or unavailable explanation shows the raw evidence.
//!
//! The rules (decisions 0001, 0003, 0004 and 0007), and where each is kept:
//! - This is the only crate with an HTTP client ([`transport`]: ureq over rustls, https only except
//!   a loopback base URL, no redirects, a global timeout, no proxy unless `--proxy` is given).
//!   Neither the `cartograph` binary nor the MCP server can reach it (a test reads
//!   `cargo metadata` to prove it).
//! - The model only explains evidence that already exists. A bundle ([`bundle`]) holds derived
//!   facts only — never source text, never an absolute path — and the answer is validated
//!   ([`answer`]): every item cited, every citation carrying the bundle's scope id, naming an edge
//!   of that bundle and quoting its evidence byte for byte. Any failure refuses the whole answer.
//! - The key comes from `--api-key-stdin`, `--api-key-env NAME` or the OS keychain
//!   ([`credential`], [`keychain`]); never from argv or a file. It is held as a
//!   [`cartograph_core::Secret`], registered with the log redactor before any request, exposed only
//!   where the `Authorization` header is written, and appears in no error, `Debug` output, log or
//!   report.
//! - No key means degraded mode: every selected edge is `unavailable`, nothing is sent, exit 0.
//!   Provider failures and invalid answers make that edge `unavailable` or `refused`; exit 0.
//! - Provider bodies are never logged; errors carry status codes and fixed sentences only.

pub mod answer;
pub mod attach;
pub mod bundle;
pub mod cache;
pub mod credential;
pub mod endpoint;
pub mod keychain;
pub mod keycmd;
pub mod provider;
pub mod retry;
pub mod select;
pub mod transport;
pub mod wire;
