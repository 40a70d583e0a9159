#!/usr/bin/env python3
"""Times two or more commands run alternately, and prints each one's median wall time.

usage: scripts/alternate.py RUNS "CMD A" "CMD B" [...]

On a host whose speed drifts in bursts, back-to-back blocks of runs (hyperfine's way) can
disagree by a third; running the commands in turn puts each burst on all of them alike. Each
command is split on whitespace (no shell), run 3 times first to warm caches, then RUNS times in
turn with the others; the output line gives the medians in milliseconds and the first
command's median over the second's.
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
    if len(sys.argv) < 4:
        raise SystemExit(__doc__.strip().splitlines()[2])
    runs = int(sys.argv[1])
    commands = [c.split() for c in sys.argv[2:]]
    for argv in commands:
        for _ in range(3):
            timed(argv)
    times = [[] for _ in commands]
    for _ in range(runs):
        for i, argv in enumerate(commands):
            times[i].append(timed(argv))
    medians = [statistics.median(t) for t in times]
    print(" vs ".join("%.1f ms" % m for m in medians), "= %.2fx" % (medians[0] / medians[1]))


if __name__ == "__main__":
    main()
