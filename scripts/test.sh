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

# The GitHub Action (action/): actionlint over every workflow and the README quick-start, the
# action.yml structure check, and the harness that runs the action's steps against a fake GitHub
# API on loopback, with the cartograph binary the tests above built (only `npm ci` uses a network).
echo "== action/tests/run.sh"
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
# `cargo test` above built target/debug/cartograph; build it only if it is not there.
[ -x "$target_dir/debug/cartograph" ] || cargo build --locked -p cartograph-cli
CARTOGRAPH_BIN="$target_dir/debug/cartograph" action/tests/run.sh
