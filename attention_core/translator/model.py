"""A GRU encoder-decoder with additive (Bahdanau) attention, in numpy,
with hand-written backpropagation through time.

Shapes (B sentences in a batch, source length T, target steps T'):

- source embeddings ``x_j`` (E), target embeddings ``y`` (E);
- a bidirectional GRU encoder: a forward and a backward GRU of H/2 units
  each; the annotation of word j is ``h_j = [f_j ; b_j]`` (H numbers);
- the decoder's first state ``s_0 = tanh(W_init [f_T ; b_1] + b_init)``:
  the two directions' last states, the plain model's "context vector";
- at step t: scores ``e_tj = v . tanh(W_a s_{t-1} + U_a h_j)``, weights
  ``alpha_t = softmax(e_t)`` over the source words, context
  ``c_t = sum_j alpha_tj h_j``; the decoder GRU reads ``[y_{t-1} ; c_t]``
  and ``s_{t-1}`` and gives ``s_t``;
- the output mapping: a linear layer ``o_t = W_o [s_t ; c_t] + b_o`` (E
  numbers), then the dot product of ``o_t`` with every target embedding
  plus a per-word bias gives the logits, and softmax the probabilities.

Without attention (``attention=False``) the context is the fixed
``[f_T ; b_1]`` at every step: the decoder sees only the encoder's final
states, as in the plain encoder-decoder.

Training may add a guided-alignment term (``guide`` > 0): the
cross-entropy of the attention weights against the grammar's alignment,
so the weights are pulled towards the word being translated (Chen et al.
2016, "Guided Alignment Training for Topic-Aware Neural Machine
Translation"). The attention is still the model's own: the context the
decoder uses is the one the weights give.

The same :func:`forward` serves training (teacher forcing, batched) and
:func:`greedy_decode` serves evaluation and the scenes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "PARAM_NAMES",
    "init_params",
    "param_shapes",
    "forward",
    "backward",
    "loss_and_grads",
    "greedy_decode",
    "Batch",
    "make_batch",
]

NEG = -1e9  # score of padding positions: softmax gives them weight 0


def param_shapes(n_src: int, n_tgt: int, E: int, H: int) -> dict[str, tuple[int, ...]]:
    """Every parameter's shape for vocabularies of the given sizes."""
    h = H // 2
    return {
        "src_emb": (n_src, E),
        "tgt_emb": (n_tgt, E),
        "enc_f_W": (3 * h, E), "enc_f_U": (3 * h, h), "enc_f_b": (3 * h,),
        "enc_b_W": (3 * h, E), "enc_b_U": (3 * h, h), "enc_b_b": (3 * h,),
        "init_W": (H, H), "init_b": (H,),
        "att_W": (H, H), "att_U": (H, H), "att_v": (H,),
        "dec_W": (3 * H, E + H), "dec_U": (3 * H, H), "dec_b": (3 * H,),
        "out_W": (E, 2 * H), "out_b": (E,), "out_bias": (n_tgt,),
    }


PARAM_NAMES = tuple(param_shapes(1, 1, 2, 2))


def init_params(rng: np.random.Generator, n_src: int, n_tgt: int, E: int, H: int) -> dict[str, np.ndarray]:
    """Normal weights of scale 1/sqrt(fan-in), zero biases, embeddings 0.5."""
    out = {}
    for name, shape in param_shapes(n_src, n_tgt, E, H).items():
        if name.endswith("_emb"):
            out[name] = rng.normal(0, 0.5, shape)
        elif len(shape) == 1:
            out[name] = rng.normal(0, 0.3, shape) if name == "att_v" else np.zeros(shape)
        else:
            out[name] = rng.normal(0, shape[1] ** -0.5, shape)
    return out


def _sig(a: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * a))  # stable logistic


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# --------------------------------------------------------------------------
# One GRU step, forward and backward
# --------------------------------------------------------------------------


def gru_step(x, h, W, U, b):
    """z = sig(Wz x + Uz h + bz), r = sig(Wr x + Ur h + br),
    n = tanh(Wn x + Un (r*h) + bn), h' = (1-z) h + z n."""
    k = h.shape[1]
    gx = x @ W.T + b
    gh = h @ U[: 2 * k].T
    z = _sig(gx[:, :k] + gh[:, :k])
    r = _sig(gx[:, k:2 * k] + gh[:, k:])
    rh = r * h
    n = np.tanh(gx[:, 2 * k:] + rh @ U[2 * k:].T)
    return (1 - z) * h + z * n, (x, h, z, r, rh, n)


