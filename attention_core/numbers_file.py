"""Reading and validating the numbers file (TOML).

The numbers file holds every input the animations show. This module turns
it into a frozen :class:`Scenario`, or raises :class:`NumbersError` whose
message is one line naming the file, the key and what was expected.

This module reads the tables it owns (seed, sentences, sizes, vocabulary,
embeddings, encoder); every other top-level table belongs to a section
listed in :mod:`attention_core.numbers_sections`, which parses it with the
shared validators of :mod:`attention_core.numbers_parsing`. A key that no
parser knows is an error, so a typo never passes silently.
"""

from __future__ import annotations

import difflib
import errno
import os
import re
import stat
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .attention import AttentionSpec
from .decoder import DecoderWeights
from .numbers_parsing import (
    MAX_TOKENS,
    SIZE_RANGE,
    VALUE_RANGE,
    NumbersError,
    as_int,
    as_matrix,
    as_str,
    as_table,
    as_vector,
    as_word_list,
    check_keys,
    wrong_value,
)
from .numbers_sections import SECTIONS, SectionContext, section_tables
from .sentence_map import DEFAULT_MAP
from .text import tokenize

__all__ = [
    "NumbersError",
    "Scenario",
    "Sizes",
    "EncoderWeights",
    "DEFAULT_NUMBERS_NAME",
    "default_numbers_text",
    "merge_with_default",
    "starting_file_text",
    "load_numbers",
    "parse_numbers",
    "MAX_TOKENS",
    "MAX_WORD_CHARS",
    "MAX_FILE_BYTES",
    "read_numbers_bytes",
    "SIZE_RANGE",
    "VALUE_RANGE",
    "SUPPORTED_SCRIPTS",
    "check_drawable",
]

DEFAULT_NUMBERS_NAME = "default_numbers.toml"
MAX_EXTRA_WORDS = 30
#: The longest word a numbers file may hold (letters): a longer one cannot be
#: drawn at the 12 px floor in the scenes' cells and notices (issue 25).
MAX_WORD_CHARS = 25
#: The largest numbers file read (bytes): the shipped one is 8 kB; a device
#: such as /dev/zero, or a 50 MB word, is refused before it fills the memory.
MAX_FILE_BYTES = 1_000_000


# --------------------------------------------------------------------------
# Text the fonts can draw
# --------------------------------------------------------------------------

#: Scripts of the letters the theme's DejaVu fonts draw; any other letter
#: (CJK, Arabic, emoji...) would show as an empty box or vanish.
SUPPORTED_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")
_NOT_TEXT = {"cnn.image"}  # paths, not shown as words


def _undrawable(ch: str) -> bool:
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return ch not in "\t\n"  # NUL and other controls: Pango refuses them
    if ord(ch) < 0x80:
        return False
    category = unicodedata.category(ch)
    name = unicodedata.name(ch, "")
    if category[0] == "L":
        return not name.startswith(SUPPORTED_SCRIPTS)
    if category[0] == "M":
        return not name.startswith("COMBINING")
    if category[0] == "N":
        return not name.startswith(("DIGIT", "SUPERSCRIPT", "SUBSCRIPT", "VULGAR FRACTION"))
    if category[0] in "PS":
        # Latin-1 and General Punctuation, and currency signs; not emoji or CJK marks.
        return not (ord(ch) < 0x2070 or 0x20A0 <= ord(ch) <= 0x20CF)
    if category == "Zs":
        return False
    return True  # controls, joiners, private use


def _script_of(ch: str) -> str:
    category = unicodedata.category(ch)
    if category == "So" or 0x1F000 <= ord(ch) or 0x2600 <= ord(ch) <= 0x27BF:
        return "an emoji or symbol"
    if ord(ch) < 0x20 or ord(ch) == 0x7F:
        return "a control character"
    if category[0] in "CZ" or category == "Mn":
        return "an invisible formatting character"
    first = unicodedata.name(ch, "?").split()[0]
    return f"{first if len(first) <= 3 else first.title()} script"


def check_drawable(text: str, where: str) -> None:
    """Raise :class:`NumbersError` if ``text`` has a character the fonts cannot draw.

    The message names the key, the word and the character: a CJK word
    would otherwise draw as empty boxes and an emoji would vanish silently.
    """
    for word in text.split():
        if len(word) > MAX_WORD_CHARS:
            shown = word if len(word) <= 40 else word[:37] + "..."
            raise NumbersError(f"{where}: {shown!r} has {len(word)} characters; a word may have at "
                               f"most {MAX_WORD_CHARS} (longer ones cannot be drawn at a readable size)")
    for i, ch in enumerate(text):
        if _undrawable(ch):
            start = max((text.rfind(c, 0, i) for c in " \t\n"), default=-1) + 1
            ends = [e for e in (text.find(c, i) for c in " \t\n") if e != -1]
            word = text[start:min(ends) if ends else len(text)]
            raise NumbersError(
                f"{where}: {word!r} has {ch!r} (U+{ord(ch):04X}, {_script_of(ch)}), which the "
                "fonts cannot draw; supported: Latin, Greek and Cyrillic letters, digits and "
                "punctuation"
            )


