"""What the embedding experiments of the recall hint share (scripts/hint-embed-eval.py,
scripts/hint-minilm-eval.py): the hint set's sessions cut in chunks, each prompt scored against
them, and the tables both print. Experiments, not part of the suite; Python 3.9+ with numpy.

Every message (user and assistant text) of the `shopfront` sessions of the hint's set is cut in
chunks (`sent`: a sentence each, at most 60 words; `group`: sentences packed up to 60 words) and
embedded; a session's similarity to a prompt is its best chunk's cosine. The report prints (1)
the embedding's own top-1 per split and class, (2) the similarity and the embedding margin of
the word ranking's best session for continuing prompts the bar refused and for unrelated
prompts, (3) the rule "the bar, or the word ranking's best session is also the embedding's
top-1 with similarity >= T and margin >= M" tuned on the tune split (at most 1 of 96 unrelated
hinted) and applied unchanged to the held-out split, with the window rule.
"""
import argparse
import glob
import json
import os
import re
import time
import collections

import numpy as np

MAX_WORDS = 60


def arguments():
    """The options both experiments take; each adds its own."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", required=True, help="scripts/hint-eval.py --json output")
    parser.add_argument("--dir", required=True, help="the set scripts/gen-hint-eval.py wrote")
    parser.add_argument("--chunk", choices=("sent", "group"), default="group")
    parser.add_argument("--rule", choices=("top1", "matched"), default="top1",
                        help="the second chance after the bar (report)")
    return parser

SENT_RE = re.compile(r"(?<=[.!?])\s+|\n+")


def texts_of(msg):
    c = msg.get("content")
    if isinstance(c, str):
        return [c]
    return [it.get("text", "") for it in c or [] if isinstance(it, dict) and it.get("type") == "text"]


def chunks_of(text, mode, maxw=MAX_WORDS):
    sents = [s.strip() for s in SENT_RE.split(text) if s and s.strip()]
    pieces = []
    for s in sents:
        w = s.split()
        for i in range(0, len(w), maxw):
            pieces.append(w[i:i + maxw])
    if mode == "sent":
        return [" ".join(p) for p in pieces]
    out, cur = [], []
    for p in pieces:
        if cur and len(cur) + len(p) > maxw:
            out.append(" ".join(cur)); cur = []
        cur += p
    if cur:
        out.append(" ".join(cur))
    return out


def load_sessions(set_dir, mode):
    """Every user and assistant message of the set's `shopfront` sessions cut in chunks: the
    sessions' ids, the chunks, and the index of each chunk's session (ascending)."""
    sids, chunks, owner = [], [], []
    for f in sorted(glob.glob(os.path.join(set_dir, "agent", "sessions", "*shopfront*", "*.jsonl"))):
        sid = None
        with open(f) as fh:
            for line in fh:
                d = json.loads(line)
                if d.get("type") == "session":
                    sid = d["id"]; sids.append(sid)
                elif d.get("type") == "message" and d["message"].get("role") in ("user", "assistant"):
                    for t in texts_of(d["message"]):
                        for c in chunks_of(t, mode):
                            chunks.append(c); owner.append(len(sids) - 1)
    return sids, chunks, np.array(owner)


def score_rows(rows, E, sids, owner, embed_prompt, chunks):
    """Scores every row's prompt against the chunk embeddings `E` (one row per chunk, unit
    length): a session's similarity is its best chunk's. Sets on each row the model's top
    session (`_top1`) and, for the word ranking's best session, its similarity (`_sbest`), rank
    (`_rank`), lead over the best other session (`_emarg`) and the best similarity of its chunks
    that hold a word the bar matched, by its first five letters (`_smatched`: what a hint could
    compute at the prompt, embedding only that session's matching events). Returns the seconds
    spent embedding each prompt and scoring it."""
    # owner is monotone (sessions appended in order) -> reduceat boundaries
    starts = np.searchsorted(owner, np.arange(len(sids)))
    assert (np.diff(owner) >= 0).all() and len(set(owner)) == len(sids)
    sidx = {s: i for i, s in enumerate(sids)}
    t_prompt, t_score = [], []
    for r in rows:
        t0 = time.perf_counter(); q = embed_prompt(r["q"]["prompt"]); t1 = time.perf_counter()
        sims = E @ q
        S = np.maximum.reduceat(sims, starts)
        t2 = time.perf_counter()
        t_prompt.append(t1 - t0); t_score.append(t2 - t1)
        order = np.argsort(-S)
        r["_top1"] = sids[order[0]]
        ms = (r.get("measure") or {}).get("session_id")
        r["_sbest"] = r["_rank"] = r["_emarg"] = r["_smatched"] = None
        if ms in sidx:
            i = sidx[ms]
            r["_sbest"] = float(S[i])
            r["_rank"] = int(np.where(order == i)[0][0]) + 1
            r["_emarg"] = float(S[i] - np.max(np.delete(S, i)))
            end = starts[i + 1] if i + 1 < len(starts) else len(chunks)
            keys = [w.lower()[:5] for w in r["measure"].get("matched") or []]
            held = [float(sims[j]) for j in range(starts[i], end)
                    if any(k in chunks[j].lower() for k in keys)]
            r["_smatched"] = max(held) if held else None
    return t_prompt, t_score


def report(rows, rule="top1"):
    """Prints (1) the model's own top-1, (2) the similarity and lead of the word ranking's best
    session by group of prompt, (3) the rule after the bar tuned on tune and applied to
    held-out, with the window rule: `top1` (the model's top session is the word ranking's, with
    similarity >= T and lead >= M) or `matched` (the word ranking's best session has a chunk
    holding a matched word with similarity >= T)."""
    def cur_right(r):
        q = r["q"]; m = r.get("measure") or {}
        return r["got"] == q["session_id"] or (r["miss"] == "already_hinted" and m.get("session_id") == q["session_id"])


    # 1. embedding-only top-1
    print("\n1. Embedding-only top-1 accuracy (continuing)")
    for sp in ("tune", "heldout"):
        cs = [r for r in rows if r["q"]["split"] == sp and r["q"]["kind"] == "continuing"]
        per = collections.defaultdict(lambda: [0, 0])
        for r in cs:
            per[r["q"]["class"]][0] += r["_top1"] == r["q"]["session_id"]; per[r["q"]["class"]][1] += 1
        tot = sum(v[0] for v in per.values())
        wr = sum(r["measure"] is not None and r["measure"]["session_id"] == r["q"]["session_id"] for r in cs)
        print(f"  {sp}: {tot}/{len(cs)} (word-ranking best session right: {wr}/{len(cs)})  " +
              "  ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(per.items())))

    # 2. distributions
    print("\n2. Quantiles (q10/q25/q50/q75/q90) for prompts with a word-ranking best session")
    groups = collections.OrderedDict()
    for r in rows:
        if r["_sbest"] is None:
            continue
        q = r["q"]
        if q["kind"] == "continuing":
            if r["measure"]["session_id"] != q["session_id"]:
                g = "cont: word-best WRONG"
            elif cur_right(r):
                g = "cont: right now"
            else:
                g = "(a) cont: best right, bar refused"
        else:
            g = "(b) unrel: " + q["class"]
        groups.setdefault(g, []).append(r)
    groups["(b) unrel: ALL"] = [r for r in rows if r["_sbest"] is not None and r["q"]["kind"] == "unrelated"]
    qs = [10, 25, 50, 75, 90]
    print(f"  {'group':36s} {'n':>3s} | {'s_best':^29s} | {'emb margin':^34s} | {'s_rank':^16s} | top1=word")
    for g in sorted(groups, key=lambda x: (x[0] != "(", x)):
        rs = groups[g]
        a = np.array([r["_sbest"] for r in rs]); b = np.array([r["_emarg"] for r in rs]); c = np.array([r["_rank"] for r in rs])
        f = lambda x, d: " ".join(f"{v:{d}}" for v in np.percentile(x, qs))
        print(f"  {g:36s} {len(rs):3d} | {f(a,'.3f')} | {f(b,'+.3f')} | {f(c,'.0f'):16s} | {sum(c==1)}/{len(rs)}")
    print("  (a) by class:")
    for cl in ("synonym", "form", "detail", "terse"):
        rs = [r for r in groups.get("(a) cont: best right, bar refused", []) if r["q"]["class"] == cl]
        if rs:
            print(f"    {cl:8s} n={len(rs):2d} top1=word {sum(r['_rank']==1 for r in rs)}  s_best med {np.median([r['_sbest'] for r in rs]):.3f}"
                  f"  margin med {np.median([r['_emarg'] for r in rs]):+.3f}")


    # 3. rule + window simulation
    def passes(r, T, M):
        if rule == "matched":
            return r["_smatched"] is not None and r["_smatched"] >= T
        return r["_sbest"] is not None and r["_rank"] == 1 and r["_sbest"] >= T and r["_emarg"] >= M

    def simulate(split, T=None, M=None):
        right = hinted_unrel = 0; n_c = n_u = 0; extra = []
        hinted = {}  # window -> set
        for r in rows:
            q = r["q"]
            if q["split"] != split:
                continue
            m = r.get("measure") or {}
            w = hinted.setdefault(q["window"], set())
            cand = r["got"] or (m.get("session_id") if r["miss"] == "already_hinted" else None)
            new = False
            if cand is None and T is not None and passes(r, T, M):
                cand = m["session_id"]; new = True
            if q["kind"] == "continuing":
                n_c += 1
                right += cand is not None and cand == q["session_id"]
            else:
                n_u += 1
                if cand is not None and cand not in w:
                    hinted_unrel += 1
            if cand is not None and cand not in w:
                w.add(cand)
                if new:
                    extra.append((q["kind"], q["class"], cand == q["session_id"]))
        return right, n_c, hinted_unrel, n_u, extra


    if rule == "matched":
        print("\n3. Rule: bar OR (a chunk of the word-best session holding a matched word has similarity>=T)")
    else:
        print("\n3. Rule: bar OR (word-best == emb top1 AND s_best>=T AND emb margin>=M)")
    for sp in ("tune", "heldout"):
        a, b, c, d, _ = simulate(sp)
        print(f"  baseline {sp}: right {a}/{b}, unrelated hinted {c}/{d}")
    Ts = np.round(np.arange(0.0, 1.0001, 0.01), 3)
    Ms = np.round(np.arange(0.0, 0.30001, 0.005), 4) if rule == "top1" else np.array([0.0])
    res = {}
    for T in Ts:
        for M in Ms:
            a, b, c, d, _ = simulate("tune", T, M)
            res[(T, M)] = (a, c)
    feas = {k: v for k, v in res.items() if v[1] <= 1}
    best = max(v[0] for v in feas.values())
    ties = [k for k, v in feas.items() if v[0] == best]
    # tie-break: most conservative (largest M, then largest T)
    T, M = max(ties, key=lambda k: (k[1], k[0]))
    print(f"  tune optimum right={best}; {len(ties)} (T,M) tie; T range {min(k[0] for k in ties)}..{max(k[0] for k in ties)}, "
          f"M range {min(k[1] for k in ties)}..{max(k[1] for k in ties)}; chosen T={T} M={M}")
    for TT, MM, lab in [(T, M, "chosen"), (min(ties, key=lambda k: (k[1], k[0]))[0], min(ties, key=lambda k: (k[1], k[0]))[1], "loosest tie")]:
        for sp in ("tune", "heldout"):
            a, b, c, d, extra = simulate(sp, TT, MM)
            ex = collections.Counter((k, cl, ok) for k, cl, ok in extra)
            print(f"  [{lab} T={TT} M={MM}] {sp}: right {a}/{b}, unrelated hinted {c}/{d}; new hints: "
                  + ", ".join(f"{k[0][:4]}/{k[1]}/{'ok' if k[2] else 'WRONG'}={v}" for k, v in sorted(ex.items())))
    # sensitivity: best right achievable with unrelated <= 0,1,2,3 on tune, and heldout at those points
    print("  tune frontier (max right at unrelated<=u; chosen = most conservative tie) -> heldout:")
    for u in range(0, 5):
        f2 = {k: v for k, v in res.items() if v[1] <= u}
        bb = max(v[0] for v in f2.values())
        k = max([k for k, v in f2.items() if v[0] == bb], key=lambda k: (k[1], k[0]))
        h = simulate("heldout", *k)
        print(f"    u<={u}: tune right {bb}/96 at T={k[0]} M={k[1]}  -> heldout right {h[0]}/{h[1]}, unrelated {h[2]}/{h[3]}")