def gru_step_back(dh_new, cache, W, U, gW, gU, gb):
    """Accumulate the step's weight gradients; return (dx, dh)."""
    x, h, z, r, rh, n = cache
    k = h.shape[1]
    dz = dh_new * (n - h)
    dn = dh_new * z
    dh = dh_new * (1 - z)
    dan = dn * (1 - n * n)
    gU[2 * k:] += dan.T @ rh
    drh = dan @ U[2 * k:]
    dr = drh * h
    dh += drh * r
    daz = dz * z * (1 - z)
    dar = dr * r * (1 - r)
    dg = np.concatenate([daz, dar, dan], axis=1)
    gW += dg.T @ x
    gb += dg.sum(axis=0)
    dzr = dg[:, : 2 * k]
    gU[: 2 * k] += dzr.T @ h
    dh += dzr @ U[: 2 * k]
    return dg @ W, dh


# --------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Batch:
    src: np.ndarray  # B x T source ids (0 where padded)
    src_mask: np.ndarray  # B x T, 1.0 for real words
    tgt_in: np.ndarray  # B x T' decoder inputs: <START> then the words
    tgt_out: np.ndarray  # B x T' expected outputs: the words then <END>
    tgt_mask: np.ndarray  # B x T'
    # Guided alignment (optional): the source index each target word is
    # aligned to, and 1.0 where there is one (not at <END>, not in padding).
    tgt_align: np.ndarray | None = None  # B x T'
    align_mask: np.ndarray | None = None  # B x T'


def make_batch(src_ids: list[list[int]], tgt_ids: list[list[int]] | None, start: int, end: int,
               alignments: list[tuple[int, ...]] | None = None) -> Batch:
    """Pad id lists into arrays; target lists exclude <START> and <END>."""
    B = len(src_ids)
    T = max(len(s) for s in src_ids)
    src = np.zeros((B, T), dtype=np.int64)
    sm = np.zeros((B, T))
    for i, s in enumerate(src_ids):
        src[i, : len(s)] = s
        sm[i, : len(s)] = 1.0
    if tgt_ids is None:
        return Batch(src, sm, np.zeros((B, 0), np.int64), np.zeros((B, 0), np.int64), np.zeros((B, 0)))
    Tt = max(len(t) for t in tgt_ids) + 1
    ti = np.zeros((B, Tt), dtype=np.int64)
    to = np.zeros((B, Tt), dtype=np.int64)
    tm = np.zeros((B, Tt))
    for i, t in enumerate(tgt_ids):
        ti[i, 0] = start
        ti[i, 1: len(t) + 1] = t
        to[i, : len(t)] = t
        to[i, len(t)] = end
        tm[i, : len(t) + 1] = 1.0
    if alignments is None:
        return Batch(src, sm, ti, to, tm)
    ta = np.zeros((B, Tt), dtype=np.int64)
    am = np.zeros((B, Tt))
    for i, a in enumerate(alignments):
        ta[i, : len(a)] = a
        am[i, : len(a)] = 1.0
    return Batch(src, sm, ti, to, tm, ta, am)


# --------------------------------------------------------------------------
# Encoder
# --------------------------------------------------------------------------


def encode(p: dict[str, np.ndarray], src: np.ndarray, mask: np.ndarray):
    """Both GRU directions over the source; padding keeps the state."""
    B, T = src.shape
    k = p["enc_f_U"].shape[1]
    x = p["src_emb"][src]  # B x T x E
    f = np.zeros((B, T, k))
    bw = np.zeros((B, T, k))
    fc, bc = [None] * T, [None] * T
    h = np.zeros((B, k))
    for t in range(T):
        new, fc[t] = gru_step(x[:, t], h, p["enc_f_W"], p["enc_f_U"], p["enc_f_b"])
        m = mask[:, t: t + 1]
        h = m * new + (1 - m) * h
        f[:, t] = h
    h = np.zeros((B, k))
    for t in range(T - 1, -1, -1):
        new, bc[t] = gru_step(x[:, t], h, p["enc_b_W"], p["enc_b_U"], p["enc_b_b"])
        m = mask[:, t: t + 1]
        h = m * new + (1 - m) * h
        bw[:, t] = h
    ann = np.concatenate([f, bw], axis=2)  # B x T x H
    summary = np.concatenate([f[:, -1], bw[:, 0]], axis=1)  # [f_T ; b_1]
    return x, f, bw, ann, summary, (fc, bc)


# --------------------------------------------------------------------------
# Decoder step
# --------------------------------------------------------------------------


