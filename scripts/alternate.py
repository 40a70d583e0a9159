#!/usr/bin/env python3
"""Times two or more commands run alternately, and prints each one's median wall time.

usage: scripts/alternate.py [--prepare "CMD"] RUNS "CMD A" "CMD B" [...]

On a host whose speed drifts in bursts, back-to-back blocks of runs (hyperfine's way) can
disagree by a third; running the commands in turn puts each burst on all of them alike. Each
command is split on whitespace (no shell), run 3 times first to warm caches, then RUNS times in
turn with the others; the output line gives the medians in milliseconds and the first
command's median over the second's. A second line gives the medians of each command's CPU time
(user + system, from `wait4`) and the median of the pairs' CPU ratios (first over second, round
by round), which a loaded host spreads less than the walls.

With --prepare, CMD runs (untimed) before each round instead, and there is no warm-up: every
command then measures the round's change, e.g. the search after an append that CMD makes (each
command with a cache of its own). The order of the commands turns each round, and each
command's times are printed in round order.
"""
import os
import statistics
import subprocess
import sys
import time


CPU = []


def timed(argv):
    """The run's wall time in ms; its CPU time (ms) is appended to CPU."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    wall = (time.perf_counter() - start) * 1000
    CPU.append((usage.ru_utime + usage.ru_stime) * 1000)
    return wall


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
    cpus = [[] for _ in commands]
    for round_ in range(runs):
        if prepare is not None:
            subprocess.run(prepare, stdout=subprocess.DEVNULL, check=True)
        order = list(range(len(commands)))
        if prepare is not None:
            shift = round_ % len(commands)
            order = order[shift:] + order[:shift]
        for i in order:
            times[i].append(timed(commands[i]))
            cpus[i].append(CPU[-1])
    if prepare is not None:
        for i, t in enumerate(times):
            print("command %d: %s" % (i + 1, " ".join("%.0f" % x for x in t)))
    medians = [statistics.median(t) for t in times]
    print(" vs ".join("%.1f ms" % m for m in medians), "= %.2fx" % (medians[0] / medians[1]))
    cpu_medians = [statistics.median(c) for c in cpus]
    pair_ratios = [a / b for a, b in zip(cpus[0], cpus[1]) if b > 0]
    print(
        "cpu",
        " vs ".join("%.1f ms" % m for m in cpu_medians),
        "= %.2fx" % (cpu_medians[0] / cpu_medians[1]),
        "(pairs %.2fx)" % statistics.median(pair_ratios) if pair_ratios else "",
    )


if __name__ == "__main__":
    main()
