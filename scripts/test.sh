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
# The evaluation-set scorer (bench/accuracy/score.py) on a hand-made application: no network and
# no cartograph run, only the Python standard library (3.11+, for tomllib).
echo "== bench/accuracy tests"
if python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  (cd bench/accuracy && PYTHONDONTWRITEBYTECODE=1 python3 -m unittest -q test_score)
else
  echo "skipped: the scorer's tests need Python 3.11 or newer as python3 (install python3.11)"
fi

echo "== action/tests/run.sh"
target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$PWD/$target_dir" ;; esac
# `cargo test` above built target/debug/cartograph; build it only if it is not there.
[ -x "$target_dir/debug/cartograph" ] || cargo build --locked -p cartograph-cli
CARTOGRAPH_BIN="$target_dir/debug/cartograph" action/tests/run.sh
