"""The unguided-attention search of issue 23: train the translator with
attention on the translation loss alone under one setting, and log its
held-out exact match and alignment every ``--every`` steps as JSON lines.

    python scripts/attention_search.py TAG [key=value ...] [--every 1000] [--out FILE]

Keys: any ``TrainConfig`` field (``steps``, ``learning_rate``,
``train_size``, ``embedding``, ``hidden``, ``seed``...), and
``sched=linear|exp`` (the learning rate decays linearly, as ``train()``
does, or exponentially, to a tenth). The loop is ``train()``'s; only the
decay's rounding differs, which is enough for a run to end elsewhere
(docs/trained-models.md, "Learned, not taught"). That page's table was made with it;
``render.py train`` makes the shipped weights.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from attention_core.text import END, START  # noqa: E402
from attention_core.training import Adam  # noqa: E402
from attention_core.translator import model  # noqa: E402
from attention_core.translator.train import (  # noqa: E402
    DEFAULT_CONFIG,
    Weights,
    _ids,
    corpus_for,
    evaluate,
    source_vocabulary,
    target_vocabulary,
)

__all__ = ["run"]


def run(tag: str, out: Path, every: int = 1000, sched: str = "linear", **settings: float) -> None:
    """Train one setting unguided and append its measures to ``out``."""
    cfg = replace(DEFAULT_CONFIG, guide=0.0, **settings)
    corpus = corpus_for(cfg)
    sv, tv = source_vocabulary(), target_vocabulary()
    si, ti = {w: i for i, w in enumerate(sv)}, {w: i for i, w in enumerate(tv)}
    rng = np.random.default_rng([cfg.seed, 7])
    params = model.init_params(rng, len(sv), len(tv), cfg.embedding, cfg.hidden, cfg.attention)
    src, tgt = _ids(corpus.train, si, ti)
    n = len(src)
    adam = Adam(params, cfg.learning_rate)
    order, pos, losses = rng.permutation(n), 0, []
    cpu0 = time.process_time()
    for step in range(cfg.steps):
        if pos + cfg.batch_size > n:
            order, pos = rng.permutation(n), 0
        idx = order[pos: pos + cfg.batch_size]
        pos += cfg.batch_size
        batch = model.make_batch([src[i] for i in idx], [tgt[i] for i in idx], ti[START], ti[END])
        loss, grads = model.loss_and_grads(params, batch, cfg.attention, 0.0)
        norm = np.sqrt(sum(float((g * g).sum()) for g in grads.values()))
        if norm > 5.0:
            for g in grads.values():
                g *= 5.0 / norm
        frac = step / max(1, cfg.steps - 1)
        lr = cfg.learning_rate * ((1.0 - 0.9 * frac) if sched == "linear" else 0.1 ** frac)
        adam.step(params, grads, lr)
        losses.append(loss)
        if (step + 1) % every == 0 or step + 1 == cfg.steps:
            ev = evaluate(Weights(config=cfg, params=params, source_vocab=sv, target_vocab=tv), corpus.held_out)
            record = dict(tag=tag, step=step + 1, loss=float(np.mean(losses[-50:])), exact=ev.exact_match,
                          align=ev.alignment, cpu=time.process_time() - cpu0, sched=sched, **settings)
            print(json.dumps(record), flush=True)
            with out.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tag")
    ap.add_argument("settings", nargs="*", help="key=value")
    ap.add_argument("--every", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path("attention_search.jsonl"))
    args = ap.parse_args()
    known = {f.name: f.type for f in fields(DEFAULT_CONFIG)}
    settings: dict = {}
    sched = "linear"
    for item in args.settings:
        key, _, value = item.partition("=")
        if key == "sched" and value in ("linear", "exp"):
            sched = value
        elif key in known and key not in ("attention", "guide"):
            settings[key] = float(value) if "." in value or "e" in value else int(value)
        else:
            sys.exit(f"attention_search: unknown setting {item!r} (a TrainConfig field, or sched=linear|exp)")
    run(args.tag, args.out, args.every, sched, **settings)


if __name__ == "__main__":
    main()
