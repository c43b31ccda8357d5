"""Seeded parameters: every random number comes from here.

Each named parameter gets its own generator, seeded by the numbers file's
seed and the parameter's name. So replacing one parameter (or adding a word
to a vocabulary) leaves every other value exactly as it was, and renders of
scenes that do not show it stay valid.

Seeded values are rounded to the two decimals the scenes show, so a reader
who recomputes a result by hand from the numbers on screen gets the result
on screen.
"""

from __future__ import annotations

import zlib

import numpy as np

__all__ = ["SHOWN_DECIMALS", "rng_for", "seeded_normal", "seeded_embeddings"]

SHOWN_DECIMALS = 2


def rng_for(seed: int, name: str) -> np.random.Generator:
    """An independent generator for the parameter called ``name``."""
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


def seeded_normal(seed: int, name: str, shape: tuple[int, ...], scale: float) -> np.ndarray:
    """Normal values of standard deviation ``scale``, rounded as shown."""
    values = rng_for(seed, name).normal(0.0, scale, size=shape)
    return np.round(values, SHOWN_DECIMALS) + 0.0  # + 0.0 turns -0.0 into 0.0


def seeded_embeddings(
    seed: int,
    table: str,
    words: tuple[str, ...],
    dim: int,
    explicit: dict[str, np.ndarray] | None = None,
) -> np.ndarray:
    """An embedding table, one row per word, each row seeded by its word.

    ``explicit`` rows (from the numbers file) replace the seeded ones.
    """
    explicit = explicit or {}
    rows = []
    for word in words:
        if word in explicit:
            rows.append(np.asarray(explicit[word], dtype=float))
        else:
            rows.append(seeded_normal(seed, f"{table}.{word}", (dim,), 0.5))
    return np.array(rows, dtype=float).reshape(len(words), dim)
