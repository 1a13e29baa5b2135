#!/usr/bin/env python3
"""Times the MCP server on a real corpus: first and repeat `map`, first and repeat `diff`, answer sizes.

Usage (from the repository root, after `cargo build --release -p cartograph-mcp -p cartograph-cli`):
    python3 bench/mcp_bench.py [BASE_TREE HEAD_TREE]
Defaults to Airflow core 3.3.1 -> 3.3.2 under bench/work/corpora (see corpora.sh). Prints, per call,
the wall time, the answer's JSON text size and the whole JSON-RPC line size (text + structured
content), then `cartograph snapshot` on the head tree for comparison with the first query.
"""
import json
import subprocess
import sys
import time

CORPORA = "bench/work/corpora"
BASE, HEAD = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else (
    f"{CORPORA}/apache-airflow-core-3.3.1", f"{CORPORA}/apache-airflow-core-3.3.2")
MCP = "target/release/cartograph-mcp"
CLI = "target/release/cartograph"


def main():
    import os
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    mcp, cli = MCP.replace("target", target, 1), CLI.replace("target", target, 1)
    server = subprocess.Popen([mcp, "--grant", "bench", "--tree", BASE, "--tree", HEAD],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ids = iter(range(1, 1_000_000))

    def send(message):
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    def request(method, params):
        ident = next(ids)
        send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        while True:
            line = server.stdout.readline()
            message = json.loads(line)
            if message.get("id") == ident:
                return message, len(line)

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "0"}})
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def tool(label, name, args):
        started = time.perf_counter()
        message, size = request("tools/call", {"name": name, "arguments": args})
        elapsed = (time.perf_counter() - started) * 1000
        result = message["result"]
        text = result["content"][0]["text"]
        print(f"{label:14} {elapsed:8.0f} ms  error={result.get('isError')}  "
              f"text {len(text):7} B  line {size:7} B")
        return result

    tool("map first", "map", {"tree": HEAD})
    tool("map repeat", "map", {"tree": HEAD})
    tool("map repeat", "map", {"tree": HEAD})
    result = tool("diff first", "diff", {"base": BASE, "head": HEAD})
    tool("diff repeat", "diff", {"base": BASE, "head": HEAD})
    tool("diff repeat", "diff", {"base": BASE, "head": HEAD})
    answer = result["structuredContent"]
    findings = answer["document"]["findings"]
    print("diff summary:", answer["summary"])
    print("diff high findings listed:", sum(f["severity"] == "high" for f in findings),
          "of", answer["document"]["summary"]["findings_by_severity"].get("high", 0))
    print("diff truncated:", answer["truncated"])
    server.stdin.close()
    server.wait()

    started = time.perf_counter()
    subprocess.run([cli, "snapshot", HEAD], stdout=subprocess.DEVNULL, check=True)
    print(f"{'snapshot':14} {(time.perf_counter() - started) * 1000:8.0f} ms")


if __name__ == "__main__":
    main()
