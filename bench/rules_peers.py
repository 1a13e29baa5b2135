#!/usr/bin/env python3
"""Compares `cartograph check` with import-linter on the rules both can express (stdlib only).

Run by bench/rules_peers.sh, which leaves in --out: il.txt and il-runtime.txt (lint-imports
reports), check.json (the Cartograph check document), snapshot.json (Cartograph's graph),
grimp-graph.json and grimp-graph-runtime.json (grimp's graph, with and without TYPE_CHECKING
imports: the graph import-linter checks), and time-*.log (/usr/bin/time -v).

For each comparable rule it prints how many violations both tools report, only Cartograph, only
import-linter, and up to five examples of each disagreement with the reason read from the source
(the import statement at the reported line, parsed with ast) and from both graphs.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

EXAMPLES = 5
MEMBERS = ("airflow.executors", "airflow.dag_processing", "airflow.api_fastapi")
DIRECT = {
    # Cartograph rule -> the import-linter contracts that state it with direct edges only
    "core-layers": ("core-layers-direct-jobs", "core-layers-direct-models", "core-layers-direct-utils"),
    "models-not-api": ("models-not-api",),
}


# --- timing ----------------------------------------------------------------------------------


def parse_time(path: Path) -> tuple[float, int]:
    """Wall seconds and max RSS (KiB) from a /usr/bin/time -v log."""
    wall, rss = None, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("Elapsed (wall clock) time"):
            value = line.rsplit(": ", 1)[1]
            seconds = 0.0
            for part in value.split(":"):
                seconds = seconds * 60 + float(part)
            wall = seconds
        elif line.startswith("Maximum resident set size"):
            rss = int(line.rsplit(": ", 1)[1])
    if wall is None or rss is None:
        raise SystemExit(f"rules_peers: no timing in {path}")
    return wall, rss


def timings(out: Path, tag: str, runs: int) -> tuple[float, int, list[float]]:
    samples = [parse_time(out / f"time-{tag}-{i}.log") for i in range(1, runs + 1)]
    walls = [w for w, _ in samples]
    return statistics.median(walls), int(statistics.median(r for _, r in samples)), walls


# --- names -----------------------------------------------------------------------------------


def dotted(node: str) -> str | None:
    """`module:src/airflow/a/b.py` -> `airflow.a.b`; None for anything that is not Python under src/."""
    path = node[len("module:"):] if node.startswith("module:") else node
    if not (path.startswith("src/") and path.endswith(".py")):
        return None
    path = path[len("src/"):-len(".py")]
    if path.endswith("/__init__"):
        path = path[: -len("/__init__")]
    return path.replace("/", ".")


def label(node: str) -> str:
    """A dotted name for Python modules, the repository path for anything else."""
    return dotted(node) or (node[len("module:"):] if node.startswith("module:") else node)


def member_of(module: str) -> str | None:
    for m in MEMBERS:
        if module == m or module.startswith(m + "."):
            return m
    return None


def node_member(node: str) -> str | None:
    path = node[len("module:"):] if node.startswith("module:") else node
    for m in MEMBERS:
        if path.startswith("src/" + m.replace(".", "/") + "/"):
            return m
    return None


# --- import-linter's report ------------------------------------------------------------------

LINES = re.compile(r"^(.*?)\s*\((l\.[^)]*)\)$")
HEADER = re.compile(r"^(\S+) is not allowed to import (\S+):$")


def split_lines(text: str) -> tuple[str, list[int]]:
    m = LINES.match(text)
    if not m:
        return text.strip(), []
    nums = [int(x) for x in re.findall(r"l\.(\d+)", m.group(2))]
    return m.group(1).strip(), nums


def parse_chain(block: list[str]) -> dict:
    """One `- a -> b (l.1)` block, with import-linter's collapsed heads (`a (l.1)` then `& c -> b`)
    and collapsed tails (`& d (l.3)` under the last link), into its edges and heads."""
    edges: list[tuple[str, str, list[int]]] = []
    heads: set[str] = set()
    pending: list[tuple[str, list[int]]] = []
    last_importer = None
    for raw in block:
        text = raw.strip()
        if text.startswith("-"):
            text = text[1:].strip()
        alt = text.startswith("& ")
        if alt:
            text = text[2:].strip()
        body, nums = split_lines(text)
        if " -> " in body:
            a, b = (x.strip() for x in body.split(" -> ", 1))
            group = pending + [(a, nums)]
            pending = []
            for h, hn in group:
                edges.append((h, b, hn))
            if last_importer is None:  # the first link: its importers are the chain's heads
                heads.update(h for h, _ in group)
            last_importer = a
        elif alt and pending:
            pending.append((body, nums))  # a third, fourth... collapsed head
        elif alt and last_importer is not None:
            edges.append((last_importer, body, nums))  # a collapsed tail of the last link
        else:
            pending = [(body, nums)]  # the first of collapsed heads
    if pending:
        raise SystemExit(f"rules_peers: cannot read import-linter chain: {block}")
    return {"edges": edges, "heads": heads}


def parse_import_linter(path: Path) -> dict:
    """{'status': {contract: KEPT|BROKEN}, 'broken': {contract: [{'from','to','chains'}]}}"""
    lines = path.read_text().splitlines()
    status = {}
    for line in lines:
        m = re.match(r"^(\S+) (KEPT|BROKEN)\b", line)
        if m:
            status[m.group(1)] = m.group(2)
    broken: dict[str, list[dict]] = {}
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Broken contracts")
    except StopIteration:
        return {"status": status, "broken": broken}
    contract, pair, block = None, None, None

    def flush():
        nonlocal block
        if block:
            pair["chains"].append(parse_chain(block))
        block = None

    i = start + 2
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line and nxt and set(nxt) == {"-"} and len(nxt) == len(line) and line in status:
            flush()
            contract = line
            broken[contract] = []
            i += 2
            continue
        m = HEADER.match(line)
        if m and contract:
            flush()
            pair = {"from": m.group(1), "to": m.group(2), "chains": []}
            broken[contract].append(pair)
        elif line.startswith("-") and pair is not None:
            flush()
            block = [line]
        elif line.startswith(" ") and line.strip() and block is not None:
            block.append(line)
        elif not line.strip():
            flush()
        i += 1
    flush()
    return {"status": status, "broken": broken}


def il_pairs(report: dict, contracts) -> dict[tuple[str, str], list[int]]:
    pairs: dict[tuple[str, str], list[int]] = {}
    for c in contracts:
        for p in report["broken"].get(c, []):
            for chain in p["chains"]:
                for a, b, nums in chain["edges"]:
                    pairs.setdefault((a, b), []).extend(nums)
    return pairs


# --- the source at a line --------------------------------------------------------------------


class Source:
    def __init__(self, corpus: Path):
        self.corpus = corpus
        self.trees: dict[str, ast.AST | None] = {}

    def path_of(self, module: str) -> str | None:
        base = self.corpus / "src" / module.replace(".", "/")
        for p in (base.with_suffix(".py"), base / "__init__.py"):
            if p.is_file():
                return str(p.relative_to(self.corpus))
        return None

    def tree(self, rel: str):
        if rel not in self.trees:
            try:
                self.trees[rel] = ast.parse((self.corpus / rel).read_text(), rel)
            except (OSError, SyntaxError):
                self.trees[rel] = None
        return self.trees[rel]

    def describe(self, rel: str, line: int) -> str:
        """What kind of import sits at rel:line: TYPE_CHECKING, in a function, relative, a
        literal importlib.import_module, or none at all."""
        tree = self.tree(rel)
        if tree is None:
            return "unparsable file"
        found = []

        def visit(node, ctx):
            lo, hi = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
            if lo is not None and lo <= line <= (hi or lo):
                if isinstance(node, ast.ImportFrom):
                    found.append((("relative " if node.level else "") + "from-import", ctx))
                elif isinstance(node, ast.Import):
                    found.append(("import", ctx))
                elif isinstance(node, ast.Call) and "import" in ast.unparse(node.func) and any(
                    isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args
                ):
                    found.append((f"{ast.unparse(node.func)}(literal)", ctx))
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for sub in node.body:
                    visit(sub, ctx | {"TYPE_CHECKING"})
                for sub in node.orelse:  # the else branch runs
                    visit(sub, ctx)
                return
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                ctx = ctx | {"function"}
            elif isinstance(node, ast.Try):
                ctx = ctx | {"try"}
            for child in ast.iter_child_nodes(node):
                visit(child, ctx)

        visit(tree, frozenset())
        if not found:
            return "no import statement at this line"
        kinds = []
        for what, ctx in found:
            where = []
            if "TYPE_CHECKING" in ctx:
                where.append("under TYPE_CHECKING")
            if "function" in ctx:
                where.append("inside a function")
            if "try" in ctx:
                where.append("in try")
            kinds.append(" ".join([what] + where) if where else f"module-level {what}")
        return "; ".join(dict.fromkeys(kinds))


# --- graphs ----------------------------------------------------------------------------------


class CartographGraph:
    """Cartograph's snapshot as the paths its transitive rules walk: imports between modules,
    and a call to a route continuing into the modules that serve it."""

    def __init__(self, snapshot: dict):
        self.nodes = {n["id"]: n for n in snapshot["nodes"]}
        serves = defaultdict(set)
        for e in snapshot["edges"]:
            if e["kind"] == "serves":
                serves[e["to"]].add(e["from"])
        self.adj: dict[str, list[tuple[str, str, bool, dict]]] = defaultdict(list)
        self.imports: dict[tuple[str, str], dict] = {}
        for e in snapshot["edges"]:
            if e["kind"] == "imports" and e["to"].startswith("module:"):
                self.adj[e["from"]].append((e["to"], "imports", bool(e.get("type_only")), e))
                a, b = dotted(e["from"]), dotted(e["to"])
                if a and b:
                    self.imports[(a, b)] = e
            elif e["kind"] == "calls":
                for h in serves.get(e["to"], ()):
                    self.adj[e["from"]].append((h, "calls", False, e))

    def reaches(self, src: str, target_member: str, runtime=True, calls=True, cut_members=True) -> bool:
        own = node_member(src)
        seen, stack = {src}, [src]
        while stack:
            x = stack.pop()
            for y, kind, type_only, _ in self.adj.get(x, ()):
                if (runtime and type_only) or (not calls and kind == "calls") or y in seen:
                    continue
                m = node_member(y)
                if m == target_member:
                    return True
                if cut_members and m is not None and m != own:
                    continue
                seen.add(y)
                stack.append(y)
        return False


def grimp_reach(graph: dict) -> set[tuple[str, str]]:
    """(source module, member it reaches) over grimp's graph, import-linter's way: a path may not
    pass through a third member (import-linter removes the other members' modules)."""
    adj = defaultdict(list)
    for a, b in graph["edges"]:
        adj[a].append(b)
    out = set()
    for s in graph["modules"]:
        own = member_of(s)
        if own is None:
            continue
        seen, stack = {s}, [s]
        while stack:
            x = stack.pop()
            for y in adj.get(x, ()):
                if y in seen:
                    continue
                m = member_of(y)
                if m is not None and m != own:
                    out.add((s, m))
                    continue
                seen.add(y)
                stack.append(y)
    return out


# --- the comparison --------------------------------------------------------------------------


def show(title: str, items: list[str], total: int):
    if not total:
        return
    print(f"  {title} ({total}{', first ' + str(EXAMPLES) if total > EXAMPLES else ''}):")
    for s in items[:EXAMPLES]:
        print(f"    {s}")


def reason_counts(reasons: dict) -> str:
    counts = defaultdict(int)
    for r in reasons.values():
        counts[r.split(":")[0]] += 1
    return ", ".join(f"{n} {r}" for r, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def compare_direct(rule, findings, il, src: Source, cg: CartographGraph, grimp_edges):
    ours: dict[tuple[str, str], dict] = {}
    other_kinds = []
    for f in findings:
        ident = f["rule"]["identity"]
        m = re.match(r"^imports (module:\S+) -> (module:\S+)$", ident)
        if not m:
            other_kinds.append(ident)
            continue
        ours[(label(m.group(1)), label(m.group(2)))] = f
    theirs = il_pairs(il, DIRECT[rule])
    both = set(ours) & set(theirs)
    only_ours = sorted(set(ours) - set(theirs))
    only_theirs = sorted(set(theirs) - set(ours))
    print(f"\n{rule}: direct edges; import-linter: {', '.join(DIRECT[rule])} (allow_indirect_imports = true)")
    print(f"  both {len(both)}  only Cartograph {len(only_ours)}  only import-linter {len(only_theirs)}"
          f"  (Cartograph {len(ours)} import pairs, import-linter {len(theirs)})")
    kinds = defaultdict(int)
    for p in both:
        loc = ours[p]["edges"][0]["location"]
        kinds[src.describe(loc["path"], loc["line"])] += 1
    print(f"  the agreed pairs, by the import at Cartograph's first location: "
          + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])))
    if other_kinds:
        print(f"  Cartograph findings that are not imports ({len(other_kinds)}): {other_kinds[:EXAMPLES]}")
    lines = []
    for a, b in only_ours:
        e = ours[(a, b)]["edges"][0]
        loc = e["location"]
        why = src.describe(loc["path"], loc["line"])
        in_grimp = (a, b) in grimp_edges
        lines.append(f"{a} -> {b}  {loc['path']}:{loc['line']}  {why}; "
                     f"{'grimp has this edge' if in_grimp else 'grimp has no such edge'}")
    show("only Cartograph", lines, len(only_ours))
    lines = []
    for a, b in only_theirs:
        rel = src.path_of(a)
        nums = theirs[(a, b)]
        why = src.describe(rel, nums[0]) if rel and nums else "?"
        edge = cg.imports.get((a, b))
        has = ("Cartograph has the edge" + (" (type-only)" if edge and edge.get("type_only") else "")) if edge \
            else "Cartograph has no such edge"
        lines.append(f"{a} -> {b}  {rel}:{','.join(map(str, nums))}  {why}; {has}")
    show("only import-linter", lines, len(only_theirs))
    return {"ours": len(findings), "theirs": len(theirs), "both": len(both),
            "only_ours": len(only_ours), "only_theirs": len(only_theirs)}


