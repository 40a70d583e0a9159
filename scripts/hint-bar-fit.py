#!/usr/bin/env python3
"""An experiment, not part of the suite: is there more in the bar's own measures than the bar's
hand-set rule takes? Fits a logistic regression (L2, standardised features) on the tuning
split's prompts that have a best session: the label is "a continuing prompt whose session the
word ranking put first", the features the nine numbers every answer's `measure` carries (log of
the lead, coverage, session coverage, evidence, words matched by the event and by the session,
the rarest word's log inverse frequency, the prompt's searched words, whether the event holds
them all). Then, per threshold, "the bar, or the fitted score >= threshold", with the window
rule, on both splits. Its result is in docs/recall.md ("Meaning beyond words").

    python3 scripts/hint-eval.py --bin B --dir target/bench/hint-eval --json /tmp/he.json
    python3 -m venv /tmp/fit-venv && /tmp/fit-venv/bin/pip install numpy
    /tmp/fit-venv/bin/python scripts/hint-bar-fit.py --rows /tmp/he.json

Python 3.9+ with numpy.
"""
import argparse
import json
import math

import numpy as np

NAMES = ["log lead", "coverage", "session coverage", "evidence", "event words", "session words",
         "rarest idf", "searched words", "complete"]


def features(r):
    m = r["measure"]
    lead = 10.0 if m.get("margin") is None else m["margin"]
    events = max(m["events"], 1)
    return [math.log(lead), m["coverage"], m["session_coverage"], m["evidence"], len(m["matched"]),
            len(m["session_matched"]), -math.log((m["rarest_docs"] + 1) / events),
            len(r["words"] or []), float(m["complete"])]


def fit(rows):
    train = [r for r in rows if r["q"]["split"] == "tune" and r["measure"]]
    X = np.array([features(r) for r in train])
    y = np.array([r["q"]["kind"] == "continuing" and r["measure"]["session_id"] == r["q"]["session_id"]
                  for r in train], float)
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = (X - mu) / sd
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(5000):
        p = 1 / (1 + np.exp(-(Z @ w + b)))
        w -= 0.5 * (Z.T @ (p - y) / len(y) + 0.01 * w)
        b -= 0.5 * (p - y).mean()
    return lambda r: float(((np.array(features(r)) - mu) / sd) @ w + b), w, b


def simulate(rows, split, score, threshold):
    right = continuing = unrelated = hinted_unrelated = 0
    hinted = {}
    for r in rows:
        q = r["q"]
        if q["split"] != split:
            continue
        window = hinted.setdefault(q["window"], set())
        chosen = None
        if r["measure"] and (r["got"] or r["miss"] == "already_hinted" or score(r) >= threshold):
            chosen = r["measure"]["session_id"]
        if q["kind"] == "continuing":
            continuing += 1
            right += chosen == q["session_id"]
        else:
            unrelated += 1
            hinted_unrelated += chosen is not None and chosen not in window
        if chosen is not None:
            window.add(chosen)
    return right, continuing, hinted_unrelated, unrelated


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", required=True, help="scripts/hint-eval.py --json output")
    rows = json.load(open(parser.parse_args().rows))["rows"]
    score, w, b = fit(rows)
    print("weights: " + ", ".join("%s %+.2f" % (n, x) for n, x in zip(NAMES, w)) + ", bias %+.2f" % b)
    print("threshold   tune right / unrelated    held-out right / unrelated")
    for threshold in np.arange(0.0, 3.01, 0.25):
        t = simulate(rows, "tune", score, threshold)
        h = simulate(rows, "heldout", score, threshold)
        print("  %5.2f     %3d/%d  %2d/%d            %3d/%d  %2d/%d" % ((threshold,) + t + h))
    bar_t, bar_h = simulate(rows, "tune", score, math.inf), simulate(rows, "heldout", score, math.inf)
    print("  the bar   %3d/%d  %2d/%d            %3d/%d  %2d/%d" % (bar_t + bar_h))


if __name__ == "__main__":
    main()
