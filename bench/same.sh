#!/usr/bin/env bash
# Are two builds' snapshots byte-identical? The check behind an exact cost cut: a fast path
# that changes no output. Compares `cartograph snapshot` of OLD and NEW on the bench corpora
# and on every application checked out by the open evaluation set's scorer.
#
#   bash bench/same.sh OLD_BIN NEW_BIN [CHECKOUTS]   # CHECKOUTS: score.py's --work directory
#
# Prints one line per tree and exits 1 if any snapshot differs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
old="$1"; new="$2"; checkouts="${3:-}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

trees=()
for t in "$here"/work/corpora/apache-airflow-core-3.3.2 "$here"/work/corpora/effect-4.1.0/package \
         "$here"/work/corpora/netbox-4.7.3; do
    [ -d "$t" ] && trees+=("$t")
done
if [ -n "$checkouts" ]; then
    for t in "$checkouts"/*/; do trees+=("${t%/}"); done  # one folder per application
fi
[ ${#trees[@]} -gt 0 ] || { echo "same: no trees (run bash bench/corpora.sh, or pass CHECKOUTS)" >&2; exit 2; }

status=0
for t in "${trees[@]}"; do
    name="$(basename "$t")"
    (cd "$t" && "$old" snapshot . -o "$out/old.json" >/dev/null 2>&1)
    (cd "$t" && "$new" snapshot . -o "$out/new.json" >/dev/null 2>&1)
    if cmp -s "$out/old.json" "$out/new.json"; then
        echo "same     $name"
    else
        echo "DIFFERS  $name"; status=1
        diff <(python3 -m json.tool "$out/old.json") <(python3 -m json.tool "$out/new.json") | head -20 || true
    fi
done
exit $status
