#!/usr/bin/env python3
"""Times Cartograph, the parse-only floor and the peers side by side; called by bench/run.sh.

For each corpus, every available tool is first run once under GNU time (`/usr/bin/time -v`): that
run checks the tool works, gives its peak RSS and keeps its output for the file and edge counts.
Then ONE hyperfine invocation per corpus times all working tools together (warmup 1, --runs N,
--export-json), so the ratios in the report come from the same run on the same machine state.

Writes a Markdown report to stdout and bench/work/results-<date>.md; raw data (hyperfine JSON,
GNU time output, tool outputs) goes to bench/work/out/.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "work"
CORPORA = WORK / "corpora"
OUT = WORK / "out"

AIRFLOW = CORPORA / "apache-airflow-core-3.3.2"
AIRFLOW_PREV = CORPORA / "apache-airflow-core-3.3.1"
# A copy of 3.3.2 with one file changed, for the warm-cache diff (made by prepare_edit()).
AIRFLOW_EDIT = WORK / "tmp" / "airflow-3.3.2-one-file-changed"
EDITED_FILE = "src/airflow/models/dag.py"
EFFECT = CORPORA / "effect-4.1.0" / "package"
VENV_PY = BENCH / ".venv" / "bin" / "python"
NODE_BIN = BENCH / "node_modules" / ".bin"

GRIMP_COLD = 'import grimp; g = grimp.build_graph("airflow", cache_dir=None); print(len(g.modules))'
GRIMP_WARM = 'import grimp; g = grimp.build_graph("airflow", cache_dir="{cache}"); print(len(g.modules))'
GRIMP_EDGES = (
    'import grimp, json; g = grimp.build_graph("airflow", cache_dir=None); '
    'print(json.dumps({"modules": len(g.modules), "imports": g.count_imports()}))'
)


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


@dataclass
class Tool:
    key: str  # short, unique within the corpus; used in file names
    label: str  # row label in the report
    argv: list[str]  # the timed command
    kind: str  # cartograph | floor | grimp | depcruise | madge
    env: dict[str, str] = field(default_factory=dict)
    # The once-run (GNU time) may differ from the timed command only in where output goes.
    once_argv: list[str] | None = None
    note: str = ""
    prime: bool = False  # run once untimed before the GNU time run (fills a cache)
    # Run before every timed run (hyperfine --prepare) and before the GNU time run, untimed.
    prepare: list[str] | None = None
    # filled in
    ok: bool = False
    rss_kb: int | None = None
    files: int | None = None
    edges: int | None = None
    edges_note: str = ""
    error_files: int | None = None
    median_s: float | None = None
    stddev_s: float | None = None
    min_s: float | None = None

    def command_line(self, argv: list[str] | None = None) -> str:
        argv = argv or self.argv
        prefix = ["env"] + [f"{k}={v}" for k, v in self.env.items()] if self.env else []
        return " ".join(shlex.quote(a) for a in prefix + argv)


@dataclass
class Corpus:
    key: str
    title: str
    cwd: Path
    tools: list[Tool]


def tool_list(args: argparse.Namespace, corpus: str) -> list[Tool]:
    tools: list[Tool] = []
    carto = args.cartograph
    floor = args.floor
    if corpus == "airflow":
        if carto:
            out = str(OUT / "airflow-cartograph.json")
            tools.append(Tool("cartograph", "cartograph snapshot", [carto, "snapshot", ".", "-o", "/dev/null"],
                              "cartograph", once_argv=[carto, "snapshot", ".", "-o", out]))
            out_io = str(OUT / "airflow-cartograph-imports.json")
            tools.append(Tool("cartograph-io", "cartograph snapshot --imports-only",
                              [carto, "snapshot", ".", "--imports-only", "-o", "/dev/null"], "cartograph",
                              once_argv=[carto, "snapshot", ".", "--imports-only", "-o", out_io]))
            if AIRFLOW_PREV.exists():
                out_diff = str(OUT / "airflow-diff.json")
                tools.append(Tool("diff", "cartograph diff 3.3.1 → 3.3.2 (cold)",
                                  [carto, "diff", str(AIRFLOW_PREV), ".", "--json", "/dev/null"], "cartograph-diff",
                                  once_argv=[carto, "diff", str(AIRFLOW_PREV), ".", "--json", out_diff]))
            else:
                log("skip the release diff: apache-airflow-core-3.3.1 missing (run bench/corpora.sh)")
            prepare_edit()
            cache = str(OUT / "cartograph-cache")
            shutil.rmtree(cache, ignore_errors=True)
            out_warm = str(OUT / "airflow-diff-warm.json")
            tools.append(Tool("diff-warm", "cartograph diff after a one-file change, warm --cache",
                              [carto, "diff", ".", str(AIRFLOW_EDIT), "--cache", cache, "--json", "/dev/null"],
                              "cartograph-diff", prime=True,
                              once_argv=[carto, "diff", ".", str(AIRFLOW_EDIT), "--cache", cache, "--json", out_warm],
                              note=f"{EDITED_FILE} gains one line; the cache is primed by one untimed run"))
            # What a new push meets: the cache holds what the base's analysis wrote (one
            # snapshot of the base), not the new head; restored before every run, so each run
            # re-analyses the head with one file missing from the cache.
            primed = str(OUT / "cartograph-cache-base")
            push_cache = str(OUT / "cartograph-cache-push")
            shutil.rmtree(primed, ignore_errors=True)
            subprocess.run([carto, "snapshot", ".", "-o", "/dev/null", "--cache", primed], cwd=AIRFLOW,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            restore = ["python3", "-c", "import shutil, sys; shutil.rmtree(sys.argv[2], ignore_errors=True); "
                       "shutil.copytree(sys.argv[1], sys.argv[2])", primed, push_cache]
            tools.append(Tool("diff-warm-push", "cartograph diff on a new push: base cached, head one file changed",
                              [carto, "diff", ".", str(AIRFLOW_EDIT), "--cache", push_cache, "--json", "/dev/null"],
                              "cartograph-diff", prepare=restore,
                              once_argv=[carto, "diff", ".", str(AIRFLOW_EDIT), "--cache", push_cache,
                                         "--json", str(OUT / "airflow-diff-push.json")],
                              note="cache primed by a snapshot of the base, restored before each run"))
        if floor:
            tools.append(Tool("floor", "parse floor, 2 threads", [floor, "--threads", "2", "."], "floor"))
            tools.append(Tool("floor-py", "parse floor, .py only, 2 threads",
                              [floor, "--threads", "2", "--ext", "py", "."], "floor"))
        if VENV_PY.exists():
            env = {"PYTHONPATH": str(AIRFLOW / "src")}
            tools.append(Tool("grimp", "grimp build_graph, cache off (whole process)",
                              [str(VENV_PY), "-c", GRIMP_COLD], "grimp", env=env))
            cache = str(OUT / "grimp-cache")
            tools.append(Tool("grimp-warm", "grimp build_graph, warm cache (whole process)",
                              [str(VENV_PY), "-c", GRIMP_WARM.format(cache=cache)], "grimp", env=env,
                              prime=True))
        else:
            log("skip grimp: bench/.venv missing (run bench/peers.sh)")
    elif corpus == "effect":
        if carto:
            out = str(OUT / "effect-cartograph.json")
            tools.append(Tool("cartograph", "cartograph snapshot", [carto, "snapshot", "src", "-o", "/dev/null"],
                              "cartograph", once_argv=[carto, "snapshot", "src", "-o", out]))
            out_io = str(OUT / "effect-cartograph-imports.json")
            tools.append(Tool("cartograph-io", "cartograph snapshot --imports-only",
                              [carto, "snapshot", "src", "--imports-only", "-o", "/dev/null"], "cartograph",
                              once_argv=[carto, "snapshot", "src", "--imports-only", "-o", out_io]))
        if floor:
            tools.append(Tool("floor", "parse floor, 2 threads", [floor, "--threads", "2", "src"], "floor"))
        depcruise = NODE_BIN / "depcruise"
        if depcruise.exists():
            tools.append(Tool("depcruise", "dependency-cruiser 17.3.9",
                              [str(depcruise), "--no-config", "--ts-pre-compilation-deps",
                               "--output-type", "json", "src"], "depcruise",
                              note="--no-config --ts-pre-compilation-deps (keeps type-only imports); no tsconfig: "
                                   "effect's sources import with explicit .ts extensions"))
        else:
            log("skip dependency-cruiser: bench/node_modules missing (run bench/peers.sh)")
        madge = NODE_BIN / "madge"
        if madge.exists():
            tools.append(Tool("madge", "madge 8.0.0", [str(madge), "--json", "--extensions", "ts", "src"], "madge"))
        else:
            log("skip madge: bench/node_modules missing (run bench/peers.sh)")
    return tools


def prepare_edit() -> None:
    """A fresh copy of Airflow 3.3.2 with one line added to one file."""
    shutil.rmtree(AIRFLOW_EDIT, ignore_errors=True)
    shutil.copytree(AIRFLOW, AIRFLOW_EDIT, symlinks=True)
    with open(AIRFLOW_EDIT / EDITED_FILE, "a") as f:
        f.write("\n# a one-line change for the warm-cache diff benchmark\n")


def run_once(corpus: Corpus, tool: Tool) -> None:
    """One run under GNU time: checks the tool, records peak RSS, keeps its output for counts."""
    stem = OUT / f"{corpus.key}-{tool.key}"
    argv = tool.once_argv or tool.argv
    env = {**os.environ, **tool.env}
    if tool.prepare:
        subprocess.run(tool.prepare, cwd=corpus.cwd, check=True)
    if tool.prime:
        subprocess.run(argv, cwd=corpus.cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    timed = ["/usr/bin/time", "-v", "-o", f"{stem}.time"] + argv
    with open(f"{stem}.stdout", "wb") as so, open(f"{stem}.stderr", "wb") as se:
        rc = subprocess.run(timed, cwd=corpus.cwd, env=env, stdout=so, stderr=se).returncode
    if rc != 0:
        log(f"skip {corpus.key}/{tool.key}: exited {rc} (see {stem}.stderr)")
        return
    text = Path(f"{stem}.time").read_text(errors="replace")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    tool.rss_kb = int(m.group(1)) if m else None
    try:
        count(corpus, tool, Path(f"{stem}.stdout"))
    except Exception as exc:  # a tool that runs but whose output we cannot read is skipped
        log(f"skip {corpus.key}/{tool.key}: cannot read its output ({exc})")
        return
    tool.ok = True


def count(corpus: Corpus, tool: Tool, stdout: Path) -> None:
    if tool.kind == "cartograph":
        path = Path(tool.once_argv[-1]) if tool.once_argv else stdout
        doc = json.loads(path.read_text())
        if doc.get("schema") != "snapshot":
            raise ValueError("not a snapshot document")
        stats = doc.get("stats", {})
        tool.files = stats.get("files_analysed")
        tool.error_files = stats.get("files_with_error_regions")
        imports = [e for e in doc.get("edges", []) if e.get("kind") == "imports"]
        internal = [e for e in imports if e["from"].startswith("module:") and e["to"].startswith("module:")]
        external = sum(1 for e in imports if e["to"].startswith("package:"))
        type_only = sum(1 for e in internal if e.get("type_only"))
        language = {n["id"]: n.get("language", "?") for n in doc.get("nodes", [])}
        by_lang: dict[str, int] = {}
        for e in internal:
            by_lang[language.get(e["from"], "?")] = by_lang.get(language.get(e["from"], "?"), 0) + 1
        split = ", ".join(f"{k} {v}" for k, v in sorted(by_lang.items()))
        tool.edges = len(internal)
        tool.edges_note = (f"module→module imports ({split}; {type_only} type-only); "
                           f"+{external} to packages; {len(imports)} imports edges in all")
    elif tool.kind == "cartograph-diff":
        doc = json.loads(Path(tool.once_argv[-1]).read_text())
        if doc.get("schema") != "diff":
            raise ValueError("not a diff document")
        tool.files = doc["head"]["files_analysed"]
        summary = doc["summary"]
        tool.edges = summary["edges_added"] + summary["edges_removed"] + summary["edges_changed"]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(summary["findings_by_kind"].items()) if v)
        tool.edges_note = f"edges added+removed+changed; {len(doc['findings'])} findings ({kinds or 'none'})"
    elif tool.kind == "floor":
        line = stdout.read_text().strip().splitlines()[-1]
        fields = dict(kv.split("=", 1) for kv in line.split())
        tool.files = int(fields["files"])
        tool.error_files = int(fields["error_files"])
        skipped = int(fields["skipped_too_large"]) + int(fields["skipped_min_name"]) + int(fields["skipped_other"])
        tool.edges_note = f"{int(fields['bytes']) / 1e6:.1f} MB parsed; {skipped} files skipped (size cap, minified, binary)"
    elif tool.kind == "grimp":
        tool.files = int(stdout.read_text().split()[-1])
        res = subprocess.run([str(VENV_PY), "-c", GRIMP_EDGES], cwd=corpus.cwd, env={**os.environ, **tool.env},
                             capture_output=True, text=True, check=True)
        info = json.loads(res.stdout)
        tool.edges = info["imports"]
        tool.edges_note = "direct module→module imports (count_imports); files = modules"
    elif tool.kind == "depcruise":
        doc = json.loads(stdout.read_text())
        tool.files = doc["summary"]["totalCruised"]
        raw = doc["summary"]["totalDependenciesCruised"]
        pairs = {(m["source"], d["resolved"]) for m in doc["modules"] for d in m["dependencies"]
                 if not d.get("couldNotResolve") and not d.get("coreModule")
                 and "core" not in d.get("dependencyTypes", [])}
        tool.edges = len(pairs)
        unresolved = sum(1 for m in doc["modules"] for d in m["dependencies"] if d.get("couldNotResolve"))
        tool.edges_note = f"distinct resolved module pairs; {raw} dependencies in all, {unresolved} unresolved"
    elif tool.kind == "madge":
        doc = json.loads(stdout.read_text())
        tool.files = len(doc)
        tool.edges = sum(len(v) for v in doc.values())
        tool.edges_note = "distinct module pairs"


def time_corpus(corpus: Corpus, runs: int, stamp: str) -> None:
    tools = [t for t in corpus.tools if t.ok]
    if not tools:
        log(f"{corpus.key}: nothing to time")
        return
    export = OUT / f"hyperfine-{corpus.key}-{stamp}.json"
    cmd = ["hyperfine", "-N", "--warmup", "1", "--runs", str(runs), "--export-json", str(export)]
    # --prepare is given once per command when any command needs one (`true` for the others).
    if any(t.prepare for t in tools):
        for t in tools:
            cmd += ["--prepare", " ".join(shlex.quote(a) for a in t.prepare) if t.prepare else "true"]
    for t in tools:
        cmd += ["-n", t.key, t.command_line()]
    log(f"{corpus.key}: hyperfine over {len(tools)} commands, {runs} runs each (cwd {corpus.cwd})")
    subprocess.run(cmd, cwd=corpus.cwd, check=True, stdout=sys.stderr)
    results = {r["command"]: r for r in json.loads(export.read_text())["results"]}
    for t in tools:
        r = results.get(t.key)
        if r:
            t.median_s, t.stddev_s, t.min_s = r["median"], r.get("stddev"), r["min"]


def versions() -> list[str]:
    out = []

    def probe(label: str, argv: list[str]) -> None:
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            out.append(f"{label + ' ' if label else ''}{res.stdout.strip().splitlines()[0] if res.stdout.strip() else '?'}")
        except (OSError, subprocess.SubprocessError, IndexError):
            pass

    probe("", ["hyperfine", "--version"])
    if VENV_PY.exists():
        probe("grimp", [str(VENV_PY), "-c", "import importlib.metadata as m; print(m.version('grimp'))"])
    probe("dependency-cruiser", [str(NODE_BIN / "depcruise"), "--version"])
    probe("madge", [str(NODE_BIN / "madge"), "--version"])
    probe("typescript", [str(NODE_BIN / "tsc"), "--version"])
    probe("node", ["node", "--version"])
    return out


def fmt_ms(s: float | None) -> str:
    return "—" if s is None else f"{s * 1000:,.0f}"


def fmt_mb(kb: int | None) -> str:
    return "—" if kb is None else f"{kb / 1024:,.0f}"


def fmt_int(n: int | None) -> str:
    return "—" if n is None else f"{n:,}"


def report(corpora: list[Corpus], runs: int, skipped: list[str]) -> str:
    now = dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    lines = [
        f"# Cartograph benchmark — {now}",
        "",
        f"Machine: {os.cpu_count()} cores, {platform.machine()}, load average before the run {load}. "
        f"hyperfine: warmup 1, {runs} runs; wall = median. Peak RSS from one extra run under `/usr/bin/time -v`.",
        "Ratios compare medians from the same hyperfine invocation (one corpus, one run); "
        "do not compare absolute times across runs or machines.",
        "",
        "Versions: " + "; ".join(versions()),
        "",
    ]
    if skipped:
        lines += ["Skipped: " + "; ".join(skipped), ""]
    for c in corpora:
        lines += [f"## {c.title}", "", f"Working directory: `{c.cwd.relative_to(ROOT)}`", ""]
        lines += ["| tool | median wall ms | ± sd | min ms | peak RSS MB | files | files/s | error files | edges | what the counts are |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for t in c.tools:
            if not t.ok:
                lines.append(f"| {t.label} | skipped | | | | | | | | see stderr |")
                continue
            fps = "—" if not (t.files and t.median_s) else f"{t.files / t.median_s:,.0f}"
            err = "—"
            if t.error_files is not None and t.files:
                err = f"{t.error_files} ({100 * t.error_files / t.files:.1f}%)"
            note = t.edges_note + (f"; {t.note}" if t.note else "")
            lines.append(f"| {t.label} | {fmt_ms(t.median_s)} | {fmt_ms(t.stddev_s)} | {fmt_ms(t.min_s)} | "
                         f"{fmt_mb(t.rss_kb)} | {fmt_int(t.files)} | {fps} | {err} | {fmt_int(t.edges)} | {note} |")
        lines.append("")
        lines.append("Commands timed:")
        lines.append("")
        for t in c.tools:
            if t.ok:
                lines.append(f"- `{t.key}`: `{t.command_line()}`")
        lines.append("")

        def get(key: str) -> Tool | None:
            return next((t for t in c.tools if t.key == key and t.ok and t.median_s), None)

        def ratio(a: str, b: str, what: str) -> str:
            ta, tb = get(a), get(b)
            if not ta or not tb:
                return f"- {what}: n/a ({a if not ta else b} missing)"
            rss = ""
            if ta.rss_kb and tb.rss_kb:
                rss = f"; peak RSS {ta.rss_kb / tb.rss_kb:.2f}×"
            return f"- {what}: **{ta.median_s / tb.median_s:.2f}×** wall{rss}"

        lines.append("Ratios (medians of this run):")
        lines.append("")
        if c.key == "airflow":
            lines += [
                ratio("cartograph", "floor", "cartograph / parse floor (all languages)"),
                ratio("cartograph-io", "floor", "cartograph --imports-only / parse floor"),
                ratio("cartograph", "cartograph-io", "cartograph / cartograph --imports-only (recogniser cost)"),
                ratio("cartograph", "grimp", "cartograph / grimp cache off"),
                ratio("cartograph-io", "grimp", "cartograph --imports-only / grimp cache off"),
                ratio("cartograph", "grimp-warm", "cartograph / grimp warm cache"),
                ratio("diff", "cartograph", "diff 3.3.1 → 3.3.2 / one cold snapshot of 3.3.2 (bar ≤ 1.2×; RSS < 2×)"),
                ratio("diff-warm", "cartograph", "warm-cache diff after a one-file change, pair seen before / cold snapshot (bar ≤ 0.10×)"),
                ratio("diff-warm-push", "cartograph", "warm-cache diff on a new push (base cached, head one file changed) / cold snapshot (bar ≤ 0.10×)"),
                ratio("diff-warm", "grimp-warm", "warm-cache diff / grimp warm-cache build"),
                ratio("floor-py", "grimp", "parse floor .py / grimp cache off"),
                ratio("floor", "floor-py", "parse floor all / parse floor .py"),
            ]
        else:
            lines += [
                ratio("cartograph", "floor", "cartograph / parse floor"),
                ratio("cartograph", "cartograph-io", "cartograph / cartograph --imports-only (recogniser cost)"),
                ratio("depcruise", "cartograph", "dependency-cruiser / cartograph"),
                ratio("depcruise", "cartograph-io", "dependency-cruiser / cartograph --imports-only"),
                ratio("madge", "cartograph", "madge / cartograph"),
                ratio("depcruise", "floor", "dependency-cruiser / parse floor"),
                ratio("madge", "floor", "madge / parse floor"),
            ]
        lines.append("")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cartograph", help="cartograph binary (omit to skip)")
    ap.add_argument("--floor", help="parse_floor binary (omit to skip)")
    ap.add_argument("--corpus", default="airflow,effect", help="comma list: airflow, effect")
    ap.add_argument("--skipped", action="append", default=[], help="a note for the report")
    args = ap.parse_args()

    if not shutil.which("hyperfine"):
        log("hyperfine missing: run bench/peers.sh")
        return 2
    if not Path("/usr/bin/time").exists():
        log("GNU time missing (/usr/bin/time): run bench/peers.sh")
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    stamp = dt.date.today().isoformat()

    corpora = []
    for key in [k.strip() for k in args.corpus.split(",") if k.strip()]:
        if key == "airflow":
            title, cwd = "Airflow core 3.3.2 (corpus root: `src/airflow` + `hatch_build.py`; `ui/dist` excluded)", AIRFLOW
        elif key == "effect":
            title, cwd = "effect 4.1.0 (`package/src`)", EFFECT
        else:
            log(f"unknown corpus {key}")
            return 2
        if not cwd.is_dir():
            log(f"skip {key}: {cwd} missing (run bench/corpora.sh)")
            args.skipped.append(f"{key}: corpus missing")
            continue
        corpora.append(Corpus(key, title, cwd, tool_list(args, key)))

    for c in corpora:
        for t in c.tools:
            log(f"{c.key}/{t.key}: once under /usr/bin/time -v")
            run_once(c, t)
        time_corpus(c, args.runs, stamp)

    text = report(corpora, args.runs, args.skipped)
    sys.stdout.write(text)
    dest = WORK / f"results-{stamp}.md"
    dest.write_text(text)
    log(f"wrote {dest.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
