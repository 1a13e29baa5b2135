//! Every integration test of this crate, as one test binary: one link instead of one per
//! file (the first build and the build directory are a fraction of what they were). Each
//! file below is a module; `cargo test -p cartograph-pipeline -- <file>::` runs one of them.

#[macro_use]
mod common;

mod cache;
mod calls;
mod components;
mod env;
mod git;
mod js_routes;
mod orm_writes;
mod prisma;
mod py_routes;
mod rust;
mod sources;
mod tables;
