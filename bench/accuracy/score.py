#!/usr/bin/env python3
"""Scores a cartograph build on the open evaluation set (see README.md beside this file).

For every application under apps/: checks out the pinned commit from a bare mirror with
`git archive` into a scratch directory, runs `cartograph snapshot` on it, and compares the calls
edges and route nodes with the hand-written labels. Prints one Markdown table per category.
Exits non-zero only when it cannot run (missing binary, mirror or commit), never on a low score.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
APPS = HERE / "apps"
CALL_REFUSALS = {"computed-url", "unmatched-call"}


# --- paths and globs ------------------------------------------------------------------------


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A repository-relative glob: `**` any depth, `*` within a segment, `?` one character."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


class Scope:
    """Globs a path must match; a glob written `!glob` excludes what it matches."""

    def __init__(self, patterns: list[str]):
        self.patterns = [glob_regex(p.strip("/")) for p in patterns if not p.startswith("!")]
        self.excluded = [glob_regex(p[1:].strip("/")) for p in patterns if p.startswith("!")]

    def __contains__(self, path: str) -> bool:
        return any(p.match(path) for p in self.patterns) and not any(
            p.match(path) for p in self.excluded
        )


def segment(raw: str) -> str:
    """One path segment in Cartograph's identity form: every parameter `{}`, catch-alls `{*}`."""
    s = raw.strip()
    if s in ("*", "**") or re.fullmatch(r"\[\[?\.\.\..*\]\]?", s):
        return "{*}"
    # As Cartograph reads a segment: one that starts with `{` and ends with `}` (or `<` … `>`) is a
    # parameter, also when it holds more than one (Flask `<int:id>-<slug>`, `{id}-{slug}`).
    if s.startswith("{") and s.endswith("}"):  # `{id}`, `{id:int}`, Starlette `{rest:path}`, `{*rest}`
        body = s[1:-1]
        converter = body.partition(":")[2].strip()
        return "{*}" if body.startswith("*") or converter == "path" else "{}"
    if s.startswith("<") and s.endswith(">"):  # Flask / Django `<id>`, `<int:id>`, `<path:rest>`
        body = s[1:-1]
        converter = body.partition(":")[0].strip() if ":" in body else ""
        return "{*}" if converter == "path" else "{}"
    if re.fullmatch(r"\$\{[^}]*\}|\[[^\]]+\]|:[A-Za-z_].*", s):
        return "{}"
    return s


def identity(path: str) -> str:
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    parts = [segment(p) for p in path.split("/") if p.strip()]
    return "/" + "/".join(parts)


# --- labels ---------------------------------------------------------------------------------


@dataclass
class Site:
    path: str
    line: int
    method: str
    route: str | None  # identity; None for "no route"
    note: str


@dataclass
class App:
    name: str
    repo: str
    commit: str
    backend: str
    frontend: str
    call_scope: Scope
    route_scope: Scope
    has_route_scope: bool
    sites: list[Site]
    routes: dict[tuple[str, str], str] = field(default_factory=dict)  # (method, identity) -> handler
    env: Names | None = None  # None when the application has no env_scope
    tables: Names | None = None  # None when the application has no table_scope


@dataclass
class Names:
    """Labels of one name category (env vars or tables) over a scope of files."""

    scope: Scope
    expected: dict[str, str]  # name -> site of every name that must be reported
    forbidden: dict[str, str]  # name -> note of every name that must not be reported


def rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    lines = [l for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def load_names(folder: Path, meta: dict, category: str, normal) -> Names | None:
    """`env.tsv` / `tables.tsv` under the `env_scope` / `table_scope` of app.toml."""
    patterns = meta.get(f"{category}_scope")
    if not patterns:
        return None
    expected, forbidden = {}, {}
    file = {"env": "env.tsv", "table": "tables.tsv"}[category]
    for row in rows(folder / file):
        name = normal(row["name"])
        if (row.get("expect") or "+").strip() == "-":
            forbidden[name] = (row.get("note") or "").strip()
        else:
            expected[name] = (row.get("site") or "").strip()
    return Names(Scope(patterns), expected, forbidden)


def env_name(name: str) -> str:
    return name.strip()


def table_name(name: str) -> str:
    """Tables compare without case and quotes (`"User"`, `User` and `user` are one label)."""
    return name.strip().strip('"`[]').replace('"', "").replace("`", "").lower()


def load_app(folder: Path) -> App:
    meta = tomllib.loads((folder / "app.toml").read_text())
    sites = []
    for row in rows(folder / "calls.tsv"):
        path, _, line = row["site"].rpartition(":")
        route = (row.get("route") or "-").strip()
        sites.append(
            Site(
                path=path.strip(),
                line=int(line),
                method=row["method"].strip().upper(),
                route=None if route == "-" else identity(route),
                note=(row.get("note") or "").strip(),
            )
        )
    routes = {}
    for row in rows(folder / "routes.tsv"):
        routes[(row["method"].strip().upper(), identity(row["path"]))] = (row.get("handler") or "").strip()
    return App(
        name=folder.name,
        repo=meta["repo"],
        commit=meta["commit"],
        backend=meta.get("backend", ""),
        frontend=meta.get("frontend", ""),
        call_scope=Scope(meta.get("call_scope", [])),
        route_scope=Scope(meta.get("route_scope", [])),
        has_route_scope=bool(meta.get("route_scope")),
        sites=sites,
        routes=routes,
        env=load_names(folder, meta, "env", env_name),
        tables=load_names(folder, meta, "table", table_name),
    )


# --- running cartograph ---------------------------------------------------------------------


def mirror_of(mirrors: Path, repo: str) -> Path | None:
    """The bare git directory of `owner/name` under the fetch tool's mirror folder."""
    owner, name = repo.split("/")
    for candidate in sorted(mirrors.glob(f"{owner}+{name}*")):
        for git_dir in [candidate, *sorted(candidate.iterdir())]:
            if git_dir.is_dir() and (git_dir / "objects").is_dir() and (git_dir / "HEAD").exists():
                return git_dir
    return None


def checkout(app: App, mirrors: Path, work: Path, given: dict[str, Path]) -> Path:
    if app.name in given:
        return given[app.name]
    tree = work / f"{app.name}-{app.commit[:12]}"
    if (tree / ".complete").exists():
        return tree
    git_dir = mirror_of(mirrors, app.repo)
    if git_dir is None:
        sys.exit(f"score: no mirror of {app.repo} under {mirrors}; fetch it first (README.md)")
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", f"--git-dir={git_dir}", "archive", app.commit],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        with tarfile.open(fileobj=archive.stdout, mode="r|") as tar:
            tar.extractall(tree, filter="data")
    except tarfile.TarError:
        pass
    if archive.wait() != 0:
        # A mirror may lack some blobs (large binaries): take the files it has, one by one.
        shutil.rmtree(tree)
        tree.mkdir()
        missing = extract_present(git_dir, app.commit, tree)
        print(f"score: {app.name}: {missing} files absent from the mirror were skipped", file=sys.stderr)
    (tree / ".complete").write_text("")
    return tree


def extract_present(git_dir: Path, commit: str, tree: Path) -> int:
    """Writes every blob of `commit` the mirror holds under `tree`; returns how many it lacks."""
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", commit],
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    entries = []
    for entry in filter(None, listing):
        meta, _, path = entry.partition(b"\t")
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha, path.decode()))
    batch = subprocess.run(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
        input=b"".join(sha + b"\n" for sha, _ in entries),
        capture_output=True,
        check=True,
    ).stdout
    missing, at = 0, 0
    for sha, path in entries:
        header_end = batch.index(b"\n", at)
        header = batch[at:header_end].split()
        at = header_end + 1
        if header[-1] == b"missing":
            missing += 1
            continue
        size = int(header[2])
        target = tree / path
        if ".." in Path(path).parts:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(batch[at : at + size])
        at += size + 1
    return missing


def snapshot(binary: Path, tree: Path, out: Path) -> dict:
    subprocess.run([str(binary), "snapshot", str(tree), "-o", str(out)], check=True)
    return json.loads(out.read_text())


# --- scoring --------------------------------------------------------------------------------


def route_key(node_id: str) -> tuple[str, str] | None:
    if not node_id.startswith("route:"):
        return None
    method, _, path = node_id[len("route:") :].partition(" ")
    return method, path


def explains(site: Site, target: tuple[str, str], app: App, path_only: bool) -> bool:
    method, path = target
    if site.route is None or path != site.route:
        return False
    if path_only or method == site.method:
        return True
    return method == "ANY" and ("ANY", path) in app.routes


