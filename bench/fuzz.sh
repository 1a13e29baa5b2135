#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of untrusted input (the targets of fuzz/, see
# fuzz/README.md), one target at a time, each for a fixed budget.
#
#   bash bench/fuzz.sh                      # every target, 600 s each
#   FUZZ_SECONDS=30 bash bench/fuzz.sh      # a quick smoke
#   bash bench/fuzz.sh python sql           # only these targets
#
# Needs the nightly toolchain (cargo-fuzz builds with -Z flags); installs cargo-fuzz into
# ~/.cargo/bin if it is missing. Builds into $FUZZ_TARGET_DIR (default /work/target-fuzz if /work
# exists, else fuzz/target). Seeds each target's corpus from the repository's fixtures and goldens
# (and, when present, a few files of the downloaded corpora under bench/work/corpora), then runs
# libFuzzer with -timeout=2 (an input over 2 s is a hang), -rss_limit_mb=2048 and -max_len=65536.
# A run that stops on a finding is restarted for the rest of its budget (at most 5 times), so a
# budget is spent in full. Writes everything under bench/work/fuzz/ (git-ignored): the corpora,
# the artifacts (crash-*, timeout-*, oom-*), one log per target and summary.txt, which is also
# printed at the end. Exits 1 when anything was found.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/bench/work/fuzz"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-600}"
MAX_LEN="${FUZZ_MAX_LEN:-65536}"
if [[ -z "${FUZZ_TARGET_DIR:-}" ]]; then
  if [[ -d /work ]]; then FUZZ_TARGET_DIR=/work/target-fuzz; else FUZZ_TARGET_DIR="$ROOT/fuzz/target"; fi