def _composed(node: Any, where: str = "") -> Any:
    """The document with every string in NFC form: an accent typed as a
    separate combining mark joins its letter instead of splitting the word."""
    if where in _NOT_TEXT:
        return node
    if isinstance(node, str):
        return unicodedata.normalize("NFC", node)
    if isinstance(node, Mapping):
        return {unicodedata.normalize("NFC", str(k)): _composed(v, f"{where}.{k}" if where else str(k))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_composed(v, where) for v in node]
    return node


def _check_all_drawable(node: Any, where: str) -> None:
    """Every string and table key in the document, except file paths."""
    if where in _NOT_TEXT:
        return
    if isinstance(node, str):
        check_drawable(node, where)
    elif isinstance(node, Mapping):
        for key, value in node.items():
            inner = f"{where}.{key}" if where else str(key)
            check_drawable(str(key), inner)
            _check_all_drawable(value, inner)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_all_drawable(value, f"{where}[{i}]")


# --------------------------------------------------------------------------
# The scenario
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Sizes:
    embedding: int
    hidden: int


@dataclass(frozen=True)
class EncoderWeights:
    """Explicit encoder RNN weights; ``None`` where the seeded ones are used."""

    W_x: np.ndarray | None = None
    W_h: np.ndarray | None = None
    b: np.ndarray | None = None


@dataclass(frozen=True)
class Scenario:
    """Everything the numbers file says, validated."""

    origin: str
    seed: int
    source_sentence: str
    target_sentence: str
    sizes: Sizes
    source_extra_words: tuple[str, ...] = ()
    target_extra_words: tuple[str, ...] = ()
    source_embeddings: Mapping[str, np.ndarray] = field(default_factory=dict)
    target_embeddings: Mapping[str, np.ndarray] = field(default_factory=dict)
    encoder: EncoderWeights = EncoderWeights()
    # [model]: the trained translator's settings (translator.settings.ModelSettings);
    # None when the table is absent.
    model: Any = None
    # [dot_product] (attention_core.similarity.DotProductInputs); None: the draft's example.
    dot_product: Any = None
    # [hidden_state_map] sentences and topics (attention_core.sentence_map.MapSentences);
    # None: attention_core.sentence_map.DEFAULT_MAP.
    hidden_state_map: Any = None
    cnn: Any = None  # attention_core.cnn.CnnConfig, the [cnn] table
    decoder: DecoderWeights = DecoderWeights()
    output_mapping_step: int | None = None  # None: the default step
    attention: AttentionSpec = AttentionSpec()
    # dot_attention.DotAttentionNumbers; None computes the tables' defaults.
    dot_attention: Any = None

    @property
    def source_tokens(self) -> tuple[str, ...]:
        return tokenize(self.source_sentence)

    @property
    def target_tokens(self) -> tuple[str, ...]:
        return tokenize(self.target_sentence)


def _parse_sentence(value: Any, where: str) -> str:
    sentence = as_str(value, where)
    n = len(tokenize(sentence))
    if n == 0:
        raise wrong_value(where, "a sentence with at least one word", sentence)
    if n > MAX_TOKENS:
        raise NumbersError(f"{where}: expected at most {MAX_TOKENS} words, got {n}")
    return sentence


def _parse_embedding_table(
    value: Any, where: str, dim: int
) -> dict[str, np.ndarray]:
    table = as_table(value, where)
    out: dict[str, np.ndarray] = {}
    for word, vec in table.items():
        toks = tokenize(word)
        if len(toks) != 1:
            raise wrong_value(f"{where}.{word}", "a single word as key", word)
        out[toks[0]] = as_vector(vec, f"{where}.{word}", dim)
    return out


#: The tables this module reads itself; the sections' come from the registry.
_OWN_KEYS = {"seed", "sentences", "sizes", "vocabulary", "embeddings", "encoder"}
_TOP_KEYS = _OWN_KEYS | section_tables()


