#!/usr/bin/env python3
"""The scale curve: Cartograph on synthetic monorepos of 10k, 50k and 200k files.

Generates each tree from the bench corpora (bench/corpora.sh) in UNITS of exactly 5,000 files:

  services/airflow_NNN/   a copy of apache-airflow-core 3.3.2 (2,195 files) with the package renamed
                          airflow -> airflow_NNN: the path src/airflow_NNN/..., and in every .py/.pyi
                          file `import airflow...` / `from airflow...` in import statements and quoted
                          dotted strings 'airflow.x...' (importlib literals, include() strings)
  services/airflow_NNN/web/  a generated TypeScript frontend (6 files: package.json, http.ts with an
                          axios instance, api/part_{0,1,2}.ts, index.ts) whose 12 call sites (fetch,
                          axios, the axios instance) call real FastAPI routes of the copy
  services/netbox_NNN/    a copy of netbox 4.7.3 (2,576 files) as it is: its apps are top-level
                          packages of services/netbox_NNN/netbox, a source root of its own, so every
                          copy's Python imports resolve inside that copy first (Django include()
                          strings do not: see bench/RESULTS.md)
  services/netbox_NNN/web/   the same kind of frontend, calling netbox's Django REST routes
  packages/effect_NNN/src/   the first 217 files of effect 4.1.0's src (top-level modules and
                          internal/ first), relative imports resolving as they are

so every size has the same mix of languages and frameworks (10k = 2 units, 50k = 10, 200k = 40) and
the per-file figures of different sizes compare. Unchanged files are hard links to the corpora (they
are never written through: edits replace files), so a 200k tree costs little disk. Route and table
names are not rewritten: every airflow copy serves the same route ids (route:GET /api/v2/dags/{}),
so route and table nodes do not grow with the number of copies; modules and edges do.

The route lists the frontends call come from `cartograph snapshot` of the first copy of each backend
(route nodes), cached in ROOT/routes/ and reused for every size. Generation is deterministic (same
corpora and route lists -> same tree; the manifest's tree_digest covers every path and its content
or link source) and idempotent (a tree whose manifest matches is reused).

Then, per size, with --bin and --threads 2, under `/usr/bin/time -f '%e %M %U %S'` (wall, peak RSS,
CPU user + sys):
  snapshot   `cartograph snapshot TREE -o OUT`
  diff-cold  `cartograph diff TREE HEAD --json OUT`; HEAD = `cp -al TREE HEAD` with 10 files replaced
             (each: a function and an import added; one FastAPI route path changed in airflow_000 and
             a new call to it in airflow_000's frontend)
  diff-warm  the same with `--cache DIR`, DIR a fresh copy, per run, of a cache primed by one
             `diff TREE TREE --cache` (base files all cached; HEAD's 10 files are not)
A watchdog kills a run whose process tree RSS passes --mem-limit-gb, or when the machine's
MemAvailable drops under 1.5 GB, and records it as killed. Optional: instruction counts under
callgrind (--threads 1) for chosen sizes; sharded snapshots and merge (--shards N) where the binary
has them. Results: ROOT/results/<binary>/<size>.json, a Markdown table on stdout, and the scale
section of bench/RESULTS.md.

  python3 bench/scale.py --sizes 10k,50k                  # generate, measure, report
  python3 bench/scale.py --sizes 200k --runs 1            # add a size (table keeps the others)
  python3 bench/scale.py --sizes 10k --check-links        # the cross-language link check
  python3 bench/scale.py --sizes 10k --only none --callgrind 10k      # instruction counts only
  python3 bench/scale.py --sizes 50k --only none --shards 4 --bin NEW --table-bin OLD
  python3 bench/scale.py --report                         # the table from stored results only
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CORPORA = BENCH / "work" / "corpora"
AIRFLOW = CORPORA / "apache-airflow-core-3.3.2"
NETBOX = CORPORA / "netbox-4.7.3"
EFFECT = CORPORA / "effect-4.1.0" / "package" / "src"
RESULTS_MD = BENCH / "RESULTS.md"

GEN_VERSION = 1  # bump when the generated tree changes for the same inputs
UNIT = 5000
FRONTEND_FILES = 6
CALLS_PER_FRONTEND = 12
EDIT_COUNT = 10
STEPS = ("snapshot", "diff-cold", "diff-warm")
MARK_BEGIN = "<!-- scale.py: begin -->"
MARK_END = "<!-- scale.py: end -->"
GIB = 1024 * 1024  # in KiB


def log(msg: str) -> None:
    print(f"[scale {dt.datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def parse_size(text: str) -> int:
    text = text.strip().lower()
    if text.endswith("k"):
        return int(float(text[:-1]) * 1000)
    return int(text)


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


# --------------------------------------------------------------------------------------------
# Corpora


def list_files(root: Path) -> list[str]:
    """Every regular file under root, relative, sorted (deterministic whatever the FS order)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in filenames:
            p = Path(dirpath) / name
            if p.is_file() and not p.is_symlink():
                out.append(p.relative_to(root).as_posix())
    out.sort()
    return out


def corpus_fingerprint(root: Path, files: list[str]) -> str:
    h = hashlib.sha1()
    for rel in files:
        st = (root / rel).stat()
        h.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def effect_subset(files: list[str], n: int) -> list[str]:
    """The first n effect files: top-level modules and internal/ first (what they import), then the rest."""
    def key(rel: str) -> tuple[int, str]:
        return (0 if "/" not in rel or rel.startswith("internal/") else 1, rel)
    return sorted(files, key=key)[:n]


class Corpora:
    def __init__(self) -> None:
        for p in (AIRFLOW, NETBOX, EFFECT):
            if not p.is_dir():
                raise SystemExit(f"scale: corpus missing: {p} (run bash bench/corpora.sh)")
        self.airflow = list_files(AIRFLOW)
        self.netbox = list_files(NETBOX)
        self.effect = list_files(EFFECT)
        self.effect_part = UNIT - (len(self.airflow) + FRONTEND_FILES) - (len(self.netbox) + FRONTEND_FILES)
        if not 0 < self.effect_part <= len(self.effect):
            raise SystemExit(f"scale: unexpected corpus sizes: airflow {len(self.airflow)}, netbox "
                             f"{len(self.netbox)}, effect {len(self.effect)}")
        self.fingerprint = sha1("".join(
            corpus_fingerprint(r, f) for r, f in
            ((AIRFLOW, self.airflow), (NETBOX, self.netbox), (EFFECT, self.effect))).encode())


# --------------------------------------------------------------------------------------------
# Rewriting airflow -> airflow_NNN

IMPORT_LINE = re.compile(r"^[ \t]*(?:from|import)[ \t]", re.M)
AIRFLOW_WORD = re.compile(r"(?<![\w.])airflow(?=[.\s,;)]|$)")
QUOTED_DOTTED = re.compile(r"""(['"])airflow\.""")


