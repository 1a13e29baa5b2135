#!/usr/bin/env bash
# Runs one stage of the Cartograph action (install, analyse, publish, gate) with the runner's
# Python 3 (standard library only). Kept thin on purpose: every decision is in main.py.
set -euo pipefail
if [ "${RUNNER_OS:-}" = "Windows" ]; then
  # On Windows runners `python3` may be the Microsoft Store stub; `python` is the real one.
  candidates="python python3"
else
  candidates="python3 python"
fi
py=""
for c in $candidates; do
  if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 8))' >/dev/null 2>&1; then
    py="$c"
    break
  fi
done
if [ -z "$py" ]; then
  echo "::error title=Cartograph::Python 3.8 or newer is needed on the runner (hosted runners have it)."
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$py" "$here/main.py" "$@"