def compare_independent(findings, il_rt, il_all, src: Source, cg: CartographGraph, grimp_rt, grimp_all):
    rule = "services-independent"
    ours: dict[tuple[str, str], dict] = {}
    for f in findings:
        m = re.match(r"^(module:\S+) reaches member (\S+)$", f["rule"]["identity"])
        if not m:
            raise SystemExit(f"rules_peers: unexpected identity {f['rule']['identity']}")
        target = m.group(2).removeprefix("src/").removesuffix("/**").replace("/", ".")
        ours[(m.group(1), target)] = f
    print(f"\n{rule}: transitive in both; import-linter independence contract, "
          "exclude_type_checking_imports = True (rules.md: type-only imports are not a path)")
    # member pairs
    ours_pairs = {(node_member(s), t) for s, t in ours}
    for name, il in (("without TYPE_CHECKING", il_rt), ("with TYPE_CHECKING", il_all)):
        theirs_pairs = {(p["from"], p["to"]) for p in il["broken"].get(rule, [])}
        chains = sum(len(p["chains"]) for p in il["broken"].get(rule, []))
        print(f"  member pairs: Cartograph {len(ours_pairs)}, import-linter {name} {len(theirs_pairs)} "
              f"({chains} chains); both {len(ours_pairs & theirs_pairs)}, only Cartograph "
              f"{sorted(ours_pairs - theirs_pairs)}, only import-linter {sorted(theirs_pairs - ours_pairs)}")
    # heads of import-linter's chains are sources that reach: each must be one of Cartograph's
    ours_src = {(label(s), t) for s, t in ours}
    heads = set()
    for p in il_rt["broken"].get(rule, []):
        for chain in p["chains"]:
            heads |= {(h, p["to"]) for h in chain["heads"]}
    missing_heads = sorted(heads - ours_src)
    print(f"  import-linter chain heads (sources it names): {len(heads)}; "
          f"{len(heads) - len(missing_heads)} are Cartograph violations, {len(missing_heads)} are not")
    show("heads Cartograph does not report", [f"{h} -> {t}" for h, t in missing_heads], len(missing_heads))
    # every source that reaches, over grimp's runtime graph the way import-linter walks it
    reach = grimp_reach(grimp_rt)
    reach_all = grimp_reach(grimp_all)
    print(f"  sanity: import-linter's heads are all sources over grimp's graph: {heads <= reach}")
    both = ours_src & reach
    only_ours = sorted(set(ours) - {(s, t) for s, t in ours if (label(s), t) in reach})
    only_theirs = sorted(reach - ours_src)
    print(f"  sources that reach another member: both {len(both)}  only Cartograph {len(only_ours)}  "
          f"only grimp/import-linter {len(only_theirs)}  (Cartograph {len(ours)}, grimp {len(reach)})")
    reasons = {}
    for s, t in only_ours:
        f = ours[(s, t)]
        if dotted(s) is None:
            why = "non-Python module: import-linter reads Python only"
            if not cg.reaches(s, t, runtime=True):
                why += " (and its only paths start with a type-only import)"
        elif not cg.reaches(s, t, runtime=True):
            tc = next((e for e in f["edges"] if "type checking" in e["evidence"]), None)
            at = f" e.g. {tc['location']['path']}:{tc['location']['line']}" if tc else ""
            why = "only through type-only imports: Cartograph bug, rules.md says type-only imports are not a path" + at
        elif not cg.reaches(s, t, runtime=True, calls=False):
            why = "only through an HTTP call into a route the member serves (import-linter has no calls)"
        elif (label(s), t) in reach_all:
            why = "grimp reaches it only with TYPE_CHECKING imports while Cartograph has a runtime path"
        else:
            why = "unexplained"
        reasons[(s, t)] = why
    print(f"  only Cartograph by reason: {reason_counts(reasons)}")
    show("only Cartograph", [f"{label(s)} -> {t}: {reasons[(s, t)]}" for s, t in only_ours], len(only_ours))
    lines = []
    for s, t in only_theirs:
        node = "module:" + (src.path_of(s) or s)
        lines.append(f"{s} -> {t}: Cartograph "
                     + ("has a runtime path" if cg.reaches(node, t, runtime=True) else "has no runtime path"))
    show("only grimp/import-linter", lines, len(only_theirs))
    # evidence paths that show a type-only edge although the rule says they are not a path
    tc_paths = [f for f in findings if any("type checking" in e["evidence"] for e in f["edges"])]
    print(f"  Cartograph evidence paths with a type-only edge: {len(tc_paths)} of {len(findings)}")
    return {"ours": len(findings), "theirs_pairs": len({(p['from'], p['to']) for p in il_rt['broken'].get(rule, [])}),
            "chains": sum(len(p["chains"]) for p in il_rt["broken"].get(rule, [])),
            "reach": len(reach), "both": len(both), "only_ours": len(only_ours), "only_theirs": len(only_theirs),
            "reasons": reason_counts(reasons)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--il-version", required=True)
    ap.add_argument("--grimp-version", required=True)
    ap.add_argument("--cg-version", required=True)
    args = ap.parse_args()
    out = args.out

    il = parse_import_linter(out / "il.txt")
    il_rt = parse_import_linter(out / "il-runtime.txt")
    check = json.loads((out / "check.json").read_text())
    snapshot = json.loads((out / "snapshot.json").read_text())
    grimp_all = json.loads((out / "grimp-graph.json").read_text())
    grimp_rt = json.loads((out / "grimp-graph-runtime.json").read_text())
    src = Source(args.corpus)
    cg = CartographGraph(snapshot)
    by_rule = defaultdict(list)
    for f in check["findings"]:
        if f.get("kind") == "rule-violation":
            by_rule[f["rule"]["id"]].append(f)

    # the two import graphs themselves, Python modules under src/ only
    gedges = {tuple(e) for e in grimp_all["edges"]}
    cedges = set(cg.imports)
    print("import graphs (Python, internal): "
          f"both {len(gedges & cedges)}, only Cartograph {len(cedges - gedges)}, only grimp {len(gedges - cedges)}")
    for a, b in sorted(cedges - gedges)[:EXAMPLES]:
        e = cg.imports[(a, b)]
        print(f"  only Cartograph: {a} -> {b}  {e['location']['path']}:{e['location']['line']}  {e['evidence'][:100]}")
    for a, b in sorted(gedges - cedges)[:EXAMPLES]:
        rel = src.path_of(a)
        refusal = next((r for r in snapshot["refusals"] if r["location"]["path"] == rel
                        and re.search(rf"\b{re.escape(b)}\.", r["reason"])), None)
        print(f"  only grimp: {a} -> {b}" + (
            f"  Cartograph refused {rel}:{refusal['location']['line']}: {refusal['reason']}" if refusal else ""))
    rt_g = {tuple(e) for e in grimp_rt["edges"]}
    rt_c = {p for p, e in cg.imports.items() if not e.get("type_only")}
    print(f"runtime (non-TYPE_CHECKING) edges: both {len(rt_g & rt_c)}, only Cartograph {len(rt_c - rt_g)}, "
          f"only grimp {len(rt_g - rt_c)}")
    for a, b in sorted(rt_c - rt_g)[:EXAMPLES]:
        e = cg.imports[(a, b)]
        print(f"  only Cartograph runtime: {a} -> {b} ({e.get('occurrences')} occurrences; first "
              f"{e['location']['path']}:{e['location']['line']})")

    results = {}
    for rule in DIRECT:
        results[rule] = compare_direct(rule, by_rule[rule], il, src, cg, gedges)
    results["services-independent"] = compare_independent(
        by_rule["services-independent"], il_rt, il, src, cg, grimp_rt, grimp_all)

    layers = il["broken"].get("core-layers", [])
    layers_rt = il_rt["broken"].get("core-layers", [])
    print("\ncore-layers as import-linter's own layers contract (transitive; no direct-only option): "
          f"{len(layers)} layer pairs broken, {sum(len(p['chains']) for p in layers)} chains "
          f"({len(layers_rt)} pairs, {sum(len(p['chains']) for p in layers_rt)} chains without TYPE_CHECKING)")
    for p in layers:
        print(f"  {p['from']} -> {p['to']}: {len(p['chains'])} chains")

    # the table
    cl, mn, si = results["core-layers"], results["models-not-api"], results["services-independent"]
    io = defaultdict(int)
    for f in json.loads((out / "check-imports-only.json").read_text())["findings"]:
        if f.get("kind") == "rule-violation":
            io[f["rule"]["id"]] += 1

    def il_cells(report):
        lay = report["broken"].get("core-layers", [])
        ind = report["broken"].get("services-independent", [])
        direct = il_pairs(report, DIRECT["core-layers"])
        forb = il_pairs(report, DIRECT["models-not-api"])
        layers = f"{len(lay)} pairs/{sum(len(p['chains']) for p in lay)} chains"
        return (f"{len(direct)} edges; layers: {layers}" if "core-layers-direct-jobs" in report["status"]
                else f"layers: {layers}",
                f"{len(forb)} edges" if "models-not-api" in report["status"] else "-",
                f"{len(ind)} pairs/{sum(len(p['chains']) for p in ind)} chains")

    rows = []
    for tag, tool, version, cells in (
        ("il", "import-linter (with TYPE_CHECKING)", args.il_version, il_cells(il)),
        ("il-runtime", "import-linter (no TYPE_CHECKING)", args.il_version, il_cells(il_rt)),
        ("cg", "cartograph check", args.cg_version,
         (f"{cl['ours']} edges", f"{mn['ours']} edges", f"{si['ours']} sources")),
        ("cg-io", "cartograph check --imports-only", args.cg_version,
         (f"{io['core-layers']} edges", f"{io['models-not-api']} edges", f"{io['services-independent']} sources")),
    ):
        wall, rss, walls = timings(out, tag, args.runs)
        rows.append((tool, version, f"{wall:.2f} s", f"{rss / 1024:.0f} MiB") + cells)
    print(f"\nwall: median of {args.runs} runs (import-linter {args.il_version} on grimp {args.grimp_version}, "
          "--no-cache; cartograph has no cache unless --cache); max RSS: median of the runs' maxima")
    hdr = ("tool", "version", "wall", "max RSS", "core-layers", "models-not-api", "services-independent")
    widths = [max(len(str(r[i])) for r in rows + [hdr]) for i in range(len(hdr))]
    for r in [hdr] + rows:
        print(" | ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip())
    print(f"\nagreement: core-layers both {cl['both']}/only cartograph {cl['only_ours']}/only import-linter "
          f"{cl['only_theirs']}; models-not-api {mn['both']}/{mn['only_ours']}/{mn['only_theirs']}; "
          f"services-independent sources vs grimp's graph {si['both']}/{si['only_ours']}/{si['only_theirs']} "
          f"(only cartograph: {si['reasons'] or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