def rewrite_airflow_py(text: str, pkg: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        if IMPORT_LINE.match(line):
            # the module part only: up to ` import ` for a from-import, the whole line for an import
            m = re.match(r"^([ \t]*from[ \t]+)(\S+)(.*)$", line, re.S)
            if m:
                line = m.group(1) + AIRFLOW_WORD.sub(pkg, m.group(2)) + m.group(3)
            else:
                line = AIRFLOW_WORD.sub(pkg, line)
        out.append(line)
    text = "".join(out)
    return QUOTED_DOTTED.sub(lambda m: f"{m.group(1)}{pkg}.", text)


# --------------------------------------------------------------------------------------------
# Generated frontends


def camel(name: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", name)
    parts = [p for p in parts if p]
    if not parts:
        return "x"
    s = parts[0].lower() + "".join(p[:1].upper() + p[1:] for p in parts[1:])
    return s if not s[0].isdigit() else "p" + s


def pick_routes(routes: list[dict], copy: int) -> list[dict]:
    """CALLS_PER_FRONTEND distinct routes spread over the list, shifted per copy."""
    n = len(routes)
    step = max(1, n // CALLS_PER_FRONTEND)
    offset = (copy * 7) % n
    picked = {}
    for i in range(n):
        r = routes[(offset + i * step + i // CALLS_PER_FRONTEND) % n]
        picked.setdefault(r["id"], r)
        if len(picked) == min(CALLS_PER_FRONTEND, n):
            break
    return list(picked.values())


def frontend_call(route: dict, index: int) -> tuple[str, str]:
    """(function source, style) for one call of route; styles rotate fetch / axios / instance."""
    method = route["method"] if route["method"] != "ANY" else "GET"
    params = []

    def param(m: re.Match) -> str:
        name = camel(m.group(1))
        if name not in params:
            params.append(name)
        return "${" + name + "}"

    path = re.sub(r"\{([^}]+)\}", param, route["display_path"])
    body = method in ("POST", "PUT", "PATCH")
    args = ", ".join([f"{p}: string" for p in params] + (["body: unknown"] if body else []))
    fn = f"call{index:02d}{camel(method.lower()).capitalize()}"
    style = ("fetch", "axios", "instance")[index % 3]
    if style == "fetch":
        opts = f'{{ method: "{method}"' + (", body: JSON.stringify(body)" if body else "") + " }"
        call = f"fetch(`{path}`, {opts}).then((r) => r.json())"
    else:
        recv = "axios" if style == "axios" else "http"
        call = f"{recv}.{method.lower()}(`{path}`" + (", body" if body else "") + ").then((r) => r.data)"
    src = f"export function {fn}({args}): Promise<unknown> {{\n  return {call};\n}}\n"
    return src, style


def frontend_files(kind: str, copy: int, routes: list[dict]) -> dict[str, str]:
    picked = pick_routes(routes, copy)
    files: dict[str, str] = {}
    name = f"web-{kind}-{copy:03d}"
    files["web/package.json"] = json.dumps(
        {"name": name, "private": True, "version": "0.0.0", "type": "module",
         "dependencies": {"axios": "^1.7.0"}}, indent=2) + "\n"
    files["web/src/http.ts"] = (
        f"// Generated by bench/scale.py: the HTTP client of {name}.\n"
        'import axios from "axios";\n\n'
        'export const http = axios.create({ headers: { "Content-Type": "application/json" } });\n')
    per_part = (len(picked) + 2) // 3
    for part in range(3):
        chunk = picked[part * per_part:(part + 1) * per_part]
        lines = [f"// Generated by bench/scale.py: calls of {name} to routes its backend serves.\n",
                 'import axios from "axios";\n', 'import { http } from "../http";\n', "\n"]
        for j, route in enumerate(chunk):
            src, _ = frontend_call(route, part * per_part + j)
            lines.append(f"// {route['method']} {route['display_path']}\n{src}\n")
        files[f"web/src/api/part_{part}.ts"] = "".join(lines)
    files["web/src/index.ts"] = (
        f"// Generated by bench/scale.py: the entry of {name}.\n"
        'export * from "./api/part_0";\nexport * from "./api/part_1";\nexport * from "./api/part_2";\n'
        'export { http } from "./http";\n')
    assert len(files) == FRONTEND_FILES
    return files


# --------------------------------------------------------------------------------------------
# Route lists (from a snapshot of the first copy of each backend)


def routes_from_snapshot(doc: dict, kind: str) -> tuple[list[dict], list[dict]]:
    """(routes a frontend may call, every route with its handler)."""
    callable_, handlers = [], []
    for n in doc["nodes"]:
        if n["kind"] != "route":
            continue
        method = n["name"].split(" ", 1)[0]
        path = n.get("display_path") or n["name"].split(" ", 1)[1]
        h = n.get("handler") or {}
        handlers.append({"id": n["id"], "method": method, "display_path": path,
                         "module": h.get("module"), "function": h.get("function")})
        if "*" in path or method not in ("GET", "POST", "PUT", "PATCH", "DELETE", "ANY"):
            continue
        if kind == "airflow" and not path.startswith("/api/v2/"):
            continue
        if kind == "netbox" and not path.startswith("/api/"):
            continue
        callable_.append({"id": n["id"], "method": method, "display_path": path})
    callable_.sort(key=lambda r: r["id"])
    handlers.sort(key=lambda r: (r["id"], r["module"] or "", r["function"] or ""))
    return callable_, handlers


def route_list(root: Path, kind: str, copy_dir: Path, binary: str) -> list[dict]:
    cache = root / "routes" / f"{kind}.json"
    if cache.exists():
        return json.loads(cache.read_text())["routes"]
    cache.parent.mkdir(parents=True, exist_ok=True)
    out = root / "routes" / f"{kind}-snapshot.json"
    log(f"routes: cartograph snapshot {copy_dir} (route nodes for the {kind} frontends)")
    subprocess.run([binary, "snapshot", str(copy_dir), "--threads", "2", "-o", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    routes, handlers = routes_from_snapshot(json.loads(out.read_text()), kind)
    out.unlink()
    if len(routes) < CALLS_PER_FRONTEND:
        raise SystemExit(f"scale: only {len(routes)} {kind} routes found in {copy_dir}")
    cache.write_text(json.dumps({"from": f"cartograph snapshot of {copy_dir.name}",
                                 "binary": binary_id(binary), "routes": routes,
                                 "handlers": handlers}, indent=1) + "\n")
    return routes


# --------------------------------------------------------------------------------------------
# Tree generation


def plan(size: int, corpora: Corpora) -> list[tuple[str, int, int]]:
    """(kind, copy number, files) per copy; whole units, then effect files for any remainder."""
    units, rest = divmod(size, UNIT)
    copies = []
    for u in range(units):
        copies += [("airflow", u, len(corpora.airflow) + FRONTEND_FILES),
                   ("netbox", u, len(corpora.netbox) + FRONTEND_FILES),
                   ("effect", u, corpora.effect_part)]
    k = units
    while rest > 0:  # only for sizes that are not a multiple of the unit (quick tests)
        n = min(rest, len(corpora.effect))
        copies.append(("effect", k, n))
        rest -= n
        k += 1
    return copies


class Writer:
    """Writes a tree and its digest; links unchanged files to the corpora."""

    def __init__(self, dest: Path) -> None:
        self.dest = dest
        self.digest = hashlib.sha1()
        self.count = 0
        self.linked = 0

    def link(self, rel: str, src: Path, src_label: str) -> None:
        target = self.dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(src, target)
            self.linked += 1
        except OSError:
            shutil.copy2(src, target)
        self.digest.update(f"L {rel}\0{src_label}\n".encode())
        self.count += 1

    def write(self, rel: str, data: bytes) -> None:
        target = self.dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.digest.update(f"W {rel}\0{sha1(data)}\n".encode())
        self.count += 1


def copy_dir_of(kind: str, copy: int) -> str:
    return f"packages/effect_{copy:03d}" if kind == "effect" else f"services/{kind}_{copy:03d}"


def generate(size: int, root: Path, corpora: Corpora, binary: str) -> Path:
    tree = root / f"tree-{size_label(size)}"
    manifest_path = root / f"tree-{size_label(size)}.manifest.json"
    copies = plan(size, corpora)
    want = {"generator": GEN_VERSION, "size": size, "unit": UNIT, "corpora": corpora.fingerprint,
            "plan": [list(c) for c in copies]}
    routes_sig = {}
    for kind in ("airflow", "netbox"):
        cache = root / "routes" / f"{kind}.json"
        routes_sig[kind] = sha1(cache.read_bytes()) if cache.exists() else None
    if manifest_path.exists() and tree.is_dir():
        have = json.loads(manifest_path.read_text())
        if ({k: have.get(k) for k in want} == want and have.get("routes") == routes_sig
                and None not in routes_sig.values()):
            log(f"{size_label(size)}: reusing {tree} (manifest matches; {have['files']:,} files, "
                f"digest {have['tree_digest'][:12]})")
            return tree
    if tree.exists():
        log(f"{size_label(size)}: manifest differs or missing: removing {tree}")
        shutil.rmtree(tree)
    manifest_path.unlink(missing_ok=True)
    log(f"{size_label(size)}: generating {tree} ({len(copies)} copies)")
    t0 = time.monotonic()
    w = Writer(tree)
    pending_frontends = []
    for kind, copy, nfiles in copies:
        base = copy_dir_of(kind, copy)
        if kind == "airflow":
            pkg = f"airflow_{copy:03d}"
            for rel in corpora.airflow:
                dest = rel.replace("src/airflow/", f"src/{pkg}/", 1) if rel.startswith("src/airflow/") else rel
                src = AIRFLOW / rel
                if rel.endswith((".py", ".pyi")):
                    text = src.read_text(encoding="utf-8", errors="surrogateescape")
                    new = rewrite_airflow_py(text, pkg)
                    if new != text:
                        w.write(f"{base}/{dest}", new.encode("utf-8", errors="surrogateescape"))
                        continue
                w.link(f"{base}/{dest}", src, f"airflow:{rel}")
            pending_frontends.append((kind, copy, base))
        elif kind == "netbox":
            for rel in corpora.netbox:
                w.link(f"{base}/{rel}", NETBOX / rel, f"netbox:{rel}")
            pending_frontends.append((kind, copy, base))
        else:
            for rel in effect_subset(corpora.effect, nfiles):
                w.link(f"{base}/src/{rel}", EFFECT / rel, f"effect:{rel}")
    # The frontends call routes taken from a snapshot of the first copy of each backend.
    for kind, copy, base in pending_frontends:
        routes = route_list(root, kind, tree / copy_dir_of(kind, 0), binary)
        for rel, text in frontend_files(kind, copy, routes).items():
            w.write(f"{base}/{rel}", text.encode())
    files = count_files(tree)
    if files != size or w.count != size:
        raise SystemExit(f"scale: generated {files} files (wrote {w.count}), wanted {size}")
    for kind in ("airflow", "netbox"):
        cache = root / "routes" / f"{kind}.json"
        routes_sig[kind] = sha1(cache.read_bytes()) if cache.exists() else None
    manifest = {**want, "routes": routes_sig, "files": files, "hard_links": w.linked,
                "tree_digest": w.digest.hexdigest(),
                "copies": {k: sum(1 for c in copies if c[0] == k) for k in ("airflow", "netbox", "effect")}}
    manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    log(f"{size_label(size)}: {files:,} files ({w.linked:,} hard links) in {time.monotonic() - t0:.0f} s; "
        f"digest {manifest['tree_digest'][:12]}")
    return tree


def count_files(tree: Path) -> int:
    n = 0
    for dirpath, _, filenames in os.walk(tree):
        for name in filenames:
            p = os.path.join(dirpath, name)
            if os.path.isfile(p) and not os.path.islink(p):
                n += 1
    return n


# --------------------------------------------------------------------------------------------
# The ten-file change

ROUTE_DECORATOR = re.compile(r'(@\w+\.(?:get|post|put|patch|delete)\(\s*)"(/[^"]*)"')
SKIP_DIRS = ("/node_modules/", "/dist/", "/web/")


def edit_plan(tree: Path, corpora: Corpora) -> list[dict]:
    """The 10 files of the change, chosen by path hash (deterministic)."""
    edits: list[dict] = []
    a0 = copy_dir_of("airflow", 0)
    routes_dir = f"{a0}/src/airflow_000/api_fastapi/core_api/routes/public"
    candidates = sorted((p for p in (tree / routes_dir).glob("*.py") if p.name != "__init__.py"),
                        key=lambda p: sha1(p.as_posix().encode()))
    handlers = json.loads((tree.parent / "routes" / "airflow.json").read_text())["handlers"]
    route_file = next(p for p in candidates
                      if decorated_route(p.read_text(), handlers, p.relative_to(tree / a0).as_posix()))
    edits.append({"path": route_file.relative_to(tree).as_posix(), "what": "route path changed"})
    edits.append({"path": f"{a0}/web/src/api/part_0.ts", "what": "call to the changed route added"})
    chosen = {e["path"] for e in edits}
    pool = []
    for rel in sorted(r for r in corpora.airflow if r.endswith((".py", ".ts", ".tsx"))):
        if rel.startswith("src/airflow/"):
            pool.append(("airflow", rel.replace("src/airflow/", "src/airflow_{n}/", 1)))
    for rel in corpora.netbox:
        if rel.endswith((".py", ".ts")):
            pool.append(("netbox", rel))
    for rel in effect_subset(corpora.effect, corpora.effect_part):
        pool.append(("effect", "src/" + rel))
    ranked = []
    manifest = json.loads((tree.parent / f"{tree.name}.manifest.json").read_text())
    for kind, copy, _ in (tuple(c) for c in manifest["plan"]):
        for k, rel in pool:
            if k != kind:
                continue
            path = f"{copy_dir_of(kind, copy)}/{rel.replace('{n}', f'{copy:03d}')}"
            ranked.append((sha1(path.encode()), path))
    ranked.sort()
    for _, path in ranked:
        if len(edits) == EDIT_COUNT:
            break
        if path in chosen or any(s in f"/{path}" for s in SKIP_DIRS) or path.endswith(".d.ts"):
            continue
        p = tree / path
        if not p.is_file() or p.stat().st_size > 512 * 1024:
            continue
        chosen.add(path)
        edits.append({"path": path, "what": "function and import added"})
    return edits


def sibling_of(path: Path, exts: tuple[str, ...]) -> Path | None:
    for p in sorted(path.parent.iterdir()):
        if p != path and p.is_file() and p.name.endswith(exts) and not p.name.endswith(".d.ts") \
                and p.name != "__init__.py" and re.fullmatch(r"[A-Za-z_][\w.-]*", p.name):
            return p
    return None


def edited_text(tree: Path, edit: dict, route_change: dict) -> str:
    p = tree / edit["path"]
    text = p.read_text(encoding="utf-8", errors="surrogateescape")
    if edit["path"].endswith(".py"):
        if edit["what"] == "route path changed":
            m, route = decorated_route(text, route_change["handlers"], route_change["module"])
            new = m.group(2).rstrip("/") + "/scale-bench"
            route_change.update({"method": route["method"], "decorator_old": m.group(2), "decorator_new": new,
                                 "full_old": route["display_path"],
                                 "full_new": route["display_path"].rstrip("/") + "/scale-bench"})
            text = text[:m.start()] + f'{m.group(1)}"{new}"' + text[m.end():]
        sib = sibling_of(p, (".py",)) if (p.parent / "__init__.py").exists() else None
        imp = (f"from . import {sib.stem} as _scale_bench_sibling\n" if sib and sib.stem.isidentifier()
               else "import json as _scale_bench_sibling\n")
        return text + ("\n" if not text.endswith("\n") else "") + (
            f"\n{imp}\n\ndef _scale_bench_added():\n    \"\"\"Added by bench/scale.py's ten-file change.\"\"\"\n"
            "    return _scale_bench_sibling\n")
    # TypeScript
    extra = ""
    if edit["what"] == "call to the changed route added":
        # The changed route's new path, as a template literal with its parameters.
        params = []

        def param(m: re.Match) -> str:
            params.append(camel(m.group(1)))
            return "${" + params[-1] + "}"
        # the full path: the route node of the old path in the airflow route list
        full = route_change["full_new"]
        path = re.sub(r"\{([^}]+)\}", param, full)
        method = route_change["method"].lower()
        extra = (f"\nexport function scaleBenchNewCall({', '.join(p + ': string' for p in params)}): Promise<unknown> {{\n"
                 f"  return fetch(`{path}`, {{ method: \"{method.upper()}\" }}).then((r) => r.json());\n}}\n")
    sib = sibling_of(p, (".ts", ".tsx"))
    if sib:
        uses_ext = '.ts"' in text and re.search(r'from "\.{1,2}/[^"]*\.ts"', text)
        spec = "./" + (sib.name if uses_ext else re.sub(r"\.tsx?$", "", sib.name))
        imp = f'import * as _scaleBenchSibling from "{spec}";\n'
    else:
        imp = 'import * as _scaleBenchSibling from "path";\n'
    return text + ("\n" if not text.endswith("\n") else "") + (
        f"\n{imp}\nexport function scaleBenchAdded(): unknown {{\n  return _scaleBenchSibling;\n}}\n" + extra)


def decorated_route(text: str, handlers: list[dict], module: str) -> tuple[re.Match, dict] | None:
    """The first route decorator of a file whose handler the route list knows: (match, route)."""
    for m in ROUTE_DECORATOR.finditer(text):
        method = re.search(r"\.(get|post|put|patch|delete)\(", m.group(1)).group(1).upper()
        fn = re.compile(r"^\s*(?:async\s+)?def\s+(\w+)", re.M).search(text, m.end())
        if not fn:
            continue
        for r in handlers:
            if r["module"] == module and r["function"] == fn.group(1) and r["method"] == method:
                return m, r
    return None


def make_head(tree: Path, root: Path, corpora: Corpora) -> tuple[Path, list[dict]]:
    head = tree.parent / f"{tree.name}.head"
    head_manifest = tree.parent / f"{tree.name}.head.json"
    base_manifest = json.loads((tree.parent / f"{tree.name}.manifest.json").read_text())
    edits = edit_plan(tree, corpora)
    handlers = json.loads((root / "routes" / "airflow.json").read_text())["handlers"]
    a0 = copy_dir_of("airflow", 0)
    route_change: dict = {"handlers": handlers}
    # The route file first: the frontend's new call uses the changed route's new path.
    new_texts = {}
    for e in edits:
        if e["what"] == "route path changed":
            route_change["module"] = e["path"].removeprefix(a0 + "/")
            new_texts[e["path"]] = edited_text(tree, e, route_change)
    del route_change["handlers"]
    for e in edits:
        if e["path"] not in new_texts:
            new_texts[e["path"]] = edited_text(tree, e, route_change)
    want = {"base": base_manifest["tree_digest"], "edits": edits,
            "texts": {k: sha1(v.encode("utf-8", "surrogateescape")) for k, v in sorted(new_texts.items())}}
    if head.is_dir() and head_manifest.exists() and json.loads(head_manifest.read_text()).get("want") == want:
        log(f"{tree.name}: reusing {head}")
        return head, edits
    if head.exists():
        shutil.rmtree(head)
    t0 = time.monotonic()
    subprocess.run(["cp", "-al", str(tree), str(head)], check=True)
    for rel, text in new_texts.items():
        target = head / rel
        tmp = target.with_name(target.name + ".scale-tmp")
        tmp.write_bytes(text.encode("utf-8", "surrogateescape"))
        os.replace(tmp, target)  # a new inode: the base tree and the corpora are never written
    head_manifest.write_text(json.dumps({"want": want, "route_change": route_change}, indent=1) + "\n")
    log(f"{tree.name}: HEAD {head} (cp -al + {len(edits)} files replaced) in {time.monotonic() - t0:.0f} s; "
        f"route {route_change.get('method')} {route_change.get('full_old')} -> {route_change.get('full_new')}")
    return head, edits


# --------------------------------------------------------------------------------------------
# Measuring


def mem_available_kb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def tree_pids(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def rss_kb(pids: list[int]) -> int:
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total


class Limits:
    def __init__(self, limit_gb: float, floor_gb: float) -> None:
        self.limit_kb = int(limit_gb * 1024 * 1024)
        self.floor_kb = int(floor_gb * 1024 * 1024)


def measured(argv: list[str], stem: Path, limits: Limits, env: dict | None = None,
             timeout_s: float | None = None) -> dict:
    """One run under /usr/bin/time -f '%e %M %U %S', watched; {'wall_s', 'rss_kb', 'cpu_s', 'rc', 'killed'}."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    timef = Path(f"{stem}.time")
    timef.unlink(missing_ok=True)
    cmd = ["/usr/bin/time", "-f", "%e %M %U %S", "-o", str(timef)] + argv
    t0 = time.monotonic()
    with open(f"{stem}.stdout", "wb") as so, open(f"{stem}.stderr", "wb") as se:
        proc = subprocess.Popen(cmd, stdout=so, stderr=se, env={**os.environ, **(env or {})},
                                start_new_session=True)
        killed, peak = None, 0
        while True:
            try:
                proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            now = rss_kb(tree_pids(proc.pid))
            peak = max(peak, now)
            avail = mem_available_kb()
            if now > limits.limit_kb:
                killed = f"killed by the watchdog at {now / GIB:.1f} GiB RSS (limit {limits.limit_kb / GIB:.1f} GiB)"
            elif avail < limits.floor_kb:
                killed = (f"killed by the watchdog: machine MemAvailable {avail / GIB:.1f} GiB "
                          f"(process at {now / GIB:.1f} GiB)")
            elif timeout_s and time.monotonic() - t0 > timeout_s:
                killed = f"killed after the {timeout_s:.0f} s timeout"
            if killed:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
    wall = time.monotonic() - t0
    res = {"argv": argv, "rc": proc.returncode, "killed": killed, "sampled_peak_kb": peak}
    if not killed and timef.exists():
        parts = timef.read_text().strip().splitlines()[-1].split()
        try:
            res["wall_s"], res["rss_kb"] = float(parts[0]), int(parts[1])
            res["cpu_s"] = float(parts[2]) + float(parts[3])
        except (ValueError, IndexError):
            res["wall_s"], res["rss_kb"] = wall, peak
    else:
        res["wall_s"], res["rss_kb"] = wall, peak
    return res


def binary_id(binary: str) -> str:
    h = hashlib.sha256()
    with open(binary, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


def binary_info(binary: str) -> dict:
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    mtime = dt.datetime.fromtimestamp(os.stat(binary).st_mtime, dt.timezone.utc)
    # --version names no commit; the newest commit of the repository older than the binary.
    commit = subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h %s",
                             f"--before={mtime.isoformat()}"], capture_output=True, text=True).stdout.strip()
    return {"path": binary, "version": version, "sha256_12": binary_id(binary),
            "mtime": mtime.strftime("%Y-%m-%d %H:%M UTC"), "commit_guess": commit}


def machine() -> str:
    model = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = 0
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            mem = int(line.split()[1]) / GIB
    return f"{os.cpu_count()} cores ({model}), {mem:.0f} GiB RAM, {platform.system()} {platform.release()}"


def loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def snapshot_counts(path: Path) -> dict:
    doc = json.loads(path.read_text())
    stats = doc["stats"]
    kinds: dict[str, int] = {}
    for n in doc["nodes"]:
        kinds[n["kind"]] = kinds.get(n["kind"], 0) + 1
    return {"files_seen": stats.get("files_seen"), "files_analysed": stats["files_analysed"],
            "files_by_language": stats.get("files_by_language"), "nodes": len(doc["nodes"]),
            "edges": len(doc["edges"]), "node_kinds": kinds, "refusals": len(doc.get("refusals", []))}


def phase_lines(stderr: Path) -> list[str]:
    try:
        return [re.sub(r"\x1b\[[0-9;]*m", "", l).strip() for l in stderr.read_text(errors="replace").splitlines()
                if "elapsed_ms" in l]
    except OSError:
        return []


PHASES = (("discover", "discover"), ("extract", "extract (diff: distinct contents)"),
          ("resolve", "extract + resolve (snapshot) / resolve"), ("merge", "merge"), ("link", "link"),
          ("finish", "analyse (after link)"), ("cache", "cache write"), ("diff", "diff"))
PHASE_OF = {"discovered": "discover", "all trees discovered": "discover",
            "distinct contents extracted": "extract", "extracted and resolved": "resolve", "merged": "merge",
            "linked": "link", "analysed": "finish", "cache finished": "cache", "diffed": "diff"}


def phase_durations(lines: list[str]) -> dict:
    """Seconds per phase from the cumulative elapsed_ms lines (the later of a diff's two trees)."""
    at: dict[str, int] = {}
    order: list[str] = []
    last = 0
    for line in lines:
        m = re.search(r"(?:analyse|commands): (.+?) elapsed_ms=(\d+)", line)
        if not m:
            continue
        ms = int(m.group(2))
        last = max(last, ms)
        key = PHASE_OF.get(m.group(1))
        if key is None:
            continue
        if key not in at:
            order.append(key)
        at[key] = max(at.get(key, 0), ms)
    out, prev = {}, 0
    for key in order:
        out[key] = (at[key] - prev) / 1000
        prev = at[key]
    out["total"] = last / 1000
    return out


def median_run(runs: list[dict]) -> dict:
    ok = [r for r in runs if not r.get("killed") and r["rc"] == 0]
    if not ok:
        return runs[-1] if runs else {}
    ok.sort(key=lambda r: r["wall_s"])
    return ok[(len(ok) - 1) // 2]


def du_kb(path: Path) -> int:
    res = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True)
    return int(res.stdout.split()[0]) if res.returncode == 0 else 0


def measure_size(size: int, tree: Path, head: Path, args, limits: Limits, out_dir: Path, info: dict) -> dict:
    label = size_label(size)
    runs = args.runs if args.runs else (1 if size >= 200_000 else 3)
    binary = args.bin
    res_path = out_dir / f"{label}.json"
    result = json.loads(res_path.read_text()) if res_path.exists() else {}
    steps = [s for s in STEPS if s in args.only]
    result.update({"size": size, "tree": str(tree), "head": str(head), "binary": info, "machine": machine()})
    if steps:
        result.update({"load_before": loadavg(), "date": dt.datetime.now().strftime("%Y-%m-%d %H:%M")})
    result.setdefault("steps", {})
    work = args.root / "out" / label
    work.mkdir(parents=True, exist_ok=True)
    env = {"CARTOGRAPH_LOG": "debug"}

    def save() -> None:
        res_path.write_text(json.dumps(result, indent=1) + "\n")

    if "snapshot" in steps:
        rs = []
        for i in range(runs):
            out = work / "snapshot.json"
            log(f"{label} snapshot run {i + 1}/{runs} (load {loadavg()})")
            r = measured([binary, "snapshot", str(tree), "--threads", "2", "-o", str(out)],
                         work / f"snapshot-{i}", limits, env)
            r["phases"] = phase_lines(work / f"snapshot-{i}.stderr")
            log(f"  {fmt_run(r)}")
            rs.append(r)
            if r.get("killed") or r["rc"] != 0:
                break
        result["steps"]["snapshot"] = {"runs": rs, "load_after": loadavg()}
        if (work / "snapshot.json").exists() and any(r["rc"] == 0 and not r.get("killed") for r in rs):
            result["counts"] = snapshot_counts(work / "snapshot.json")
        save()
    if "diff-cold" in steps:
        rs = []
        for i in range(runs):
            log(f"{label} cold diff run {i + 1}/{runs} (load {loadavg()})")
            r = measured([binary, "diff", str(tree), str(head), "--threads", "2", "--json", str(work / "diff-cold.json")],
                         work / f"diff-cold-{i}", limits, env)
            r["phases"] = phase_lines(work / f"diff-cold-{i}.stderr")
            log(f"  {fmt_run(r)}")
            rs.append(r)
            if r.get("killed") or r["rc"] not in (0, 1):
                break
        result["steps"]["diff-cold"] = {"runs": rs, "load_after": loadavg(), "summary": diff_summary(work / "diff-cold.json")}
        save()
    if "diff-warm" in steps:
        primed = args.root / "cache" / f"{label}-primed"
        run_cache = args.root / "cache" / f"{label}-run"
        extra = ["--cache-max-mib", str(args.cache_max_mib)] if args.cache_max_mib else []
        shutil.rmtree(primed, ignore_errors=True)
        log(f"{label} priming the cache: diff TREE TREE --cache (load {loadavg()})")
        prime = measured([binary, "diff", str(tree), str(tree), "--threads", "2", "--cache", str(primed)] + extra
                         + ["--json", str(work / "diff-prime.json")], work / "diff-prime", limits, env)
        prime["cache_kb"] = du_kb(primed)
        log(f"  prime: {fmt_run(prime)}; cache {prime['cache_kb'] / 1024:,.0f} MiB")
        rs = []
        if not prime.get("killed") and prime["rc"] in (0, 1):
            for i in range(runs):
                shutil.rmtree(run_cache, ignore_errors=True)
                subprocess.run(["cp", "-a", str(primed), str(run_cache)], check=True)
                log(f"{label} warm diff run {i + 1}/{runs} (load {loadavg()})")
                r = measured([binary, "diff", str(tree), str(head), "--threads", "2", "--cache", str(run_cache)] + extra
                             + ["--json", str(work / "diff-warm.json")], work / f"diff-warm-{i}", limits, env)
                r["phases"] = phase_lines(work / f"diff-warm-{i}.stderr")
                r["cache_kb_after"] = du_kb(run_cache)
                log(f"  {fmt_run(r)}")
                rs.append(r)
                if r.get("killed") or r["rc"] not in (0, 1):
                    break
            shutil.rmtree(run_cache, ignore_errors=True)
        result["steps"]["diff-warm"] = {"runs": rs, "prime": prime, "load_after": loadavg(),
                                        "summary": diff_summary(work / "diff-warm.json")}
        if not args.keep_cache:
            shutil.rmtree(primed, ignore_errors=True)
        save()
    if label in args.callgrind_sizes:
        cg = result.setdefault("callgrind", {})
        for step in args.callgrind_steps:
            if step == "snapshot":
                argv = [binary, "snapshot", str(tree), "--threads", "1", "-o", "/dev/null"]
            elif step == "diff-cold":
                argv = [binary, "diff", str(tree), str(head), "--threads", "1", "--json", "/dev/null"]
            else:
                primed = args.root / "cache" / f"{label}-cg"
                shutil.rmtree(primed, ignore_errors=True)
                subprocess.run([binary, "diff", str(tree), str(tree), "--threads", "2", "--cache", str(primed),
                                "--json", "/dev/null"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                argv = [binary, "diff", str(tree), str(head), "--threads", "1", "--cache", str(primed), "--json", "/dev/null"]
            log(f"{label} callgrind {step} (--threads 1; slow)")
            cg_out = str(work / f"callgrind-{step}.out") if args.callgrind_keep else "/dev/null"
            r = measured(["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg_out}"] + argv,
                         work / f"callgrind-{step}", limits)
            text = (work / f"callgrind-{step}.stderr").read_text(errors="replace")
            m = re.search(r"Collected\s*:\s*(\d+)", text)
            r["instructions"] = int(m.group(1)) if m else None
            log(f"  {step}: {r['instructions']:,} instructions, {r['wall_s']:.0f} s" if r["instructions"]
                else f"  {step}: no count ({fmt_run(r)})")
            cg[step] = r
            if step == "diff-warm":
                shutil.rmtree(args.root / "cache" / f"{label}-cg", ignore_errors=True)
            save()
    save()
    return result


def diff_summary(path: Path) -> dict | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    s = doc.get("summary", {})
    return {"findings": len(doc.get("findings", [])),
            "findings_by_kind": {k: v for k, v in s.get("findings_by_kind", {}).items() if v},
            "edges_added": s.get("edges_added"), "edges_removed": s.get("edges_removed"),
            "nodes_added": s.get("nodes_added"), "nodes_removed": s.get("nodes_removed")}


def fmt_run(r: dict) -> str:
    if r.get("killed"):
        return f"{r['killed']} after {r['wall_s']:.0f} s (sampled peak {r['sampled_peak_kb'] / 1024:,.0f} MiB)"
    cpu = f", CPU {r['cpu_s']:.1f} s" if r.get("cpu_s") is not None else ""
    return f"rc {r['rc']}, {r['wall_s']:.2f} s{cpu}, peak RSS {r['rss_kb'] / 1024:,.0f} MiB"


# --------------------------------------------------------------------------------------------
# Cross-language link check


def check_links(tree: Path, args, limits: Limits) -> dict:
    """Calls from the generated frontends to route nodes, in the tree's snapshot."""
    label = tree.name.removeprefix("tree-")
    snap = args.root / "out" / label / "snapshot.json"
    if not snap.exists():
        log(f"{label}: no snapshot yet; running one")
        snap.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([args.bin, "snapshot", str(tree), "--threads", "2", "-o", str(snap)], check=True,
                       stdout=subprocess.DEVNULL)
    doc = json.loads(snap.read_text())

    def copy_of(node_id: str) -> str:
        path = node_id.split(":", 1)[1]
        return "/".join(path.split("/")[:2])

    servers: dict[str, set[str]] = {}
    for e in doc["edges"]:
        if e["kind"] == "serves":
            servers.setdefault(e["to"], set()).add(copy_of(e["from"]))
    frontends = sorted({"/".join(n["id"].split(":", 1)[1].split("/")[:2]) for n in doc["nodes"]
                        if n["kind"] == "module" and "/web/src/" in n["id"]})
    calls = [e for e in doc["edges"] if e["kind"] == "calls" and "/web/src/" in e["from"]]
    to_route = [e for e in calls if e["to"].startswith("route:")]
    same_copy = [e for e in to_route if copy_of(e["from"]) in servers.get(e["to"], set())]
    sites = sum(e.get("occurrences", 1) for e in to_route)
    expected = len(frontends) * CALLS_PER_FRONTEND
    cross = 0
    per_copy_internal: dict[str, int] = {}
    for e in doc["edges"]:
        if e["kind"] == "imports" and e["from"].startswith("module:") and e["to"].startswith("module:"):
            a, b = copy_of(e["from"]), copy_of(e["to"])
            if a != b:
                cross += 1
            else:
                per_copy_internal[a] = per_copy_internal.get(a, 0) + 1
    unlinked = [e for e in calls if not e["to"].startswith("route:")]
    res = {"frontends": len(frontends), "call_sites_generated": expected, "calls_edges_from_frontends": len(calls),
           "calls_to_routes": len(to_route), "call_sites_to_routes": sites,
           "calls_to_a_route_the_same_copy_serves": len(same_copy), "calls_elsewhere": len(unlinked),
           "cross_copy_imports": cross, "internal_imports_per_copy": per_copy_internal,
           "example": to_route[0] if to_route else None}
    # Module -> module imports inside one copy against the same copy analysed alone.
    alone = {}
    for kind in ("airflow", "netbox", "effect"):
        d = copy_dir_of(kind, 0)
        out = args.root / "out" / label / f"alone-{kind}.json"
        subprocess.run([args.bin, "snapshot", str(tree / d), "--threads", "2", "-o", str(out)], check=True,
                       stdout=subprocess.DEVNULL)
        sd = json.loads(out.read_text())
        n = sum(1 for e in sd["edges"] if e["kind"] == "imports" and e["from"].startswith("module:")
                and e["to"].startswith("module:"))
        c = sum(1 for e in sd["edges"] if e["kind"] == "calls" and e["to"].startswith("route:") and "web/src/" in e["from"])
        alone[d] = {"internal_imports_alone": n, "in_tree": per_copy_internal.get(d, 0),
                    "frontend_calls_to_routes_alone": c}
        out.unlink()
    res["copy_alone_vs_in_tree"] = alone
    return res


# --------------------------------------------------------------------------------------------
# Shards


def shards(tree: Path, args, limits: Limits) -> dict:
    label = tree.name.removeprefix("tree-")
    top = subprocess.run([args.bin, "--help"], capture_output=True, text=True).stdout
    snap_help = subprocess.run([args.bin, "snapshot", "--help"], capture_output=True, text=True).stdout
    has_merge = re.search(r"^\s+merge\s", top, re.M) is not None
    has_shard = "--shard" in snap_help
    if not (has_merge and has_shard):
        missing = ", ".join(x for x, ok in (("`snapshot --shard K/N`", has_shard), ("`merge`", has_merge)) if not ok)
        msg = f"skipped: the binary has no {missing}"
        log(f"shards: {msg}")
        return {"skipped": msg, "binary": binary_info(args.bin)}
    n = args.shards
    work = args.root / "out" / label / "shards"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # The reference: an unsharded snapshot by the same binary with the same options.
    ref = work / "unsharded.json"
    log(f"{label} unsharded snapshot (the reference for the merge)")
    unsharded = measured([args.bin, "snapshot", str(tree), "--threads", "2", "-o", str(ref)], work / "unsharded", limits)
    log(f"  {fmt_run(unsharded)}")
    runs = []
    files = []
    for k in range(1, n + 1):
        out = work / f"shard-{k}.facts"
        log(f"{label} shard {k}/{n}")
        r = measured([args.bin, "snapshot", str(tree), "--shard", f"{k}/{n}", "--threads", "2", "-o", str(out)],
                     work / f"shard-{k}", limits)
        r["out_kb"] = out.stat().st_size // 1024 if out.exists() else None
        log(f"  {fmt_run(r)}; fact file {r['out_kb'] or 0:,} KiB")
        runs.append(r)
        files.append(str(out))
    merged = work / "merged.json"
    log(f"{label} merge of {n} shards")
    m = measured([args.bin, "merge"] + files + ["--threads", "2", "-o", str(merged)], work / "merge", limits)
    log(f"  {fmt_run(m)}")
    identical = None
    if merged.exists() and ref.exists():
        identical = subprocess.run(["cmp", "-s", str(merged), str(ref)]).returncode == 0
        if not identical:
            cmpout = subprocess.run(["cmp", str(merged), str(ref)], capture_output=True, text=True)
            m["cmp"] = (cmpout.stdout + cmpout.stderr).strip()
    log(f"  merged snapshot byte-identical to the unsharded one: {identical}")
    for f in files:
        Path(f).unlink(missing_ok=True)
    return {"n": n, "binary": binary_info(args.bin), "unsharded": unsharded, "shards": runs, "merge": m,
            "identical": identical}


# --------------------------------------------------------------------------------------------
# Report


def fmt_s(x: float | None) -> str:
    return "—" if x is None else (f"{x:,.1f}" if x >= 10 else f"{x:.2f}")


def step_figures(res: dict, step: str) -> dict | None:
    s = res.get("steps", {}).get(step)
    if not s or not s.get("runs"):
        return None
    runs = s["runs"]
    ok = [r for r in runs if not r.get("killed") and r["rc"] in (0, 1)]
    killed = next((r for r in runs if r.get("killed")), None)
    med = median_run(runs)
    cpus = [r["cpu_s"] for r in ok if r.get("cpu_s") is not None]
    return {"n": len(ok), "wall": statistics.median(r["wall_s"] for r in ok) if ok else None,
            "cpu": statistics.median(cpus) if cpus else None,
            "rss_kb": max(r["rss_kb"] for r in ok) if ok else None, "killed": killed,
            "phases": med.get("phases", [])}


def report(out_dir: Path) -> tuple[str, list[dict]]:
    results = []
    for p in out_dir.glob("*.json"):
        try:
            results.append(json.loads(p.read_text()))
        except ValueError:
            pass
    results.sort(key=lambda r: r["size"])
    if not results:
        return "no results yet\n", []
    base = next((r for r in results if r["size"] == 10_000 and r.get("counts")), results[0])
    lines = []
    lines.append("| size (files in tree) | files analysed | nodes | edges | step | runs | wall s (median) "
                 "| wall ms per file | × the 10k | CPU s (user+sys) | CPU ms per file | × the 10k "
                 "| peak RSS MiB | RSS KiB per file | × the 10k |")
    lines.append("|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    verdicts = []

    def per(x, n, scale=1000.0):
        return x * scale / n if (x is not None and n) else None

    def ratio(a, b):
        return a / b if (a is not None and b) else None

    def f2(x, fmt="{:.2f}", suffix=""):
        return "—" if x is None else fmt.format(x) + suffix

    bfiles = base.get("counts", {}).get("files_analysed")
    for r in results:
        c = r.get("counts", {})
        files = c.get("files_analysed")
        for step in STEPS:
            f = step_figures(r, step)
            if not f:
                continue
            bf = step_figures(base, step) or {}
            ms, bms = per(f["wall"], files), per(bf.get("wall"), bfiles)
            cms, bcms = per(f["cpu"], files), per(bf.get("cpu"), bfiles)
            kpf, bkpf = per(f["rss_kb"], files, 1.0), per(bf.get("rss_kb"), bfiles, 1.0)
            wr, cr, rr = ratio(ms, bms), ratio(cms, bcms), ratio(kpf, bkpf)
            wall = fmt_s(f["wall"])
            rss = "—" if not f["rss_kb"] else f"{f['rss_kb'] / 1024:,.0f}"
            if f["killed"]:
                k = f["killed"]
                wall = (wall + "; " if f["wall"] else "") + f"**{k['killed']}** after {k['wall_s']:.0f} s"
                rss = f"> {k['sampled_peak_kb'] / 1024:,.0f} (sampled)"
            lines.append(
                f"| {r['size']:,} | {f2(files, '{:,}')} | {f2(c.get('nodes'), '{:,}')} | {f2(c.get('edges'), '{:,}')} "
                f"| {step} | {f['n']} | {wall} | {f2(ms)} | {f2(wr, suffix='×')} | {fmt_s(f['cpu'])} | {f2(cms)} "
                f"| {f2(cr, suffix='×')} | {rss} | {f2(kpf, '{:.1f}')} | {f2(rr, suffix='×')} |")
            if r is not base and (wr is not None or cr is not None):
                worst = max(x for x in (wr, cr) if x is not None)
                verdicts.append(f"{step} at {size_label(r['size'])}: wall {f2(wr, suffix='×')}, CPU {f2(cr, suffix='×')} "
                                f"the 10k per-file figure ({'within' if worst <= 1.2 else 'OVER'} the 1.2× bar); "
                                f"RSS per file {f2(rr, suffix='×')}")
            if r["size"] >= 200_000 and (f["rss_kb"] or f["killed"]):
                kb = f["rss_kb"] or f["killed"]["sampled_peak_kb"]
                verdicts.append(f"{step} at {size_label(r['size'])}: peak RSS {kb / GIB:.2f} GiB "
                                f"({kb / GIB:.1f}× the 1 GiB budget)")
    return "\n".join(lines) + "\n", results + [{"_verdicts": verdicts}]


def results_md(args, table: str, results: list[dict]) -> str:
    verdicts = results[-1].get("_verdicts", []) if results else []
    results = [r for r in results if "size" in r]
    info = results[0]["binary"] if results else {}
    sizes = ", ".join(size_label(r["size"]) for r in results)
    out = [MARK_BEGIN, "## Scale curve (bench/scale.py)", ""]
    out.append(f"Binary: `{info.get('path')}`, `{info.get('version')}` (sha256 {info.get('sha256_12')}, built "
               f"{info.get('mtime')}; `--version` names no commit, the newest commit before the build is "
               f"{info.get('commit_guess')}).")
    if results:
        out.append(f"Machine: {results[0]['machine']}; shared with other work. Dates and load averages "
                   "(1/5/15 min) before each size: " + "; ".join(
                       f"{size_label(r['size'])} {r['date']} load {r['load_before']}" for r in results) + ".")
    out.append("")
    out.append("How generated: `python3 bench/scale.py` builds each tree under `/work/scale/tree-<size>/` in units "
               "of 5,000 files (one copy of apache-airflow-core 3.3.2 with the package renamed `airflow_NNN` and "
               "its imports rewritten, one copy of netbox 4.7.3 with its apps under a root of its own, each with a "
               "generated 6-file TypeScript frontend whose 12 fetch/axios calls use real routes of that copy, and "
               "217 files of effect 4.1.0's `src`): 10k = 2 units, 50k = 10, 200k = 40, so the mix of "
               "languages is the same at every size. Unchanged files are hard links to the corpora (page cache "
               "shared between copies: reads are cheaper than in a real monorepo). Route and table ids are "
               "not renamed: the copies serve the same routes, so route/table nodes stop growing after one unit. "
               "HEAD = `cp -al` of the tree with 10 files replaced (function + import each; one FastAPI route path "
               "changed and a call to the new path added).")
    out.append("")
    out.append("Wall and peak RSS: `/usr/bin/time -f '%e %M'`, `--threads 2`, page cache warm, median of the runs "
               "(peak RSS: the largest of the runs). *ms per file* = wall / files analysed (the snapshot's "
               "`files_analysed`, for all three steps); *× the 10k per-file* is that figure over the 10k tree's "
               "(the bar: at most 1.2×). The warm diff restores a primed `--cache` before each run.")
    out.append("")
    out.append(table)
    if verdicts:
        out.append("Against the bars:")
        out.append("")
        out += [f"- {v}" for v in verdicts]
        out.append("")
    cg_lines = []
    for r in results:
        for step, c in sorted(r.get("callgrind", {}).items()):
            if c.get("instructions"):
                files = r.get("counts", {}).get("files_analysed")
                cg_lines.append(f"| {size_label(r['size'])} | {step} | {c['instructions']:,} | "
                                f"{c['instructions'] / files / 1e6:,.2f} | {c['wall_s']:,.0f} |")
    if cg_lines:
        out.append("Instruction counts (hardware counters are not available in this VM: `perf stat` says "
                   "`<not supported>`; so `valgrind --tool=callgrind --callgrind-out-file=/dev/null`, `--threads 1`, "
                   "only where affordable):")
        out.append("")
        out.append("| size | step | instructions | M instructions per file analysed | wall s under callgrind |")
        out.append("|---|---|---:|---:|---:|")
        out += cg_lines
        out.append("")
    phase_rows = []
    for r in results:
        for step in STEPS:
            f = step_figures(r, step)
            if f and f["phases"]:
                d = phase_durations(f["phases"])
                cells = " | ".join("—" if d.get(k) is None else f"{d[k]:,.2f}" for k, _ in PHASES)
                phase_rows.append(f"| {size_label(r['size'])} | {step} | {cells} | {d.get('total', 0):,.2f} |")
    if phase_rows:
        out.append("Phases of the median run of each step, seconds (`CARTOGRAPH_LOG=debug` lines; wall time, so "
                   "load moves them too; in a diff the two trees' lines are taken at the later one):")
        out.append("")
        out.append("| size | step | " + " | ".join(label for _, label in PHASES) + " | total |")
        out.append("|---|---|" + "---:|" * (len(PHASES) + 1))
        out += phase_rows
        out.append("")
        for r in results:
            f = step_figures(r, "snapshot")
            if f and f["phases"] and r["size"] >= 50_000:
                out.append(f"- {size_label(r['size'])} snapshot, as logged: " + " · ".join(
                    f"`{p.split('analyse: ', 1)[-1]}`" for p in f["phases"]))
        out.append("")
    for r in results:
        if r.get("links"):
            l = r["links"]
            out.append(f"Cross-language links at {size_label(r['size'])}: {l['frontends']} generated frontends, "
                       f"{l['call_sites_generated']} call sites; {l['calls_to_routes']} `calls` edges to route nodes "
                       f"({l['calls_to_a_route_the_same_copy_serves']} to a route the same copy serves), "
                       f"{l['calls_elsewhere']} elsewhere; module→module imports crossing copies: {l['cross_copy_imports']}.")
            out.append("")
    for path in sorted((args.root / "results" / "shards").glob("*.json")):
        s = json.loads(path.read_text())
        b = s.get("binary", {})
        where = f"Sharded snapshot at {size_label(s['size'])} (binary {b.get('sha256_12')}, {b.get('commit_guess')})"
        if s.get("skipped"):
            out += [f"{where}: {s['skipped']}.", ""]
            continue
        u, m = s["unsharded"], s["merge"]
        sh = "; ".join(f"shard {i + 1}: {fmt_s(x['wall_s'])} s, CPU {fmt_s(x.get('cpu_s'))} s, "
                       f"{x['rss_kb'] / 1024:,.0f} MiB" for i, x in enumerate(s["shards"]))
        out += [f"{where}, wall / CPU / peak RSS: unsharded `snapshot` {fmt_s(u['wall_s'])} s, CPU "
                f"{fmt_s(u.get('cpu_s'))} s, {u['rss_kb'] / 1024:,.0f} MiB; {sh}; `merge` of the {s['n']} fact files "
                f"{fmt_s(m['wall_s'])} s, CPU {fmt_s(m.get('cpu_s'))} s, {m['rss_kb'] / 1024:,.0f} MiB. Merged "
                f"snapshot byte-identical to the unsharded one (`cmp`): **{s['identical']}**"
                + (f" ({m['cmp']})" if m.get("cmp") else "") + ".", ""]
    out.append("Reproduce: `bash bench/corpora.sh`, then `python3 bench/scale.py --bin BIN --sizes 10k,50k` and "
               "`python3 bench/scale.py --bin BIN --sizes 200k --runs 1` (`--help` for callgrind and shards).")
    out.append(MARK_END)
    return "\n".join(out) + "\n"


def update_results_md(section: str) -> None:
    if RESULTS_MD.exists():
        text = RESULTS_MD.read_text()
        if MARK_BEGIN in text and MARK_END in text:
            a, b = text.index(MARK_BEGIN), text.index(MARK_END) + len(MARK_END)
            text = text[:a] + section.rstrip("\n") + text[b:]
        else:
            text = text.rstrip("\n") + "\n\n" + section
    else:
        text = "# Benchmark results\n\nMeasured figures written by the bench scripts; each section says how.\n\n" + section
    RESULTS_MD.write_text(text)


# --------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10k,50k,200k", help="comma list (multiples of 5k keep the mix exact)")
    ap.add_argument("--bin", default="/work/target-rel/release/cartograph")
    ap.add_argument("--root", type=Path, default=Path("/work/scale"), help="trees, outputs, caches, results")
    ap.add_argument("--runs", type=int, default=0, help="runs per step (default 3; 1 at 200k and above)")
    ap.add_argument("--only", default=",".join(STEPS), help="steps to run: snapshot,diff-cold,diff-warm")
    ap.add_argument("--generate-only", action="store_true")
    ap.add_argument("--check-links", action="store_true", help="the cross-language link check (10k)")
    ap.add_argument("--callgrind", default="", help="sizes to count instructions for, e.g. 10k")
    ap.add_argument("--callgrind-steps", default="snapshot,diff-warm")
    ap.add_argument("--callgrind-keep", action="store_true",
                    help="keep the callgrind profiles in ROOT/out/<size>/ for callgrind_annotate")
    ap.add_argument("--shards", type=int, default=0, help="N: sharded snapshot + merge on --shard-size")
    ap.add_argument("--shard-size", default="50k")
    ap.add_argument("--cache-max-mib", type=int, default=0, help="passed to diff --cache runs (default: the binary's)")
    ap.add_argument("--keep-cache", action="store_true")
    ap.add_argument("--mem-limit-gb", type=float, default=0,
                    help="kill a run above this RSS (default: 16, at most MemTotal - 6 GiB); any run is also "
                         "killed when the machine's MemAvailable falls under 1.5 GiB")
    ap.add_argument("--table-bin", help="the binary whose stored results make the table (default: --bin)")
    ap.add_argument("--report", action="store_true", help="only print the table and update RESULTS.md")
    ap.add_argument("--no-results-md", action="store_true")
    ap.add_argument("--remove", action="store_true", help="delete the trees of --sizes (and their HEADs) at the end")
    args = ap.parse_args()
    args.only = [s.strip() for s in args.only.split(",") if s.strip()]
    args.callgrind_sizes = [size_label(parse_size(s)) for s in args.callgrind.split(",") if s.strip()]
    args.callgrind_steps = [s.strip() for s in args.callgrind_steps.split(",") if s.strip()]
    if not os.access(args.bin, os.X_OK):
        log(f"no binary at {args.bin}")
        return 2
    args.bin = str(Path(args.bin).resolve())
    info = binary_info(args.bin)
    # Run a private copy: a rebuild of --bin during a long run must not change the binary under test.
    pinned = args.root / "bin" / f"cartograph-{info['sha256_12']}"
    if not pinned.exists():
        pinned.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(args.bin, f"{pinned}.tmp")
        os.replace(f"{pinned}.tmp", pinned)
    info["pinned_copy"] = str(pinned)
    args.bin = str(pinned)
    out_dir = args.root / "results" / info["sha256_12"]
    out_dir.mkdir(parents=True, exist_ok=True)

    if not args.report:
        if not Path("/usr/bin/time").exists():
            log("GNU time missing (/usr/bin/time): run bench/peers.sh")
            return 2
        avail = mem_available_kb() / GIB
        total = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal:")) / GIB
        limit = args.mem_limit_gb or max(2.0, min(16.0, total - 6))
        limits = Limits(limit, 1.5)
        log(f"binary {info['version']} sha256 {info['sha256_12']} ({info['mtime']}); memory limit {limit:.1f} GiB "
            f"(MemAvailable {avail:.1f} GiB); load {loadavg()}")
        corpora = Corpora()
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
        shard_size = parse_size(args.shard_size)
        for size in sizes:
            free = shutil.disk_usage(args.root).free / 1e9
            if free < 22:
                log(f"only {free:.1f} GB free on {args.root}: stopping before {size_label(size)}")
                break
            tree = generate(size, args.root, corpora, args.bin)
            if args.generate_only:
                continue
            head, edits = make_head(tree, args.root, corpora)
            res_path = out_dir / f"{size_label(size)}.json"
            if any(s in args.only for s in STEPS) or size_label(size) in args.callgrind_sizes:
                result = measure_size(size, tree, head, args, limits, out_dir, info)
            else:
                result = json.loads(res_path.read_text()) if res_path.exists() else {"size": size, "binary": info}
            result["edits"] = edits
            result["manifest"] = json.loads((args.root / f"tree-{size_label(size)}.manifest.json").read_text())
            if args.check_links:
                result["links"] = check_links(tree, args, limits)
                log(f"links: {json.dumps({k: v for k, v in result['links'].items() if k not in ('example', 'internal_imports_per_copy')})}")
            if args.shards and size == shard_size:
                sres = shards(tree, args, limits)
                sdir = args.root / "results" / "shards"
                sdir.mkdir(parents=True, exist_ok=True)
                (sdir / f"{info['sha256_12']}-{size_label(size)}.json").write_text(
                    json.dumps({"size": size, **sres}, indent=1) + "\n")
            result.setdefault("machine", machine())
            result.setdefault("load_before", loadavg())
            result.setdefault("date", dt.datetime.now().strftime("%Y-%m-%d %H:%M"))
            if result.get("steps") or result.get("callgrind") or result.get("links"):
                res_path.write_text(json.dumps(result, indent=1) + "\n")
            if args.remove:
                for p in (tree, tree.parent / f"{tree.name}.head"):
                    shutil.rmtree(p, ignore_errors=True)
                log(f"removed {tree} and its HEAD")
        if args.generate_only:
            return 0
    if args.table_bin:
        out_dir = args.root / "results" / binary_id(args.table_bin)
    table, results = report(out_dir)
    print(table)
    for v in (results[-1].get("_verdicts", []) if results else []):
        print(f"- {v}")
    if not args.no_results_md and results:
        update_results_md(results_md(args, table, results))
        log(f"updated {RESULTS_MD.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