@dataclass
class Score:
    app: App
    sites: int = 0
    no_route_sites: int = 0
    recalled: int = 0
    recalled_path: int = 0
    route_known: int = 0
    edges: int = 0
    correct_edges: int = 0
    no_route_linked: int = 0
    routes_labelled: int = 0
    routes_found: int = 0
    route_nodes: int = 0
    route_nodes_right: int = 0
    route_misses: list[str] = field(default_factory=list)  # labelled routes not found
    route_wrong: list[str] = field(default_factory=list)  # route nodes in route_scope not labelled
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    env: NameScore | None = None
    tables: NameScore | None = None


def score(app: App, snap: dict) -> Score:
    s = Score(app)
    calls: dict[str, list[dict]] = {}
    for edge in snap["edges"]:
        if edge["kind"] == "calls" and edge["to"].startswith("route:"):
            calls.setdefault(edge["location"]["path"], []).append(edge)
    refused = {
        (r["location"]["path"], r["location"]["line"])
        for r in snap["refusals"]
        if r["kind"] in CALL_REFUSALS
    }
    route_nodes = {route_key(n["id"]): n for n in snap["nodes"] if n["kind"] == "route"}

    by_file: dict[str, list[Site]] = {}
    for site in app.sites:
        by_file.setdefault(site.path, []).append(site)
        if site.route is None:
            s.no_route_sites += 1
            if any(e["location"]["line"] == site.line for e in calls.get(site.path, [])):
                s.no_route_linked += 1
                s.wrong.append(f"{site.path}:{site.line} no-route site linked ({site.note})")
            continue
        s.sites += 1
        if (site.method, site.route) in route_nodes or (
            ("ANY", site.route) in route_nodes and ("ANY", site.route) in app.routes
        ):
            s.route_known += 1
        edges = calls.get(site.path, [])
        refused_here = (site.path, site.line) in refused

        def found(path_only: bool) -> bool:
            hits = [e for e in edges if explains(site, route_key(e["to"]), app, path_only)]
            return any(e["location"]["line"] == site.line or not refused_here for e in hits)

        if found(False):
            s.recalled += 1
        else:
            s.misses.append(f"{site.path}:{site.line} {site.method} {site.route}")
        if found(True):
            s.recalled_path += 1

    for path, edges in sorted(calls.items()):
        if path not in app.call_scope:
            continue
        for edge in edges:
            s.edges += 1
            target = route_key(edge["to"])
            if any(explains(site, target, app, False) for site in by_file.get(path, [])):
                s.correct_edges += 1
            else:
                s.wrong.append(f"{path}:{edge['location']['line']} -> {edge['to']} ({edge['confidence']})")

    if app.has_route_scope:
        labelled = {
            k for k, handler in app.routes.items() if handler.rpartition(":")[0] in app.route_scope
        }
        s.routes_labelled = len(labelled)
        s.routes_found = sum(1 for k in labelled if k in route_nodes)
        s.route_misses = sorted(f"{m} {p} ({app.routes[(m, p)]})" for m, p in labelled if (m, p) not in route_nodes)
        s.route_wrong = sorted(
            f"{k[0]} {k[1]} ({(n.get('handler') or {}).get('module', '')})"
            for k, n in route_nodes.items()
            if (n.get("handler") or {}).get("module", "") in app.route_scope and k not in app.routes
        )
        for key, node in route_nodes.items():
            handler = (node.get("handler") or {}).get("module", "")
            if handler in app.route_scope:
                s.route_nodes += 1
                s.route_nodes_right += key in app.routes
    if app.env is not None:
        s.env = score_names(app.env, snap, "env")
    if app.tables is not None:
        s.tables = score_names(app.tables, snap, "table")
    return s


NAME_EDGES = {"env": ({"reads_env"}, "env_var:"), "table": ({"defines", "reads", "writes"}, "table:")}
NAME_REFUSALS = {"env": "computed-env-key", "table": "computed-table"}


@dataclass
class NameScore:
    labelled: int = 0
    found: int = 0
    reported: int = 0
    right: int = 0
    forbidden_reported: int = 0
    refusals: int = 0
    misses: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


