"""The map of sentence encodings (after Sutskever et al., 2014, figure 2).

Each sentence of ``[hidden_state_map] sentences`` is read by the SAME
encoder as the encoder scene: the translator trained without attention
(its point is ``h_T``, the vector its decoder gets), or the small
seeded tanh RNN (its point is ``h_T``) when the scenes show that one or a
map sentence has a word the translator does not know. PCA
(:mod:`attention_core.pca`) draws the points in 2-D. For the tanh RNN the
sentences' words join the source vocabulary (appended, and seeded per
word, so no existing embedding changes).

Each sentence may carry a topic (an entry ``["The cat eats fish", "animals
eat"]`` instead of a bare sentence, so a topic travels with its sentence when
a numbers file replaces the list): the map colours points by topic and the core measures what the
map shows: how many sentences lie nearest a sentence of their own topic, and
how far apart sentences made of the same words in another order lie (Sutskever
et al.'s "John admires Mary" / "Mary admires John"), against the median
distance between any two sentences.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import maths
from .numbers_parsing import MAX_TOKENS, NumbersError, as_str, as_table, check_keys
from .pca import pca
from .text import Vocabulary, tokenize

__all__ = [
    "SENTENCE_COUNT_RANGE",
    "TOPIC_CHARS",
    "MapSentences",
    "DEFAULT_MAP_SENTENCES",
    "DEFAULT_MAP",
    "word_order_pairs",
    "nearest_neighbours",
    "parse_hidden_state_map",
    "HiddenStateMapTrace",
    "compute_hidden_state_map",
    "map_from_states",
]

SENTENCE_COUNT_RANGE = (3, 12)
#: A topic name is at most this long (it is a legend entry).
TOPIC_CHARS = 24


@dataclass(frozen=True)
class MapSentences:
    """The ``[hidden_state_map]`` table: sentences and one topic each ("" for none)."""

    sentences: tuple[str, ...]
    topics: tuple[str, ...]


# Short sentences the translator can read, in three topics; two pairs use
# the same words in another order. Mirrored in default_numbers.toml.
DEFAULT_MAP = MapSentences(
    sentences=(
        "The cat eats fish",
        "The black cat eats bread",
        "A dog eats cheese",
        "The cat sees the dog",
        "The dog sees the cat",
        "The horse likes the cow",
        "The cow likes the horse",
        "Economic growth has slowed down",
        "Global trade increases every year",
        "The market has fallen",
    ),
    topics=("animals eat", "animals eat", "animals eat", "animals meet", "animals meet",
            "animals meet", "animals meet", "economy", "economy", "economy"),
)
DEFAULT_MAP_SENTENCES: tuple[str, ...] = DEFAULT_MAP.sentences


def parse_hidden_state_map(value: Any) -> MapSentences:
    """Validate ``[hidden_state_map]``: 3-12 distinct sentences of 1-12 words,
    each a string or a ``[sentence, topic]`` pair (a topic of at most 24
    characters; a bare sentence has none).

    Raises
    ------
    NumbersError
        Naming the key and what was expected.
    """
    if value is None:
        return DEFAULT_MAP
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
    topics: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for i, entry in enumerate(raw):
        where = f"hidden_state_map.sentences[{i}]"
        topic = ""
        if isinstance(entry, list):
            if len(entry) != 2:
                raise NumbersError(f"{where}: expected a sentence or a [sentence, topic] pair, "
                                   f"got a list of {len(entry)}")
            entry, topic = entry
            topic = " ".join(as_str(topic, f"{where}[1]").split())
            if len(topic) > TOPIC_CHARS:
                raise NumbersError(f"{where}[1]: expected a topic of at most {TOPIC_CHARS} "
                                   f"characters, got {len(topic)}")
        text = as_str(entry, where).strip()
        toks = tokenize(text)
        if not toks:
            raise NumbersError(f"{where}: expected a sentence with at least one word, got {text!r}")
        if len(toks) > MAX_TOKENS:
            raise NumbersError(f"{where}: expected at most {MAX_TOKENS} words, got {len(toks)}")
        if toks in seen:
            raise NumbersError(f"{where}: expected distinct sentences, {text!r} repeats an earlier one")
        seen.add(toks)
        sentences.append(text)
        topics.append(topic)
    return MapSentences(tuple(sentences), tuple(topics))


def word_order_pairs(tokens: Sequence[Sequence[str]]) -> tuple[tuple[int, int], ...]:
    """Pairs ``(i, j)``, ``i < j``, of sentences made of the same words in another order.

    >>> word_order_pairs([("the", "cat", "sees", "the", "dog"), ("a", "dog"),
    ...                   ("the", "dog", "sees", "the", "cat")])
    ((0, 2),)
    """
    bags = [sorted(t) for t in tokens]
    return tuple((i, j) for i in range(len(bags)) for j in range(i + 1, len(bags))
                 if bags[i] == bags[j] and tuple(tokens[i]) != tuple(tokens[j]))


def nearest_neighbours(points: np.ndarray) -> np.ndarray:
    """For each point, the index of the nearest other point (the first on a tie)."""
    pts = np.asarray(points, dtype=float)
    d = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=-1)
    np.fill_diagonal(d, np.inf)
    return np.argmin(d, axis=1)


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
    # One topic per sentence ("": none given); the topics in order of first use.
    topics: tuple[str, ...] = ()
    # What the map shows, measured on the projected points (map units).
    word_order_pairs: tuple[tuple[int, int], ...] = ()
    pair_distances: np.ndarray = field(default_factory=lambda: np.zeros(0))  # map distance of each word-order pair
    median_distance: float = 0.0  # median map distance over all pairs of sentences
    nearest: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))  # each point's nearest other point
    topic_sentences: int = 0  # sentences with a topic
    same_topic_nearest: int = 0  # of those, how many lie nearest one of their own topic

    @property
    def topic_order(self) -> tuple[str, ...]:
        """The distinct topics given, in order of first use (the legend)."""
        return tuple(dict.fromkeys(t for t in self.topics if t))

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
            "topics": list(self.topics),
            "word_order_pairs": [list(p) for p in self.word_order_pairs],
            "pair_distances": self.pair_distances.tolist(),
            "median_distance": self.median_distance,
            "nearest": self.nearest.tolist(),
            "topic_sentences": self.topic_sentences,
            "same_topic_nearest": self.same_topic_nearest,
        }


def compute_hidden_state_map(
    sentences: Sequence[str],
    vocab: Vocabulary,
    embeddings: np.ndarray,
    W_x: np.ndarray,
    W_h: np.ndarray,
    b: np.ndarray,
    topics: Sequence[str] | None = None,
) -> HiddenStateMapTrace:
    """Encode each sentence with the encoder RNN and project the ``h_T`` by PCA.

    ``vocab`` must contain every word of ``sentences`` (the trace adds them).
    """
    tokens = tuple(tokenize(s) for s in sentences)
    states = np.array([
        maths.encoder_unroll(embeddings[list(vocab.indices(t))], W_x, W_h, b)[-1] for t in tokens
    ])
    return map_from_states(sentences, states, topics=topics)


def map_from_states(sentences: Sequence[str], states: np.ndarray, topics: Sequence[str] | None = None,
                    **encoder: Any) -> HiddenStateMapTrace:
    """Project one final state per sentence on the first two principal
    components and measure the map; ``encoder`` fills ``network``,
    ``trained``, ``unknown_words``."""
    tokens = tuple(tokenize(s) for s in sentences)
    topics = tuple(topics) if topics is not None else ("",) * len(tokens)
    fit = pca(np.asarray(states, dtype=float), n_components=2)
    points = fit.projected
    pairs = word_order_pairs(tokens)
    n = len(tokens)
    all_distances = [float(np.linalg.norm(points[i] - points[j])) for i in range(n) for j in range(i + 1, n)]
    nearest = nearest_neighbours(points)
    labelled = [i for i in range(n) if topics[i]]
    return HiddenStateMapTrace(
        **encoder,
        topics=topics,
        word_order_pairs=pairs,
        pair_distances=_ro([np.linalg.norm(points[i] - points[j]) for i, j in pairs]),
        median_distance=float(np.median(all_distances)),
        nearest=np.asarray(nearest, dtype=int),
        topic_sentences=len(labelled),
        same_topic_nearest=sum(topics[int(nearest[i])] == topics[i] for i in labelled),
        sentences=tuple(sentences),
        tokens=tokens,
        states=_ro(states),
        mean=_ro(fit.mean),
        components=_ro(fit.components),
        explained_variance=_ro(fit.explained_variance),
        explained_variance_ratio=_ro(fit.explained_variance_ratio),
        projected=_ro(fit.projected),
    )
