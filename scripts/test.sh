#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test of the workspace.
# `.ci/run` calls exactly this script; README.md names it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test --workspace"
cargo test --workspace --locked
