#!/usr/bin/env python3
"""Latency of notes tool calls through `pi-context mcp`, the server warm (used by scripts/bench).

    scripts/mcp-latency.py --bin target/release/pi-context --notes-home DIR [--runs 200]

A minimal JSON-RPC client on the standard library only (no SDK in the measured path): it starts
one server, says hello (initialize, 2025-11-25), warms up, then times each request from the
write of its line to the read of its answer, one request at a time. Writes and edits change
a note of their own each (a change of a note whose earlier change is not committed yet waits
for that commit, docs/mcp.md, "Commits after the answer"; a model changes a note again only
after it has read the answer). Prints one JSON object:
{"<tool>": {"p50_ms", "p90_ms", "p99_ms", "runs"}, ..., "commits drained after a burst":
{"writes", "drain_ms"}}. Every answer must be a success.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

SESSION = "bench-mcp"
NOTE = "bench/mcp-latency.md"


def note(kind, i):
    return f"bench-changes/{kind}-{i}.md"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--notes-home", required=True)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args()

    server = subprocess.Popen(
        [args.bin, "mcp", "--notes-home", args.notes_home, "--session-id", SESSION,
         "--agent", "bench", "--model", "bench"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )
    ids = iter(range(1, 1 << 30))

    def request(method, params):
        line = json.dumps({"jsonrpc": "2.0", "id": next(ids), "method": method, "params": params})
        started = time.perf_counter()
        server.stdin.write(line.encode() + b"\n")
        server.stdin.flush()
        answer = server.stdout.readline()
        elapsed = time.perf_counter() - started
        message = json.loads(answer)
        if "error" in message or message["result"].get("isError"):
            sys.exit(f"mcp-latency: {method} {json.dumps(params)[:200]} failed: {answer[:500]!r}")
        return elapsed

    request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "bench", "version": "0"}})
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.flush()

    def call(name, arguments):
        return request("tools/call", {"name": name, "arguments": arguments})

    call("notes_write", {"address": NOTE, "content": "# Latency\n\nalpha beta gamma\n"})
    calls = {
        "notes_read": lambda i: call("notes_read", {"address": NOTE}),
        "notes_write": lambda i: call("notes_write", {"address": note("write", i), "content": f"# Latency\n\nalpha beta gamma {i}\n"}),
        "notes_edit": lambda i: call("notes_edit", {"address": note("edit", i), "edits": [
            {"oldText": "alpha", "newText": "delta"}]}),
        "notes_list (session home)": lambda i: call("notes_list", {"pattern": "bench/**"}),
    }
    calls_per_tool = args.warmup + args.runs
    results = {}
    for name, run in calls.items():
        if name == "notes_edit":
            for i in range(calls_per_tool):
                call("notes_write", {"address": note("edit", i), "content": "# Latency\n\nalpha beta gamma\n"})
        # Each tool is timed on a settled server: notes_log first waits for the commits the
        # previous tool's writes left queued (docs/mcp.md, "Commits after the answer").
        call("notes_log", {"limit": 1})
        for i in range(args.warmup):
            run(i)
        times = sorted(run(i) * 1000 for i in range(args.warmup, calls_per_tool))
        quantile = lambda q: times[min(len(times) - 1, int(q * len(times)))]
        results[name] = {"p50_ms": round(statistics.median(times), 3), "p90_ms": round(quantile(0.9), 3),
                         "p99_ms": round(quantile(0.99), 3), "runs": len(times)}
    # The server answers a write before its commit (docs/mcp.md): how long the commits trail
    # behind a burst of back-to-back writes, from the last write's answer until the server,
    # told to stop, has made every queued commit and exited.
    burst = args.runs
    for i in range(burst):
        call("notes_write", {"address": note("burst", i), "content": f"# Latency\n\nburst {i}\n"})
    stopped = time.perf_counter()
    server.stdin.close()
    code = server.wait(timeout=60)
    results["commits drained after a burst"] = {
        "writes": burst, "drain_ms": round((time.perf_counter() - stopped) * 1000, 1)}
    if code != 0:
        sys.exit(f"mcp-latency: the server exited with {code}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
