"""A small English -> French grammar that writes sentence pairs with their
word alignment known by construction.

Every French token is aligned to exactly one English token (the word it
translates: ``chat`` to ``cat``, ``noir`` to ``black``, an article to the
English article or, where English has none, to the noun it goes with).
Some English words have no French word of their own (``down`` in "has
slowed down", ``in`` in "in the morning"); no target word points at them.

The grammar covers the drafts' sentences:

- "Economic growth has slowed down in recent years" ->
  "la croissance économique s'est ralentie ces dernières années"
- "The cat eats fish" -> "le chat mange du poisson"

and the crossings French word order makes: "the black cat" -> "le chat
noir" (adjective after the noun), "the small black cat" -> "le petit chat
noir" (one before, one after).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..text import tokenize

__all__ = [
    "Pair",
    "Corpus",
    "MAX_PAIR_TOKENS",
    "DRAFT_PAIRS",
    "generate_pairs",
    "make_corpus",
    "source_words",
    "target_words",
]

MAX_PAIR_TOKENS = 12


@dataclass(frozen=True)
class Pair:
    """One sentence pair; ``alignment[i]`` is the source index that target
    token ``i`` translates."""

    source: tuple[str, ...]
    target: tuple[str, ...]
    alignment: tuple[int, ...]

    @property
    def source_sentence(self) -> str:
        return " ".join(self.source)

    @property
    def target_sentence(self) -> str:
        return " ".join(self.target)


# --------------------------------------------------------------------------
# The lexicon
# --------------------------------------------------------------------------

# noun: English, French, gender, kind. "thing" nouns can be eaten or seen,
# "mass" nouns also stand alone as objects ("eats fish" -> "mange du poisson"),
# "economy" nouns go with economic verbs and may drop the English article.
_NOUNS = [
    ("cat", "chat", "m", "animate"),
    ("dog", "chien", "m", "animate"),
    ("horse", "cheval", "m", "animate"),
    ("goat", "chèvre", "f", "animate"),
    ("mouse", "souris", "f", "animate"),
    ("cow", "vache", "f", "animate"),
    ("fish", "poisson", "m", "mass"),
    ("bread", "pain", "m", "mass"),
    ("cheese", "fromage", "m", "mass"),
    ("soup", "soupe", "f", "mass"),
    ("apple", "pomme", "f", "thing"),
    ("car", "voiture", "f", "thing"),
    ("book", "livre", "m", "thing"),
    ("house", "maison", "f", "thing"),
    ("growth", "croissance", "f", "economy"),
    ("trade", "commerce", "m", "economy"),
    ("market", "marché", "m", "economy"),
    ("production", "production", "f", "economy"),
]

# adjective: English, French masculine, French feminine, goes with kinds.
_PRE_ADJECTIVES = [  # French puts these before the noun, like English
    ("small", "petit", "petite", ("animate", "mass", "thing")),
    ("big", "grand", "grande", ("animate", "thing")),
    ("young", "jeune", "jeune", ("animate",)),
]
_POST_ADJECTIVES = [  # French puts these after the noun: the crossings
    ("black", "noir", "noire", ("animate", "thing")),
    ("white", "blanc", "blanche", ("animate", "thing", "mass")),
    ("red", "rouge", "rouge", ("thing", "mass")),
    ("economic", "économique", "économique", ("economy",)),
    ("global", "mondial", "mondiale", ("economy",)),
    ("strong", "fort", "forte", ("economy",)),
]

# Verbs. Each entry: English tokens, French tokens (a callable of the
# subject's gender), alignment of each French token to an English token
# index (relative to the verb), tense ("present" or "perfect").
_TRANSITIVE = [
    (("eats",), ("mange",), (0,), "present", ("mass", "thing")),
    (("sees",), ("voit",), (0,), "present", ("animate", "mass", "thing")),
    (("likes",), ("aime",), (0,), "present", ("animate", "mass", "thing")),
    (("wants",), ("veut",), (0,), "present", ("mass", "thing")),
    (("has", "eaten"), ("a", "mangé"), (0, 1), "perfect", ("mass", "thing")),
    (("has", "seen"), ("a", "vu"), (0, 1), "perfect", ("animate", "mass", "thing")),
]
_ANIMATE_INTRANSITIVE = [
    (("sleeps",), ("dort",), (0,), "present"),
    (("runs",), ("court",), (0,), "present"),
    (("has", "slept"), ("a", "dormi"), (0, 1), "perfect"),
]
# "has slowed down" -> "s'est ralenti(e)": the participle agrees with the
# subject's gender; "down" has no French word of its own. "s'est" is aligned
# to "slowed", not "has": it is the reflexive auxiliary of "se ralentir",
# chosen by the verb ("has increased" is "a augmenté"), and the encoder reads
# left to right, so h_has cannot know yet which auxiliary French needs.
_ECONOMY_VERBS = [
    (("slows", "down"), lambda g: ("ralentit",), (0,), "present"),
    (("has", "slowed", "down"), lambda g: ("s'est", "ralentie" if g == "f" else "ralenti"), (1, 1), "perfect"),
    (("increases",), lambda g: ("augmente",), (0,), "present"),
    (("has", "increased"), lambda g: ("a", "augmenté"), (0, 1), "perfect"),
    (("falls",), lambda g: ("baisse",), (0,), "present"),
    (("has", "fallen"), lambda g: ("a", "baissé"), (0, 1), "perfect"),
]

# Time phrases: English, French, alignment, tenses they go with.
_TIMES = [
    (("today",), ("aujourd'hui",), (0,), ("present", "perfect")),
    (("every", "day"), ("chaque", "jour"), (0, 1), ("present",)),
    (("in", "the", "morning"), ("le", "matin"), (1, 2), ("present",)),
    (("this", "year"), ("cette", "année"), (0, 1), ("present", "perfect")),
    (("yesterday",), ("hier",), (0,), ("perfect",)),
    (("in", "recent", "years"), ("ces", "dernières", "années"), (0, 1, 2), ("perfect",)),
]

_ARTICLES = {"the": {"m": "le", "f": "la"}, "a": {"m": "un", "f": "une"}}
_PARTITIVE = {"m": ("du",), "f": ("de", "la")}

DRAFT_PAIRS: tuple[Pair, ...] = (
    Pair(
        tokenize("Economic growth has slowed down in recent years"),
        tokenize("la croissance économique s'est ralentie ces dernières années"),
        (1, 1, 0, 3, 3, 5, 6, 7),
    ),
    Pair(tokenize("The cat eats fish"), tokenize("le chat mange du poisson"), (0, 1, 2, 3, 3)),
    Pair(tokenize("The black cat eats fish"), tokenize("le chat noir mange du poisson"),
         (0, 2, 1, 3, 4, 4)),
)


class _Builder:
    """Appends English and French tokens and keeps the alignment in step."""

    def __init__(self) -> None:
        self.src: list[str] = []
        self.tgt: list[str] = []
        self.align: list[int] = []

    def add(self, en: tuple[str, ...], fr: tuple[str, ...], links: tuple[int, ...]) -> None:
        base = len(self.src)
        self.src.extend(en)
        self.tgt.extend(fr)
        self.align.extend(base + i for i in links)

    def pair(self) -> Pair:
        return Pair(tuple(self.src), tuple(self.tgt), tuple(self.align))


def _pick(rng: np.random.Generator, items):
    return items[int(rng.integers(len(items)))]


def _noun_phrase(rng: np.random.Generator, b: _Builder, kinds: tuple[str, ...], role: str) -> None:
    """Article, adjectives and noun, in English order and in French order."""
    noun = _pick(rng, [n for n in _NOUNS if n[3] in kinds])
    en_noun, fr_noun, g, kind = noun
    pre = [a for a in _PRE_ADJECTIVES if kind in a[3]]
    post = [a for a in _POST_ADJECTIVES if kind in a[3]]
    use_pre = pre and rng.random() < 0.3
    use_post = post and rng.random() < 0.45
    pre_a = _pick(rng, pre) if use_pre else None
    post_a = _pick(rng, post) if use_post else None

    # The article: "the"/"a"; economy subjects may go without one in English
    # ("economic growth"), mass objects may too ("eats fish" -> "du poisson").
    r = rng.random()
    if kind == "economy" and r < 0.5:
        article = None
    elif kind == "mass" and role == "object" and r < 0.5:
        article = "partitive"
    else:
        article = "the" if rng.random() < 0.7 else "a"

    start = len(b.src)
    en: list[str] = []
    if article in _ARTICLES:
        en.append(article)
    if pre_a:
        en.append(pre_a[0])
    if post_a:
        en.append(post_a[0])
    en.append(en_noun)
    idx = {w: start + i for i, w in enumerate(en)}
    noun_i = start + len(en) - 1

    fr: list[str] = []
    links: list[int] = []
    if article in _ARTICLES:
        fr.append(_ARTICLES[article][g]); links.append(idx[article])
    elif article == "partitive":
        for w in _PARTITIVE[g]:
            fr.append(w); links.append(noun_i)
    else:  # French needs the article English left out
        fr.append(_ARTICLES["the"][g]); links.append(noun_i)
    if pre_a:
        fr.append(pre_a[1] if g == "m" else pre_a[2]); links.append(idx[pre_a[0]])
    fr.append(fr_noun); links.append(noun_i)
    if post_a:
        fr.append(post_a[1] if g == "m" else post_a[2]); links.append(idx[post_a[0]])
    b.src.extend(en)
    b.tgt.extend(fr)
    b.align.extend(links)
    b.gender = g  # type: ignore[attr-defined]
    b.kind = kind  # type: ignore[attr-defined]


def _sentence(rng: np.random.Generator) -> Pair:
    b = _Builder()
    if rng.random() < 0.35:
        _noun_phrase(rng, b, ("economy",), "subject")
        en, fr_of, links, tense = _pick(rng, _ECONOMY_VERBS)
        b.add(en, fr_of(b.gender), links)  # type: ignore[attr-defined]
    else:
        _noun_phrase(rng, b, ("animate",), "subject")
        if rng.random() < 0.7:
            en, fr, links, tense, objects = _pick(rng, _TRANSITIVE)
            b.add(en, fr, links)
            _noun_phrase(rng, b, objects, "object")
        else:
            en, fr, links, tense = _pick(rng, _ANIMATE_INTRANSITIVE)
            b.add(en, fr, links)
    if rng.random() < 0.5:
        times = [t for t in _TIMES if tense in t[3]]
        en, fr, links, _ = _pick(rng, times)
        b.add(en, fr, links)
    return b.pair()


def generate_pairs(seed: int, count: int) -> list[Pair]:
    """``count`` distinct pairs of at most 12 tokens each side, the same
    ones for the same seed."""
    rng = np.random.default_rng(seed)
    seen: set[tuple[str, ...]] = set()
    pairs: list[Pair] = []
    tries = 0
    while len(pairs) < count:
        tries += 1
        if tries > 50 * count:
            raise ValueError(f"the grammar cannot make {count} distinct pairs")
        p = _sentence(rng)
        if len(p.source) > MAX_PAIR_TOKENS or len(p.target) > MAX_PAIR_TOKENS:
            continue
        if p.source in seen:
            continue
        seen.add(p.source)
        pairs.append(p)
    return pairs


def source_words() -> tuple[str, ...]:
    """Every English word the grammar can write, in a fixed order."""
    words: dict[str, None] = {}
    for w in _ARTICLES:
        words[w] = None
    for n in _NOUNS:
        words[n[0]] = None
    for a in _PRE_ADJECTIVES + _POST_ADJECTIVES:
        words[a[0]] = None
    for v in _TRANSITIVE + _ANIMATE_INTRANSITIVE + _ECONOMY_VERBS:
        for w in v[0]:
            words[w] = None
    for t in _TIMES:
        for w in t[0]:
            words[w] = None
    return tuple(words)


def target_words() -> tuple[str, ...]:
    """Every French word the grammar can write, in a fixed order."""
    words: dict[str, None] = {}
    for g in ("m", "f"):
        for art in _ARTICLES.values():
            words[art[g]] = None
        for w in _PARTITIVE[g]:
            words[w] = None
    for n in _NOUNS:
        words[n[1]] = None
    for a in _PRE_ADJECTIVES + _POST_ADJECTIVES:
        words[a[1]] = None
        words[a[2]] = None
    for v in _TRANSITIVE + _ANIMATE_INTRANSITIVE:
        for w in v[1]:
            words[w] = None
    for v in _ECONOMY_VERBS:
        for g in ("m", "f"):
            for w in v[1](g):
                words[w] = None
    for t in _TIMES:
        for w in t[1]:
            words[w] = None
    return tuple(words)


@dataclass(frozen=True)
class Corpus:
    """Training and held-out pairs; no held-out source sentence is in training."""

    seed: int
    train: tuple[Pair, ...]
    held_out: tuple[Pair, ...]

    def fingerprint(self) -> str:
        """A hash of every pair, so cached weights match their corpus."""
        h = hashlib.sha256()
        for part in (self.train, self.held_out):
            for p in part:
                h.update(" ".join(p.source).encode())
                h.update(b"|")
                h.update(" ".join(p.target).encode())
                h.update(b"|")
                h.update(",".join(map(str, p.alignment)).encode())
                h.update(b"\n")
            h.update(b"#")
        return h.hexdigest()


def make_corpus(seed: int, train_size: int, held_out_size: int) -> Corpus:
    """Draw distinct pairs and split them; the drafts' pairs are always in
    the training part (the scenes translate them)."""
    drafts = {p.source for p in DRAFT_PAIRS}
    pairs = [p for p in generate_pairs(seed, train_size + held_out_size + len(DRAFT_PAIRS))
             if p.source not in drafts]
    held = tuple(pairs[:held_out_size])
    train = tuple([*DRAFT_PAIRS, *pairs[held_out_size:held_out_size + train_size - len(DRAFT_PAIRS)]])
    return Corpus(seed=seed, train=train, held_out=held)
