#!/usr/bin/env python3
"""Soaks the MCP server: thousands of mixed tool calls in one session; errors, latency, memory.

Usage (Python 3.11, standard library only):
    python3 bench/mcp_soak.py BINARY REPO [--queries 10000] [--seed 7] [--revisions 12]
                              [--sample-every 500] [--json FILE]

BINARY is `cartograph` (started as `cartograph mcp ...`) or `cartograph-mcp`. REPO is a git
repository: a bare mirror (`/work/.mirror/OWNER+NAME/repo`) or a checkout. The script clones it
into a temporary directory (`git clone --shared`: the objects are not copied), checks out the newest
tag, writes a small `cartograph.toml` there so that `check` has rules to check (never into REPO
itself), and grants that one tree. The session then sees the checkout (`tree`) and `--revisions`
tagged revisions (`rev:TAG`) — more than the server's analysis cache holds
(`cartograph-mcp/src/session.rs`, `MAX_ANALYSES`), so least-recently-used eviction and
re-analysis are part of the soak.

Before the timed queries (the warm-up), one `map` with the largest limit per tree supplies the
names the queries draw from: modules (route handlers, table definers, component directories),
routes, tables, environment variables, packages; `trace` answers add edges for `evidence`. The
queries mix every tool `tools/list` names, with a fixed seed, plus deliberate bad requests (an
unknown module, an ungranted tree, an unknown revision, a zero or too large bound, a missing,
mistyped or unknown argument, an unknown tool or method, `check` on a revision that has no rules
file) whose expected error answers count as correct.

Reported: calls by tool; protocol errors (a JSON-RPC error, a malformed or unmatched reply, or the
server exiting on a request that should have been answered) and unexpected tool errors — both must
be 0; p50/p90/p99/max latency per tool and overall (client wall time, request written to reply
read); the server's VmRSS every `--sample-every` queries; and the verdict "memory flat after
warm-up": max RSS over the second half <= max RSS over the first half x 1.10. Exits 1 when an
error was counted or the memory was not flat.
"""
import argparse
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROTOCOL_VERSION = "2025-06-18"
REPLY_TIMEOUT_S = 600
FLAT_FACTOR = 1.10
MAX_MAP_LIMIT = 500
# The checkout as granted and named in queries (relative to the server's working directory).
DIR = "tree"

# A rules file every repository can be checked against: it speaks only of patterns that match any
# tree, so `check` does real work (cycles, fan-in/out over every component) whatever the corpus.
RULES = """\
[[rule]]
id = "no-module-cycles"
kind = "no-cycles"
severity = "warning"
reason = "Soak: modules form no import cycle."
scope = "**"

[[rule]]
id = "component-fan-in"
kind = "max-fan-in"
severity = "info"
reason = "Soak: no component is depended on by more than 8 others."
components = "**"
max = 8

[[rule]]
id = "component-fan-out"
kind = "max-fan-out"
severity = "warning"
reason = "Soak: no component depends on more than 6 others."
components = "**"
max = 6
"""


class ProtocolError(Exception):
    """The server broke the protocol: the soak cannot go on."""


