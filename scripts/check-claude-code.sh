#!/usr/bin/env bash
# Checks the Claude Code set-up of docs/mcp.md against the real client, by hand (it downloads the
# Claude Code CLI from npm, about 250 MB, so it is not part of the test suite): `claude mcp add`
# writes the documented `.mcp.json`, and `claude mcp list` launches `cartograph-mcp` from it and
# completes the MCP handshake ("Connected"). It needs no account or API key. Everything happens
# in a temporary directory with its own HOME.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -p cartograph-mcp
bin_dir="$(cd "$target/release" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cli" "$work/home" "$work/project"
(cd "$work/cli" && npm i --no-audit --no-fund --silent @anthropic-ai/claude-code >/dev/null)
# npm 11 does not run install scripts unless approved; the package's own script places the binary.
(cd "$work/cli/node_modules/@anthropic-ai/claude-code" && node install.cjs >/dev/null)
claude="$work/cli/node_modules/.bin/claude"
cp -r tests/fixtures/fullstack/. "$work/project/"
cd "$work/project"
git init -q && git add . && git -c user.name=t -c user.email=t@example.com commit -qm fixture
export HOME="$work/home" PATH="$bin_dir:$PATH"
"$claude" --version
"$claude" mcp add --transport stdio --scope project cartograph -- \
  cartograph-mcp --grant my-repo --tree .
cat .mcp.json
# Project servers wait for the user's approval; a local setting gives it for this check.
mkdir -p .claude && echo '{"enableAllProjectMcpServers": true}' > .claude/settings.local.json
out="$("$claude" mcp list 2>&1)"
echo "$out"
grep -q "cartograph: .*Connected" <<<"$out"
echo "ok: Claude Code launched cartograph-mcp from .mcp.json and connected"
