"""The numbers file's ``[model]`` table: which translator weights to use.

::

    [model]
    weights = "trained"     # or "seeded": untrained values from the seed
    seed = 0                # training seed (corpus and initial values)
    embedding = 12          # x_t, 2 to 16
    hidden = 12             # h_t, s_t and the French embeddings e_w, 2 to 16
    steps = 6000            # training steps
    batch_size = 64
    learning_rate = 0.02
    attention = true        # false: the decoder sees only h_T
    guide = 0.0             # weight of guided-alignment training, 0 to 10 (0: translation loss only)

Settings equal to the defaults use the weights shipped with the package
(their twin without attention is the shipped plain network, trained for
3000 steps at learning rate 0.01 on 4000 sentences; the attention network
trains on 8000); other settings train once (see ``render.py train``) and are cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..numbers_parsing import NumbersError, as_int, as_number, as_str, as_table, check_keys
from .corpus import source_words
from .train import DEFAULT_CONFIG, TrainConfig, plain_config

__all__ = ["ModelSettings", "parse_model_table", "WEIGHT_KINDS"]

WEIGHT_KINDS = ("trained", "seeded")
MAX_SIZE = 16  # largest embedding / hidden size a [model] table may ask for
_KEYS = {"weights", "seed", "embedding", "hidden", "steps", "batch_size", "learning_rate",
         "attention", "guide"}


@dataclass(frozen=True)
class ModelSettings:
    """A validated ``[model]`` table."""

    weights: str = "trained"
    config: TrainConfig = DEFAULT_CONFIG
    explicit: bool = False  # True when the numbers file has a [model] table

    @property
    def plain(self) -> ModelSettings:
        """The same settings for the translator without attention (the
        plain encoder-decoder of the Part 1 scenes)."""
        return replace(self, config=plain_config(self.config))


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise NumbersError(f"{where}: expected true or false, got {value!r}")
    return value


def _float(value: Any, where: str, lo: float, hi: float, lo_open: bool = False) -> float:
    v = as_number(value, where)
    if (v <= lo if lo_open else v < lo) or v > hi:
        low = f"above {lo:g}" if lo_open else f"from {lo:g}"
        raise NumbersError(f"{where}: expected a number {low} to {hi:g}, got {value!r}")
    return v


def parse_model_table(value: Any, source_tokens: tuple[str, ...]) -> ModelSettings | None:
    """Validate ``[model]``; ``None`` when the table is absent.

    With ``weights = "trained"`` every source word must be one the grammar
    knows, since the trained model has embeddings only for those.
    """
    if value is None:
        return None
    table: Mapping[str, Any] = as_table(value, "model")
    check_keys(table, _KEYS, "model")
    weights = as_str(table.get("weights", "trained"), "model.weights")
    if weights not in WEIGHT_KINDS:
        raise NumbersError(f"model.weights: expected \"trained\" or \"seeded\", got {weights!r}")
    d = DEFAULT_CONFIG
    hidden = as_int(table.get("hidden", d.hidden), "model.hidden", 2, MAX_SIZE)
    lr = _float(table.get("learning_rate", d.learning_rate), "model.learning_rate", 0.0, 1.0, lo_open=True)
    guide = _float(table.get("guide", d.guide), "model.guide", 0.0, 10.0)
    config = replace(
        d,
        seed=as_int(table.get("seed", d.seed), "model.seed", 0, 2**32 - 1),
        embedding=as_int(table.get("embedding", d.embedding), "model.embedding", 2, MAX_SIZE),
        hidden=hidden,
        steps=as_int(table.get("steps", d.steps), "model.steps", 1, 100_000),
        batch_size=as_int(table.get("batch_size", d.batch_size), "model.batch_size", 1, 1024),
        learning_rate=lr,
        attention=_bool(table.get("attention", d.attention), "model.attention"),
        guide=guide,
    )
    if weights == "trained":
        known = set(source_words())
        unknown = [w for w in dict.fromkeys(source_tokens) if w not in known]
        if unknown:
            raise NumbersError(
                f"sentences.source: the trained translator does not know {', '.join(map(repr, unknown))} "
                f"(only the grammar's {len(known)} English words; or set model.weights = \"seeded\")"
            )
    return ModelSettings(weights=weights, config=config, explicit=True)
