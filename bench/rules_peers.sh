#!/usr/bin/env bash
# `cartograph check` against import-linter on Airflow core 3.3.2: the three rules of
# bench/rules/airflow-core.toml that import-linter can express (core-layers, models-not-api,
# services-independent), what each tool reports for them, and what each costs.
#
#   bash bench/corpora.sh                       # once: the corpora
#   bash bench/rules_peers.sh [BIN] [RUNS]      # BIN defaults to $CARGO_TARGET_DIR/release/cartograph, RUNS to 3
#
# import-linter is pinned and installed into the venv bench/work/venv-rules (nothing global). Its
# contracts are written to bench/work/rules-peers/, never into the corpus. Every output goes there:
#   importlinter.ini          contracts with TYPE_CHECKING imports (what Cartograph's direct rules see)
#   importlinter-runtime.ini  the transitive contracts without them (what Cartograph's paths should see)
#   il.txt, il-runtime.txt    lint-imports reports; check.json the Cartograph check document
#   snapshot.json             Cartograph's full graph, grimp-graph*.json grimp's (for the diagnosis)
#   time-*.log                /usr/bin/time -v of every timed run
# bench/rules_peers.py (stdlib only) parses both reports, compares them and prints the table.
#
# Semantics, which the comparison follows:
# - Cartograph `layers`/`forbidden` without `transitive` are direct edges. import-linter `forbidden`
#   is transitive unless `allow_indirect_imports = true`; its `layers` contract has no direct-only
#   option (any chain from a lower to a higher layer breaks it, chains through a third layer being
#   reported as two pairs instead), so direct core-layers is emulated by three forbidden contracts
#   with allow_indirect_imports (one per lower layer) and the real layers contract runs as well,
#   reported for information.
# - `independent` is transitive in both. import-linter reports per pair of members a set of
#   chains whose heads are not every module that reaches the other member (it collapses and cuts
#   routes); Cartograph reports every source module. The source-level comparison therefore also
#   uses grimp's own graph (the one import-linter checks) to list every module that reaches.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="${1:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}/release/cartograph}"
runs="${2:-3}"
IMPORT_LINTER_VERSION=2.17
corpus="$here/work/corpora/apache-airflow-core-3.3.2"
rules="$here/rules/airflow-core.toml"
venv="$here/work/venv-rules"
out="$here/work/rules-peers"
say() { printf '[rules-peers] %s\n' "$*" >&2; }

[ -x "$bin" ] || { say "no binary at $bin"; exit 2; }
[ -d "$corpus/src/airflow" ] || { say "corpus missing at $corpus; run bash bench/corpora.sh"; exit 2; }
[ -x /usr/bin/time ] || { say "GNU time missing (apt-get install time)"; exit 2; }
mkdir -p "$out"

# --- 1. import-linter, pinned, in its own venv -------------------------------------------------
if [ ! -x "$venv/bin/python" ]; then
    say "creating venv $venv"
    python3 -m venv "$venv"
fi
installed="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("import-linter"))' 2>/dev/null || true)"
if [ "$installed" != "$IMPORT_LINTER_VERSION" ]; then
    say "pip install import-linter==$IMPORT_LINTER_VERSION"
    "$venv/bin/python" -m pip install -q "import-linter==$IMPORT_LINTER_VERSION"
fi
grimp_version="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("grimp"))')"
say "import-linter $IMPORT_LINTER_VERSION (grimp $grimp_version), cartograph: $("$bin" --version)"

