"""The long-sentence experiment: the same translator trained twice, once
with attention and once without (the decoder sees only h_T), and
tested on sentences of every source length.

    python scripts/length_experiment.py [--per-length 60] [--out FILE]

Writes ``attention_core/translator/length_curves.json`` (shipped with the
package, exported in the Trace as ``length_experiment``, drawn by the
``length_curve`` scene). Takes about two training runs (see the report).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from attention_core.translator.corpus import generate_pairs, make_corpus  # noqa: E402
from attention_core.translator.train import (  # noqa: E402
    DEFAULT_CONFIG,
    load_or_train,
    training_note,
    translate_ids,
)

OUT = ROOT / "attention_core" / "translator" / "length_curves.json"
TEST_SEED = 12345


def test_pairs(corpus, per_length: int):
    """Up to ``per_length`` unseen pairs for each source length."""
    seen = {p.source for p in corpus.train}
    by_len: dict[int, list] = {}
    for p in generate_pairs(TEST_SEED, 20000):
        if p.source in seen:
            continue
        bucket = by_len.setdefault(len(p.source), [])
        if len(bucket) < per_length:
            bucket.append(p)
    return by_len


def measure(weights, by_len):
    exact, words = {}, {}
    for n, pairs in sorted(by_len.items()):
        got, _ = translate_ids(weights, pairs)
        exact[n] = sum(g == p.target for p, g in zip(pairs, got)) / len(pairs)
        right = sum(sum(a == b for a, b in zip(g, p.target)) for p, g in zip(pairs, got))
        words[n] = right / sum(len(p.target) for p in pairs)
    return exact, words


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-length", type=int, default=60)
    ap.add_argument("--min-sentences", type=int, default=20,
                    help="lengths with fewer test sentences are left out of the curves")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()

    base = DEFAULT_CONFIG
    corpus = make_corpus(base.seed, base.train_size, base.held_out_size)
    by_len = {n: ps for n, ps in test_pairs(corpus, args.per_length).items()
              if len(ps) >= args.min_sentences}
    results = {}
    # The same budget for both (issue 31): the shipped network without attention (PLAIN_CONFIG,
    # 3000 steps at 0.01 on 4000 sentences, the one the Part 1 scenes show) had half the
    # attention network's training, and its curve (5 % exact at 12 words) overstated the gap:
    # trained alike it reaches 72 %. The curves compare networks trained alike.
    for name, cfg in (("with_attention", base), ("without_attention", replace(base, attention=False, guide=0.0))):
        weights = load_or_train(cfg)
        secs = weights.seconds
        exact, words = measure(weights, by_len)
        results[name] = dict(exact_match=[exact[n] for n in sorted(by_len)],
                             word_accuracy=[words[n] for n in sorted(by_len)],
                             training_seconds=round(secs, 1),
                             training_cpu_seconds=round(weights.cpu_seconds, 1), config=cfg.to_dict(),
                             training_note=training_note(cfg))
        print(f"{name}: trained in {secs:.1f} s ({weights.cpu_seconds:.1f} s CPU); exact match by length "
              + ", ".join(f"{n}: {100 * exact[n]:.0f}%" for n in sorted(by_len)))
    data = {
        "description": "held-out exact-match and word accuracy by source sentence length",
        "lengths": sorted(by_len),
        "sentences": [len(by_len[n]) for n in sorted(by_len)],
        "test_seed": TEST_SEED,
        **results,
    }
    args.out.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
