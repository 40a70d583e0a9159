#!/usr/bin/env python3
"""Times two or more commands run alternately, and prints each one's median wall time.

usage: scripts/alternate.py [--prepare "CMD"] RUNS "CMD A" "CMD B" [...]

On a host whose speed drifts in bursts, back-to-back blocks of runs (hyperfine's way) can
disagree by a third; running the commands in turn puts each burst on all of them alike. Each
command is split on whitespace (no shell), run 3 times first to warm caches, then RUNS times in
turn with the others; the output line gives the medians in milliseconds and the first
command's median over the second's.

With --prepare, CMD runs (untimed) before each round instead, and there is no warm-up: every
command then measures the round's change, e.g. the search after an append that CMD makes (each
command with a cache of its own). The order of the commands turns each round, and each
command's times are printed in round order.
"""
import statistics
import subprocess
import sys
import time


def timed(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main():
    args = sys.argv[1:]
    prepare = None
    if args[:1] == ["--prepare"] and len(args) > 1:
        prepare = args[1].split()
        args = args[2:]
    if len(args) < 3:
        raise SystemExit(__doc__.strip().splitlines()[2])
    runs = int(args[0])
    commands = [c.split() for c in args[1:]]
    if prepare is None:
        for argv in commands:
            for _ in range(3):
                timed(argv)
    times = [[] for _ in commands]
    for round_ in range(runs):
        if prepare is not None:
            subprocess.run(prepare, stdout=subprocess.DEVNULL, check=True)
        order = list(range(len(commands)))
        if prepare is not None:
            shift = round_ % len(commands)
            order = order[shift:] + order[:shift]
        for i in order:
            times[i].append(timed(commands[i]))
    if prepare is not None:
        for i, t in enumerate(times):
            print("command %d: %s" % (i + 1, " ".join("%.0f" % x for x in t)))
    medians = [statistics.median(t) for t in times]
    print(" vs ".join("%.1f ms" % m for m in medians), "= %.2fx" % (medians[0] / medians[1]))


if __name__ == "__main__":
    main()
