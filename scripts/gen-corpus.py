#!/usr/bin/env python3
"""Write a corpus of synthetic Pi sessions in Pi's own layout, for the recall benchmark.

    python3 scripts/gen-corpus.py --size-mb 1100 --out DIR [--seed 1] [--manifest corpus.json]

Sessions go to DIR/.pi/agent/sessions/--<encoded cwd>--/<timestamp>_<uuid>.jsonl, spread over a
few projects, with sizes drawn from a long-tailed distribution (most sessions are small, a few
are tens of MB), each written by scripts/gen-session.py's generator with its own seed. So a tool
that reads Pi's default session directory under HOME=DIR sees an ordinary Pi installation.
Same --seed and --size-mb, same bytes. Python 3.9+, standard library only.
"""
import argparse
import importlib.util
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECTS = [
    "/home/dev/src/pi-context", "/home/dev/src/webshop", "/home/dev/src/infra",
    "/home/dev/src/data-pipeline", "/home/dev/проекты/notes", "/home/dev/src/mobile-app",
]


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_session", os.path.join(HERE, "gen-session.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def encode(cwd):
    return "--" + cwd.lstrip("/").replace("/", "-").replace("\\", "-").replace(":", "-") + "--"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size-mb", type=float, default=1100)
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--manifest")
    args = p.parse_args(argv)
    gen = load_generator()
    r = random.Random(args.seed)
    root = os.path.join(args.out, ".pi", "agent", "sessions")
    total, sessions, rare, common = 0, [], 0, 0
    started = time.monotonic()
    n = 0
    while total < args.size_mb * 1048576:
        n += 1
        size_mb = min(60.0, max(0.05, r.lognormvariate(0.3, 1.3)))
        cwd = r.choice(PROJECTS)
        directory = os.path.join(root, encode(cwd))
        os.makedirs(directory, exist_ok=True)
        tmp = os.path.join(directory, ".writing.jsonl")
        gargs = gen.parse_args(["--size-mb", "%.3f" % size_mb, "--out", tmp, "--seed", str(args.seed * 100000 + n),
                                "--cwd", cwd])
        with open(tmp, "wb", buffering=1 << 20) as out:
            manifest = gen.Generator(gargs, out).run()
        with open(tmp, "rb") as f:
            header = json.loads(f.readline())
        stamp = header["timestamp"].replace(":", "-").replace(".", "-")
        path = os.path.join(directory, "%s_%s.jsonl" % (stamp, header["id"]))
        os.rename(tmp, path)
        total += manifest["bytes"]
        rare += manifest["needles"]["rare"]["lines"]
        common += manifest["needles"]["common"]["lines"]
        sessions.append({"path": path, "bytes": manifest["bytes"], "cwd": cwd})
    summary = {"sessions": len(sessions), "bytes": total, "root": root, "files": sessions,
               "rare": {"word": gen.RARE_NEEDLE, "lines": rare},
               "common": {"word": gen.COMMON_NEEDLE, "lines": common}}
    if args.manifest:
        with open(args.manifest, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1, ensure_ascii=False)
    print("wrote %d sessions, %.1f MB, in %.0fs" % (len(sessions), total / 1048576, time.monotonic() - started),
          file=sys.stderr)


if __name__ == "__main__":
    main()
