#!/usr/bin/env python3
"""Agreement between Cartograph's TypeScript/JavaScript import edges and dependency-cruiser's.

    python3 bench/agree_depcruise.py SNAPSHOT.json [--corpus DIR] [--depcruise-json FILE]
        [--examples 10] [--json OUT.json]

SNAPSHOT.json is `cartograph snapshot` output for effect's `package/src` (or `package/`). The
dependency-cruiser side is read from --depcruise-json, else from bench/work/out/effect-depcruise.stdout
(left by bench/run.sh), else made by running `depcruise --no-config --ts-pre-compilation-deps
--output-type json src` in --corpus (default: the effect 4.1.0 corpus's `package/`).
`--ts-pre-compilation-deps` keeps type-only imports, which Cartograph also records (as type_only).

Both sides become sets of (importer file, imported file) pairs, paths relative to --corpus;
dependency-cruiser's unresolved and Node built-in dependencies are left out (and counted).

Classes, decided in this order: a file one side does not have (with Cartograph's refusal for it, if
any); the importer has error regions in Cartograph's parse; else the form of the import statement at
the spot (`import type`, `export * from`, `export type * from`, `import()`, JSDoc/comment, ...).
For a dependency-cruiser edge the statement is found by searching the importer for a specifier that
resolves to the imported file; for a Cartograph edge it is the edge's location.
"""

from __future__ import annotations

import argparse
import collections
import json
import posixpath
import re
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
DEFAULT_CORPUS = BENCH / "work" / "corpora" / "effect-4.1.0" / "package"
DEFAULT_DC_OUT = BENCH / "work" / "out" / "effect-depcruise.stdout"
DEPCRUISE = BENCH / "node_modules" / ".bin" / "depcruise"


def load_depcruise(args) -> tuple[dict, dict]:
    if args.depcruise_json:
        doc = json.loads(args.depcruise_json.read_text())
    elif DEFAULT_DC_OUT.exists() and args.corpus.resolve() == DEFAULT_CORPUS.resolve():
        doc = json.loads(DEFAULT_DC_OUT.read_text())
    else:
        if not DEPCRUISE.exists():
            sys.exit("dependency-cruiser is not installed: run bench/peers.sh")
        print(f"(running dependency-cruiser in {args.corpus} ...)", file=sys.stderr)
        res = subprocess.run([str(DEPCRUISE), "--no-config", "--ts-pre-compilation-deps", "--output-type", "json", "src"],
                             cwd=args.corpus, capture_output=True, text=True, check=True)
        doc = json.loads(res.stdout)
    edges: dict[tuple[str, str], dict] = {}
    skipped = collections.Counter()
    for m in doc["modules"]:
        for d in m["dependencies"]:
            if d.get("couldNotResolve"):
                skipped["unresolved"] += 1
                continue
            if "core" in d.get("dependencyTypes", []) or d.get("coreModule"):
                skipped["node built-in"] += 1
                continue
            key = (m["source"], d["resolved"])
            entry = edges.setdefault(key, {"types": set(), "specifiers": set()})
            entry["types"].update(d.get("dependencyTypes", []))
            entry["specifiers"].add(d["module"])
    files = {m["source"] for m in doc["modules"] if not m.get("coreModule") and not m.get("couldNotResolve")}
    return {"edges": edges, "files": files, "skipped": skipped, "doc": doc}, doc


