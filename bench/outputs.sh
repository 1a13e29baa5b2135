#!/usr/bin/env bash
# Writes every output a refactor must keep byte-identical, for one `cartograph` binary, into one
# directory, so two builds can be compared with `diff -r`:
#
#   bash bench/outputs.sh BIN OUT_DIR      # e.g. a baseline build, then the new one
#   diff -r OUT_BASE OUT_NEW && echo identical
#
# Needs the corpora (`bash bench/corpora.sh`). Covers snapshot, summary and map of Airflow core
# 3.3.2, netbox 4.7.3 and effect 4.1.0, the diff of Airflow 3.2.2 -> 3.3.0 (JSON and Markdown),
# and the blast and trace Markdown of one Airflow model, each at one thread and at two.
set -euo pipefail
BIN="$(realpath "$1")"
OUT="$(realpath -m "$2")"
BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
C="$BENCH/work/corpora"
mkdir -p "$OUT"

run() { # name, corpus dir, args...
    local name="$1" dir="$2"; shift 2
    (cd "$dir" && "$BIN" "$@" > "$OUT/$name" 2> "$OUT/$name.stderr") || echo "exit $?" >> "$OUT/$name.stderr"
}

for threads in 1 2; do
    export RAYON_NUM_THREADS=$threads
    a="$C/apache-airflow-core-3.3.2"
    run "airflow.snapshot.t$threads.json" "$a" snapshot . -o -
    run "airflow.summary.t$threads.json" "$a" summary . --json -o -
    run "airflow.map.t$threads.json" "$a" map . --json -
    run "netbox.snapshot.t$threads.json" "$C/netbox-4.7.3" snapshot . -o -
    run "effect.snapshot.t$threads.json" "$C/effect-4.1.0/package" snapshot src -o -
    run "airflow.diff.t$threads.json" "$C" diff apache-airflow-core-3.2.2 apache-airflow-core-3.3.0 --json -
    run "airflow.diff.t$threads.md" "$C" diff apache-airflow-core-3.2.2 apache-airflow-core-3.3.0 --markdown -
done
a="$C/apache-airflow-core-3.3.2"
run airflow.blast.md "$a" blast src/airflow/models/dag.py --markdown -
run airflow.trace.md "$a" trace src/airflow/ui/openapi-gen/requests/services.gen.ts --markdown -
run recognisers.txt "$BENCH" recognisers
ls -l "$OUT" | awk '{print $5, $9}'
