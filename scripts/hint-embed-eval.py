#!/usr/bin/env python3
"""An experiment, not part of the suite: would a static embedding model whose weights ship inside
its package (WordLlama 0.4.0's 256-dimension model, MIT, in its PyPI wheel) help the recall hint
tell a prompt continuing earlier work from one that only names the same component? Its result is
in docs/recall.md ("Meaning beyond words") and docs/benchmarks.md.

    python3 -m venv /tmp/emb-venv && /tmp/emb-venv/bin/pip install wordllama==0.4.0.post1 numpy
    python3 scripts/hint-eval.py --bin B --dir target/bench/hint-eval --json /tmp/he.json
    HF_HUB_OFFLINE=1 /tmp/emb-venv/bin/python scripts/hint-embed-eval.py --rows /tmp/he.json \
        --dir target/bench/hint-eval [--chunk sent|group]

The sessions are cut in chunks, scored and reported by scripts/hint_embed_common.py.
WordLlama.load() looks for its tokenizer in the wrong folder of the wheel and would download it:
the script points it at the package's own files with downloads disabled.
"""
import json, os, time, pathlib
import numpy as np

import hint_embed_common as common  # beside this script

os.environ["HF_HUB_OFFLINE"] = "1"
from wordllama import WordLlama
import wordllama

ARGS = common.arguments()
ARGS = ARGS.parse_args()
MODE = ARGS.chunk

# NB: plain WordLlama.load() would try to *download* the tokenizer config:
# the wheel ships it in wordllama/tokenizers/ but the "project root" lookup
# checks wordllama/tokenizer/ (singular). Pointing cache_dir at the package
# dir finds both files locally; disable_download guarantees no network.
PKG = pathlib.Path(wordllama.__file__).parent
t0 = time.perf_counter()
wl = WordLlama.load(cache_dir=PKG, disable_download=True)
t_load = time.perf_counter() - t0

sids, chunks, owner = common.load_sessions(ARGS.dir, MODE)
t0 = time.perf_counter()
E = wl.embed(chunks, norm=True, batch_size=512).astype(np.float32)
t_chunks = time.perf_counter() - t0
rows = json.load(open(ARGS.rows))["rows"]
t_prompt, t_score = common.score_rows(rows, E, sids, owner,
                                      lambda p: wl.embed([p], norm=True)[0].astype(np.float32), chunks)

print(f"mode={MODE} sessions={len(sids)} chunks={len(chunks)} "
      f"mean words/chunk={np.mean([len(c.split()) for c in chunks]):.1f}")
print(f"load {t_load*1000:.0f} ms; embed all chunks {t_chunks:.2f} s; "
      f"prompt embed p50 {np.median(t_prompt)*1e3:.3f} ms p90 {np.percentile(t_prompt,90)*1e3:.3f} ms; "
      f"scoring vs all chunks p50 {np.median(t_score)*1e3:.2f} ms")


common.report(rows, ARGS.rule)