fi
TRIPLE="$(rustc +nightly -vV | sed -n 's/^host: //p')"
BIN_DIR="$FUZZ_TARGET_DIR/$TRIPLE/release"
ALL_TARGETS=(python typescript prisma sql js_config snapshot diff_document rules mcp_request)
if [[ $# -gt 0 ]]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

# --- toolchain and build -------------------------------------------------------------------------
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz (crates.io, --locked)"
  cargo install cargo-fuzz --locked
fi
echo "== building the fuzz targets (nightly, release, debug assertions, no sanitizer)"
# No sanitizer: every Cartograph crate forbids unsafe code, and the C of the tree-sitter grammars
# is compiled by cc without instrumentation either way; ASan would only halve the executions.
(cd "$ROOT" && cargo +nightly fuzz build -O -a -s none --codegen-units 8 \
  --target-dir "$FUZZ_TARGET_DIR")

# --- seeds ---------------------------------------------------------------------------------------
SEEDS="$WORK/seeds"
rm -rf "$SEEDS"
mkdir -p "$SEEDS" "$WORK/corpus" "$WORK/artifacts" "$WORK/logs"

# seed TARGET FILE [PREFIX] [SUFFIX]: one seed from a file, named by its content's hash.
seed() {
  local target="$1" file="$2" prefix="${3:-}" suffix="${4:-}" out
  mkdir -p "$SEEDS/$target"
  out="$(mktemp "$SEEDS/$target/seed.XXXXXX")"
  { printf '%b' "$prefix"; cat "$file"; printf '%b' "$suffix"; } >"$out"
}
# seed_text TARGET TEXT: one seed from a literal (printf %b escapes: \0 is a NUL).
seed_text() {
  mkdir -p "$SEEDS/$1"
  printf '%b' "$2" >"$(mktemp "$SEEDS/$1/seed.XXXXXX")"
}
# fixture_files PATTERN...: repository fixture files matching any of the -name patterns.
fixture_files() {
  local args=() first=1
  for pattern in "$@"; do
    if [[ $first -eq 1 ]]; then first=0; else args+=(-o); fi
    args+=(-name "$pattern")
  done
  find "$ROOT/tests/fixtures" -type f \( "${args[@]}" \) | sort
}
# corpus_files LIMIT PATTERN...: up to LIMIT small files of the downloaded corpora, if any.
corpus_files() {
  local limit="$1"; shift
  [[ -d "$ROOT/bench/work/corpora" ]] || return 0
  local args=() first=1
  for pattern in "$@"; do
    if [[ $first -eq 1 ]]; then first=0; else args+=(-o); fi
    args+=(-name "$pattern")
  done
  find "$ROOT/bench/work/corpora" -type f -size -16k \( "${args[@]}" \) 2>/dev/null | sort | head -n "$limit"
}

while read -r f; do seed python "$f"; done < <(fixture_files '*.py'; corpus_files 150 '*.py')
while read -r f; do seed typescript "$f"; done < <(
  fixture_files '*.ts' '*.tsx' '*.js' '*.jsx' '*.mjs' '*.cjs' '*.vue' '*.svelte'
  corpus_files 150 '*.ts' '*.tsx' '*.js' '*.vue' '*.svelte')

while read -r f; do seed prisma "$f"; done < <(corpus_files 20 '*.prisma')
seed_text prisma 'datasource db {\n  provider = "postgresql"\n  url = env("DATABASE_URL")\n}\n\nmodel User {\n  id    Int    @id @default(autoincrement())\n  email String @unique\n  posts Post[]\n  @@map("users")\n  @@schema("auth")\n}\n\nmodel Post {\n  id     Int  @id\n  author User @relation(fields: [authorId], references: [id])\n  authorId Int\n  @@map(name: "posts")\n}\n\nview Stats {\n  n Int\n}\n\nenum Role {\n  USER\n  ADMIN\n}\n'
seed_text prisma 'model Item { // a comment { with braces }\n  id Int @id\n  meta Json @default("{}")\n  @@map(TABLE_NAME)\n}\n/// doc\nmodel item_tag {\n  @@id([a, b])\n}\n'

while read -r f; do seed sql "$f"; done < <(corpus_files 20 '*.sql')
for sql in \
  'SELECT id FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = %s' \
  'INSERT INTO public.audit (a, b) VALUES (?, $1)' \
  'UPDATE "Users" SET name = :name WHERE id = @id' \
  'DELETE FROM `events` WHERE ts < now() -- old\n' \
  'WITH recent AS (SELECT * FROM orders) SELECT * FROM recent, LATERAL unnest(x) JOIN pg_catalog.pg_class ON true' \
  'SELECT EXTRACT(YEAR FROM d), a IS DISTINCT FROM b FROM (SELECT * FROM t1) s /* c */ JOIN [dbo].[t2] ON 1=1' \
  'SELECT * FROM \001 WHERE x = {x} AND y = {{ y }} AND z = ${z}' \
  'REPLACE INTO __TABLE__ SELECT * FROM <table>' \
  'SELECT * FROM ' \
  'CREATE TABLE IF NOT EXISTS app.users (\n  id INTEGER PRIMARY KEY\n);\nCREATE TEMPORARY TABLE tmp (x int);\ncreate table "Quoted Name" (a text);\nCREATE VIEW v AS SELECT 1;\n'; do
  seed_text sql "$sql"
done

# js_config: NUL-separated tsconfig.json, package.json, packages/shared/{package,tsconfig}.json,
# web/{tsconfig,jsconfig,tsconfig.base}.json, then specifiers one a line.
while read -r f; do
  case "$(basename "$f")" in
    package.json) seed js_config "$f" '\0' ;;
    tsconfig.base.json) seed js_config "$f" '\0\0\0\0\0\0' ;;
    *) seed js_config "$f" ;;
  esac
done < <(fixture_files 'package.json' 'tsconfig*.json' 'jsconfig.json')
mkdir -p "$SEEDS/js_config" "$SEEDS/rules"
for dir in "$ROOT"/tests/fixtures/*/ "$ROOT"/tests/fixtures/*/*/; do
  [[ -f "$dir/tsconfig.json" && -f "$dir/package.json" ]] || continue
  out="$(mktemp "$SEEDS/js_config/seed.XXXXXX")"
  { cat "$dir/tsconfig.json"; printf '\0'; cat "$dir/package.json"; } >"$out"
