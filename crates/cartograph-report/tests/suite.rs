//! Every integration test of this crate, as one test binary: one link instead of one per
//! file (the first build and the build directory are a fraction of what they were). Each
//! file below is a module; `cargo test -p cartograph-report -- <file>::` runs one of them.

#[path = "support/tree.rs"]
mod tree;

mod blast_trace_map;
mod diff_markdown;
mod diff_reading;
mod explanations;
mod explanations_markdown;