def score_names(names: Names, snap: dict, category: str) -> NameScore:
    """Recall: labelled names reached from an in-scope file by an edge of the category.
    Precision: of the distinct names reached from in-scope files, those labelled."""
    kinds, prefix = NAME_EDGES[category]
    normal = env_name if category == "env" else table_name
    reached: dict[str, str] = {}  # normalised name -> first location seen
    for edge in snap["edges"]:
        if edge["kind"] not in kinds or not edge["to"].startswith(prefix):
            continue
        path = edge["location"]["path"]
        if path not in names.scope:
            continue
        reached.setdefault(normal(edge["to"][len(prefix) :]), f"{path}:{edge['location']['line']}")
    if category == "table":
        # a label without a schema matches the table in any schema (`public.audit` is `audit`)
        for name in [k for k in reached if "." in k]:
            if name not in names.expected and name not in names.forbidden:
                reached.setdefault(name.rpartition(".")[2], reached.pop(name))
    n = NameScore(labelled=len(names.expected))
    n.refusals = sum(
        1
        for r in snap["refusals"]
        if r["kind"] == NAME_REFUSALS[category] and r["location"]["path"] in names.scope
    )
    for name, site in sorted(names.expected.items()):
        if name in reached:
            n.found += 1
        else:
            n.misses.append(f"{name} ({site})")
    for name, at in sorted(reached.items()):
        n.reported += 1
        if name in names.expected:
            n.right += 1
            continue
        if name in names.forbidden:
            n.forbidden_reported += 1
            n.wrong.append(f"{name} at {at}: must not be reported ({names.forbidden[name]})")
        else:
            n.wrong.append(f"{name} at {at}")
    return n


def pct(part: int, whole: int) -> str:
    return "—" if whole == 0 else f"{100 * part / whole:.0f}%"


