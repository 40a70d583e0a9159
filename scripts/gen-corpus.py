#!/usr/bin/env python3
"""Write a corpus of synthetic agent sessions, each in its own harness's layout, for the recall
benchmark.

    python3 scripts/gen-corpus.py --size-mb 1100 --out DIR [--seed 1] [--manifest corpus.json]
                                  [--mix pi=1] [--copies N] [--median-mb M]

Sessions go where each harness keeps them under HOME=DIR:
  pi      DIR/.pi/agent/sessions/--<encoded cwd>--/<timestamp>_<uuid>.jsonl
  claude  DIR/.claude/projects/<encoded cwd>/<uuid>.jsonl
  codex   DIR/.codex/sessions/YYYY/MM/DD/rollout-<timestamp>-<uuid>.jsonl
  gemini  DIR/.gemini/tmp/<project slug>/chats/session-<YYYY-MM-DDTHH-MM>-<uuid8>.jsonl (with
          DIR/.gemini/projects.json and each project directory's .project_root)
  copilot DIR/.copilot/session-state/<uuid>/events.jsonl
  cursor  DIR/.cursor/projects/<encoded cwd>/agent-transcripts/<uuid>/<uuid>.jsonl
spread over a few projects, with sizes drawn from a long-tailed distribution (most sessions are
small, a few are tens of MB), each written by scripts/gen-session.py's generator (its --harness)
with its own seed. So a tool that reads the default session directories under HOME=DIR sees an
ordinary installation of those agents.

--mix gives each harness's share of the sessions (e.g. pi=0.5,claude=0.3,codex=0.2; default pi=1;
harnesses: pi, claude, codex, gemini, copilot, cursor).
--copies N writes the generated corpus N times, each copy of a session under a fresh session id
(the id is a UUID everywhere it appears, so a copy is the same bytes with another UUID): a corpus
N times as large in a fraction of the time, whose words occur N times as often.
--median-mb M draws sessions around a median of M MB instead of 1.35 (the same long tail): more,
smaller files for the same size (10 GB in ~9,000 files: --median-mb 0.5).

Same arguments, same bytes. Python 3.9+, standard library only.
"""
import argparse
import importlib.util
import json
import math
import os
import random
import re
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECTS = [
    "/home/dev/src/pi-context", "/home/dev/src/webshop", "/home/dev/src/infra",
    "/home/dev/src/data-pipeline", "/home/dev/проекты/notes", "/home/dev/src/mobile-app",
]
HARNESSES = ("pi", "claude", "codex", "gemini", "copilot", "cursor")


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_session", os.path.join(HERE, "gen-session.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pi_dir(cwd):
    return "--" + cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def claude_dir(cwd):
    # Claude Code turns every character but ASCII letters and digits into '-'.
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def gemini_slug(cwd):
    # Gemini CLI names a project's directory under tmp/ after the project (projects.json).
    return re.sub(r"[^a-z0-9]+", "-", os.path.basename(cwd).lower()).strip("-") or "project"


def cursor_dir(cwd):
    # Cursor's agent CLI drops the leading '/' and turns the others (and '.', ' ') into '-'.
    return re.sub(r"[/. ]", "-", cwd.lstrip("/"))


def gemini_projects(root, sessions):
    """Gemini CLI's record of its projects: projects.json and each directory's .project_root."""
    projects = {s["cwd"]: gemini_slug(s["cwd"]) for s in sessions if s["harness"] == "gemini"}
    if not projects:
        return
    base = os.path.join(root, ".gemini")
    with open(os.path.join(base, "projects.json"), "w", encoding="utf-8") as f:
        json.dump({"projects": projects}, f, ensure_ascii=False, indent=2)
    for cwd, slug in projects.items():
        with open(os.path.join(base, "tmp", slug, ".project_root"), "w", encoding="utf-8") as f:
            f.write(cwd)


def parse_mix(text):
    mix = {}
    for part in text.split(","):
        name, _, share = part.partition("=")
        if name not in HARNESSES:
            raise SystemExit("gen-corpus: unknown harness %r in --mix (%s)" % (name, ", ".join(HARNESSES)))
        mix[name] = float(share or 1)
    if sum(mix.values()) <= 0:
        raise SystemExit("gen-corpus: --mix gives no harness a share")
    return mix


def identity(harness, path, manifest):
    """The session id and start time the file itself gives (a Cursor transcript gives neither:
    the generator's id, and its clock's start)."""
    if harness == "cursor":
        return manifest["session_id"], "2026-03-01T09:00:00.000Z"
    with open(path, "rb") as f:
        for raw in f:
            try:
                record = json.loads(raw)
            except ValueError:
                continue
            if harness == "pi" and record.get("type") == "session":
                return record["id"], record["timestamp"]
            if harness == "claude" and record.get("sessionId"):
                return record["sessionId"], record.get("timestamp", "2026-01-01T00:00:00.000Z")
            if harness == "codex" and record.get("type") == "session_meta":
                payload = record.get("payload", {})
                return payload.get("id") or payload.get("session_id"), record.get("timestamp")
            if harness == "gemini" and record.get("projectHash"):
                return record["sessionId"], record["startTime"]
            if harness == "copilot" and record.get("type") == "session.start":
                return record["data"]["sessionId"], record["data"]["startTime"]
    raise SystemExit("gen-corpus: %s holds no %s session id" % (path, harness))