# --- 2. the contracts -------------------------------------------------------------------------
write_contracts() { # FILE EXCLUDE_TYPE_CHECKING(True|False) FULL(1|0)
    local file="$1" exclude="$2" full="$3"
    {
        printf '[importlinter]\nroot_package = airflow\nexclude_type_checking_imports = %s\n\n' "$exclude"
        cat <<'EOF'
[importlinter:contract:core-layers]
name = core-layers
type = layers
layers =
    airflow.api_fastapi
    airflow.jobs
    airflow.models
    airflow.utils

[importlinter:contract:services-independent]
name = services-independent
type = independence
modules =
    airflow.executors
    airflow.dag_processing
    airflow.api_fastapi

EOF
        if [ "$full" = 1 ]; then
            cat <<'EOF'
[importlinter:contract:core-layers-direct-jobs]
name = core-layers-direct-jobs
type = forbidden
source_modules = airflow.jobs
forbidden_modules = airflow.api_fastapi
allow_indirect_imports = true

[importlinter:contract:core-layers-direct-models]
name = core-layers-direct-models
type = forbidden
source_modules = airflow.models
forbidden_modules =
    airflow.api_fastapi
    airflow.jobs
allow_indirect_imports = true

[importlinter:contract:core-layers-direct-utils]
name = core-layers-direct-utils
type = forbidden
source_modules = airflow.utils
forbidden_modules =
    airflow.api_fastapi
    airflow.jobs
    airflow.models
allow_indirect_imports = true

[importlinter:contract:models-not-api]
name = models-not-api
type = forbidden
source_modules = airflow.models
forbidden_modules = airflow.api_fastapi
allow_indirect_imports = true
EOF
        fi
    } >"$file"
}
write_contracts "$out/importlinter.ini" False 1
write_contracts "$out/importlinter-runtime.ini" True 0

# --- 3. timed runs ----------------------------------------------------------------------------
lint() { # CONFIG REPORT TIMELOG : lint-imports exits 1 when a contract is broken: a result.
    # COLUMNS keeps rich from wrapping the chains; --no-cache so every run builds its graph.
    (cd "$out" && COLUMNS=1000 PYTHONPATH="$corpus/src" /usr/bin/time -v -o "$3" \
        "$venv/bin/lint-imports" --no-cache --no-logo "$1" >"$2" 2>&1) || [ $? -eq 1 ]
}
check() { # JSON TIMELOG [ARGS...] : check exits 1 when an error rule is broken: a result.
    local json="$1" log="$2"; shift 2
    (cd "$corpus" && /usr/bin/time -v -o "$log" "$bin" check . --config "$rules" --json "$json" "$@" \
        >/dev/null 2>&1) || [ $? -eq 1 ]
}
for i in $(seq 1 "$runs"); do
    say "run $i/$runs"
    lint "$out/importlinter.ini" "$out/il.txt" "$out/time-il-$i.log"
    lint "$out/importlinter-runtime.ini" "$out/il-runtime.txt" "$out/time-il-runtime-$i.log"
    check "$out/check.json" "$out/time-cg-$i.log"
    check "$out/check-imports-only.json" "$out/time-cg-io-$i.log" --imports-only
done
grep -q 'Contracts:' "$out/il.txt" || { say "lint-imports failed:"; cat "$out/il.txt" >&2; exit 2; }

# --- 4. the graphs both tools built, for the diagnosis (untimed) ------------------------------
(cd "$corpus" && "$bin" snapshot . -o "$out/snapshot.json")
PYTHONPATH="$corpus/src" "$venv/bin/python" - "$out" <<'EOF'
import json, sys
import grimp
for exclude, name in ((False, "grimp-graph.json"), (True, "grimp-graph-runtime.json")):
    g = grimp.build_graph("airflow", cache_dir=None, exclude_type_checking_imports=exclude)
    edges = sorted([a, b] for a in g.modules for b in g.find_modules_directly_imported_by(a))
    with open(f"{sys.argv[1]}/{name}", "w") as f:
        json.dump({"modules": sorted(g.modules), "edges": edges}, f)
EOF

# --- 5. the comparison and the table ----------------------------------------------------------
python3 "$here/rules_peers.py" --out "$out" --corpus "$corpus" --runs "$runs" \
    --il-version "$IMPORT_LINTER_VERSION" --grimp-version "$grimp_version" \
    --cg-version "$("$bin" --version | awk '{print $2}') ($(basename "$bin"))"
