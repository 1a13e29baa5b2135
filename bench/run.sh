#!/usr/bin/env bash
# Times Cartograph, the parse-only floor and the peers side by side, in one run.
#
#   bash bench/run.sh [--runs N] [--corpus airflow,effect] [--no-build]
#
# Needs bench/corpora.sh and bench/peers.sh to have run. Each tool is optional: one that is missing
# or fails its first run is skipped with a message. Writes the report to stdout and to
# bench/work/results-<date>.md; raw data to bench/work/out/.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
say() { printf '[run] %s\n' "$*" >&2; }

RUNS=5
CORPUS=airflow,effect
BUILD=1
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --runs=*) RUNS="${1#--runs=}"; shift ;;
        --corpus) CORPUS="$2"; shift 2 ;;
        --corpus=*) CORPUS="${1#--corpus=}"; shift ;;
        --no-build) BUILD=0; shift ;;
        -h | --help) sed -n '2,8p' "$0"; exit 0 ;;
        *) say "unknown argument: $1"; exit 2 ;;
    esac
done

TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
skipped=()
args=(--runs "$RUNS" --corpus "$CORPUS")

if [ "$BUILD" -eq 1 ]; then
    say "cargo build --release -p cartograph-cli"
    if ! (cd "$ROOT" && cargo build --release -p cartograph-cli >&2); then
        say "cartograph did not build: skipping it"
        skipped+=("cartograph: build failed")
        CARTOGRAPH_BROKEN=1
    fi
    say "cargo build --release -p cartograph-extract --example parse_floor"
    if ! (cd "$ROOT" && cargo build --release -p cartograph-extract --example parse_floor >&2); then
        say "parse floor did not build: skipping it"
        skipped+=("parse floor: build failed")
        FLOOR_BROKEN=1
    fi
fi

CARTOGRAPH="${CARTOGRAPH_BIN:-$TARGET/release/cartograph}"
FLOOR="${PARSE_FLOOR_BIN:-$TARGET/release/examples/parse_floor}"

# cartograph: present, built, and answering `snapshot DIR -o FILE` with a snapshot document.
if [ -z "${CARTOGRAPH_BROKEN:-}" ] && [ -x "$CARTOGRAPH" ]; then
    probe_dir="$(mktemp -d)"
    printf 'import os\n' >"$probe_dir/a.py"
    if "$CARTOGRAPH" snapshot "$probe_dir" -o "$probe_dir/out.json" >/dev/null 2>&1 \
        && python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])).get("schema") != "snapshot")' \
            "$probe_dir/out.json" 2>/dev/null; then
        args+=(--cartograph "$CARTOGRAPH")
    else
        say "cartograph does not yet answer 'snapshot DIR -o FILE' with a snapshot document: skipping it"
        skipped+=("cartograph: does not yet write a snapshot")
    fi
    rm -rf "$probe_dir"
elif [ -z "${CARTOGRAPH_BROKEN:-}" ]; then
    say "no cartograph binary at $CARTOGRAPH: skipping it"
    skipped+=("cartograph: no binary")
fi
if [ -z "${FLOOR_BROKEN:-}" ] && [ -x "$FLOOR" ]; then
    args+=(--floor "$FLOOR")
elif [ -z "${FLOOR_BROKEN:-}" ]; then
    say "no parse floor at $FLOOR: skipping it"
    skipped+=("parse floor: no binary")
fi
for s in "${skipped[@]+"${skipped[@]}"}"; do args+=(--skipped "$s"); done

exec python3 "$BENCH/bench.py" "${args[@]}"
