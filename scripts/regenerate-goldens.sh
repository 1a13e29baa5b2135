#!/usr/bin/env bash
# Regenerates goldens/ from the fixtures after an intended change to the output contract.
# Review `git diff goldens/` and say why in the commit message.
set -euo pipefail
cd "$(dirname "$0")/.."
# The goldens are insta snapshots (goldens/NAME.snap and goldens/NAME.snap.EXT); `cargo insta review`
# does the same interactively where cargo-insta is installed.
INSTA_UPDATE=always cargo test -p cartograph-cli --test suite --locked -- goldens::goldens_match_byte_for_byte
git --no-pager diff --stat -- goldens/ || true
