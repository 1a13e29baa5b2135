//! Every integration test of this crate, as one test binary: one link instead of one per
//! file (the first build and the build directory are a fraction of what they were). Each
//! file below is a module; `cargo test -p cartograph-cli -- <file>::` runs one of them.

mod common;
#[path = "../../../tests/support/dependency_graph.rs"]
mod dependency_graph;
#[path = "../../../tests/support/git.rs"]
mod git;
#[path = "../../../tests/support/leaks.rs"]
mod leaks;

mod canary;
mod cli;
mod contract;
mod diff;
mod expected_imports;
mod fullstack;
mod goldens;
mod hostile;
mod promises;
mod render;
mod rules;
mod shard;
mod text;
mod tidy;