def load_cartograph(path: Path, dc_files: set[str]):
    doc = json.loads(path.read_text())
    modules = {n["id"]: n["name"] for n in doc.get("nodes", []) if n.get("kind") == "module"
               and n.get("language", "typescript") in ("typescript", "javascript")}
    # Cartograph's names are relative to the tree it was given (`src` or `package`): pick the
    # renaming under which most of them are dependency-cruiser's file names.
    renamings = {
        "as is": lambda n: n,
        "prefixed with src/": lambda n: "src/" + n,
        "stripped of package/": lambda n: n[len("package/"):] if n.startswith("package/") else n,
    }
    how = max(renamings, key=lambda k: len({renamings[k](n) for n in modules.values()} & dc_files))
    norm = renamings[how]

    names = {nid: norm(name) for nid, name in modules.items()}
    edges: dict[tuple[str, str], dict] = {}
    for e in doc.get("edges", []):
        if e.get("kind") != "imports":
            continue
        a, b = names.get(e["from"]), names.get(e["to"])
        if a and b:
            edges.setdefault((a, b), e)
    refusals: dict[str, list[str]] = collections.defaultdict(list)
    for r in doc.get("refusals", []):
        refusals[norm(r["location"]["path"])].append(r["kind"])
    return set(names.values()), edges, refusals, doc, how


class Sources:
    def __init__(self, corpus: Path):
        self.corpus = corpus
        self.cache: dict[str, list[str]] = {}

    def lines(self, rel: str) -> list[str]:
        if rel not in self.cache:
            p = self.corpus / rel
            self.cache[rel] = p.read_text(errors="replace").splitlines() if p.is_file() else []
        return self.cache[rel]

    def statement(self, rel: str, line: int) -> tuple[int, str]:
        """The line, widened to the start of its statement when it is the tail of a multi-line one."""
        lines = self.lines(rel)
        if not (0 < line <= len(lines)):
            return line, ""
        i = line - 1
        text = lines[i].strip()
        if re.match(r"^(\}|[\w$]+,?\s*$|type\s+\w+,?$)", text) or text.startswith("} from"):
            j = i
            while j > 0 and i - j < 200 and not re.match(r"^\s*(import|export)\b", lines[j]):
                j -= 1
            if re.match(r"^\s*(import|export)\b", lines[j]):
                return j + 1, lines[j].strip() + (" … " + text if j != i else "")
        return line, text

    def find_specifier(self, importer: str, imported: str, specifiers: set[str]) -> tuple[int, str]:
        lines = self.lines(importer)
        quoted = [f'"{s}"' for s in specifiers] + [f"'{s}'" for s in specifiers]
        for i, text in enumerate(lines):
            if any(q in text for q in quoted):
                return self.statement(importer, i + 1)
        return 0, ""


def form(text: str) -> str:
    s = text.strip()
    if not s:
        return "statement not found"
    if s.startswith(("//", "*", "/*")):
        return "in a comment / JSDoc"
    if re.match(r"import\s+type\b", s):
        return "import type"
    if re.match(r"import\s*\{[^}]*\btype\s", s) and not re.search(r"\{\s*(?:(?!type\b)\w+\s*,?\s*)", s):
        return "import { type … }"
    if re.match(r"export\s+type\s*\*", s):
        return "export type * from"
    if re.match(r"export\s+type\b", s):
        return "export type { … } from"
    if re.match(r"export\s*\*\s*as\b", s):
        return "export * as ns from"
    if re.match(r"export\s*\*", s):
        return "export * from"
    if re.match(r"export\s*\{", s):
        return "export { … } from"
    if re.match(r"import\s+\w+\s*=\s*require\(", s):
        return "import x = require()"
    if "typeof import(" in s:
        return "typeof import()"
    if "import(" in s:
        return "import() expression"
    if "require(" in s:
        return "require()"
    if re.match(r"import\b", s):
        return "import … from"
    if "declare module" in s:
        return "declare module"
    return "other"


def classify_only_dc(edge, info, srcs: Sources, c_files, refusals, error_files):
    a, b = edge
    line, text = srcs.find_specifier(a, b, info["specifiers"])
    where = f"{a}:{line}"
    if a not in c_files:
        why = ",".join(sorted(set(refusals.get(a, [])))) or "no refusal"
        return f"importer is not a Cartograph module ({why})", where, text
    if b not in c_files:
        why = ",".join(sorted(set(refusals.get(b, [])))) or "no refusal"
        return f"imported file is not a Cartograph module ({why})", where, text
    kinds = "/".join(sorted(t for t in info["types"] if t not in ("local", "import", "npm", "aliased")) or ["import"])
    err = "importer has error regions; " if a in error_files else ""
    return f"{err}{form(text)} [depcruise: {kinds}]", where, text


