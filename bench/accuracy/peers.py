#!/usr/bin/env python3
"""Scores peer tools (GitNexus, CodeGraph) on the open evaluation set in score.py's terms (PEERS.md).

For every application: copies its checked-out tree (default /tmp/acc-main/NAME-COMMIT12, made by
score.py) into a scratch directory (the peer writes its index into the tree), runs the peer,
reads its HTTP call -> route links, turns them into a Cartograph-shaped snapshot and scores it
with score.py's own `score()`. Not part of the test suite. Skips with a message when the peer
is not installed; exits non-zero only when it cannot run at all.

GitNexus's links are `File -[FETCHES]-> Route` edges: file-level, no line, and no HTTP method
on the consumer side (a fetch links to every verb of its URL; Next.js route nodes have no
method). They are scored as edges at line 0 of the calling file; score.py credits a site when
an edge from its file reaches its route (no refusals are emitted, so the line is not needed).
A route node without a method is written as method `?`, which only counts path-only.

CodeGraph's links are `calls` edges (metadata.synthesizedBy = http-client) from the enclosing
function to a route node named `METHOD /path`, with the call's line; they are scored as they are.

    python3 bench/accuracy/peers.py --peer gitnexus  [--app NAME] [--misses]
    python3 bench/accuracy/peers.py --peer codegraph [--app NAME] [--misses]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import score as S  # noqa: E402  (score.py beside this file: labels, identity, scoring)

GITNEXUS = Path("/tmp/peers/node_modules/.bin/gitnexus")
CODEGRAPH = Path("/tmp/peers-cg/node_modules/.bin/codegraph")
VERBS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "ALL", "ANY"}

FETCHES = (
    "MATCH (f:File)-[r:CodeRelation {type: 'FETCHES'}]->(n:Route) "
    "RETURN f.filePath AS file, n.name AS path, n.method AS method, r.reason AS reason"
)
ROUTES = "MATCH (n:Route) RETURN n.name AS path, n.method AS method, n.filePath AS file"


def markdown_rows(text: str) -> list[list[str]]:
    """Rows of the Markdown table inside `gitnexus cypher`'s JSON answer."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    doc = json.loads(text[start:]) if start >= 0 else None
    if doc == []:  # no rows
        return []
    if not isinstance(doc, dict) or "markdown" not in doc:
        raise RuntimeError(f"gitnexus cypher gave no table: {text[-500:]}")
    lines = doc["markdown"].splitlines()[2:]  # header, separator
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines]


def gitnexus(binary: Path, tree: Path, home: Path, log: Path) -> tuple[dict, float]:
    env = dict(os.environ, HOME=str(home))
    t0 = time.monotonic()
    with log.open("w") as out:
        subprocess.run(
            [str(binary), "analyze", "--skip-git", "--index-only", "--skip-fts", "--workers", "1",
             "--worker-timeout", "300", "."],
            cwd=tree, env=env, stdout=out, stderr=subprocess.STDOUT, check=True,
        )
    wall = time.monotonic() - t0

    def cypher(query: str) -> list[list[str]]:
        done = subprocess.run(
            [str(binary), "cypher", "--limit", "100000", query],
            cwd=tree, env=env, capture_output=True, text=True, check=True,
        )
        return markdown_rows(done.stdout)

    def route_id(path: str, method: str) -> str:
        return f"route:{(method or '?').upper()} {S.identity(path)}"

    edges = [
        {
            "kind": "calls",
            "from": f"file:{file}",
            "to": route_id(path, method),
            "location": {"path": file, "line": 0},
            "confidence": reason,
        }
        for file, path, method, reason in cypher(FETCHES)
    ]
    nodes = [
        {"id": route_id(path, method), "kind": "route", "handler": {"module": file}}
        for path, method, file in cypher(ROUTES)
    ]
    return {"nodes": nodes, "edges": edges, "refusals": []}, wall


