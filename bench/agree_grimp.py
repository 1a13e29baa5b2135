#!/usr/bin/env python3
"""Agreement between Cartograph's Python import edges and grimp's, module by module.

    bench/.venv/bin/python bench/agree_grimp.py SNAPSHOT.json [--src DIR] [--package airflow]
        [--examples 10] [--json OUT.json]

SNAPSHOT.json is `cartograph snapshot` output for a tree holding the package (for Airflow: the corpus
root, whose `src/airflow` is the package). grimp builds its graph for `--package` from `--src`
(default: the Airflow 3.3.2 corpus's `src/`), cache off, TYPE_CHECKING imports included (grimp's
default). Both sides become sets of direct imports between dotted module names inside the package;
Cartograph's module names come from the nodes' `python_module`, or from the path (the segments from
the package's own folder on, without `.py` and `/__init__.py`).

Prints counts of imports found by both, only grimp, only Cartograph, then each side's differences
grouped into classes, with up to --examples examples per class. Classes are decided in this order:
a module one side does not have; a self-import; the other side has the parent or a child of the
imported module instead (`from a import b`: package `a` versus submodule `a.b`); else where the import
statement sits (TYPE_CHECKING block, function body, try/except, other `if`, class body, module
level), or, for a Cartograph edge with no import statement at its line, what is there (an
`importlib.import_module`/`__import__` literal, a string naming the module).
"""

from __future__ import annotations

import argparse
import ast
import collections
import json
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DEFAULT_SRC = BENCH / "work" / "corpora" / "apache-airflow-core-3.3.2" / "src"

try:
    import grimp
except ImportError:  # re-run under the bench venv, which has grimp
    venv_py = BENCH / ".venv" / "bin" / "python"
    if venv_py.exists() and not os.environ.get("AGREE_REEXEC"):
        os.environ["AGREE_REEXEC"] = "1"
        os.execv(str(venv_py), [str(venv_py), __file__, *sys.argv[1:]])
    sys.exit("grimp is not importable: run bench/peers.sh, then bench/.venv/bin/python bench/agree_grimp.py ...")


def dotted_from_path(path: str, package: str) -> str | None:
    """`src/airflow/models/dag.py` -> `airflow.models.dag`; `.../airflow/__init__.py` -> `airflow`."""
    segs = path.split("/")
    for i, seg in enumerate(segs):
        if seg == package or (i == len(segs) - 1 and seg in (f"{package}.py", f"{package}.pyi")):
            rest = segs[i:]
            break
    else:
        return None
    last = rest[-1]
    for suffix in (".pyi", ".py"):
        if last.endswith(suffix):
            rest[-1] = last[: -len(suffix)]
            break
    else:
        return None
    if rest[-1] == "__init__":
        rest = rest[:-1]
    return ".".join(rest) if rest else None


def in_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def load_cartograph(path: Path, package: str):
    doc = json.loads(path.read_text())
    names: dict[str, str] = {}  # node id -> dotted
    for node in doc.get("nodes", []):
        if node.get("kind") != "module":
            continue
        dotted = node.get("python_module") or dotted_from_path(node.get("name", ""), package)
        if dotted and in_package(dotted, package):
            names[node["id"]] = dotted
    edges: dict[tuple[str, str], dict] = {}
    for e in doc.get("edges", []):
        if e.get("kind") != "imports":
            continue
        a, b = names.get(e["from"]), names.get(e["to"])
        if a and b:
            edges.setdefault((a, b), e)
    return set(names.values()), edges, doc


def load_grimp(src: Path, package: str):
    sys.path.insert(0, str(src))
    graph = grimp.build_graph(package, cache_dir=None)
    edges = {(m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m)}
    return graph, set(graph.modules), edges


def module_file(src: Path, dotted: str) -> Path | None:
    base = src.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py", base.with_suffix(".pyi"), base / "__init__.pyi"):
        if candidate.is_file():
            return candidate
    return None


