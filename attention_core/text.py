"""Tokenising sentences and looking words up in vocabularies."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["START", "END", "tokenize", "Vocabulary"]

START = "<START>"
END = "<END>"

# Words are runs of letters, digits and apostrophes ("s'est" stays one word);
# punctuation is dropped, so the draft's 8-word sentence gives h_1 ... h_8.
_WORD = re.compile(r"[\w']+", re.UNICODE)


def tokenize(sentence: str) -> tuple[str, ...]:
    """Split a sentence into lower-case word tokens, dropping punctuation.

    >>> tokenize("Economic growth has slowed down.")
    ('economic', 'growth', 'has', 'slowed', 'down')
    """
    return tuple(m.group(0).lower() for m in _WORD.finditer(sentence))


@dataclass(frozen=True)
class Vocabulary:
    """An ordered list of distinct words; a word's index is its row in the
    embedding table."""

    words: tuple[str, ...]

    @classmethod
    def from_tokens(cls, *token_lists: tuple[str, ...] | list[str]) -> Vocabulary:
        """Distinct words in order of first appearance across the lists."""
        seen: dict[str, None] = {}
        for tokens in token_lists:
            for tok in tokens:
                seen.setdefault(tok, None)
        return cls(tuple(seen))

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def index(self, word: str) -> int:
        """Row of ``word`` in the embedding table; ``KeyError`` if absent."""
        try:
            return self.words.index(word)
        except ValueError:
            raise KeyError(word) from None

    def indices(self, tokens: tuple[str, ...] | list[str]) -> tuple[int, ...]:
        return tuple(self.index(t) for t in tokens)
