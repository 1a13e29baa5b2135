//! Every integration test of this crate, as one test binary: one link instead of one per
//! file (the first build and the build directory are a fraction of what they were). Each
//! file below is a module; `cargo test -p cartograph-ask -- <file>::` runs one of them.

mod common;
#[path = "../../../tests/support/dependency_graph.rs"]
mod dependency_graph;
#[path = "../../../tests/support/leaks.rs"]
mod leaks;

mod attach;
mod binary;
mod cache;
mod containment;
mod credentials;
mod key_command;
mod network_limits;
mod redaction;
mod request;
mod responses;
mod transport;