def parse_numbers(data: Mapping[str, Any], origin: str = "<numbers>",
                  base_dir: Path | None = None) -> Scenario:
    """Validate a parsed TOML document and build the :class:`Scenario`.

    ``base_dir`` is the numbers file's folder: relative paths in it (such
    as ``[cnn] image``) are resolved against it.

    Raises
    ------
    NumbersError
        With a one-line message naming the key and what was expected.
    """
    check_keys(data, _TOP_KEYS, "")
    data = _composed(data)
    _check_all_drawable(data, "")
    for required in ("seed", "sentences", "sizes"):
        if required not in data:
            raise NumbersError(f"{required}: missing (required)")
    seed = as_int(data["seed"], "seed", 0, 2**63 - 1)

    sentences = as_table(data["sentences"], "sentences")
    check_keys(sentences, {"source", "target"}, "sentences")
    for key in ("source", "target"):
        if key not in sentences:
            raise NumbersError(f"sentences.{key}: missing (required)")
    source = _parse_sentence(sentences["source"], "sentences.source")
    target = _parse_sentence(sentences["target"], "sentences.target")

    sizes_t = as_table(data["sizes"], "sizes")
    check_keys(sizes_t, {"embedding", "hidden"}, "sizes")
    lo, hi = SIZE_RANGE
    sizes = Sizes(
        embedding=as_int(sizes_t.get("embedding"), "sizes.embedding", lo, hi),
        hidden=as_int(sizes_t.get("hidden"), "sizes.hidden", lo, hi),
    )

    vocab = as_table(data.get("vocabulary", {}), "vocabulary")
    check_keys(vocab, {"source_extra", "target_extra"}, "vocabulary")
    source_extra = as_word_list(
        vocab.get("source_extra", []), "vocabulary.source_extra", MAX_EXTRA_WORDS
    )
    target_extra = as_word_list(
        vocab.get("target_extra", []), "vocabulary.target_extra", MAX_EXTRA_WORDS
    )

    emb = as_table(data.get("embeddings", {}), "embeddings")
    check_keys(emb, {"source", "target"}, "embeddings")
    source_emb = _parse_embedding_table(
        emb.get("source", {}), "embeddings.source", sizes.embedding
    )
    # Target embeddings live in the decoder's space: the output mapping takes
    # the dot product of s_t with them, so they have the hidden size.
    target_emb = _parse_embedding_table(
        emb.get("target", {}), "embeddings.target", sizes.hidden
    )

    enc = as_table(data.get("encoder", {}), "encoder")
    check_keys(enc, {"W_x", "W_h", "b"}, "encoder")
    H, E = sizes.hidden, sizes.embedding
    encoder = EncoderWeights(
        W_x=as_matrix(enc["W_x"], "encoder.W_x", H, E) if "W_x" in enc else None,
        W_h=as_matrix(enc["W_h"], "encoder.W_h", H, H) if "W_h" in enc else None,
        b=as_vector(enc["b"], "encoder.b", H) if "b" in enc else None,
    )

    context = SectionContext(seed=seed, hidden=sizes.hidden, source_tokens=tokenize(source),
                             target_tokens=tokenize(target), base_dir=base_dir)
    sections: dict[str, Any] = {}
    for section in SECTIONS:
        sections[section.field] = section.parse(data, context)
        if section.field == "hidden_state_map":
            # The check needs the map's sentences, and runs before the later
            # sections so that a file with several faults is told the same first one.
            _check_embeddings_used(source_emb, "embeddings.source", "source sentence, vocabulary.source_extra or "
                                   "hidden_state_map.sentences",
                                   (*tokenize(source), *source_extra,
                                    *(w for x in (sections["hidden_state_map"] or DEFAULT_MAP).sentences
                                      for w in tokenize(x))))
            _check_embeddings_used(target_emb, "embeddings.target", "target sentence or vocabulary.target_extra",
                                   (*tokenize(target), *target_extra, "<START>", "<END>"))

    return Scenario(
        origin=origin,
        seed=seed,
        source_sentence=source,
        target_sentence=target,
        sizes=sizes,
        source_extra_words=source_extra,
        target_extra_words=target_extra,
        source_embeddings=source_emb,
        target_embeddings=target_emb,
        encoder=encoder,
        **sections,
    )