def codegraph(binary: Path, tree: Path, home: Path, log: Path) -> tuple[dict, float]:
    """`codegraph init -y`, then its SQLite index: route nodes named `METHOD /path` and the
    `calls` edges its http-client synthesizer draws from a calling function to one of them."""
    env = dict(os.environ, HOME=str(home), CODEGRAPH_TELEMETRY="0", DO_NOT_TRACK="1",
               CODEGRAPH_NO_DOWNLOAD="1")
    t0 = time.monotonic()
    with log.open("w") as out:
        subprocess.run([str(binary), "init", "-y", "."], cwd=tree, env=env, stdout=out,
                       stderr=subprocess.STDOUT, check=True)
    wall = time.monotonic() - t0
    dbs = sorted((tree / ".codegraph").glob("*.db"))
    if not dbs:
        raise RuntimeError(f"no .codegraph/*.db under {tree}")
    db = sqlite3.connect(f"file:{dbs[0]}?mode=ro", uri=True)

    def route_id(name: str) -> str | None:
        method, _, path = name.partition(" ")
        method = method.upper()
        if method not in VERBS or not path.strip().startswith("/"):
            return None
        return f"route:{'ANY' if method == 'ALL' else method} {S.identity(path.strip())}"

    nodes = []
    for name, file in db.execute("SELECT name, file_path FROM nodes WHERE kind = 'route'"):
        rid = route_id(name)
        if rid:
            nodes.append({"id": rid, "kind": "route", "handler": {"module": file}})
    edges = []
    query = (
        "SELECT src.file_path, e.line, dst.name, e.metadata FROM edges e "
        "JOIN nodes src ON src.id = e.source JOIN nodes dst ON dst.id = e.target "
        "WHERE e.kind = 'calls' AND dst.kind = 'route'"
    )
    for file, line, name, meta in db.execute(query):
        rid = route_id(name)
        if rid:
            how = json.loads(meta or "{}").get("synthesizedBy", "")
            edges.append({"kind": "calls", "from": file, "to": rid,
                          "location": {"path": file, "line": line or 0}, "confidence": how})
    db.close()
    return {"nodes": nodes, "edges": edges, "refusals": []}, wall


PEERS = {"gitnexus": ("GitNexus 1.6.12", gitnexus), "codegraph": ("CodeGraph 1.6.1", codegraph)}


def path_only_precision(app: S.App, snap: dict) -> tuple[int, int]:
    by_file: dict[str, list[S.Site]] = {}
    for site in app.sites:
        by_file.setdefault(site.path, []).append(site)
    right = total = 0
    for edge in snap["edges"]:
        path = edge["location"]["path"]
        if path in app.call_scope:
            total += 1
            target = S.route_key(edge["to"])
            right += any(S.explains(s, target, app, True) for s in by_file.get(path, []))
    return right, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", choices=sorted(PEERS), default="gitnexus")
    parser.add_argument("--gitnexus", type=Path, default=GITNEXUS, help="the gitnexus executable")
    parser.add_argument("--codegraph", type=Path, default=CODEGRAPH, help="the codegraph executable")
    parser.add_argument("--trees", type=Path, default=Path("/tmp/acc-main"), help="checked-out apps")
    parser.add_argument("--work", type=Path, default=Path("/tmp/peer-work"))
    parser.add_argument("--app", action="append", help="score only these applications")
    parser.add_argument("--misses", action="store_true", help="list missed sites and wrong edges")
    args = parser.parse_args()
    label, run = PEERS[args.peer]
    binary = getattr(args, args.peer)
    if not binary.exists():
        print(f"peers: {args.peer} not installed at {binary}; skipping ({label})")
        return
    args.work.mkdir(parents=True, exist_ok=True)
    home = args.work / "home"
    home.mkdir(exist_ok=True)
    print("| application | peer | call sites | recall | recall (path only) | precision | "
          "precision (path only) | call->route links (all files) | index wall time |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    details = []
    for folder in sorted(p for p in S.APPS.iterdir() if (p / "app.toml").exists()):
        if args.app and folder.name not in args.app:
            continue
        app = S.load_app(folder)
        source = args.trees / f"{app.name}-{app.commit[:12]}"
        if not source.is_dir():
            print(f"| {app.name} | {label} | — | no checkout at {source} | | | | | |")
            continue
        tree = args.work / f"{args.peer}-{app.name}"
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(source, tree, symlinks=True)
        try:
            snap, wall = run(binary, tree, home, args.work / f"{args.peer}-{app.name}.log")
        except (subprocess.CalledProcessError, RuntimeError) as err:
            print(f"| {app.name} | {label} | — | failed: {err} | | | | | |")
            continue
        (args.work / f"{args.peer}-{app.name}.snapshot.json").write_text(json.dumps(snap, indent=1))
        s = S.score(app, snap)
        pr, pt = path_only_precision(app, snap)
        print(
            f"| {app.name} | {label} | {s.sites} | {S.pct(s.recalled, s.sites)} ({s.recalled}) | "
            f"{S.pct(s.recalled_path, s.sites)} ({s.recalled_path}) | "
            f"{S.pct(s.correct_edges, s.edges)} ({s.correct_edges}/{s.edges}) | "
            f"{S.pct(pr, pt)} ({pr}/{pt}) | {len(snap['edges'])} | {wall:.0f} s |",
            flush=True,
        )
        details.append(s)
    if args.misses:
        for s in details:
            print(f"\n## {s.app.name}: {len(s.misses)} missed, {len(s.wrong)} wrong")
            print("\n".join(["wrong:"] + s.wrong))


if __name__ == "__main__":
    main()
