#!/usr/bin/env bash
# Instruction counts of the cost bars, single thread, under callgrind: snapshot of Airflow core
# 3.3.2, the same with --imports-only (bar: snapshot <= 1.3x), a cold diff 3.3.1 -> 3.3.2 (bar:
# <= 1.2x the snapshot), and `check` with the ten rules of bench/rules/airflow-core.toml (bar:
# <= 1.1x the snapshot).
# Instruction counts do not depend on what else the machine is doing, so two builds can be
# compared on a busy machine. Prints one line per run and the two ratios the bars are about.
#
#   bash bench/corpora.sh                      # once: the corpora
#   bash bench/cost.sh [BIN] [TAG]             # BIN defaults to $CARGO_TARGET_DIR/release/cartograph
#   bash bench/cost.sh BIN TAG --snapshot-only # skip the diff (the slowest run)
#   bash bench/cost.sh BIN TAG --check         # the snapshot and the check only
#
# Callgrind outputs go to bench/work/cost/TAG-*.out; `callgrind_annotate` reads them.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-${CARGO_TARGET_DIR:-$here/../target}/release/cartograph}"
tag="${2:-$(date +%H%M%S)}"
only_snapshot="${3:-}"
corpora="$here/work/corpora"
new="$corpora/apache-airflow-core-3.3.2"
old="$corpora/apache-airflow-core-3.3.1"
out="$here/work/cost"
mkdir -p "$out"

[ -x "$bin" ] || { echo "cost: no binary at $bin (build with cargo build --release -p cartograph-cli)" >&2; exit 2; }
[ -d "$new" ] && [ -d "$old" ] || { echo "cost: corpora missing; run bash bench/corpora.sh" >&2; exit 2; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"

count() { # NAME ARGS... : runs one command under callgrind in $new, prints its instruction count
    local name="$1"; shift
    local file="$out/$tag-$name.out"
    # `check` exits 1 when a rule of severity error is broken: that is a result, not a failure.
    (cd "$new" && valgrind --tool=callgrind --callgrind-out-file="$file" "$bin" "$@" >/dev/null 2>"$out/$tag-$name.log") || [ $? -eq 1 ]
    local n
    n="$(grep -m1 '^summary:' "$file" | awk '{print $2}')"
    printf '%-14s %16s instructions\n' "$name" "$n" >&2
    echo "$n"
}

snap="$(count snapshot snapshot . --threads 1 -o /dev/null)"
if [ "$only_snapshot" = "--check" ]; then
    check="$(count check check . --config "$here/rules/airflow-core.toml" --threads 1 --json /dev/null)"
    python3 -c "import sys; print(f'check / snapshot = {int(sys.argv[1]) / int(sys.argv[2]):.3f}  (bar 1.1)')" "$check" "$snap"
    exit 0
fi
io="$(count imports-only snapshot . --imports-only --threads 1 -o /dev/null)"
python3 -c "import sys; print(f'snapshot / --imports-only = {int(sys.argv[1]) / int(sys.argv[2]):.3f}  (bar 1.3)')" "$snap" "$io"
check="$(count check check . --config "$here/rules/airflow-core.toml" --threads 1 --json /dev/null)"
python3 -c "import sys; print(f'check / snapshot = {int(sys.argv[1]) / int(sys.argv[2]):.3f}  (bar 1.1)')" "$check" "$snap"
if [ "$only_snapshot" != "--snapshot-only" ]; then
    diff="$(count diff diff "$old" . --threads 1 --json /dev/null)"
    python3 -c "import sys; print(f'diff / snapshot = {int(sys.argv[1]) / int(sys.argv[2]):.3f}  (bar 1.2)')" "$diff" "$snap"
fi
