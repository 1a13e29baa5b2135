//! The Cartograph MCP server: `map`, `trace`, `blast`, `diff` and `evidence` over stdio for the one
//! repository a session was granted at launch (ADR-0020).
//!
//! Layers, outermost first: [`server`] registers the tools with rmcp and runs each query on a
//! blocking thread; [`tools`] answers a query — authorize every named tree through the session's
//! [`cartograph_pipeline::grant::Grant`] first, then load the analyses, then build the same report
//! documents as the CLI, bounded; [`session`] holds the grant and the session's caches (one
//! content-addressed fact cache, and whole analyses per tree and content stamp) and counts every
//! file read, so a test can prove a refused query read nothing.

pub mod server;
pub mod session;
pub mod tools;

pub use server::Cartograph;
pub use session::{LoadedTree, Session};
