"""The caption decoder: a GRU with soft attention over the CNN's grid cells.

After Xu et al. 2015 ("Show, Attend and Tell"), soft ("deterministic")
attention. For a batch of images with cell features ``F`` (``B x N x D``,
``N = G * G`` cells) and caption word ids ``y_1 .. y_T``:

* ``s_0`` is a learned vector, the same for every image (Xu et al. start
  from the mean feature; starting blind means everything the decoder knows
  about the picture reaches it through attention);
* step t: scores ``e_ti = v . tanh(W_f f_i + W_s s_{t-1} + b_a)``, weights
  ``a_t = softmax(e_t)`` over the cells, context ``c_t = sum_i a_ti f_i``;
* ``s_t = GRU([E y_{t-1}; c_t], s_{t-1})``, ``y_0 = <START>``;
* word probabilities ``softmax(W_o [s_t; c_t] + b_o)``.

The loss is the mean cross-entropy of the caption words plus, optionally,
``sharpen`` times the mean entropy of the attention weights: a prior that
attention should pick a few cells, which never says which ones.

Forward and backward are written by hand (tests check them against finite
differences); the GRU step is the translator's.
"""

from __future__ import annotations

import numpy as np

from ..translator.model import gru_step, gru_step_back

__all__ = ["PARAM_NAMES", "init_params", "forward", "backward", "loss_and_grads", "decode"]

PARAM_NAMES = ("emb", "att_Wf", "att_Ws", "att_b", "att_v", "dec_W", "dec_U", "dec_b", "s0",
               "out_W", "out_b")


def init_params(rng: np.random.Generator, vocab: int, D: int, E: int, H: int, A: int) -> dict[str, np.ndarray]:
    """Small random weights (normal, scale 1/sqrt(fan-in)); biases and s_0 zero."""
    shapes = {"emb": (vocab, E), "att_Wf": (A, D), "att_Ws": (A, H), "att_b": (A,), "att_v": (A,),
              "dec_W": (3 * H, E + D), "dec_U": (3 * H, H), "dec_b": (3 * H,), "s0": (H,),
              "out_W": (vocab, H + D), "out_b": (vocab,)}
    out = {}
    for name, shape in shapes.items():
        if name == "att_v":
            out[name] = rng.normal(0, A ** -0.5, shape)
        elif len(shape) == 1:
            out[name] = np.zeros(shape)
        elif name == "emb":
            out[name] = rng.normal(0, 0.3, shape)
        else:
            out[name] = rng.normal(0, shape[1] ** -0.5, shape)
    return out


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def attend(p, s, feats, keys):
    """Scores, weights and context for states ``s`` (B x H) over ``feats`` (B x N x D).

    ``keys`` is ``feats @ W_f^T + b_a`` (B x N x A), computed once per image.
    """
    pre = np.tanh(keys + (s @ p["att_Ws"].T)[:, None, :])
    scores = pre @ p["att_v"]
    weights = _softmax(scores)
    context = np.einsum("bn,bnd->bd", weights, feats)
    return pre, scores, weights, context


def step(p, y_prev: np.ndarray, s: np.ndarray, feats, keys) -> dict:
    """One decoder step for word ids ``y_prev`` (B,); returns values and caches."""
    pre, scores, weights, context = attend(p, s, feats, keys)
    x = np.concatenate([p["emb"][y_prev], context], axis=1)
    s_new, gcache = gru_step(x, s, p["dec_W"], p["dec_U"], p["dec_b"])
    sc = np.concatenate([s_new, context], axis=1)
    logits = sc @ p["out_W"].T + p["out_b"]
    return dict(s_prev=s, pre=pre, scores=scores, weights=weights, context=context, gcache=gcache,
                state=s_new, sc=sc, logits=logits, probs=_softmax(logits), y_prev=y_prev)