class Server:
    """One MCP session over the server's stdio: requests are sent one at a time."""

    def __init__(self, argv, cwd):
        self.process = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, encoding="utf-8", bufsize=1)
        self.lines = queue.Queue()
        self.stderr = []
        self.next_id = 0
        threading.Thread(target=self._pump, args=(self.process.stdout, self.lines),
                         daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()

    @staticmethod
    def _pump(stream, lines):
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _drain_stderr(self):
        for line in self.process.stderr:
            self.stderr.append(line.rstrip("\n"))

    def send(self, message):
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ProtocolError(f"the server closed its input ({error})") from error

    def request(self, method, params):
        """The reply to one request, and the wall time it took in milliseconds."""
        self.next_id += 1
        ident = self.next_id
        started = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            try:
                line = self.lines.get(timeout=REPLY_TIMEOUT_S)
            except queue.Empty:
                raise ProtocolError(f"no reply to request {ident} in {REPLY_TIMEOUT_S} s") from None
            if line is None:
                raise ProtocolError(f"the server exited (code {self.process.poll()}) before "
                                    f"answering request {ident}")
            try:
                message = json.loads(line)
            except json.JSONDecodeError as error:
                raise ProtocolError(f"a reply is not JSON ({error}): {line[:200]!r}") from None
            if message.get("jsonrpc") != "2.0":
                raise ProtocolError(f"a reply is not JSON-RPC 2.0: {line[:200]!r}")
            if "id" not in message:
                continue  # a notification (log, progress): not a reply
            if message["id"] != ident:
                raise ProtocolError(f"reply id {message['id']!r} while waiting for {ident}")
            if ("result" in message) == ("error" in message):
                raise ProtocolError(f"reply {ident} has neither or both of result and error")
            return message, (time.perf_counter() - started) * 1000

    def rss_kib(self):
        return status_kib(self.process.pid, "VmRSS")

    def close(self):
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            return self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def status_kib(pid, field):
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise ProtocolError(f"/proc/{pid}/status has no {field}")


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout


def prepare_corpus(repo, revisions, workdir):
    """A checkout of `repo`'s newest tag with the soak's rules file, and the tags to query."""
    tags = git(repo, "tag", "--sort=-creatordate").split()
    if len(tags) < revisions + 1:
        sys.exit(f"error: the repository has {len(tags)} tags; the soak needs {revisions + 1}")
    checkout = Path(workdir) / DIR
    subprocess.run(["git", "clone", "--quiet", "--shared", "--no-checkout", str(repo),
                    str(checkout)], check=True)
    git(checkout, "-c", "advice.detachedHead=false", "checkout", "--quiet", tags[0])
    if (checkout / "cartograph.toml").exists():
        sys.exit("error: the corpus has its own cartograph.toml; pick another")
    (checkout / "cartograph.toml").write_text(RULES, encoding="utf-8")
    # The checkout itself is `tree`; the other tags are revisions, oldest last.
    return checkout, [f"rev:{tag}" for tag in tags[1:revisions + 1]], tags[0]


class Names:
    """What one tree's first `map` answer names, plus edges learnt from `trace` answers."""

    def __init__(self, document):
        self.routes = [r["id"] for r in document["routes"]["items"]]
        self.route_texts = [f"{r['method']} {r['path']}" for r in document["routes"]["items"]]
        self.tables = [t["id"] for t in document["tables"]["items"]]
        self.env = [e["id"] for e in document["env_vars"]["items"]]
        self.packages = [p["id"] for p in document["packages"]["items"]]
        # A trailing `/` names the directory: `tests` alone is also the Python package `tests`,
        # an ambiguity the server reports rather than guesses.
        self.components = [c["name"] + "/" for c in document["components"]["items"]
                           if c["name"] != "."]
        modules = {r["handler"]["module"] for r in document["routes"]["items"] if r.get("handler")}
        for table in document["tables"]["items"]:
            modules.update(d.removeprefix("module:") for d in table.get("definers", []))
        self.modules = sorted(modules)
        self.edges = set()

    def target(self, rng):
        """A trace start or blast target, in one of the forms a client writes."""
        weighted = [(pool, weight) for pool, weight in (
            (self.modules, 5), (self.components, 2), (self.routes, 3), (self.route_texts, 1),
            (self.tables, 2), (self.env, 1), (self.packages, 1)) if pool]
        pool = rng.choices([p for p, _ in weighted], [w for _, w in weighted])[0]
        name = rng.choice(pool)
        if pool is self.modules and rng.random() < 0.3:
            return "module:" + name
        return name

    def learn(self, document):
        for path in document.get("paths", []):
            for hop in path.get("hops", []):
                self.edges.add((hop["kind"], hop["from"], hop["to"]))


class Soak:
    def __init__(self, server, trees, tools, rng):
        self.server = server
        self.trees = trees  # label -> Names
        self.tools = tools
        self.rng = rng
        self.latency = {}  # tool -> [ms]
        self.counts = {}  # tool -> {"ok", "expected_error"}
        self.protocol_errors = []
        self.unexpected = []
        self.edges_sorted = {}

    def call(self, tool, arguments, expect=None):
        """One tools/call; `expect` is None (an answer), "tool" (a tool error, `isError`), "args"
        (arguments that do not deserialise) or "rpc" (a JSON-RPC error: -32602 invalid params or
        -32601 method not found)."""
        method, params = "tools/call", {"name": tool, "arguments": arguments}
        if tool == "<method>":
            method, params = arguments, {}
        message, ms = self.server.request(method, params)
        label = tool if tool in self.tools else "bad-name"
        self.latency.setdefault(label, []).append(ms)
        counts = self.counts.setdefault(label, {"ok": 0, "expected_error": 0})
        request = {"method": method, "params": params}
        if "error" in message:
            code = message["error"].get("code")
            if (expect == "rpc" and code in (-32602, -32601)) or (
                    expect == "args" and code == -32602):
                counts["expected_error"] += 1
            else:
                self.protocol_errors.append({"request": request, "error": message["error"]})
            return None
        result = message["result"]
        is_error = bool(result.get("isError"))
        text = (result.get("content") or [{}])[0].get("text", "")
        if expect is None and not is_error:
            structured = result.get("structuredContent")
            if not isinstance(structured, dict) or structured.get("tool") != tool:
                self.protocol_errors.append({"request": request,
                                             "error": "no structured answer for this tool"})
                return None
            counts["ok"] += 1
            return structured
        # Arguments that do not deserialise may be refused either way: a JSON-RPC invalid-params
        # error, or (as rmcp does for tool arguments) a tool error that says so.
        if is_error and (expect == "tool" or (expect == "args" and "deserialize" in text)):
            counts["expected_error"] += 1
            return None
        self.unexpected.append({"request": request, "expected": expect or "an answer",
                                "got": "tool error" if is_error else "an answer",
                                "text": text[:300]})
        return None

    def pick_tree(self):
        # Mostly the checkout and three recent revisions, as an agent works; now and then an
        # older one, which evicts the least recently used analysis (13 trees, 8 held), so cached
        # answers and re-analyses of evicted trees both happen all along.
        labels = list(self.trees)
        weights = [12 if i < 4 else 1 for i in range(len(labels))]
        return self.rng.choices(labels, weights)[0]

    def good(self, tool):
        rng = self.rng
        label = self.pick_tree()
        names = self.trees[label]
        if tool == "map":
            args = {"tree": label}
            if rng.random() < 0.5:
                args["limit"] = rng.choice([1, 5, 20, 50, 200])
            return self.call("map", args)
        if tool == "trace":
            args = {"tree": label, "from": names.target(rng)}
            if rng.random() < 0.3 and names.tables:
                args["to"] = rng.choice(names.tables)
            if rng.random() < 0.4:
                args["depth"] = rng.randint(1, 12)
            if rng.random() < 0.3:
                args["max_paths"] = rng.choice([1, 5, 10, 50])
            answer = self.call("trace", args)
            if answer:
                names.learn(answer["document"])
            return answer
        if tool == "blast":
            args = {"tree": label, "targets": [names.target(rng) for _ in range(rng.randint(1, 3))]}
            if rng.random() < 0.4:
                args["depth"] = rng.randint(1, 10)
            if rng.random() < 0.3:
                args["limit"] = rng.choice([1, 10, 50, 200])
            return self.call("blast", args)
        if tool == "diff":
            base, head = self.pick_tree(), self.pick_tree()
            while head == base:
                head = self.pick_tree()
            args = {"base": base, "head": head}
            if rng.random() < 0.4:
                args["limit"] = rng.choice([1, 5, 10, 100])
            return self.call("diff", args)
        if tool == "check":
            args = {"tree": DIR}
            if rng.random() < 0.5:
                args["limit"] = rng.choice([1, 10, 100])
            return self.call("check", args)
        if tool == "evidence":
            if not names.edges:
                return self.good("trace")
            edges = self.edges_sorted.get(label)
            if edges is None or len(edges) != len(names.edges):
                edges = self.edges_sorted[label] = sorted(names.edges)
            kind, source, target = rng.choice(edges)
            return self.call("evidence",
                             {"tree": label, "kind": kind, "from": source, "to": target})
        return self.call(tool, {"tree": label})  # a tool this script does not know yet

    def bad(self):
        rng = self.rng
        label = self.pick_tree()
        cases = [
            ("trace", {"tree": label, "from": "no/such/module_soak.py"}, "tool"),
            ("blast", {"tree": label, "targets": ["no/such/module_soak.py"]}, "tool"),
            ("blast", {"tree": label, "targets": []}, "tool"),
            ("map", {"tree": "../not-granted"}, "tool"),
            ("map", {"tree": "rev:no-such-revision-soak"}, "tool"),
            ("diff", {"base": "/etc", "head": label}, "tool"),
            ("trace", {"tree": label, "from": "table:no_such_table_soak", "depth": 0}, "tool"),
            ("map", {"tree": label, "limit": MAX_MAP_LIMIT + 1}, "tool"),
            ("evidence", {"tree": label, "kind": "imports", "from": "module:no/such.py",
                          "to": "module:nor/this.py"}, "tool"),
            ("check", {"tree": rng.choice([t for t in self.trees if t != DIR])}, "tool"),
            ("map", {}, "args"),  # missing argument
            ("map", {"tree": 42}, "args"),  # wrong type
            ("trace", {"tree": label, "from": "x", "colour": "blue"}, "args"),  # unknown field
            ("blast", {"tree": label, "targets": "not-a-list"}, "args"),
            ("no_such_tool", {"tree": label}, "rpc"),
            ("<method>", "tools/no_such_method", "rpc"),
        ]
        tool, args, expect = rng.choice(cases)
        return self.call(tool, args, expect)


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[rank]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("repo")
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--revisions", type=int, default=12)
    parser.add_argument("--sample-every", type=int, default=500)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--json", metavar="FILE")
    options = parser.parse_args()

    binary = str(Path(options.binary).resolve())
    workdir = tempfile.mkdtemp(prefix="mcp-soak-")
    try:
        checkout, revisions, newest = prepare_corpus(Path(options.repo).resolve(),
                                                     options.revisions, workdir)
        argv = [binary] if Path(binary).name.startswith("cartograph-mcp") else [binary, "mcp"]
        argv += ["--grant", "soak", "--tree", DIR]
        if options.threads:
            argv += ["--threads", str(options.threads)]
        server = Server(argv, cwd=workdir)
        report = run(server, options, revisions, newest)
        report["binary"] = binary
        report["repo"] = options.repo
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print_report(report)
    if options.json:
        Path(options.json).parent.mkdir(parents=True, exist_ok=True)
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    failed = report["protocol_errors"] or report["unexpected_tool_errors"] or not report["flat"]
    sys.exit(1 if failed else 0)


def run(server, options, revisions, newest):
    rng = random.Random(options.seed)
    try:
        init, _ = server.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION, "capabilities": {},
            "clientInfo": {"name": "mcp-soak", "version": "1"}})
        if "result" not in init:
            raise ProtocolError(f"initialize failed: {init.get('error')}")
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed, _ = server.request("tools/list", {})
        tools = sorted(t["name"] for t in listed["result"]["tools"])

        # Warm-up: every tree analysed once, its names taken from a full map.
        started = time.perf_counter()
        trees = {}
        for label in [DIR, *revisions]:
            message, _ = server.request("tools/call", {
                "name": "map", "arguments": {"tree": label, "limit": MAX_MAP_LIMIT}})
            result = message.get("result") or {}
            if result.get("isError") or "structuredContent" not in result:
                raise ProtocolError(f"the first map of {label} failed: {message}")
            trees[label] = Names(result["structuredContent"]["document"])
        warmup_s = time.perf_counter() - started
        soak = Soak(server, trees, tools, rng)
        # The mix: cheap graph queries most often, the heavier diff and check less, ~8% bad.
        weights = {"map": 14, "trace": 26, "blast": 20, "diff": 8, "check": 8, "evidence": 16}
        mix = [(t, weights.get(t, 8)) for t in tools] + [("<bad>", 8)]
        rss = [(0, server.rss_kib())]
        started = time.perf_counter()
        for n in range(1, options.queries + 1):
            tool = rng.choices([t for t, _ in mix], [w for _, w in mix])[0]
            if tool == "<bad>":
                soak.bad()
            else:
                soak.good(tool)
            if n % options.sample_every == 0:
                rss.append((n, server.rss_kib()))
        soak_s = time.perf_counter() - started
        hwm = status_kib(server.process.pid, "VmHWM")
        exit_code = server.close()
    except ProtocolError as error:
        server.close()
        sys.exit(f"error: {error}\nserver stderr (last lines): {server.stderr[-5:]}")

    half = options.queries / 2
    first = max(kib for n, kib in rss if n <= half)
    second = max(kib for n, kib in rss if n > half)
    per_tool = {}
    everything = []
    for tool, values in sorted(soak.latency.items()):
        everything += values
        per_tool[tool] = latency_row(values) | soak.counts[tool]
    return {
        "corpus": {"newest_tag": newest, "trees": list(trees),
                   "modules_in_checkout": len(trees[DIR].modules),
                   "routes_in_checkout": len(trees[DIR].routes),
                   "tables_in_checkout": len(trees[DIR].tables)},
        "tools": tools,
        "queries": options.queries,
        "seed": options.seed,
        "warmup_s": round(warmup_s, 1),
        "soak_s": round(soak_s, 1),
        "per_tool": per_tool,
        "overall": latency_row(everything),
        "protocol_errors": soak.protocol_errors,
        "unexpected_tool_errors": soak.unexpected,
        "rss_kib": rss,
        "vmhwm_kib": hwm,
        "first_half_max_kib": first,
        "second_half_max_kib": second,
        "flat": second <= first * FLAT_FACTOR,
        "server_exit_code": exit_code,
        "server_stderr_lines": len(server.stderr),
    }