done
seed_text js_config '{\n  // comment\n  "extends": ["./web/tsconfig.base", "shared/tsconfig.json"],\n  "compilerOptions": {"baseUrl": "./src", "paths": {"@/*": ["./*", "../node_modules/*"], "~/*": ["*"], "*": ["lib/*"]}, "outDir": "dist", "rootDir": "src"},\n  "references": [{"path": "./web"}],\n}\0{"name": "root", "workspaces": ["packages/*"], "imports": {"#internal/*": "./src/*.ts", "#internal": {"node": "./src/index.ts", "default": null}}}\0{"name": "shared", "main": "dist/index.js", "types": "src/index.ts", "exports": {".": {"import": "./dist/index.js", "types": "./src/index.ts"}, "./sub": "./src/lib/*.ts", "./*": null}}\0{"extends": "../../tsconfig.json", "compilerOptions": {"outDir": "dist", "rootDir": "src"}}\0{"extends": "./tsconfig.base.json"}\0{"compilerOptions": {"baseUrl": "."}}\0{"extends": "./tsconfig.json", "compilerOptions": {"paths": {"$lib/*": ["src/lib/*"]}}}\0shared/x\n#internal/y\n'

for f in "$ROOT"/goldens/*.json; do
  seed snapshot "$f"
  seed diff_document "$f"
done
# Small documents mutate faster than whole goldens: each golden cut to its first few entries of
# every list (python3 only reshapes JSON here; skipped without it).
if command -v python3 >/dev/null; then
  for f in "$ROOT"/goldens/*.json; do
    for target in snapshot diff_document; do
      python3 - "$f" >"$(mktemp "$SEEDS/$target/seed.XXXXXX")" <<'PY'
import json, sys
def cut(v):
    if isinstance(v, list):
        return [cut(x) for x in v[:3]]
    if isinstance(v, dict):
        return {k: cut(x) for k, x in v.items()}
    return v
print(json.dumps(cut(json.load(open(sys.argv[1]))), indent=1))
PY
    done
  done
fi

while read -r f; do seed rules "$f"; done < <(fixture_files '*.toml')
while read -r f; do seed rules "$f" '' '\0'; done < <(fixture_files 'cartograph.toml')
for dir in "$ROOT"/tests/fixtures/rules/*/; do
  [[ -f "$dir/cartograph.toml" && -f "$dir/cartograph-baseline.json" ]] || continue
  out="$(mktemp "$SEEDS/rules/seed.XXXXXX")"
  { cat "$dir/cartograph.toml"; printf '\0'; cat "$dir/cartograph-baseline.json"; } >"$out"
done
[[ -f "$ROOT/goldens/rules-baseline.snap.json" ]] && seed rules "$ROOT/goldens/rules-baseline.snap.json" '[[rule]]\nid = "x"\nkind = "no-cycles"\nreason = "r"\n\0'

for request in \
  '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"map","arguments":{"tree":"head","limit":5}}}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"trace","arguments":{"tree":"head","from":"web","to":"module:backend/app/main.py","depth":4,"max_paths":3}}}' \
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"blast","arguments":{"tree":"dir:head","targets":["backend","GET /api/items","table:items","env:DATABASE_URL"],"depth":2,"limit":10}}}' \
  '{"jsonrpc":"2.0","id":"4","method":"tools/call","params":{"name":"diff","arguments":{"base":"base","head":"./head","limit":3}}}' \
  '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"check","arguments":{"tree":"head","limit":2}}}' \
  '{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"evidence","arguments":{"tree":"head","kind":"imports","from":"module:web/src/api.ts","to":"module:web/src/client.ts"}}}' \
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"map","arguments":{"tree":"rev:HEAD"}}}' \
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"trace","arguments":{"tree":"../rules/head@rev:main~1","from":"route:GET /x"}}}' \
  '{"jsonrpc":"2.0","id":9,"method":"tools/list"}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}'; do
  seed_text mcp_request "$request"
done

dict_of() {
  case "$1" in
    python) echo python ;; typescript) echo typescript ;; prisma) echo prisma ;; sql) echo sql ;;
    rules) echo toml ;; *) echo json ;;
  esac
}

# The snapshot golden is larger than 64 KiB: its target reads up to 128 KiB so it loads whole.
max_len_of() {
  case "$1" in snapshot) echo $((MAX_LEN > 131072 ? MAX_LEN : 131072)) ;; *) echo "$MAX_LEN" ;; esac
}

