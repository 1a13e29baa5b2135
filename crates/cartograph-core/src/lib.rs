//! The Cartograph domain model: nodes, edges, evidence, provenance, confidence, repository-relative
//! locations and refusals.
//!
//! This crate performs no I/O and depends on no other Cartograph crate. Every other crate speaks in
//! these types; the JSON documents are separate structs in `cartograph-report`, converted explicitly,
//! so a change here cannot silently change the public contract.

pub mod echo;
mod edge;
mod location;
mod node;
mod refusal;
mod route;
mod secret;
mod share;

pub use edge::{Confidence, Edge, EdgeKind, Evidence, Provenance};
pub use location::{PathError, RepoPath, SourceLocation};
pub use node::{Ecosystem, Handler, Language, Node, NodeAttrs, NodeKey, NodeKind};
pub use refusal::{Refusal, RefusalKind};
pub use route::{HttpMethod, RouteTemplate, Segment, TemplateMatch};
pub use secret::Secret;
pub use share::TextPool;