def latency_row(values):
    return {"calls": len(values), "p50_ms": percentile(values, 50),
            "p90_ms": percentile(values, 90), "p99_ms": percentile(values, 99),
            "max_ms": max(values)}


def print_report(r):
    print(f"binary {r['binary']}\ncorpus {r['repo']} @ {r['corpus']['newest_tag']} as `tree`, plus "
          f"{len(r['corpus']['trees']) - 1} revisions: {' '.join(r['corpus']['trees'][1:])}")
    print(f"tools/list: {', '.join(r['tools'])}; seed {r['seed']}; warm-up (one map per tree) "
          f"{r['warmup_s']} s; {r['queries']} queries in {r['soak_s']} s\n")
    print("| tool | calls | answered | expected errors | p50 ms | p90 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for tool, row in r["per_tool"].items():
        print(f"| {tool} | {row['calls']} | {row['ok']} | {row['expected_error']} | "
              f"{row['p50_ms']:.1f} | {row['p90_ms']:.1f} | {row['p99_ms']:.1f} | "
              f"{row['max_ms']:.0f} |")
    o = r["overall"]
    print(f"| **all** | {o['calls']} | | | {o['p50_ms']:.1f} | {o['p90_ms']:.1f} | "
          f"{o['p99_ms']:.1f} | {o['max_ms']:.0f} |\n")
    print(f"protocol errors: {len(r['protocol_errors'])}")
    for e in r["protocol_errors"][:5]:
        print("  ", json.dumps(e)[:400])
    print(f"unexpected tool errors: {len(r['unexpected_tool_errors'])}")
    for e in r["unexpected_tool_errors"][:5]:
        print("  ", json.dumps(e)[:400])
    print("\nVmRSS (MiB) after N queries: " + ", ".join(
        f"{n}: {kib / 1024:.0f}" for n, kib in r["rss_kib"]))
    print(f"VmHWM {r['vmhwm_kib'] / 1024:.0f} MiB; server exit code {r['server_exit_code']}, "
          f"{r['server_stderr_lines']} stderr lines")
    first, second = r["first_half_max_kib"], r["second_half_max_kib"]
    growth = (second / first - 1) * 100
    verdict = "memory flat after warm-up" if r["flat"] else "memory NOT flat after warm-up"
    print(f"{verdict}: max RSS second half {second / 1024:.0f} MiB vs first half "
          f"{first / 1024:.0f} MiB ({growth:+.1f}%, bound +{(FLAT_FACTOR - 1) * 100:.0f}%)")


if __name__ == "__main__":
    main()
