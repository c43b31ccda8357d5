"""The drafts' translator in numpy: a GRU encoder, a GRU decoder, optional
additive attention, and the output mapping by dot product with the French
embeddings; hand-written backpropagation through time.

Notation (draft 000, ``docs/notation.md``); B sentences in a batch, source
length T, H the state size (= the French embedding size, so that the dot
product ``s_t . e_w`` is defined), E the English embedding size:

- ``x_t`` (E): the English word's embedding, a row of ``src_emb``;
- encoder: ``h_0 = 0``, ``h_t = GRU_enc(x_t, h_{t-1})`` for t = 1..T
  (unidirectional); ``h_T`` is the plain network's context;
- decoder: ``s_0 = 0``, ``op_0`` = the embedding of ``<START>``, then
  ``s_t = GRU_dec([op_{t-1} ; c_t], s_{t-1})`` where the context is
  ``c_t = h_T`` without attention and, with it,
  ``e_tj = v . tanh(W_a s_{t-1} + U_a h_j)``, ``a_tj = softmax_j(e_tj)``,
  ``c_t = sum_j a_tj h_j``;
- output mapping: ``scores_w = s_t . e_w`` for every French word w (``e_w``
  a row of ``tgt_emb``, H numbers), nothing added; softmax gives the
  probabilities, and ``op_t`` is the most probable word's embedding.

The GRU (both networks, encoder and decoder), input x, state h, weights
stacked ``[z ; r ; n]``::

    z  = sigmoid(W_z x + U_z h + b_z)          update gate
    r  = sigmoid(W_r x + U_r h + b_r)          reset gate
    n  = tanh(W_n x + U_n (r * h) + b_n)       candidate: U (r * h)
    h' = (1 - z) * h + z * n

Training may add a guided-alignment term (``guide`` > 0): the
cross-entropy of the attention weights against the grammar's alignment
(Chen et al. 2016). The context the decoder uses is still the one the
model's own weights give.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "PARAM_NAMES",
    "ATTENTION_PARAM_NAMES",
    "init_params",
    "param_shapes",
    "param_count",
    "gru_step",
    "encode",
    "attend",
    "decoder_step",
    "forward",
    "backward",
    "loss_and_grads",
    "greedy_decode",
    "Batch",
    "make_batch",
]

# Names the architecture in the weights' hash: change it when the maths changes.
ARCHITECTURE = "gru-uni/s0=0/scores=s.e_w/v2"
NEG = -1e9  # score of padding positions: softmax gives them weight 0
ATTENTION_PARAM_NAMES = ("att_W", "att_U", "att_v")


def param_shapes(n_src: int, n_tgt: int, E: int, H: int, attention: bool = True) -> dict[str, tuple[int, ...]]:
    """Every parameter's shape; the plain network has no ``att_*``."""
    shapes: dict[str, tuple[int, ...]] = {
        "src_emb": (n_src, E),  # x_t rows
        "tgt_emb": (n_tgt, H),  # e_w rows (op_t is one of them)
        "enc_W": (3 * H, E), "enc_U": (3 * H, H), "enc_b": (3 * H,),
        "dec_W": (3 * H, 2 * H), "dec_U": (3 * H, H), "dec_b": (3 * H,),  # dec_W reads [op ; c]
    }
    if attention:
        shapes.update({"att_W": (H, H), "att_U": (H, H), "att_v": (H,)})
    return shapes


PARAM_NAMES = tuple(param_shapes(1, 1, 2, 2))


def param_count(n_src: int, n_tgt: int, E: int, H: int, attention: bool = True) -> int:
    """How many numbers the network has."""
    return int(sum(np.prod(s) for s in param_shapes(n_src, n_tgt, E, H, attention).values()))


def init_params(rng: np.random.Generator, n_src: int, n_tgt: int, E: int, H: int,
                attention: bool = True) -> dict[str, np.ndarray]:
    """Normal weights of scale 1/sqrt(fan-in), zero biases, embeddings 0.5."""
    out = {}
    for name, shape in param_shapes(n_src, n_tgt, E, H, attention).items():
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
    n = tanh(Wn x + Un (r*h) + bn), h' = (1-z) h + z n (rows of a batch)."""
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
    """The GRU over the source from h_0 = 0; padding keeps the state, so the
    last column is every sentence's h_T.

    Returns ``(x, states, h_T, caches)``: embeddings B x T x E, encoder
    states h_1..h_T as B x T x H, h_T as B x H.
    """
    B, T = src.shape
    H = p["enc_U"].shape[1]
    x = p["src_emb"][src]
    states = np.zeros((B, T, H))
    caches = [None] * T
    h = np.zeros((B, H))
    for t in range(T):
        new, caches[t] = gru_step(x[:, t], h, p["enc_W"], p["enc_U"], p["enc_b"])
        m = mask[:, t: t + 1]
        h = m * new + (1 - m) * h
        states[:, t] = h
    return x, states, h.copy(), caches


# --------------------------------------------------------------------------
# Decoder step
# --------------------------------------------------------------------------


def attend(p, s, states, UH, mask):
    """Additive scores e_tj, weights a_tj and context c_t for ``s`` = s_{t-1}."""
    pre = np.tanh((s @ p["att_W"].T)[:, None, :] + UH)  # B x T x H
    e = pre @ p["att_v"]
    e = np.where(mask > 0, e, NEG)
    alpha = _softmax(e)
    c = np.einsum("bt,bth->bh", alpha, states)
    return pre, e, alpha, c