def attend(p, s, ann, UH, mask):
    """Additive scores, weights and context for decoder state ``s``."""
    pre = np.tanh((s @ p["att_W"].T)[:, None, :] + UH)  # B x T x H
    e = pre @ p["att_v"]
    e = np.where(mask > 0, e, NEG)
    alpha = _softmax(e)
    c = np.einsum("bt,bth->bh", alpha, ann)
    return pre, e, alpha, c


def decoder_step(p, y_prev, s, ann, UH, mask, summary, attention: bool):
    """One decoder step; returns the values and the cache for backprop."""
    if attention:
        pre, e, alpha, c = attend(p, s, ann, UH, mask)
    else:
        pre = e = alpha = None
        c = summary
    y = p["tgt_emb"][y_prev]
    inp = np.concatenate([y, c], axis=1)
    s_new, gcache = gru_step(inp, s, p["dec_W"], p["dec_U"], p["dec_b"])
    sc = np.concatenate([s_new, c], axis=1)
    o = sc @ p["out_W"].T + p["out_b"]
    logits = o @ p["tgt_emb"].T + p["out_bias"]
    probs = _softmax(logits)
    return dict(s_prev=s, pre=pre, scores=e, alpha=alpha, context=c, y=y, gcache=gcache,
                state=s_new, sc=sc, o=o, logits=logits, probs=probs, y_prev=y_prev)


# --------------------------------------------------------------------------
# Forward and backward over a batch (teacher forcing)
# --------------------------------------------------------------------------


def forward(p: dict[str, np.ndarray], batch: Batch, attention: bool = True, guide: float = 0.0):
    """Mean cross-entropy per target token, and the caches for backprop.

    ``guide`` > 0 adds ``guide`` times the cross-entropy of the attention
    weights against the grammar's alignment (guided alignment training);
    it needs a batch made with alignments.
    """
    x, f, bw, ann, summary, enc_cache = encode(p, batch.src, batch.src_mask)
    a0 = summary @ p["init_W"].T + p["init_b"]
    s = np.tanh(a0)
    UH = ann @ p["att_U"].T
    steps = []
    loss = 0.0
    n_tok = batch.tgt_mask.sum()
    rows = np.arange(batch.src.shape[0])
    for t in range(batch.tgt_in.shape[1]):
        st = decoder_step(p, batch.tgt_in[:, t], s, ann, UH, batch.src_mask, summary, attention)
        pr = st["probs"][rows, batch.tgt_out[:, t]]
        loss -= float((np.log(pr + 1e-300) * batch.tgt_mask[:, t]).sum())
        if guide and attention:
            pa = st["alpha"][rows, batch.tgt_align[:, t]]
            loss -= guide * float((np.log(pa + 1e-300) * batch.align_mask[:, t]).sum())
        steps.append(st)
        s = st["state"]
    cache = dict(x=x, f=f, bw=bw, ann=ann, summary=summary, enc=enc_cache, s0=np.tanh(a0),
                 UH=UH, steps=steps, n_tok=n_tok, attention=attention, guide=guide)
    return loss / n_tok, cache


