#!/usr/bin/env python3
"""Score the recall hint (`pi-context tool sessions_hint`) on the labelled set that
scripts/gen-hint-eval.py writes.

    python3 scripts/hint-eval.py --bin target/release/pi-context --dir DIR [--cache DIR]
                                 [--curve] [--json OUT] [--no-leads]

Each prompt is asked as the extension asks it: one process per prompt, in the prompt's project,
from a fresh session per context window (`window` in labels.json), with the sessions already
hinted in that window passed as `hinted` and the window's earlier answers' `lead`s as `leads`.
Prints, per split (tune, heldout): the share of continuing prompts hinted with the right session
(and with a wrong one), the share of unrelated prompts hinted at all (apart: those asking for
unrelated work, the target's, and those asking for other work on a planted fact's component,
`same-word` and `same-word-again`), repeats per window, and the added latency per prompt (whole
process, p50/p90, index warm); then the same shares per class of prompt (labels.json's `class`).
--no-leads asks without `leads`, as the binaries before it were asked (they refuse it). With
--curve, also the bar's precision/recall curve over its constants, computed from the `measure`
every answer carries (what the bar saw; fields it lacks are read as passing), the window rule
applied as the binary applies it. Python 3.9+, standard library only.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid


def env_for(args, labels):
    env = dict(os.environ)
    env.update({
        "HOME": args.dir,
        "PI_CODING_AGENT_DIR": os.path.join(args.dir, "agent"),
        "PI_CONTEXT_CACHE_DIR": args.cache,
        "PI_CONTEXT_NOW": labels["now"],
    })
    for k in ("PI_CODING_AGENT_SESSION_DIR", "PI_NOTES_HOME", "XDG_CACHE_HOME"):
        env.pop(k, None)
    return env


# Unrelated prompts that name a planted fact's component (another task on it): reported apart
# from the unrelated work the target is about (CONTRACT §10.7: "unrelated prompts that share
# only common words").
COMPONENT_CLASSES = ("same-word", "same-word-again")


def ask(args, env, cwd, session_id, prompt, hinted, leads):
    params = {"prompt": prompt, "hinted": hinted}
    if not args.no_leads:
        params["leads"] = leads
    request = {"params": params,
               "context": {"cwd": cwd, "session_id": session_id, "session_file": None}}
    started = time.perf_counter()
    out = subprocess.run([args.bin, "tool", "sessions_hint"], input=json.dumps(request).encode(),
                         capture_output=True, env=env, cwd=cwd, check=True)
    elapsed = (time.perf_counter() - started) * 1000
    answer = json.loads(out.stdout)
    if answer.get("is_error"):
        sys.exit("sessions_hint refused: %s" % answer["text"])
    return answer, elapsed


def run_all(args, labels, env):
    windows = {}
    for q in labels["prompts"]:
        windows.setdefault(q["window"], []).append(q)
    rows = []
    for name, prompts in windows.items():
        session_id = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
        hinted, leads = [], []
        for q in prompts:
            cwd = labels["projects"][q["project"]]
            answer, ms = ask(args, env, cwd, session_id, q["prompt"], list(hinted), list(leads))
            d = answer["details"]
            if d.get("lead") and d["lead"] not in leads:
                leads.append(d["lead"])
            got = d.get("session_id") if d.get("hint") else None
            if got:
                if len(answer["text"].encode()) > 600:
                    sys.exit("hint over 600 bytes for %s" % q["id"])
                hinted.append(got)
            rows.append({"q": q, "got": got, "ms": ms, "measure": d.get("measure"), "miss": d.get("miss"),
                         "words": d.get("words")})
    return rows


def summarize(rows, split):
    rows = [r for r in rows if r["q"]["split"] == split]
    cont = [r for r in rows if r["q"]["kind"] == "continuing"]
    unrel = [r for r in rows if r["q"]["kind"] == "unrelated"]
    right = sum(1 for r in cont if is_right(r))
    best = sum(1 for r in cont if is_best(r))
    wrong = sum(1 for r in cont if r["got"] and r["got"] != r["q"]["session_id"])
    false = sum(1 for r in unrel if r["got"])
    work = [r for r in unrel if r["q"]["class"] not in COMPONENT_CLASSES]
    component = [r for r in unrel if r["q"]["class"] in COMPONENT_CLASSES]
    false_work = sum(1 for r in work if r["got"])
    false_component = sum(1 for r in component if r["got"])
    repeats, seen = 0, {}
    for r in rows:
        if r["got"]:
            key = (r["q"]["window"], r["got"])
            repeats += key in seen
            seen[key] = True
    suppressed = sum(1 for r in rows if r["miss"] == "already_hinted")
    windows = len({r["q"]["window"] for r in rows})
    ms = sorted(r["ms"] for r in rows)
    return {
        "split": split, "continuing": len(cont), "unrelated": len(unrel),
        "right": right, "right_share": right / max(1, len(cont)),
        "best_right": best, "best_right_share": best / max(1, len(cont)),
        "wrong": wrong, "false": false, "false_share": false / max(1, len(unrel)),
        "unrelated_work": len(work), "false_work": false_work, "false_work_share": false_work / max(1, len(work)),
        "unrelated_component": len(component), "false_component": false_component,
        "false_component_share": false_component / max(1, len(component)),
        "windows": windows, "repeats": repeats, "repeats_per_window": repeats / max(1, windows),
        "suppressed_repeats": suppressed,
        "p50_ms": statistics.median(ms), "p90_ms": ms[int(0.9 * (len(ms) - 1))],
    }


def is_right(r):
    """The right session hinted now, or hinted earlier in the window and the best again."""
    best = (r["measure"] or {}).get("session_id")
    return r["got"] == r["q"]["session_id"] or (r["miss"] == "already_hinted" and best == r["q"]["session_id"])


def is_best(r):
    """The right session ranked first, whatever the bar said (the ranking alone)."""
    return (r["measure"] or {}).get("session_id") == r["q"]["session_id"]


def by_class(rows, split):
    """Per class of prompt: how many, right and wrong sessions (continuing), any hint."""
    out = {}
    for r in rows:
        q = r["q"]
        if q["split"] != split:
            continue
        c = out.setdefault((q["kind"], q["class"]), {"kind": q["kind"], "class": q["class"], "prompts": 0,
                                                     "right": 0, "best": 0, "wrong": 0, "hinted": 0})
        c["prompts"] += 1
        c["hinted"] += bool(r["got"])
        if q["kind"] == "continuing":
            c["right"] += is_right(r)
            c["best"] += is_best(r)
            c["wrong"] += bool(r["got"]) and r["got"] != q["session_id"]
    return [out[k] for k in sorted(out)]


# The bar as the binary applies it (src/recall/hint.rs), with its constants as parameters.
BAR = {"min_words": 2, "rare_share": 0.0025, "rare_floor": 5, "min_coverage": 0.5, "min_margin": 1.3,
       "clear_margin": 2.5}
# The binary compares f32s rounded to 3 decimals (1.3 there is 1.2999999523 here).
EPS = 1e-6


def decide(measure, bar, seen):
    """The bar over an answer's `measure`, as the binary applies it: (the session hinted or
    None, the lead kept or None). `seen`: the sessions the window's earlier prompts ranked first
    (hinted or leads), which need only the rare word. A field the binary no longer reports passes
    its test."""
    if not measure or not measure.get("session_id"):
        return None, None
    session = measure["session_id"]
    rarest, events = measure.get("rarest_docs"), measure.get("events")
    if rarest is not None and events is not None and rarest > max(bar["rare_floor"], int(events * bar["rare_share"])):
        return None, None
    if weak(measure, bar) and session not in seen:
        return None, session
    return session, None


def weak(measure, bar):
    """Whether the bar's tests past the rare word fail."""
    # A session this far ahead needs one matched (rare) word, whatever its coverage.
    clear = measure.get("margin") is not None and measure["margin"] >= bar["clear_margin"] - EPS
    # No other session holds any searched word: one matched (rare) word may do.
    unrivalled = measure.get("margin") is None
    matched = measure.get("matched")
    if not clear and not unrivalled and matched is not None and len(matched) < bar["min_words"]:
        return True
    if not clear and measure.get("coverage", 1.0) < bar["min_coverage"] - EPS:
        return True
    return measure.get("margin") is not None and measure["margin"] < bar["min_margin"] - EPS