def report(scores: list[Score]) -> str:
    out = [
        "| application | frameworks | call sites | recall | recall (path only) | route known | "
        "precision | no-route sites linked |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in scores:
        out.append(
            f"| {s.app.name} | {s.app.backend} / {s.app.frontend} | {s.sites} + {s.no_route_sites} "
            f"no-route | {pct(s.recalled, s.sites)} ({s.recalled}) | {pct(s.recalled_path, s.sites)} | "
            f"{pct(s.route_known, s.sites)} | {pct(s.correct_edges, s.edges)} "
            f"({s.correct_edges}/{s.edges}) | {s.no_route_linked} of {s.no_route_sites} |"
        )
    with_routes = [s for s in scores if s.app.has_route_scope]
    if with_routes:
        out += ["", "| application | routes labelled | route recall | route precision |", "|---|---:|---:|---:|"]
        for s in with_routes:
            out.append(
                f"| {s.app.name} | {s.routes_labelled} | {pct(s.routes_found, s.routes_labelled)} | "
                f"{pct(s.route_nodes_right, s.route_nodes)} ({s.route_nodes_right}/{s.route_nodes}) |"
            )
    for title, attr in (("env vars", "env"), ("tables", "tables")):
        labelled = [(s.app.name, getattr(s, attr)) for s in scores if getattr(s, attr) is not None]
        if not labelled:
            continue
        out += [
            "",
            f"| application | {title} labelled | recall | precision | must-not reported | refusals in scope |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for name, n in labelled:
            out.append(
                f"| {name} | {n.labelled} | {pct(n.found, n.labelled)} ({n.found}) | "
                f"{pct(n.right, n.reported)} ({n.right}/{n.reported}) | {n.forbidden_reported} | {n.refusals} |"
            )
    return "\n".join(out)


def agreement(first: App, second: App) -> str:
    """How two labellers' answers compare on the sites both labelled."""
    def answers(app: App) -> dict[tuple[str, int], set[tuple[str, str | None]]]:
        out: dict[tuple[str, int], set[tuple[str, str | None]]] = {}
        for site in app.sites:
            out.setdefault((site.path, site.line), set()).add((site.method, site.route))
        return out

    a, b = answers(first), answers(second)
    shared = sorted(set(a) & set(b))
    same = sum(1 for k in shared if a[k] == b[k])
    lines = [f"| {first.name} | {len(a)} | {len(b)} | {len(shared)} | {pct(same, len(shared))} ({same}) |"]
    differ = [f"  {p}:{l}: {sorted(a[(p, l)], key=str)} vs {sorted(b[(p, l)], key=str)}" for p, l in shared if a[(p, l)] != b[(p, l)]]
    return "\n".join(lines), differ


# --- labelled diffs: apps/NAME/diff.toml ----------------------------------------------------


@dataclass
class DiffLabels:
    """The routes added and removed between two commits of an application, over a scope."""

    app: App
    base: str
    head: str
    scope: Scope
    added: set[tuple[str, str]]  # (method, identity)
    removed: set[tuple[str, str]]


def diff_route(entry: str) -> tuple[str, str]:
    """`"GET /api/food/{pk}/"` as (method, identity)."""
    method, _, path = entry.strip().partition(" ")
    return method.strip().upper(), identity(path)


def load_diff(folder: Path, app: App) -> DiffLabels | None:
    if not (folder / "diff.toml").exists():
        return None
    meta = tomllib.loads((folder / "diff.toml").read_text())
    return DiffLabels(
        app=app,
        base=meta["base"],
        head=meta["head"],
        scope=Scope(meta["scope"]),
        added={diff_route(e) for e in meta.get("added_routes", [])},
        removed={diff_route(e) for e in meta.get("removed_routes", [])},
    )


@dataclass
class DiffScore:
    labels: DiffLabels
    added_found: list[str] = field(default_factory=list)
    added_missed: list[str] = field(default_factory=list)
    added_unlabelled: list[str] = field(default_factory=list)  # reported added in scope, not labelled
    removed_found: list[str] = field(default_factory=list)
    removed_missed: list[str] = field(default_factory=list)
    false_removals: list[str] = field(default_factory=list)  # reported removed in scope, labelled as kept
    removed_outside: int = 0  # reported removed with a handler outside the scope (not judged)


def score_diff(labels: DiffLabels, doc: dict) -> DiffScore:
    """Compares the route nodes a `cartograph diff --json` document adds and removes with the labels.

    A labelled route counts as found wherever its handler is; a reported route is judged only when
    its handler (on the side it exists) is in the scope, since only those are labelled completely."""
    d = DiffScore(labels)

    def routes(side: str) -> dict[tuple[str, str], str]:
        out = {}
        for node in doc["nodes"][side]:
            key = route_key(node["id"]) if node["kind"] == "route" else None
            if key is not None:
                out[key] = (node.get("handler") or {}).get("module", "")
        return out

    added, removed = routes("added"), routes("removed")
    def show(key: tuple[str, str]) -> str:
        return f"{key[0]} {key[1]}"

    for key in sorted(labels.added):
        (d.added_found if key in added else d.added_missed).append(show(key))
    for key in sorted(labels.removed):
        (d.removed_found if key in removed else d.removed_missed).append(show(key))
    for key, module in sorted(added.items()):
        if module in labels.scope and key not in labels.added:
            d.added_unlabelled.append(f"{show(key)} ({module})")
    for key, module in sorted(removed.items()):
        if module not in labels.scope:
            d.removed_outside += 1
        elif key not in labels.removed:
            d.false_removals.append(f"{show(key)} ({module})")
    return d


def diff_report(scores: list[DiffScore]) -> str:
    out = [
        "| application | base → head | added labelled | added found | added, unlabelled | "
        "removed labelled | removed found | false removals |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for d in scores:
        lab = d.labels
        out.append(
            f"| {lab.app.name} | {lab.base[:8]} → {lab.head[:8]} | {len(lab.added)} | "
            f"{pct(len(d.added_found), len(lab.added))} ({len(d.added_found)}) | {len(d.added_unlabelled)} | "
            f"{len(lab.removed)} | {len(d.removed_found)} | {len(d.false_removals)} |"
        )
    return "\n".join(out)


def run_diffs(args: argparse.Namespace) -> None:
    """`--diff`: checks out both commits of every diff.toml, runs `cartograph diff`, scores it."""
    scores = []
    for folder in sorted(p for p in args.apps.iterdir() if (p / "diff.toml").exists()):
        if args.app and folder.name not in args.app:
            continue
        labels = load_diff(folder, load_app(folder))
        trees = [
            checkout(replace(labels.app, commit=commit), args.mirrors, args.work, {})
            for commit in (labels.base, labels.head)
        ]
        out = args.work / f"{folder.name}.diff.json"
        subprocess.run([str(args.bin), "diff", str(trees[0]), str(trees[1]), "--json", str(out)], check=True)
        scores.append(score_diff(labels, json.loads(out.read_text())))
    print(diff_report(scores))
    if args.misses:
        for d in scores:
            print(f"\n## {d.labels.app.name} diff")
            for title, items in (
                ("added, missed:", d.added_missed),
                ("added, not labelled (in scope):", d.added_unlabelled),
                ("removed, missed:", d.removed_missed),
                ("false removals:", d.false_removals),
            ):
                print("\n".join([title] + items))
            print(f"removed outside the scope (not judged): {d.removed_outside}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", type=Path, default=Path("target/release/cartograph"), help="the cartograph binary to score")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/cartograph-accuracy"))
    parser.add_argument("--apps", type=Path, default=APPS, help="the labelled applications")
    parser.add_argument("--app", action="append", help="score only these applications")
    parser.add_argument(
        "--checkout", action="append", default=[], metavar="NAME=DIR", help="use a work tree as is"
    )
    parser.add_argument("--misses", action="store_true", help="list missed sites and wrong edges")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON")
    parser.add_argument(
        "--agreement", action="store_true", help="compare second-labeller/ with apps/ and stop"
    )
    parser.add_argument(
        "--diff", action="store_true", help="score the labelled diffs (apps/*/diff.toml) and stop"
    )
    args = parser.parse_args()
    if args.agreement:
        print("| application | sites (first) | sites (second) | labelled by both | same answer |")
        print("|---|---:|---:|---:|---:|")
        differences = []
        for folder in sorted(p for p in (HERE / "second-labeller").iterdir() if (p / "app.toml").exists()):
            row, differ = agreement(load_app(args.apps / folder.name), load_app(folder))
            print(row)
            differences += [f"{folder.name}:"] + differ if differ else []
        if args.misses:
            print("\n".join(differences))
        return
    if not args.bin.exists():
        sys.exit(f"score: no binary at {args.bin}; build it with cargo build --release")
    given = {k: Path(v) for k, _, v in (c.partition("=") for c in args.checkout)}
    args.work.mkdir(parents=True, exist_ok=True)
    if args.diff:
        run_diffs(args)
        return
    scores = []
    for folder in sorted(p for p in args.apps.iterdir() if (p / "app.toml").exists()):
        if args.app and folder.name not in args.app:
            continue
        app = load_app(folder)
        tree = checkout(app, args.mirrors, args.work, given)
        snap = snapshot(args.bin, tree, args.work / f"{app.name}.snapshot.json")
        scores.append(score(app, snap))
    print(report(scores))
    if args.misses:
        for s in scores:
            print(f"\n## {s.app.name}: {len(s.misses)} missed, {len(s.wrong)} wrong")
            if s.app.has_route_scope:
                print("\n".join(["routes missed:"] + s.route_misses + ["routes not labelled:"] + s.route_wrong))
            print("\n".join(["missed:"] + s.misses + ["wrong:"] + s.wrong))
            for title, n in (("env vars", s.env), ("tables", s.tables)):
                if n is not None:
                    print(f"\n### {s.app.name} {title}: {len(n.misses)} missed, {len(n.wrong)} wrong")
                    print("\n".join(["missed:"] + n.misses + ["wrong:"] + n.wrong))
    if args.json:
        doc = [
            {
                "app": s.app.name,
                "commit": s.app.commit,
                "call_sites": s.sites,
                "no_route_sites": s.no_route_sites,
                "recalled": s.recalled,
                "recalled_path_only": s.recalled_path,
                "route_known": s.route_known,
                "edges": s.edges,
                "correct_edges": s.correct_edges,
                "no_route_linked": s.no_route_linked,
                "routes_labelled": s.routes_labelled,
                "routes_found": s.routes_found,
                "route_nodes": s.route_nodes,
                "route_nodes_right": s.route_nodes_right,
                **{
                    f"{key}_{field}": getattr(n, field)
                    for key, n in (("env", s.env), ("tables", s.tables))
                    if n is not None
                    for field in ("labelled", "found", "reported", "right", "forbidden_reported", "refusals")
                },
            }
            for s in scores
        ]
        args.json.write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