def backward(p: dict[str, np.ndarray], batch: Batch, cache) -> dict[str, np.ndarray]:
    """Gradients of the mean loss by backpropagation through time."""
    g = {k: np.zeros_like(v) for k, v in p.items()}
    B, T = batch.src.shape
    H = p["init_W"].shape[0]
    k = H // 2
    ann, summary, steps = cache["ann"], cache["summary"], cache["steps"]
    attention = cache["attention"]
    rows = np.arange(B)
    d_ann = np.zeros_like(ann)
    d_UH = np.zeros_like(cache["UH"])
    d_summary = np.zeros_like(summary)
    ds = np.zeros((B, H))
    for t in range(len(steps) - 1, -1, -1):
        st = steps[t]
        dl = st["probs"].copy()
        dl[rows, batch.tgt_out[:, t]] -= 1.0
        dl *= (batch.tgt_mask[:, t] / cache["n_tok"])[:, None]
        # logits = o . tgt_emb + bias
        g["tgt_emb"] += dl.T @ st["o"]
        g["out_bias"] += dl.sum(axis=0)
        do = dl @ p["tgt_emb"]
        g["out_W"] += do.T @ st["sc"]
        g["out_b"] += do.sum(axis=0)
        dsc = do @ p["out_W"]
        ds = ds + dsc[:, :H]
        dc = dsc[:, H:].copy()
        dinp, ds = gru_step_back(ds, st["gcache"], p["dec_W"], p["dec_U"], g["dec_W"], g["dec_U"], g["dec_b"])
        E = st["y"].shape[1]
        np.add.at(g["tgt_emb"], st["y_prev"], dinp[:, :E])
        dc += dinp[:, E:]
        if attention:
            alpha, pre = st["alpha"], st["pre"]
            d_ann += alpha[:, :, None] * dc[:, None, :]
            dalpha = np.einsum("bh,bth->bt", dc, ann)
            de = alpha * (dalpha - (alpha * dalpha).sum(axis=1, keepdims=True))
            if cache["guide"]:
                # d(-log alpha_a)/de = alpha - onehot(a), masked and scaled
                dg = alpha.copy()
                dg[rows, batch.tgt_align[:, t]] -= 1.0
                de += dg * (cache["guide"] * batch.align_mask[:, t] / cache["n_tok"])[:, None]
            g["att_v"] += np.einsum("bt,bth->h", de, pre)
            dpre = de[:, :, None] * p["att_v"] * (1 - pre * pre)
            d_UH += dpre
            dWs = dpre.sum(axis=1)
            g["att_W"] += dWs.T @ st["s_prev"]
            ds = ds + dWs @ p["att_W"]
        else:
            d_summary += dc
    # s_0 = tanh(W_init summary + b_init)
    da0 = ds * (1 - cache["s0"] ** 2)
    g["init_W"] += da0.T @ summary
    g["init_b"] += da0.sum(axis=0)
    d_summary += da0 @ p["init_W"]
    if attention:
        g["att_U"] += np.einsum("bth,btk->hk", d_UH, ann)
        d_ann += d_UH @ p["att_U"]
    df = d_ann[:, :, :k].copy()
    dbw = d_ann[:, :, k:].copy()
    df[:, -1] += d_summary[:, :k]
    dbw[:, 0] += d_summary[:, k:]
    fc, bc = cache["enc"]
    dx = np.zeros_like(cache["x"])
    carry = np.zeros((B, k))
    for t in range(T - 1, -1, -1):
        total = df[:, t] + carry
        m = batch.src_mask[:, t: t + 1]
        dxt, dh = gru_step_back(m * total, fc[t], p["enc_f_W"], p["enc_f_U"],
                                g["enc_f_W"], g["enc_f_U"], g["enc_f_b"])
        dx[:, t] += dxt
        carry = (1 - m) * total + dh
    carry = np.zeros((B, k))
    for t in range(T):
        total = dbw[:, t] + carry
        m = batch.src_mask[:, t: t + 1]
        dxt, dh = gru_step_back(m * total, bc[t], p["enc_b_W"], p["enc_b_U"],
                                g["enc_b_W"], g["enc_b_U"], g["enc_b_b"])
        dx[:, t] += dxt
        carry = (1 - m) * total + dh
    np.add.at(g["src_emb"], batch.src, dx)
    return g


def loss_and_grads(p, batch: Batch, attention: bool = True, guide: float = 0.0):
    loss, cache = forward(p, batch, attention, guide)
    return loss, backward(p, batch, cache)


# --------------------------------------------------------------------------
# Greedy decoding
# --------------------------------------------------------------------------


def greedy_decode(p, batch: Batch, start: int, end: int, max_len: int, attention: bool = True,
                  keep_steps: bool = False):
    """Translate a batch word by word, feeding back the most probable word.

    Returns (ids, alphas, encoded, steps): ``ids`` B x max_len chosen words
    (stopping is up to the caller: everything after <END> is ignored),
    ``alphas`` B x max_len x T attention weights (``None`` without
    attention), the encoder's values, and each step's values if asked.
    """
    x, f, bw, ann, summary, _ = encode(p, batch.src, batch.src_mask)
    s = np.tanh(summary @ p["init_W"].T + p["init_b"])
    UH = ann @ p["att_U"].T
    B, T = batch.src.shape
    prev = np.full(B, start, dtype=np.int64)
    ids = np.zeros((B, max_len), dtype=np.int64)
    alphas = np.zeros((B, max_len, T)) if attention else None
    steps = []
    for t in range(max_len):
        st = decoder_step(p, prev, s, ann, UH, batch.src_mask, summary, attention)
        prev = st["probs"].argmax(axis=1)
        ids[:, t] = prev
        if attention:
            alphas[:, t] = st["alpha"]
        if keep_steps:
            steps.append(st)
        s = st["state"]
    encoded = dict(x=x, f=f, bw=bw, ann=ann, summary=summary, s0=np.tanh(summary @ p["init_W"].T + p["init_b"]))
    return ids, alphas, encoded, steps
