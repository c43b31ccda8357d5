"""Reader's words and chips for the Part 1 clips (issue 31): what the plain network is, said
without working labels, and a vector shown as a chip (its values as tinted bands, no digits).

Kept apart from :mod:`scenes.seq2seq_view` (shared with the attention clips): the words the
encoder, decoder, word_embeddings, output_mapping and seq2seq_overview clips put on screen.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from manim import UP, ReplacementTransform, VGroup

from .motion import window

from .components import NumberLabel, VectorColumn, caption, fade_out
from .seq2seq_view import network_note, section_dict

__all__ = ["PLAIN_TRAINED_NOTE", "DIGITS_DIM", "reader_note", "chip_column", "collapse_digits", "become_chip",
           "digits_in", "to_opacity"]

#: Digits there but not read (a table's, outside the beat) at this opacity: under the audit's
#: 0.5 for a legible number, the cells' tints kept (issue 31: at most 16 numbers read at once).
DIGITS_DIM = 0.22

#: The plain translator, trained, in the reader's words (no step count, no training recipe).
PLAIN_TRAINED_NOTE = "a GRU network that learned to translate from examples, without attention"

#: Chip band width (frame units): narrow enough to read as a symbol, wide enough to see a tint.
CHIP_W = 0.42


def reader_note(trace, section: str = "plain_model") -> str:
    """One line on the network shown: the trained translator in the reader's words, anything
    else (untrained, the tanh fallback) as :func:`network_note` says it (its truth matters)."""
    m = section_dict(trace, section)
    if m["network"] != "tanh_rnn" and m["trained"] and section == "plain_model":
        return PLAIN_TRAINED_NOTE
    return network_note(trace, section)


def chip_column(values: Sequence[float], theme, label: str, colour: Any, scale: float,
                height: float, label_size: float = 24, **label_kw: Any) -> VectorColumn:
    """A vector as a chip: every value a band tinted by sign and size, framed in its role colour,
    its name above (Pango, Unicode subscripts: one face on the line). ``height``: the chip's."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    chip = VectorColumn(values, theme, show_numbers=False, colour=colour, cell_width=CHIP_W,
                        cell_height=height / n, scale=scale, max_rows=n)
    chip.label = caption(label, theme, label_size, colour, **label_kw).next_to(chip.frame, UP, buff=0.12)
    chip.add(chip.label)
    return chip


def collapse_digits(column: VGroup, **kw: Any):
    """The digits (and any bars) of a column fade where they stand: read once, from now on the
    tinted cells are the vector (the chip that follows is made from them)."""
    kept = getattr(column, "cell_by_index", {})
    parts = [c.number for c in kept.values() if getattr(c, "number", None)]
    # The elision marks go with the digits: a chip shows every value as a band.
    cells = getattr(column, "cells", ())
    parts += [c for c in cells if all(c is not k for k in kept.values())]
    bars = getattr(column, "bars", None)
    if bars is not None:
        parts.append(bars)
    return fade_out(VGroup(*parts), **kw)


def become_chip(column: VectorColumn, chip: VectorColumn) -> list:
    """``column`` (digits read) becomes ``chip`` where it stands: the digits and elision marks
    fade in the first half; the frame, the cells (into the chip's bands) and the name morph
    part for part in the second (a name into the same name: no colour or size in between)."""
    late = window(0.3, 1.0)
    boxes = VGroup(*(c.box for c in column.cell_by_index.values()))
    return [collapse_digits(column, rate_func=window(0.0, 0.5)),
            ReplacementTransform(column.frame, chip.frame, rate_func=late),
            ReplacementTransform(boxes, chip.cells, rate_func=late),
            ReplacementTransform(column.label, chip.label, rate_func=late)]


def digits_in(mob) -> VGroup:
    """The numbers inside ``mob`` (a matrix, a row, a vector's cells, a column)."""
    return VGroup(*(m for m in mob.get_family() if isinstance(m, NumberLabel)))


def to_opacity(numbers, opacity: float) -> list:
    """Each number to ``opacity``, where it stands (one animation per number: a group made for
    the move would join the stage as a group of its own)."""
    return [m.animate.set_opacity(opacity) for m in numbers]