def forward(p, feats: np.ndarray, inputs: np.ndarray, targets: np.ndarray, mask: np.ndarray,
            sharpen: float = 0.0):
    """Mean cross-entropy per (unmasked) target word, with teacher forcing,
    plus ``sharpen`` times the mean entropy of the attention weights.

    ``inputs``/``targets``/``mask`` are ``B x T`` (inputs start with <START>,
    targets end with <END>, mask 1 where a word is real).
    """
    B, T = inputs.shape
    keys = feats @ p["att_Wf"].T + p["att_b"]
    s = np.broadcast_to(p["s0"], (B, p["s0"].shape[0])).copy()
    steps = []
    loss = 0.0
    count = float(mask.sum())
    for t in range(T):
        st = step(p, inputs[:, t], s, feats, keys)
        picked = st["probs"][np.arange(B), targets[:, t]]
        loss -= float((np.log(picked + 1e-12) * mask[:, t]).sum()) / count
        if sharpen:
            w = st["weights"]
            st["log_w"] = np.log(w + 1e-12)
            st["entropy"] = -(w * st["log_w"]).sum(axis=1)
            loss += sharpen * float((st["entropy"] * mask[:, t]).sum()) / count
        steps.append(st)
        s = st["state"]
    return loss, dict(steps=steps, feats=feats, targets=targets, mask=mask, count=count,
                      sharpen=sharpen)


def backward(p, cache) -> dict[str, np.ndarray]:
    """Gradients of :func:`forward`'s loss for every parameter."""
    g = {k: np.zeros_like(v) for k, v in p.items()}
    feats, targets, mask, count = cache["feats"], cache["targets"], cache["mask"], cache["count"]
    B, T = targets.shape
    H = p["s0"].shape[0]
    E = p["emb"].shape[1]
    ds = np.zeros((B, H))
    for t in reversed(range(T)):
        st = cache["steps"][t]
        dlogits = st["probs"].copy()
        dlogits[np.arange(B), targets[:, t]] -= 1.0
        dlogits *= (mask[:, t] / count)[:, None]
        g["out_W"] += dlogits.T @ st["sc"]
        g["out_b"] += dlogits.sum(axis=0)
        dsc = dlogits @ p["out_W"]
        ds = ds + dsc[:, :H]
        dcontext = dsc[:, H:]
        dx, ds = gru_step_back(ds, st["gcache"], p["dec_W"], p["dec_U"], g["dec_W"], g["dec_U"], g["dec_b"])
        np.add.at(g["emb"], st["y_prev"], dx[:, :E])
        dcontext = dcontext + dx[:, E:]
        # c = sum_n a_n f_n; a = softmax(e); e_n = v . tanh(k_n + W_s s)
        w = st["weights"]
        dw = np.einsum("bd,bnd->bn", dcontext, feats)
        de = w * (dw - (w * dw).sum(axis=1, keepdims=True))
        if cache["sharpen"]:
            # d(entropy)/d(score_j) = -a_j (log a_j + entropy)
            de -= (cache["sharpen"] * mask[:, t] / count)[:, None] * w * (
                st["log_w"] + st["entropy"][:, None])
        g["att_v"] += np.einsum("bn,bna->a", de, st["pre"])
        dpre = de[:, :, None] * p["att_v"] * (1 - st["pre"] ** 2)  # B x N x A
        g["att_Wf"] += np.einsum("bna,bnd->ad", dpre, feats)
        g["att_b"] += dpre.sum(axis=(0, 1))
        dquery = dpre.sum(axis=1)  # B x A
        g["att_Ws"] += dquery.T @ st["s_prev"]
        ds = ds + dquery @ p["att_Ws"]
    g["s0"] += ds.sum(axis=0)
    return g


def loss_and_grads(p, feats, inputs, targets, mask, sharpen: float = 0.0):
    loss, cache = forward(p, feats, inputs, targets, mask, sharpen)
    return loss, backward(p, cache)


def decode(p, feats: np.ndarray, start: int, end: int, max_len: int,
           forced: list[int] | None = None) -> list[dict]:
    """Greedy decoding of one image (``feats`` N x D), or teacher-forced on ``forced``.

    Returns one record per written word: ``word`` (id), ``state`` (s_t),
    ``query`` (s_{t-1}), ``scores``, ``weights``, ``context``, ``probs``.
    Greedy decoding stops at <END> (not included) or after ``max_len`` words.
    """
    f = feats[None]
    keys = f @ p["att_Wf"].T + p["att_b"]
    s = p["s0"][None].copy()
    y = start
    out = []
    steps = len(forced) if forced is not None else max_len
    for t in range(steps):
        st = step(p, np.array([y]), s, f, keys)
        word = forced[t] if forced is not None else int(np.argmax(st["probs"][0]))
        if forced is None and word == end:
            break
        out.append(dict(word=word, query=s[0].copy(), state=st["state"][0], scores=st["scores"][0],
                        weights=st["weights"][0], context=st["context"][0], probs=st["probs"][0]))
        s, y = st["state"], word
    return out