def classify_only_c(edge, info, srcs: Sources, dc_files, error_files):
    a, b = edge
    line = info.get("location", {}).get("line", 0)
    _, text = srcs.statement(a, line)
    where = f"{a}:{line}"
    if a == b:
        return "self-import", where, text
    if a not in dc_files:
        return "importer is not in dependency-cruiser's graph", where, text
    if b not in dc_files:
        return "imported file is not in dependency-cruiser's graph", where, text
    err = "importer has error regions; " if a in error_files else ""
    extra = f"{info.get('provenance', '?')}, {info.get('confidence', '?')}"
    if info.get("type_only"):
        extra += ", type-only"
    return f"{err}{form(text)} [cartograph: {extra}]", where, text


def print_classes(title, items, n) -> dict:
    groups = collections.defaultdict(list)
    for cls, where, text, edge in items:
        groups[cls].append((where, text, edge))
    print(f"\n{title} ({len(items)}):")
    out = {}
    for cls, members in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  [{len(members):>4}] {cls}")
        for where, text, (a, b) in sorted(members)[:n]:
            print(f"         {a} -> {b}   @{where.rsplit(':', 1)[1]}  {text[:110]}")
        out[cls] = [{"from": a, "to": b, "at": where, "text": t} for where, t, (a, b) in sorted(members)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="dependency-cruiser's working directory")
    ap.add_argument("--depcruise-json", type=Path)
    ap.add_argument("--examples", type=int, default=10)
    ap.add_argument("--json", type=Path, help="also write every difference, classified, as JSON")
    args = ap.parse_args()

    dc, dc_doc = load_depcruise(args)
    dc_edges, dc_files = dc["edges"], dc["files"]
    c_files, c_edges, refusals, doc, how = load_cartograph(args.snapshot, dc_files)
    error_files = {p for p, kinds in refusals.items() if "syntax-errors" in kinds}
    srcs = Sources(args.corpus)

    d_set, c_set = set(dc_edges), set(c_edges)
    both, only_d, only_c = d_set & c_set, d_set - c_set, c_set - d_set
    print(f"dependency-cruiser (args: {dc_doc['summary'].get('optionsUsed', {}).get('args', '?')}) vs Cartograph "
          f"{doc.get('tool_version', '?')} ({args.snapshot.name}; Cartograph's file names taken {how})")
    print(f"files: depcruise {len(dc_files)}, Cartograph {len(c_files)}, both {len(dc_files & c_files)}; "
          f"Cartograph files with error regions: {len(error_files)}")
    for label, files in (("only depcruise", dc_files - c_files), ("only Cartograph", c_files - dc_files)):
        if files:
            print(f"  {label}: {', '.join(sorted(files)[:args.examples])}{' …' if len(files) > args.examples else ''}")
    left_out = ", ".join(f"{v} {k}" for k, v in dc["skipped"].items()) or "none"
    print(f"file→file imports: both {len(both)} | only depcruise {len(only_d)} | only Cartograph {len(only_c)} "
          f"(depcruise dependencies left out: {left_out})")
    if d_set:
        print(f"  Cartograph finds {100 * len(both) / len(d_set):.1f}% of depcruise's; "
              f"{100 * len(both) / max(1, len(c_set)):.1f}% of Cartograph's are depcruise's")
    d_items = [(*classify_only_dc(e, dc_edges[e], srcs, c_files, refusals, error_files), e) for e in sorted(only_d)]
    c_items = [(*classify_only_c(e, c_edges[e], srcs, dc_files, error_files), e) for e in sorted(only_c)]
    result = {
        "both": len(both),
        "only_depcruise": print_classes("only dependency-cruiser", d_items, args.examples),
        "only_cartograph": print_classes("only Cartograph", c_items, args.examples),
    }
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