def point(rows, bar, corroborate=True):
    """The bar's answers replayed over the measures, the window's hints and leads kept as the
    callers keep them (with `corroborate`; else each prompt alone, as before leads). A measure
    depends only on the prompt, so the replay is exact."""
    right = wrong = false = false_work = cont = unrel = work = 0
    hinted, leads = {}, {}
    for r in rows:
        q = r["q"]
        window, window_leads = hinted.setdefault(q["window"], []), leads.setdefault(q["window"], [])
        clears, lead = decide(r["measure"], bar, window + window_leads if corroborate else [])
        if lead and lead not in window_leads:
            window_leads.append(lead)
        got = clears if clears not in window else None
        if got:
            window.append(got)
        if q["kind"] == "continuing":
            cont += 1
            # The right session hinted now, or earlier in this window (the agent has it).
            right += clears == q["session_id"]
            wrong += bool(got) and got != q["session_id"]
        else:
            unrel += 1
            false += bool(got)
            if q["class"] not in COMPONENT_CLASSES:
                work += 1
                false_work += bool(got)
    hints = right + wrong + false
    return {"recall": right / max(1, cont), "false_share": false / max(1, unrel),
            "false_work_share": false_work / max(1, work), "precision": right / hints if hints else 1.0}


def curve(rows, split):
    rows = [r for r in rows if r["q"]["split"] == split]
    out = []
    for min_words in (2, 1):
        for clear_margin in (2.5, 1e9):
            for min_margin in (1.0, 1.15, 1.3, 1.5):
                for min_coverage in (0.0, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8):
                    for rare_share in (1.0, 0.01, 0.0025):
                        bar = dict(BAR, min_words=min_words, clear_margin=clear_margin, min_margin=min_margin,
                                   min_coverage=min_coverage, rare_share=rare_share)
                        alone = {k + "_alone": v for k, v in point(rows, bar, corroborate=False).items()}
                        out.append(dict(bar, **point(rows, bar), **alone))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", required=True)
    p.add_argument("--dir", required=True, help="what gen-hint-eval.py wrote")
    p.add_argument("--cache", help="the recall cache (default DIR/cache)")
    p.add_argument("--curve", action="store_true")
    p.add_argument("--json", help="also write every answer and the summary here")
    p.add_argument("--no-leads", action="store_true", help="never send `leads` (binaries before them)")
    args = p.parse_args(argv)
    args.dir = os.path.abspath(args.dir)
    args.bin = os.path.abspath(args.bin)
    args.cache = os.path.abspath(args.cache or os.path.join(args.dir, "cache"))
    with open(os.path.join(args.dir, "labels.json"), encoding="utf-8") as f:
        labels = json.load(f)
    env = env_for(args, labels)
    subprocess.run([args.bin, "sessions", "index"], env=env, cwd=labels["projects"]["shopfront"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = run_all(args, labels, env)
    summary = [summarize(rows, s) for s in ("tune", "heldout")]
    for s in summary:
        print("%-8s right session %3d/%-3d = %5.1f%% (target >= 75%%), wrong session %d; "
              "unrelated work hinted %2d/%-3d = %4.1f%% (target <= 2%%); other work on a fact's component "
              "hinted %2d/%-3d = %4.1f%%; all unrelated %2d/%-3d = %4.1f%%; repeats per window %.2f "
              "(%d suppressed); latency p50 %.1f ms, p90 %.1f ms (target p50 <= 30 ms)"
              % (s["split"], s["right"], s["continuing"], 100 * s["right_share"], s["wrong"],
                 s["false_work"], s["unrelated_work"], 100 * s["false_work_share"],
                 s["false_component"], s["unrelated_component"], 100 * s["false_component_share"],
                 s["false"], s["unrelated"], 100 * s["false_share"], s["repeats_per_window"],
                 s["suppressed_repeats"], s["p50_ms"], s["p90_ms"]))
    classes = {}
    print("\nbest session right before the bar (the ranking alone): tune %.1f%%, heldout %.1f%%"
          % tuple(100 * s["best_right_share"] for s in summary))
    print("\nper class: prompts, right session (continuing; ranked first before the bar), wrong session, any hint")
    for split in ("tune", "heldout"):
        classes[split] = by_class(rows, split)
        for c in classes[split]:
            n = max(1, c["prompts"])
            if c["kind"] == "continuing":
                print("  %-8s continuing %-13s %3d  right %3d = %5.1f%% (first %5.1f%%)  wrong %2d  hinted %5.1f%%" % (
                    split, c["class"], c["prompts"], c["right"], 100 * c["right"] / n, 100 * c["best"] / n,
                    c["wrong"], 100 * c["hinted"] / n))
            else:
                print("  %-8s unrelated  %-13s %3d  %47s hinted %5.1f%%" % (
                    split, c["class"], c["prompts"], "", 100 * c["hinted"] / n))
    curves = {}
    if args.curve:
        for split in ("tune", "heldout"):
            curves[split] = curve(rows, split)
            print("\ncurve (%s): min_words clear_margin min_margin min_coverage rare_share -> right session, "
                  "unrelated work hinted, all unrelated hinted, precision; the same for each prompt alone "
                  "(no leads)" % split)
            for c in curves[split]:
                clear = "%.1f" % c["clear_margin"] if c["clear_margin"] < 1e9 else "none"
                print("  %d %4s %.2f %.2f %6.4f -> %5.1f%% %5.1f%% %5.1f%% %5.1f%% | alone %5.1f%% %5.1f%% %5.1f%% %5.1f%%" % (
                    c["min_words"], clear, c["min_margin"], c["min_coverage"], c["rare_share"], 100 * c["recall"],
                    100 * c["false_work_share"], 100 * c["false_share"], 100 * c["precision"],
                    100 * c["recall_alone"], 100 * c["false_work_share_alone"], 100 * c["false_share_alone"],
                    100 * c["precision_alone"]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "classes": classes, "curves": curves, "rows": rows}, f, indent=1,
                      ensure_ascii=False)


if __name__ == "__main__":
    main()