# --- runs ----------------------------------------------------------------------------------------
SUMMARY="$WORK/summary.txt"
ROWS=()
FOUND=0
for target in "${TARGETS[@]}"; do
  bin="$BIN_DIR/$target"
  [[ -x "$bin" ]] || { echo "no such fuzz target: $target" >&2; exit 2; }
  corpus="$WORK/corpus/$target"
  artifacts="$WORK/artifacts/$target"
  log="$WORK/logs/$target.log"
  mkdir -p "$corpus" "$artifacts"
  : >"$log"
  before_artifacts="$(find "$artifacts" -type f | wc -l)"
  started="$(date +%s)"
  deadline=$((started + SECONDS_PER_TARGET))
  execs=0
  restarts=0
  echo "== $target: ${SECONDS_PER_TARGET}s"
  while :; do
    left=$((deadline - $(date +%s)))
    [[ $left -ge 1 ]] || break
    # One process, one worker: libFuzzer's default is already a single in-process worker
    # (-jobs=1 would only move its output into a fuzz-0.log). -seed makes a restart explore anew.
    set +e
    "$bin" "$corpus" "$SEEDS/$target" \
      -dict="$ROOT/fuzz/dict/$(dict_of "$target").dict" \
      -max_total_time="$left" -timeout=2 -rss_limit_mb=2048 -max_len="$(max_len_of "$target")" \
      -artifact_prefix="$artifacts/" -print_final_stats=1 -seed="$((started + restarts))" \
      >>"$log" 2>&1
    status=$?
    set -e
    run_execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n1 | grep -o '[0-9]*$' || true)"
    if [[ -z "$run_execs" ]]; then
      # A run stopped by a finding may not print its stats: its last status line counts.
      run_execs="$(grep -oE '^#[0-9]+' "$log" | tail -n1 | tr -d '#' || true)"
    fi
    execs=$((execs + ${run_execs:-0}))
    # Only the last run's stats line counts once: clear it from the log's tail for the next run.
    sed -i 's/stat::number_of_executed_units:/stat::counted_executed_units:/' "$log"
    [[ $status -eq 0 ]] && break
    restarts=$((restarts + 1))
    echo "   finding (exit $status), restart $restarts" | tee -a "$log"
    [[ $restarts -lt 5 ]] || break
  done
  wall=$(($(date +%s) - started))
  cov_line="$(grep -E '(DONE|pulse|NEW|REDUCE|INITED).* cov: ' "$log" | tail -n1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$cov_line")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$cov_line")"
  corpus_size="$(find "$corpus" -type f | wc -l)"
  crashes="$(find "$artifacts" -type f -name 'crash-*' | wc -l)"
  timeouts="$(find "$artifacts" -type f -name 'timeout-*' | wc -l)"
  ooms="$(find "$artifacts" -type f -name 'oom-*' | wc -l)"
  new_artifacts=$(($(find "$artifacts" -type f | wc -l) - before_artifacts))
  [[ $new_artifacts -eq 0 ]] || FOUND=1
  ROWS+=("$(printf '%-14s %12s %7s %8s %7s %6s %8s %9s %5s' \
    "$target" "$execs" "${cov:-?}" "${ft:-?}" "$corpus_size" "$wall" "$crashes" "$timeouts" "$ooms")")
  echo "   execs=$execs cov=${cov:-?} ft=${ft:-?} corpus=$corpus_size wall=${wall}s crashes=$crashes timeouts=$timeouts ooms=$ooms"
done

{
  echo "fuzz run $(date -u +%Y-%m-%dT%H:%M:%SZ), ${SECONDS_PER_TARGET}s per target, commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')"
  printf '%-14s %12s %7s %8s %7s %6s %8s %9s %5s\n' \
    target execs cov ft corpus wall_s crashes timeouts ooms
  printf '%s\n' "${ROWS[@]}"
  echo "(crashes/timeouts/ooms: artifact files under bench/work/fuzz/artifacts/TARGET, all runs so far)"
} | tee "$SUMMARY"
exit "$FOUND"
