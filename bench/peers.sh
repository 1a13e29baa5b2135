#!/usr/bin/env bash
# Installs the pinned benchmark peers. Idempotent.
#
#   bash bench/peers.sh            # grimp (+ tach), dependency-cruiser, typescript, madge, hyperfine
#   NO_TACH=1 bash bench/peers.sh  # skip the optional tach
#
# Python peers go into the venv bench/.venv; npm peers into bench/node_modules from
# bench/package.json + bench/package-lock.json (exact versions); hyperfine and GNU time from Debian.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
say() { printf '[peers] %s\n' "$*"; }

GRIMP_VERSION=3.20
TACH_VERSION=0.35.3

# --- Debian: hyperfine, GNU time -------------------------------------------------------------
apt_updated=0
apt_install() {
    if [ "$(id -u)" -ne 0 ]; then
        say "not root: install $* yourself"; return 1
    fi
    if [ "$apt_updated" -eq 0 ]; then
        apt-get update -qq; apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
if command -v hyperfine >/dev/null 2>&1; then
    say "hyperfine present: $(hyperfine --version)"
else
    say "installing hyperfine (apt)"; apt_install hyperfine || true
fi
if [ -x /usr/bin/time ]; then
    say "GNU time present"
else
    say "installing time (apt)"; apt_install time || true
fi

# --- Python venv: grimp, tach -----------------------------------------------------------------
VENV="$BENCH/.venv"
if [ ! -x "$VENV/bin/python" ]; then
    say "creating venv $VENV"
    python3 -m venv "$VENV"
fi
have_pkg() {
    [ "$("$VENV/bin/python" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null)" = "$2" ]
}
if have_pkg grimp "$GRIMP_VERSION"; then
    say "grimp $GRIMP_VERSION present"
else
    say "pip install grimp==$GRIMP_VERSION"
    "$VENV/bin/python" -m pip install -q "grimp==$GRIMP_VERSION"
fi
if [ -z "${NO_TACH:-}" ]; then
    if have_pkg tach "$TACH_VERSION"; then
        say "tach $TACH_VERSION present"
    else
        say "pip install tach==$TACH_VERSION (optional)"
        "$VENV/bin/python" -m pip install -q "tach==$TACH_VERSION" || say "tach failed to install (optional; skipped)"
    fi
fi

# --- npm: dependency-cruiser, typescript, madge ---------------------------------------------
cd "$BENCH"
npm_pinned() {
    node -e '
      const want = require("./package.json").devDependencies;
      for (const [n, v] of Object.entries(want)) {
        let got; try { got = require("./node_modules/" + n + "/package.json").version; } catch { process.exit(1); }
        if (got !== v) process.exit(1);
      }' 2>/dev/null
}
if npm_pinned; then
    say "npm peers present (node_modules matches package.json)"
elif [ -f package-lock.json ]; then
    say "npm ci (bench/package-lock.json)"
    npm ci --no-audit --no-fund --loglevel=error
else
    say "npm install (writes bench/package-lock.json)"
    npm install --no-audit --no-fund --loglevel=error
fi

say "versions:"
say "  grimp            $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("grimp"))')"
if [ -x "$VENV/bin/tach" ]; then
    say "  tach             $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("tach"))')"
fi
say "  dependency-cruiser $(node_modules/.bin/depcruise --version)"
say "  typescript       $(node_modules/.bin/tsc --version)"
say "  madge            $(node_modules/.bin/madge --version)"
command -v hyperfine >/dev/null 2>&1 && say "  $(hyperfine --version)"