def place(root, harness, cwd, session_id, started):
    stamp = started[:19].replace(":", "-")
    if harness == "pi":
        stamp = started.replace(":", "-").replace(".", "-")
        return os.path.join(root, ".pi", "agent", "sessions", pi_dir(cwd), "%s_%s.jsonl" % (stamp, session_id))
    if harness == "claude":
        return os.path.join(root, ".claude", "projects", claude_dir(cwd), "%s.jsonl" % session_id)
    if harness == "gemini":
        name = "session-%s-%s.jsonl" % (started[:16].replace(":", "-"), session_id[:8])
        return os.path.join(root, ".gemini", "tmp", gemini_slug(cwd), "chats", name)
    if harness == "copilot":
        return os.path.join(root, ".copilot", "session-state", session_id, "events.jsonl")
    if harness == "cursor":
        return os.path.join(root, ".cursor", "projects", cursor_dir(cwd), "agent-transcripts", session_id,
                            "%s.jsonl" % session_id)
    day = started[:10].split("-")
    return os.path.join(root, ".codex", "sessions", *day, "rollout-%s-%s.jsonl" % (stamp, session_id))


def generate(gen, args, r, mix):
    """Writes the first copy; returns its sessions."""
    names, weights = zip(*sorted(mix.items()))
    scratch = os.path.join(args.out, ".writing")
    os.makedirs(scratch, exist_ok=True)
    total, sessions, n = 0, [], 0
    while total < args.size_mb * 1048576 / args.copies:
        n += 1
        mu = 0.3 if args.median_mb is None else math.log(args.median_mb)
        size_mb = min(60.0, max(0.05, r.lognormvariate(mu, 1.3)))
        cwd = r.choice(PROJECTS)
        harness = r.choices(names, weights)[0]
        tmp = os.path.join(scratch, "%d.jsonl" % n)
        argv = ["--size-mb", "%.3f" % size_mb, "--out", tmp, "--seed", str(args.seed * 100000 + n), "--cwd", cwd]
        if harness != "pi":
            argv += ["--harness", harness]
        with open(tmp, "wb", buffering=1 << 20) as out:
            manifest = gen.GENERATORS[harness](gen.parse_args(argv), out).run()
        session_id, started = identity(harness, tmp, manifest)
        path = place(args.out, harness, cwd, session_id, started)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.rename(tmp, path)
        total += manifest["bytes"]
        sessions.append({"path": path, "bytes": manifest["bytes"], "cwd": cwd, "harness": harness,
                         "session_id": session_id, "started": started,
                         "rare": manifest["needles"]["rare"]["lines"],
                         "common": manifest["needles"]["common"]["lines"]})
    os.rmdir(scratch)
    return sessions


def copy(root, session, r):
    """Writes the session again under a fresh id; returns the copy's record."""
    new_id = str(uuid.UUID(int=r.getrandbits(128), version=4))
    with open(session["path"], "rb") as f:
        data = f.read().replace(session["session_id"].encode(), new_id.encode())
    path = place(root, session["harness"], session["cwd"], new_id, session["started"])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return dict(session, path=path, session_id=new_id)



def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size-mb", type=float, default=1100)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--manifest")
    p.add_argument("--mix", default="pi=1")
    p.add_argument("--copies", type=int, default=1)
    p.add_argument("--median-mb", type=float, help="median session size (default e^0.3 = 1.35 MB)")
    args = p.parse_args(argv)
    if args.copies < 1:
        raise SystemExit("gen-corpus: --copies must be at least 1")
    gen = load_generator()
    r = random.Random(args.seed)
    started = time.monotonic()
    first = generate(gen, args, r, parse_mix(args.mix))
    sessions = list(first)
    for _ in range(args.copies - 1):
        sessions += [copy(args.out, s, r) for s in first]
    gemini_projects(args.out, sessions)
    total = sum(s["bytes"] for s in sessions)
    by_harness = {h: sum(s["bytes"] for s in sessions if s["harness"] == h) for h in HARNESSES}
    summary = {"sessions": len(sessions), "bytes": total, "by_harness": by_harness, "copies": args.copies,
               "root": os.path.join(args.out, ".pi", "agent", "sessions"), "files": sessions,
               "rare": {"word": gen.RARE_NEEDLE, "lines": sum(s["rare"] for s in sessions)},
               "common": {"word": gen.COMMON_NEEDLE, "lines": sum(s["common"] for s in sessions)}}
    if args.manifest:
        with open(args.manifest, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1, ensure_ascii=False)
    print("wrote %d sessions, %.1f MB (%s), in %.0fs" % (
        len(sessions), total / 1048576,
        ", ".join("%s %.0f MB" % (h, b / 1048576) for h, b in by_harness.items() if b),
        time.monotonic() - started), file=sys.stderr)


if __name__ == "__main__":
    main()
