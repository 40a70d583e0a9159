#!/usr/bin/env python3
"""Score `sessions search` on the natural-question set of scripts/gen-questions.py, side by side
with deja-vu.

    python3 scripts/question-eval.py --bin BIN --dir DIR [--deja DEJA_BIN] [--cache DIR]
                                     [--json OUT] [--misses OUT]

Every question is asked as a person types it, one process each, the index warm (built once
before): `BIN sessions search --json --limit 10 QUESTION` with cwd = the question's project
(inside the project) and with `--all` (the whole store); with --deja, `DEJA search --json
--no-embed --limit 10 QUESTION`, inside the project with `--project NAME` (deja-vu has no cwd
scope; its project of a session is the last two components of the session's cwd,
`projects/NAME`, and --project matches it) and without it over the whole store; and, since its
--project answers from its exact tier only, also as `project-filtered`: its whole-store ranking
(--limit 100) with other projects' sessions dropped. Ours is also asked over the whole store
from DIR, no project's directory (`all-elsewhere`): `--all` ranks the current project's sessions
higher, and from there the words alone decide, as they do for deja-vu's whole store. Both tools
see HOME=DIR and nothing else of this machine (ours also PI_CODING_AGENT_DIR=DIR/.pi/agent,
PI_CONTEXT_CACHE_DIR and PI_CONTEXT_NOW=the set's "now"). A hit is mapped to a session id (ours:
`session_id`; deja-vu's: `session.id`, else its `session.path` through DIR/sessions.json).

Prints, per tool x scope x split: hit@1, hit@5, MRR (over the answerable questions, rank within
the first 10 sessions, 0 beyond), the zero-result rate over answerable questions, the share of
unanswerable questions that got any result, and p50 latency (whole process); then hit@1 per class
and per who said the answer. --json writes the summary and every answer; --misses writes one JSON
line per question with each tool's and scope's rank (null: not in the first 10) and top session.
Python 3.9+, standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

LIMIT = 10
SCOPES = ("project", "all")
# deja-vu's --project answers from its exact tier only (no relevance fallback): a question whose
# every word no session of the project holds gets nothing. So deja-vu is also scored in-project
# as its whole-store ranking (--limit 100) with other projects' sessions dropped.
DEJA_FILTERED = "project-filtered"
# Ours over the whole store ranks the current project's sessions higher; asked from DIR (no
# project's directory) the whole store is ranked on the words alone, as deja-vu ranks it.
OURS_ELSEWHERE = "all-elsewhere"


def clean_env(extra):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TZ": "UTC", "LANG": "C.UTF-8"}
    env.update(extra)
    return env


class Ours:
    name = "ours"

    def __init__(self, args, data):
        self.bin = args.bin
        self.env = clean_env({"HOME": args.dir, "PI_CODING_AGENT_DIR": os.path.join(args.dir, ".pi", "agent"),
                              "PI_CONTEXT_CACHE_DIR": args.cache, "PI_CONTEXT_NOW": data["now"]})
        self.projects = data["projects"]
        self.home = args.dir

    def cwd(self, q, scope):
        return self.home if scope == OURS_ELSEWHERE else self.projects[q["project"]]

    def warm(self):
        subprocess.run([self.bin, "sessions", "index"], env=self.env, cwd=next(iter(self.projects.values())),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def command(self, q, scope):
        cmd = [self.bin, "sessions", "search", "--json", "--limit", str(LIMIT)]
        if scope in ("all", OURS_ELSEWHERE):
            cmd.append("--all")
        return cmd + ["--", q["question"]]

    def ids(self, stdout, paths):
        if not stdout.strip():
            return []
        return [s["session_id"] for s in json.loads(stdout)["sessions"]]


class Deja:
    name = "deja"

    def __init__(self, args, data):
        self.bin = args.deja
        self.env = clean_env({"HOME": args.dir})
        self.projects = data["projects"]

    def cwd(self, q, scope):
        return self.projects[q["project"]]

    def warm(self):
        subprocess.run([self.bin, "index"], env=self.env, cwd=next(iter(self.projects.values())), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def command(self, q, scope):
        cmd = [self.bin, "search", "--json", "--no-embed", "--limit", str(100 if scope == DEJA_FILTERED else LIMIT)]
        if scope == "project":
            cmd += ["--project", "projects/" + q["project"]]
        return cmd + ["--", q["question"]]

    def ids(self, stdout, paths):
        out = []
        for h in json.loads(stdout).get("hits", []):
            s = h.get("session", {})
            sid = s.get("id") or paths.get(s.get("path"))
            if sid and sid not in out:
                out.append(sid)
        return out


def ask(tool, q, scope, paths, projects):
    cwd = tool.cwd(q, scope)
    started = time.perf_counter()
    p = subprocess.run(tool.command(q, scope), env=tool.env, cwd=cwd, capture_output=True)
    ms = (time.perf_counter() - started) * 1000
    if p.returncode not in (0, 1):
        sys.exit("%s failed (%d) on %s: %s" % (tool.name, p.returncode, q["id"], p.stderr.decode()[:500]))
    ids = tool.ids(p.stdout.decode(), paths)
    if scope == DEJA_FILTERED:
        ids = [s for s in ids if projects.get(s) == q["project"]]
    rank = next((i + 1 for i, s in enumerate(ids) if s in q["answers"]), None)
    return {"ids": ids[:LIMIT], "rank": rank, "ms": ms}


def summarize(rows, tool, scope, split):
    sel = [r for r in rows if r["tool"] == tool and r["scope"] == scope and (split == "all" or r["q"]["split"] == split)]
    ans = [r for r in sel if r["q"]["answers"]]
    none = [r for r in sel if not r["q"]["answers"]]
    n = max(1, len(ans))
    return {
        "tool": tool, "scope": scope, "split": split, "answerable": len(ans), "unanswerable": len(none),
        "hit1": sum(1 for r in ans if r["rank"] == 1) / n,
        "hit5": sum(1 for r in ans if r["rank"] and r["rank"] <= 5) / n,
        "mrr": sum(1 / r["rank"] for r in ans if r["rank"]) / n,
        "zero": sum(1 for r in ans if not r["ids"]) / n,
        "none_answered": sum(1 for r in none if r["ids"]) / max(1, len(none)),
        "p50_ms": statistics.median(r["ms"] for r in sel) if sel else 0.0,
    }


def breakdown(rows, tool, scope, key):
    out = {}
    for r in rows:
        if r["tool"] != tool or r["scope"] != scope or not r["q"]["answers"]:
            continue
        k = r["q"].get(key) or "-"
        c = out.setdefault(k, [0, 0])
        c[0] += r["rank"] == 1
        c[1] += 1
    return {k: {"hit1": v[0] / v[1], "n": v[1]} for k, v in sorted(out.items())}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--dir", required=True, help="what gen-questions.py wrote")
    p.add_argument("--deja", help="deja-vu's binary (scored side by side when given)")
    p.add_argument("--cache", help="our recall cache (default DIR/cache)")
    p.add_argument("--json", help="also write the summary and every answer here")
    p.add_argument("--misses", help="one JSON line per question: each tool's and scope's rank")
    args = p.parse_args(argv)
    args.dir = os.path.abspath(args.dir)
    args.bin = os.path.abspath(args.bin)
    args.cache = os.path.abspath(args.cache or os.path.join(args.dir, "cache"))
    if args.deja:
        args.deja = os.path.abspath(args.deja)
    with open(os.path.join(args.dir, "questions.json"), encoding="utf-8") as f:
        data = json.load(f)
    with open(os.path.join(args.dir, "sessions.json"), encoding="utf-8") as f:
        sessions = json.load(f)["sessions"]
    paths = {s["path"]: s["id"] for s in sessions}
    projects = {s["id"]: s["project"] for s in sessions}
    tools = [Ours(args, data)] + ([Deja(args, data)] if args.deja else [])
    scopes = {t.name: SCOPES + ((DEJA_FILTERED,) if t.name == "deja" else (OURS_ELSEWHERE,)) for t in tools}
    rows = []
    for tool in tools:
        tool.warm()
        for q in data["questions"]:
            for scope in scopes[tool.name]:
                rows.append(dict(ask(tool, q, scope, paths, projects), tool=tool.name, scope=scope, q=q))

    summary = [summarize(rows, t.name, s, split) for t in tools for s in scopes[t.name] for split in ("tune", "heldout", "all")]
    print("%-5s %-16s %-8s %6s %6s %6s %5s %10s %12s %8s" % ("tool", "scope", "split", "n", "hit@1", "hit@5", "MRR",
                                                          "zero-res", "none→result", "p50 ms"))
    for s in summary:
        print("%-5s %-16s %-8s %6d %5.1f%% %5.1f%% %5.2f %9.1f%% %11.1f%% %8.1f" % (
            s["tool"], s["scope"], s["split"], s["answerable"], 100 * s["hit1"], 100 * s["hit5"], s["mrr"],
            100 * s["zero"], 100 * s["none_answered"], s["p50_ms"]))
    by = {}
    for key in ("class", "said_by"):
        by[key] = {"%s/%s" % (t.name, s): breakdown(rows, t.name, s, key) for t in tools for s in scopes[t.name]}
        cols = list(by[key])
        names = sorted({k for v in by[key].values() for k in v})
        print("\n  %-14s %s" % ("hit@1 by " + key, "  ".join("%-21s" % c for c in cols)))
        for name in names:
            cells = [by[key][c].get(name) for c in cols]
            print("  %-14s %s  (n=%d)" % (name, "  ".join("%-21s" % ("%5.1f%%" % (100 * c["hit1"]) if c else "-") for c in cells),
                                          max(c["n"] for c in cells if c)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "by": by, "rows": [dict(r, q=r["q"]["id"]) for r in rows]}, f, indent=1)
    if args.misses:
        per_q = {}
        for r in rows:
            e = per_q.setdefault(r["q"]["id"], {"id": r["q"]["id"], "split": r["q"]["split"], "class": r["q"]["class"],
                                                 "said_by": r["q"]["said_by"], "project": r["q"]["project"],
                                                 "question": r["q"]["question"], "answers": r["q"]["answers"]})
            e["%s_%s_rank" % (r["tool"], r["scope"])] = r["rank"]
            e["%s_%s_top" % (r["tool"], r["scope"])] = r["ids"][0] if r["ids"] else None
        with open(args.misses, "w", encoding="utf-8") as f:
            for e in per_q.values():
                f.write(json.dumps(e, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
