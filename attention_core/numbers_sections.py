"""The numbers file's sections: which top-level tables each one reads, and its parser.

A section is a top-level table (or a few) of the numbers file that one
module of the core validates: ``[cnn]`` by :mod:`attention_core.cnn`,
``[attention]`` by :mod:`attention_core.attention`, and so on.
:mod:`attention_core.numbers_file` reads the tables it owns (seed,
sentences, sizes, vocabulary, embeddings, encoder) and then asks every
section of :data:`SECTIONS`, in order, for its part of the
:class:`~attention_core.numbers_file.Scenario`.

The table sits above the sections and below the numbers file: the sections
share only the validators of :mod:`attention_core.numbers_parsing`, so no
section imports the numbers file and the numbers file imports no section
for its parsing. A new section is one row here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .attention import parse_attention
from .decoder import parse_decoder_table, parse_output_mapping_table
from .dot_attention import parse_dot_attention
from .sentence_map import parse_hidden_state_map
from .similarity import parse_dot_product

__all__ = ["SectionContext", "Section", "SECTIONS", "section_tables"]


@dataclass(frozen=True)
class SectionContext:
    """What a section's parser may need besides its own tables.

    Attributes
    ----------
    seed
        The file's ``seed``.
    hidden
        ``sizes.hidden``: the decoder's and attention's matrices have it.
    source_tokens, target_tokens
        The sentences' words.
    base_dir
        The numbers file's folder (relative paths are resolved against it),
        or ``None`` for the shipped default.
    """

    seed: int
    hidden: int
    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    base_dir: Path | None


@dataclass(frozen=True)
class Section:
    """One row of the registry.

    Attributes
    ----------
    field
        The :class:`~attention_core.numbers_file.Scenario` field it fills.
    tables
        The top-level tables it reads (a key of the file no section and not
        the numbers file reads is an error).
    parse
        ``parse(document, context)``: the validated value; raises
        :class:`~attention_core.numbers_parsing.NumbersError`.
    """

    field: str
    tables: tuple[str, ...]
    parse: Callable[[Mapping[str, Any], SectionContext], Any]


def _cnn(data: Mapping[str, Any], context: SectionContext) -> Any:
    # Imported on use: the CNN and the translator below cost ~20 ms that
    # `import attention_core` need not pay when no file is parsed.
    from .cnn import parse_cnn

    return parse_cnn(data.get("cnn", {}), context.base_dir)


def _model(data: Mapping[str, Any], context: SectionContext) -> Any:
    from .translator.settings import parse_model_table

    return parse_model_table(data.get("model"), context.source_tokens)


#: Every section, in the order the numbers file checks them: a file with
#: several faults is told about the first one met in this order.
SECTIONS: tuple[Section, ...] = (
    Section("cnn", ("cnn",), _cnn),
    Section("dot_attention", ("dot_product_attention", "multi_query_attention", "worked_example"),
            lambda data, context: parse_dot_attention(data, context.seed)),
    Section("dot_product", ("dot_product",), lambda data, context: parse_dot_product(data.get("dot_product"))),
    Section("hidden_state_map", ("hidden_state_map",),
            lambda data, context: parse_hidden_state_map(data.get("hidden_state_map"))),
    Section("model", ("model",), _model),
    Section("decoder", ("decoder",),
            lambda data, context: parse_decoder_table(data.get("decoder", {}), context.hidden)),
    # A decode takes at most one step per target word, plus <END>.
    Section("output_mapping_step", ("output_mapping",),
            lambda data, context: parse_output_mapping_table(data.get("output_mapping", {}),
                                                             len(context.target_tokens) + 1)),
    Section("attention", ("attention",),
            lambda data, context: parse_attention(data.get("attention", {}), context.hidden)),
)


def section_tables() -> set[str]:
    """Every top-level table some section reads."""
    return {table for section in SECTIONS for table in section.tables}
