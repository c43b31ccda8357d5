"""Plain JSON-ready dictionaries from the core's frozen record dataclasses."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np

__all__ = ["record_to_dict"]


def record_to_dict(record: Any) -> dict[str, Any]:
    """Every field of a dataclass ``record``, in order: arrays and tuples as
    (nested) lists, numpy scalars as Python numbers, other values as they are."""
    out = {}
    for f in fields(record):
        value = getattr(record, f.name)
        if isinstance(value, (np.ndarray, tuple)):
            value = np.asarray(value).tolist()
        elif isinstance(value, np.generic):
            value = value.item()
        out[f.name] = value
    return out
