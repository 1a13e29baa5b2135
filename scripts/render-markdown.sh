#!/usr/bin/env bash
# Renders a Markdown report as GitHub would show it in a comment and takes a screenshot, so a
# person can look at the pull-request report before shipping a change to its layout.
#
#   scripts/render-markdown.sh REPORT.md OUT.png [--open] [--offset=PIXELS] [WIDTHxHEIGHT]
#
# --open expands every <details> section; --offset=PIXELS starts the shot that far down the page. Installs markdown-it, github-markdown-css and mermaid
# into $MDRENDER_DIR (default /tmp/mdrender; never into the repository) on first use, and needs
# Chromium (`apt-get install -y chromium`). Nothing is fetched from the network by the page.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 REPORT.md OUT.png [--open] [--offset=PIXELS] [WIDTHxHEIGHT]" >&2
  exit 2
fi
input=$1
output=$2
shift 2
flags=()
size="1000x2400"
for arg in "$@"; do
  case $arg in
    --open | --offset=*) flags+=("$arg") ;;
    *x*) size=$arg ;;
    *) echo "unknown argument: $arg" >&2; exit 2 ;;
  esac
done

here=$(cd "$(dirname "$0")" && pwd)
export MDRENDER_DIR=${MDRENDER_DIR:-/tmp/mdrender}
if [[ ! -d $MDRENDER_DIR/node_modules/mermaid ]]; then
  mkdir -p "$MDRENDER_DIR"
  (cd "$MDRENDER_DIR" && npm init -y >/dev/null && npm install --silent markdown-it mermaid github-markdown-css)
fi
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $chromium ]]; then
  echo "no Chromium found; install it with: apt-get install -y chromium" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$here/render-markdown.mjs" "$input" "$work/page.html" "${flags[@]}"
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$work/profile" --hide-scrollbars --allow-file-access-from-files \
  --virtual-time-budget=10000 --window-size="${size/x/,}" \
  --screenshot="$(realpath -m "$output")" "file://$work/page.html" 2>/dev/null
echo "wrote $output"