class Sources:
    """Parsed files and, per line, the context of the import statement there."""

    def __init__(self, src: Path):
        self.src = src
        self.cache: dict[str, tuple[list[str], dict[int, tuple[str, ast.AST]]]] = {}

    def load(self, dotted: str):
        if dotted not in self.cache:
            path = module_file(self.src, dotted)
            lines: list[str] = []
            stmts: dict[int, tuple[str, ast.AST]] = {}
            if path:
                text = path.read_text(errors="replace")
                lines = text.splitlines()
                try:
                    tree = ast.parse(text)
                except SyntaxError:
                    tree = None
                if tree is not None:
                    self._index(tree, [], stmts)
            self.cache[dotted] = (lines, stmts)
        return self.cache[dotted]

    def _index(self, node: ast.AST, ctx: list[str], out: dict[int, tuple[str, ast.AST]]) -> None:
        for field, value in ast.iter_fields(node):
            children = value if isinstance(value, list) else [value]
            for child in children:
                if not isinstance(child, ast.AST):
                    continue
                here = ctx
                if isinstance(node, ast.If) and field == "body" and is_type_checking(node.test):
                    here = ctx + ["TYPE_CHECKING block"]
                elif isinstance(node, ast.If) and field in ("body", "orelse"):
                    here = ctx + ["if/else"]
                elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))) and field in ("body", "handlers", "orelse"):
                    here = ctx + ["try/except"]
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and field == "body":
                    here = ctx + ["function body"]
                elif isinstance(node, ast.ClassDef) and field == "body":
                    here = ctx + ["class body"]
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    label = context_label(here)
                    for line in range(child.lineno, (child.end_lineno or child.lineno) + 1):
                        out[line] = (label, child)
                self._index(child, here, out)

    def statement(self, dotted: str, line: int):
        lines, stmts = self.load(dotted)
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return stmts.get(line), text


def is_type_checking(test: ast.AST) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def context_label(ctx: list[str]) -> str:
    # The most telling enclosing construct wins: a lazy import in a function stays "function body"
    # even inside a try; TYPE_CHECKING wins over everything.
    for key in ("TYPE_CHECKING block", "function body", "class body", "try/except", "if/else"):
        if key in ctx:
            return key
    return "module level"


def statement_shape(stmt: ast.AST | None) -> str:
    if isinstance(stmt, ast.ImportFrom):
        return "relative from-import" if stmt.level else "from-import"
    if isinstance(stmt, ast.Import):
        return "import"
    return ""


def from_module(importer: str, stmt: ast.ImportFrom, srcs: Sources) -> str | None:
    """The absolute module named by a from-import's `from` clause."""
    if not stmt.level:
        return stmt.module
    path = module_file(srcs.src, importer)
    is_package = path is not None and path.name.startswith("__init__.")
    parts = importer.split(".") if is_package else importer.split(".")[:-1]
    up = stmt.level - 1
    if up > len(parts):
        return None
    parts = parts[: len(parts) - up]
    if stmt.module:
        parts += stmt.module.split(".")
    return ".".join(parts) or None


def named_outside_tree(a: str, b: str, stmt, srcs: Sources, modules) -> str | None:
    """The module a statement names when that module is not in the tree but b encloses it."""
    if isinstance(stmt, ast.ImportFrom):
        names = [from_module(a, stmt, srcs)]
    elif isinstance(stmt, ast.Import):
        names = [alias.name for alias in stmt.names]
    else:
        return None
    for name in names:
        if name and name not in modules and name.startswith(b + "."):
            return b + "." + name[len(b) + 1 :].split(".")[0]
    return None


def package_vs_submodule(a: str, b: str, stmt, srcs: Sources, other_edges) -> str | None:
    """For an edge a -> b that one side has and the other lacks, from a `from X import n` statement:
    "parent" if b is X.n and the other side has a -> X; "child" if b is X and the other side has
    a -> X.n for a name n the statement imports."""
    if not isinstance(stmt, ast.ImportFrom):
        return None
    base = from_module(a, stmt, srcs)
    if not base:
        return None
    names = [alias.name for alias in stmt.names]
    if b.startswith(base + ".") and b[len(base) + 1 :] in names and (a, base) in other_edges:
        return "parent"
    if b == base and any((a, f"{base}.{n}") in other_edges for n in names):
        return "child"
    return None


def classify_only_grimp(edge, graph, srcs: Sources, c_modules, c_edges):
    a, b = edge
    details = graph.get_import_details(importer=a, imported=b)
    line = details[0]["line_number"] if details else 0
    shown = details[0]["line_contents"] if details else ""
    where = f"{a}:{line}"
    if a not in c_modules:
        return "importer is not a Cartograph module", where, shown
    if b not in c_modules:
        return "imported module is not a Cartograph module", where, shown
    # pick the statement context: the least conditional of grimp's occurrences
    contexts = []
    for d in details or [{"line_number": 0}]:
        stmt, _ = srcs.statement(a, d["line_number"])
        contexts.append(stmt)
    stmt = next((s for s in contexts if s and s[0] == "module level"), contexts[0])
    shape = statement_shape(stmt[1]) if stmt else ""
    pair = package_vs_submodule(a, b, stmt[1] if stmt else None, srcs, c_edges)
    if pair == "parent":
        return "`from a import b`: grimp has submodule a.b, Cartograph has package a", where, shown
    if pair == "child":
        return "`from a import b`: grimp has package a, Cartograph has submodule a.b", where, shown
    label = stmt[0] if stmt else "no import statement found at grimp's line"
    return f"no Cartograph edge; {label}{', ' + shape if shape else ''}", where, shown


