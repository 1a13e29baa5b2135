//! Every integration test of this crate, as one test binary: one link instead of one per
//! file (the first build and the build directory are a fraction of what they were). Each
//! file below is a module; `cargo test -p cartograph-mcp -- <file>::` runs one of them.

mod common;
#[path = "../../../tests/support/leaks.rs"]
mod leaks;

mod budget;
mod stdio;
mod tools;