def decoder_step(p, y_prev, s, states, UH, mask, h_T, attention: bool):
    """One decoder step from word ids ``y_prev`` (op_{t-1}) and s_{t-1}."""
    if attention:
        pre, e, alpha, c = attend(p, s, states, UH, mask)
    else:
        pre = e = alpha = None
        c = h_T
    op = p["tgt_emb"][y_prev]
    inp = np.concatenate([op, c], axis=1)
    s_new, gcache = gru_step(inp, s, p["dec_W"], p["dec_U"], p["dec_b"])
    scores = s_new @ p["tgt_emb"].T  # s_t . e_w, nothing added
    probs = _softmax(scores)
    return dict(s_prev=s, pre=pre, att_scores=e, alpha=alpha, context=c, op=op, gcache=gcache,
                state=s_new, scores=scores, probs=probs, y_prev=y_prev)


# --------------------------------------------------------------------------
# Forward and backward over a batch (teacher forcing)
# --------------------------------------------------------------------------


def forward(p: dict[str, np.ndarray], batch: Batch, attention: bool = True, guide: float = 0.0):
    """Mean cross-entropy per target token, and the caches for backprop.

    ``guide`` > 0 adds ``guide`` times the cross-entropy of the attention
    weights against the grammar's alignment (needs a batch with alignments).
    """
    x, states, h_T, enc_cache = encode(p, batch.src, batch.src_mask)
    B = batch.src.shape[0]
    H = states.shape[2]
    s = np.zeros((B, H))  # s_0 = 0
    UH = states @ p["att_U"].T if attention else None
    steps = []
    loss = 0.0
    n_tok = batch.tgt_mask.sum()
    rows = np.arange(B)
    for t in range(batch.tgt_in.shape[1]):
        st = decoder_step(p, batch.tgt_in[:, t], s, states, UH, batch.src_mask, h_T, attention)
        pr = st["probs"][rows, batch.tgt_out[:, t]]
        loss -= float((np.log(pr + 1e-300) * batch.tgt_mask[:, t]).sum())
        if guide and attention:
            pa = st["alpha"][rows, batch.tgt_align[:, t]]
            loss -= guide * float((np.log(pa + 1e-300) * batch.align_mask[:, t]).sum())
        steps.append(st)
        s = st["state"]
    cache = dict(x=x, states=states, h_T=h_T, enc=enc_cache, UH=UH, steps=steps, n_tok=n_tok,
                 attention=attention, guide=guide)
    return loss / n_tok, cache


def backward(p: dict[str, np.ndarray], batch: Batch, cache) -> dict[str, np.ndarray]:
    """Gradients of the mean loss by backpropagation through time."""
    g = {k: np.zeros_like(v) for k, v in p.items()}
    B, T = batch.src.shape
    states, steps = cache["states"], cache["steps"]
    H = states.shape[2]
    attention = cache["attention"]
    rows = np.arange(B)
    d_states = np.zeros_like(states)
    d_UH = np.zeros_like(states) if attention else None
    d_hT = np.zeros((B, H))
    ds = np.zeros((B, H))
    for t in range(len(steps) - 1, -1, -1):
        st = steps[t]
        dl = st["probs"].copy()
        dl[rows, batch.tgt_out[:, t]] -= 1.0
        dl *= (batch.tgt_mask[:, t] / cache["n_tok"])[:, None]
        # scores = s_t . e_w
        g["tgt_emb"] += dl.T @ st["state"]
        ds = ds + dl @ p["tgt_emb"]
        dinp, ds = gru_step_back(ds, st["gcache"], p["dec_W"], p["dec_U"], g["dec_W"], g["dec_U"], g["dec_b"])
        np.add.at(g["tgt_emb"], st["y_prev"], dinp[:, :H])
        dc = dinp[:, H:]
        if attention:
            alpha, pre = st["alpha"], st["pre"]
            d_states += alpha[:, :, None] * dc[:, None, :]
            dalpha = np.einsum("bh,bth->bt", dc, states)
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
            d_hT += dc
    # s_0 = 0 is no parameter: ds left over here goes nowhere.
    if attention:
        g["att_U"] += np.einsum("bth,btk->hk", d_UH, states)
        d_states += d_UH @ p["att_U"]
    enc_caches = cache["enc"]
    dx = np.zeros_like(cache["x"])
    carry = d_hT  # h_T is the state after the last real word, carried through padding
    for t in range(T - 1, -1, -1):
        total = d_states[:, t] + carry
        m = batch.src_mask[:, t: t + 1]
        dxt, dh = gru_step_back(m * total, enc_caches[t], p["enc_W"], p["enc_U"],
                                g["enc_W"], g["enc_U"], g["enc_b"])
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
    (everything after <END> is the caller's to ignore), ``alphas``
    B x max_len x T attention weights (``None`` without attention), the
    encoder's values (``x``, ``states`` h_1..h_T, ``h_T``), and each step's
    values if asked.
    """
    x, states, h_T, _ = encode(p, batch.src, batch.src_mask)
    B, T = batch.src.shape
    s = np.zeros((B, states.shape[2]))
    UH = states @ p["att_U"].T if attention else None
    prev = np.full(B, start, dtype=np.int64)
    ids = np.zeros((B, max_len), dtype=np.int64)
    alphas = np.zeros((B, max_len, T)) if attention else None
    steps = []
    for t in range(max_len):
        st = decoder_step(p, prev, s, states, UH, batch.src_mask, h_T, attention)
        prev = st["probs"].argmax(axis=1)
        ids[:, t] = prev
        if attention:
            alphas[:, t] = st["alpha"]
        if keep_steps:
            steps.append(st)
        s = st["state"]
    return ids, alphas, dict(x=x, states=states, h_T=h_T), steps