def classify_only_cartograph(edge, info, srcs: Sources, g_modules, g_edges):
    a, b = edge
    loc = info.get("location", {})
    line = loc.get("line", 0)
    where = f"{a}:{line}"
    stmt, text = srcs.statement(a, line)
    shown = text or info.get("evidence", "")
    if a == b:
        return "self-import", where, shown
    if a not in g_modules:
        return "importer is not in grimp's graph", where, shown
    if b not in g_modules:
        return "imported module is not in grimp's graph", where, shown
    shape = statement_shape(stmt[1]) if stmt else ""
    pair = package_vs_submodule(a, b, stmt[1] if stmt else None, srcs, g_edges)
    if pair == "parent":
        return "`from a import b`: Cartograph has submodule a.b, grimp has package a", where, shown
    if pair == "child":
        return "`from a import b`: Cartograph has package a, grimp has submodule a.b", where, shown
    missing = named_outside_tree(a, b, stmt[1] if stmt else None, srcs, g_modules)
    if missing:
        return (f"{missing}[.…] is not in the tree: Cartograph links the enclosing module {b}, "
                f"grimp drops the import"), where, shown
    if stmt:
        return f"no grimp edge; {stmt[0]}{', ' + shape if shape else ''}", where, shown
    if "import_module" in text or "__import__" in text or "importlib" in text:
        return "importlib/__import__ with a literal name", where, shown
    if f'"{b}' in text or f"'{b}" in text:
        return "string naming the module", where, shown
    return f"no import statement at the edge's line (provenance {info.get('provenance', '?')})", where, shown


def print_classes(title: str, items: list[tuple[str, str, str, tuple[str, str]]], n: int) -> dict:
    groups: dict[str, list] = collections.defaultdict(list)
    for cls, where, shown, edge in items:
        groups[cls].append((where, shown, edge))
    print(f"\n{title} ({len(items)}):")
    out = {}
    for cls, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  [{len(members):>4}] {cls}")
        for where, shown, (a, b) in sorted(members)[:n]:
            print(f"         {a} -> {b}   @{where.rsplit(':', 1)[1]}  {shown[:110]}")
        out[cls] = [{"from": a, "to": b, "at": where, "text": shown} for where, shown, (a, b) in sorted(members)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="folder holding the package (PYTHONPATH)")
    ap.add_argument("--package", default="airflow")
    ap.add_argument("--examples", type=int, default=10)
    ap.add_argument("--json", type=Path, help="also write every difference, classified, as JSON")
    args = ap.parse_args()

    c_modules, c_edges, doc = load_cartograph(args.snapshot, args.package)
    graph, g_modules, g_edges = load_grimp(args.src, args.package)
    srcs = Sources(args.src)

    c_set = set(c_edges)
    both = c_set & g_edges
    only_g = g_edges - c_set
    only_c = c_set - g_edges
    type_only_both = sum(1 for e in both if c_edges[e].get("type_only"))

    print(f"grimp {getattr(grimp, '__version__', '')} vs Cartograph {doc.get('tool_version', '?')} "
          f"on `{args.package}` ({args.snapshot.name}; grimp from {args.src})")
    print(f"modules: grimp {len(g_modules)}, Cartograph {len(c_modules)}, both {len(g_modules & c_modules)}; "
          f"only grimp {len(g_modules - c_modules)}, only Cartograph {len(c_modules - g_modules)}")
    for label, mods in (("only grimp", g_modules - c_modules), ("only Cartograph", c_modules - g_modules)):
        if mods:
            print(f"  {label}: {', '.join(sorted(mods)[:args.examples])}{' …' if len(mods) > args.examples else ''}")
    print(f"direct imports: both {len(both)} | only grimp {len(only_g)} | only Cartograph {len(only_c)}")
    if g_edges:
        print(f"  Cartograph finds {100 * len(both) / len(g_edges):.1f}% of grimp's; "
              f"{100 * len(both) / max(1, len(c_set)):.1f}% of Cartograph's are grimp's "
              f"(Cartograph marks {type_only_both} of the shared ones type-only)")

    g_items = [(*classify_only_grimp(e, graph, srcs, c_modules, c_set), e) for e in sorted(only_g)]
    c_items = [(*classify_only_cartograph(e, c_edges[e], srcs, g_modules, g_edges), e) for e in sorted(only_c)]
    result = {
        "both": len(both),
        "only_grimp": print_classes("only grimp", g_items, args.examples),
        "only_cartograph": print_classes("only Cartograph", c_items, args.examples),
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