def _check_embeddings_used(table: Mapping[str, Any], where: str, places: str, words: tuple[str, ...]) -> None:
    """An embedding for a word no sentence or word list has is an error, not
    ignored (issue 25): it is most likely a typo, and any entry in the table
    makes the Part 1 scenes show the small RNN whose values it sets, so an
    ignored entry would switch networks for nothing."""
    known = set(words)
    unused = [w for w in table if w not in known]
    if unused:
        near = difflib.get_close_matches(unused[0], sorted(known), n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise NumbersError(f"{where}.{unused[0]}: {unused[0]!r} is in no {places}{hint}; "
                           "an embedding is only used for a word that is shown")


def starting_file_text() -> str:
    """A numbers file to start from: the default with every value commented out.

    Table headers stay, so a value uncommented lands in its table; the file
    as written changes nothing (every value comes from the default).
    """
    lines = ["# A numbers file for render.py --numbers. It needs only what it changes:",
             "# every value left out (here: every commented line) is the shipped default's.",
             "# Uncomment a line and edit its value; a list or matrix is replaced whole.",
             "#", ""]
    depth = 0  # open brackets of a multi-line value
    for line in default_numbers_text().splitlines():
        stripped = line.strip()
        if depth == 0 and (not stripped or stripped.startswith("#") or stripped.startswith("[")):
            lines.append(line)
            continue
        lines.append("# " + line)
        code = re.sub(r'"[^"]*"|\'[^\']*\'', "", line).split("#")[0]
        depth += code.count("[") - code.count("]")
    return "\n".join(lines) + "\n"


def default_numbers_text() -> str:
    """The text of the numbers file that ships with the package."""
    return resources.files(__package__).joinpath(DEFAULT_NUMBERS_NAME).read_text("utf-8")


def merge_with_default(data: Mapping[str, Any]) -> dict[str, Any]:
    """A numbers file's values over the shipped default's.

    A file holds only what it changes: tables merge key by key (a table the
    file gives keeps the default's other keys), and any other value (a
    number, a sentence, a list, a matrix) replaces the default's whole.
    """
    def merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for key, value in over.items():
            if isinstance(value, Mapping) and isinstance(base.get(key), Mapping):
                out[key] = merge(base[key], value)
            else:
                out[key] = value
        return out

    return merge(tomllib.loads(default_numbers_text()), data)
_UTF8_BOM = b"\xef\xbb\xbf"


#: The deepest nesting of arrays and tables read (the cnn filters need 5).
MAX_NESTING = 16


def _nesting_depth(node: Any) -> int:
    """How deep arrays and tables nest, counted without recursion."""
    deepest, stack = 0, [(node, 0)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > MAX_NESTING:
            return deepest
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def read_numbers_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a numbers file: a regular file of at most ``limit`` bytes.

    What is not a regular file (a FIFO would block the read forever, a device
    such as /dev/zero never ends), a symlink loop or a file too large is
    refused with one line (issue 25). The FIFO is opened without blocking and
    checked on the open descriptor, so a file swapped in between cannot hang.
    """
    origin = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise NumbersError(f"{origin}: no such file") from None
    except IsADirectoryError:
        raise NumbersError(f"{origin}: is a folder, expected a TOML file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NumbersError(f"{origin}: cannot read (a loop of symbolic links)") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise NumbersError(f"{origin}: cannot read (file name too long)") from None
        reason = exc.strerror or type(exc).__name__
        raise NumbersError(f"{origin}: cannot read ({reason})") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise NumbersError(f"{origin}: is a folder, expected a TOML file")
        if not stat.S_ISREG(mode):
            raise NumbersError(f"{origin}: is not a regular file (a pipe, socket or device); "
                               "expected a TOML file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise NumbersError(f"{origin}: larger than {limit // 1000} kB; a numbers file is a few kB")
        return b"".join(chunks)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise NumbersError(f"{origin}: cannot read ({reason})") from None
    finally:
        os.close(fd)


def _decode(raw: bytes, origin: str) -> str:
    """The file's text: UTF-8, with or without the byte-order mark some editors add."""
    if raw.startswith(_UTF8_BOM):
        raw = raw[len(_UTF8_BOM):]
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise NumbersError(f"{origin}: is UTF-16 text, expected UTF-8 (save it as UTF-8)")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise NumbersError(
            f"{origin}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at position {exc.start}, "
            f"line {line}); save it as UTF-8"
        ) from None


def load_numbers(path: str | Path | None = None) -> Scenario:
    """Read and validate a numbers file; ``None`` reads the shipped default.

    A file needs only the values it changes; everything else comes from the
    shipped default (:func:`merge_with_default`).

    Raises
    ------
    NumbersError
        For an unreadable file, invalid TOML or invalid values; the message
        starts with the file's name.
    """
    base_dir = None
    if path is None:
        origin, text = DEFAULT_NUMBERS_NAME, default_numbers_text()
    else:
        origin = str(path)
        raw = read_numbers_bytes(path)
        base_dir = Path(path).resolve().parent  # read, so no symlink loop
        text = _decode(raw, origin)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NumbersError(f"{origin}: not valid TOML ({exc})") from None
    except RecursionError:
        raise NumbersError(f"{origin}: not valid TOML (arrays or tables nested too deeply)") from None
    if _nesting_depth(data) > MAX_NESTING:
        raise NumbersError(f"{origin}: arrays or tables nested more than {MAX_NESTING} deep "
                           "(a numbers file needs at most 5)")
    if path is not None:
        data = merge_with_default(data)
    try:
        return parse_numbers(data, origin, base_dir)
    except NumbersError as exc:
        raise NumbersError(f"{origin}: {exc}") from None
