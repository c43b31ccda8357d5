"""What the two trained networks (the translator and the captioner) share:
the Adam optimiser and the format of their shipped weight files.

A weight file is a compressed ``.npz``: one float32 array per parameter and a
``meta`` entry holding JSON (training settings, vocabularies, measured
figures). It is written under a temporary name and moved into place, so a
crash never leaves half a file where the shipped weights are looked for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["Adam", "save_weights", "read_weights"]


class Adam:
    """Adam (Kingma and Ba 2015) over a dict of parameter arrays, updated in place."""

    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.b1, self.b2, self.eps = lr, 0.9, 0.999, 1e-8
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray], lr: float) -> None:
        self.t += 1
        c1, c2 = 1 - self.b1**self.t, 1 - self.b2**self.t
        for k, g in grads.items():
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            params[k] -= lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)


def save_weights(path: Path, meta: dict[str, Any], params: dict[str, np.ndarray]) -> None:
    """Write ``params`` (as float32) and ``meta`` (as JSON) to ``path`` atomically."""
    tmp = Path(str(path) + ".tmp.npz")
    np.savez_compressed(tmp, meta=np.array(json.dumps(meta)),
                        **{k: v.astype(np.float32) for k, v in params.items()})
    os.replace(tmp, path)


def read_weights(source: Any, names: Iterable[str]) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, params)`` of a weight file: the named parameters it holds, as float64."""
    with np.load(source) as data:
        meta = json.loads(str(data["meta"]))
        params = {k: data[k].astype(float) for k in names if k in data.files}
    return meta, params
