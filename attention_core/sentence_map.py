"""The map of sentence encodings (after Sutskever et al., 2014, figure 2).

Each sentence of ``[hidden_state_map] sentences`` is read by the SAME
encoder as the encoder scene: the translator trained without attention
(its point is ``h_T``, the vector its decoder gets), or the small
seeded tanh RNN (its point is ``h_T``) when the scenes show that one or a
map sentence has a word the translator does not know. PCA
(:mod:`attention_core.pca`) draws the points in 2-D. For the tanh RNN the
sentences' words join the source vocabulary (appended, and seeded per
word, so no existing embedding changes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import maths
from .numbers_file import MAX_TOKENS, NumbersError, as_str, as_table, check_keys
from .pca import pca
from .text import Vocabulary, tokenize

__all__ = [
    "SENTENCE_COUNT_RANGE",
    "DEFAULT_MAP_SENTENCES",
    "parse_hidden_state_map",
    "HiddenStateMapTrace",
    "compute_hidden_state_map",
    "map_from_states",
]

SENTENCE_COUNT_RANGE = (3, 12)

# Short sentences the translator can read, in three meaning groups (animals
# eating, animals moving or sleeping, the economy). Mirrored in
# default_numbers.toml.
DEFAULT_MAP_SENTENCES: tuple[str, ...] = (
    "The cat eats fish",
    "The black cat eats bread",
    "A dog eats cheese",
    "The horse sleeps",
    "The mouse runs today",
    "Economic growth has slowed down",
    "Global trade increases every year",
    "The market has fallen",
)


def parse_hidden_state_map(value: Any) -> tuple[str, ...]:
    """Validate ``[hidden_state_map]``: 3-12 distinct sentences of 1-12 words.

    Raises
    ------
    NumbersError
        Naming the key and what was expected.
    """
    if value is None:
        return DEFAULT_MAP_SENTENCES
    table = as_table(value, "hidden_state_map")
    check_keys(table, {"sentences"}, "hidden_state_map")
    if "sentences" not in table:
        raise NumbersError("hidden_state_map.sentences: missing (required in this table)")
    raw = table["sentences"]
    lo, hi = SENTENCE_COUNT_RANGE
    if not isinstance(raw, list) or not lo <= len(raw) <= hi:
        shown = len(raw) if isinstance(raw, list) else repr(raw)
        raise NumbersError(
            f"hidden_state_map.sentences: expected a list of {lo} to {hi} sentences, got {shown}"
        )
    sentences: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for i, s in enumerate(raw):
        where = f"hidden_state_map.sentences[{i}]"
        text = as_str(s, where).strip()
        toks = tokenize(text)
        if not toks:
            raise NumbersError(f"{where}: expected a sentence with at least one word, got {text!r}")
        if len(toks) > MAX_TOKENS:
            raise NumbersError(f"{where}: expected at most {MAX_TOKENS} words, got {len(toks)}")
        if toks in seen:
            raise NumbersError(f"{where}: expected distinct sentences, {text!r} repeats an earlier one")
        seen.add(toks)
        sentences.append(text)
    return tuple(sentences)


def _ro(a: Any) -> np.ndarray:
    out = np.array(a, dtype=float)
    out.flags.writeable = False
    return out


@dataclass(frozen=True)
class HiddenStateMapTrace:
    """Final encoder states of the map's sentences and their 2-D projection."""

    sentences: tuple[str, ...]
    tokens: tuple[tuple[str, ...], ...]
    states: np.ndarray  # N x H: h_T of each sentence
    mean: np.ndarray  # H
    components: np.ndarray  # 2 x H, orthonormal rows
    explained_variance: np.ndarray  # 2
    explained_variance_ratio: np.ndarray  # 2
    projected: np.ndarray  # N x 2: (PC1, PC2) of each sentence
    # Which encoder read them: "translator" (the GRU translator without
    # attention; trained unless ``trained`` is False) or "tanh" (the small
    # seeded RNN of the encoder section).
    network: str = "tanh"
    trained: bool = False
    # Map words the trained translator does not know (why it fell back to tanh).
    unknown_words: tuple[str, ...] = ()

    @property
    def explained_variance_percent(self) -> np.ndarray:
        """The shares of variance as shown on the axes, in percent."""
        return 100 * self.explained_variance_ratio

    def to_dict(self) -> dict[str, Any]:
        return {
            "sentences": list(self.sentences),
            "tokens": [list(t) for t in self.tokens],
            "states": self.states.tolist(),
            "mean": self.mean.tolist(),
            "components": self.components.tolist(),
            "explained_variance": self.explained_variance.tolist(),
            "explained_variance_ratio": self.explained_variance_ratio.tolist(),
            # As shown on the axes: "PC1 (xx.xx % of variance)".
            "explained_variance_percent": self.explained_variance_percent.tolist(),
            "projected": self.projected.tolist(),
            "network": self.network,
            "trained": self.trained,
            "unknown_words": list(self.unknown_words),
        }


def compute_hidden_state_map(
    sentences: Sequence[str],
    vocab: Vocabulary,
    embeddings: np.ndarray,
    W_x: np.ndarray,
    W_h: np.ndarray,
    b: np.ndarray,
) -> HiddenStateMapTrace:
    """Encode each sentence with the encoder RNN and project the ``h_T`` by PCA.

    ``vocab`` must contain every word of ``sentences`` (the trace adds them).
    """
    tokens = tuple(tokenize(s) for s in sentences)
    states = np.array([
        maths.encoder_unroll(embeddings[list(vocab.indices(t))], W_x, W_h, b)[-1] for t in tokens
    ])
    return map_from_states(sentences, states)


def map_from_states(sentences: Sequence[str], states: np.ndarray, **encoder: Any) -> HiddenStateMapTrace:
    """Project one final state per sentence on the first two principal
    components; ``encoder`` fills ``network``, ``trained``, ``unknown_words``."""
    tokens = tuple(tokenize(s) for s in sentences)
    fit = pca(np.asarray(states, dtype=float), n_components=2)
    return HiddenStateMapTrace(
        **encoder,
        sentences=tuple(sentences),
        tokens=tokens,
        states=_ro(states),
        mean=_ro(fit.mean),
        components=_ro(fit.components),
        explained_variance=_ro(fit.explained_variance),
        explained_variance_ratio=_ro(fit.explained_variance_ratio),
        projected=_ro(fit.projected),
    )
