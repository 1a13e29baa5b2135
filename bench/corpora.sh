#!/usr/bin/env bash
# Downloads the pinned benchmark corpora from the package registries and unpacks each into
# bench/work/corpora/<name>-<version>/. Idempotent: a corpus whose directory exists is left alone.
#
#   bash bench/corpora.sh
#
# Corpora (see bench/README.md):
#   apache-airflow-core 3.3.2, 3.3.1, 3.3.0, 3.2.2  (PyPI sdists)
#   netbox 4.7.3                                    (PyPI sdist; needs Python 3.12, hence --python-version)
#   effect 4.1.0                                    (npm tarball)
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="$BENCH/work"
CORPORA="$WORK/corpora"
DL="$WORK/downloads"
mkdir -p "$CORPORA" "$DL"

PIP="${PIP:-python3 -m pip}"

say() { printf '[corpora] %s\n' "$*"; }

# Unpacks an archive whose single top-level directory becomes $CORPORA/<dest>.
unpack() {
    local archive="$1" dest="$2"
    local tmp
    tmp="$(mktemp -d "$WORK/unpack.XXXXXX")"
    case "$archive" in
        *.tar.gz | *.tgz) tar -xzf "$archive" -C "$tmp" ;;
        *.zip) python3 -m zipfile -e "$archive" "$tmp" ;;
        *) say "unknown archive type: $archive"; rm -rf "$tmp"; return 1 ;;
    esac
    local top
    top="$(find "$tmp" -mindepth 1 -maxdepth 1)"
    if [ "$(printf '%s\n' "$top" | wc -l)" -ne 1 ] || [ ! -d "$top" ]; then
        say "expected one top-level directory in $archive"; rm -rf "$tmp"; return 1
    fi
    mv "$top" "$CORPORA/$dest"
    rm -rf "$tmp"
}

# Finds a downloaded sdist for a PyPI project and version (normalised names: - or _).
find_sdist() {
    local name="$1" version="$2" n1 n2
    n1="${name//-/_}"
    n2="${name//_/-}"
    find "$DL" -maxdepth 1 -type f \( -name "$n1-$version.tar.gz" -o -name "$n2-$version.tar.gz" \
        -o -name "$n1-$version.zip" -o -name "$n2-$version.zip" \) | head -n 1
}

# pip download of one sdist. pip reads an sdist's metadata by running its build backend, which it
# fetches from PyPI in an isolated environment; if that fails, retry without build isolation and
# finally with the backend installed into the current interpreter.
pip_sdist() {
    local name="$1" version="$2"; shift 2
    local extra=("$@")
    local out
    out="$(find_sdist "$name" "$version")"
    if [ -n "$out" ]; then
        say "have $(basename "$out")"
        return 0
    fi
    say "pip download $name==$version ${extra[*]}"
    if ! $PIP download --no-deps --no-binary :all: "${extra[@]}" "$name==$version" -d "$DL" \
        >"$DL/$name-$version.pip.log" 2>&1; then
        say "pip download failed (see $DL/$name-$version.pip.log); retrying with --no-build-isolation"
        $PIP download --no-deps --no-binary :all: --no-build-isolation "${extra[@]}" \
            "$name==$version" -d "$DL" >>"$DL/$name-$version.pip.log" 2>&1 || true
    fi
    out="$(find_sdist "$name" "$version")"
    if [ -z "$out" ]; then
        say "FAILED: no sdist for $name==$version (log: $DL/$name-$version.pip.log)"
        return 1
    fi
    say "downloaded $(basename "$out")"
}

python_corpus() {
    local name="$1" version="$2"; shift 2
    local dest="$name-$version"
    if [ -d "$CORPORA/$dest" ]; then
        say "present: corpora/$dest"
        return 0
    fi
    pip_sdist "$name" "$version" "$@" || return 1
    unpack "$(find_sdist "$name" "$version")" "$dest"
    say "unpacked: corpora/$dest ($(find "$CORPORA/$dest" -type f | wc -l) files)"
}

npm_corpus() {
    local name="$1" version="$2"
    local dest="$name-$version"
    if [ -d "$CORPORA/$dest" ]; then
        say "present: corpora/$dest"
        return 0
    fi
    local tgz="$DL/$name-$version.tgz"
    if [ ! -f "$tgz" ]; then
        say "npm pack $name@$version"
        (cd "$DL" && npm pack --silent "$name@$version" >/dev/null)
    else
        say "have $(basename "$tgz")"
    fi
    # npm tarballs hold a single package/ directory; keep it: the corpus is <dest>/package/.
    mkdir -p "$CORPORA/$dest"
    tar -xzf "$tgz" -C "$CORPORA/$dest"
    say "unpacked: corpora/$dest/package ($(find "$CORPORA/$dest" -type f | wc -l) files)"
}

status=0
for v in 3.3.2 3.3.1 3.3.0 3.2.2; do
    python_corpus apache-airflow-core "$v" || status=1
done
python_corpus netbox 4.7.3 --python-version 3.12 || status=1
npm_corpus effect 4.1.0 || status=1

say "corpora in $CORPORA:"
for d in "$CORPORA"/*/; do
    [ -d "$d" ] || continue
    printf '[corpora]   %-32s %6s files %8s\n' "$(basename "$d")" \
        "$(find "$d" -type f | wc -l)" "$(du -sh "$d" | cut -f1)"
done
exit "$status"
