#!/usr/bin/env bash
# Regenerates goldens/ from the fixtures after an intended change to the output contract.
# Review `git diff goldens/` and say why in the commit message.
set -euo pipefail
cd "$(dirname "$0")/.."
CARTOGRAPH_UPDATE_GOLDENS=1 cargo test -p cartograph-cli --test goldens --locked -- goldens_match_byte_for_byte
git --no-pager diff --stat -- goldens/ || true
