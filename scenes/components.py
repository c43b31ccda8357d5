"""Small composable mobjects shared by every scene.

Each component lays out values it is given and remembers, for every number
it shows, the value and a key naming where it came from (``NumberLabel.key``),
so tests can read the screen back and compare it with the core.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Animation,
    Arrow,
    MathTex,
    Mobject,
    Rectangle,
    RoundedRectangle,
    SingleStringMathTex,
    SurroundingRectangle,
    Tex,
    Text,
    VGroup,
    smooth,
)

from attention_core.formatting import format_number

from .theme import Theme

__all__ = [
    "NumberLabel",
    "OpacityScaling",
    "ValueCell",
    "VectorColumn",
    "ValueMatrix",
    "TokenStrip",
    "word_box",
    "CellBox",
    "HeatStrip",
    "StateStrip",
    "STATE_STRIP_BOTTOM",
    "caption",
    "math_label",
    "symbol_role",
    "unbreakable_words",
    "role_formula",
    "arrow_between",
    "fit_within",
    "reading",
    "read_as_line",
    "declared_reading",
    "baseline_of",
    "on_baseline",
    "readable_text",
    "fitted_number",
    "restore_faded",
    "MIN_FONT_SIZE",
    "title_bar",
    "subscript",
    "fade_in",
    "fade_out",
    "step_caption",
    "caption_in",
    "caption_out",
    "STEP_CAPTION_Y",
    "STEP_CAPTION_SIZE",
    "text_leaves",
    "kept_indices",
]

_SUBSCRIPT_DIGITS = str.maketrans("0123456789", "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089")


def subscript(n: int) -> str:
    """``n`` in subscript digits, for plain-text names such as h\u2083."""
    return str(n).translate(_SUBSCRIPT_DIGITS)


CELL_W = 0.9
CELL_H = 0.42
NUMBER_SIZE = 23.5
#: The shared builders never shrink text below this font size (a capital is
#: then 14.3 px tall at 480p, the legibility floor of issue 31, up from 12 px):
#: past it a number drops decimals and a word gives way to an ellipsis.
MIN_FONT_SIZE = 23.5
ELLIPSIS = "\u2026"
#: Dots that stand for elided rows or columns: a formula, so at least 33 pt (14 px at 480p).
ELIDED_DOTS_SIZE = 33.5
WORD_MAX_W = 3.2  # one boxed word: 12 letters of the theme's font at 24


def caption(text: str, theme: Theme, font_size: float = 24, colour: Any = None, **kw: Any) -> Text:
    """Plain text in the theme's font (no LaTeX where it adds nothing)."""
    return Text(text, font=theme.font, font_size=font_size, color=colour or theme.text, **kw)


def math_label(tex: str, theme: Theme, font_size: float = 30, colour: Any = None) -> MathTex:
    """A short formula or symbol such as ``h_{3}``."""
    return MathTex(tex, font_size=font_size, color=colour or theme.text)


#: A formula that is one symbol of the notation (s_2, h_i, a_{tj}, X^{T}, o): its letter, then any index.
_ONE_SYMBOL = re.compile(r"^\s*([A-Za-z])(?:_\{?[0-9a-zA-Z,+\-]+\}?)?(?:\^\{?T\}?)?\s*$")
#: The letters of :data:`scenes.theme.ROLES` a formula may name alone.
_LETTER_ROLES = {"h": "h", "s": "s", "x": "x", "c": "c_t", "a": "a_tj", "q": "query", "E": "E", "A": "A",
                 "X": "X", "Q": "Q", "O": "O", "o": "o"}


def symbol_role(tex: str) -> str | None:
    """The role (:data:`scenes.theme.ROLES`) of a formula that is one symbol alone, else ``None``."""
    match = _ONE_SYMBOL.match(tex)
    return _LETTER_ROLES.get(match.group(1)) if match else None


def role_formula(pieces: Sequence[str], theme: Theme, font_size: float = 30) -> MathTex:
    """A formula typeset from ``pieces`` (``("c_t", "=", r"\sum_j", "a_{tj}", "h_j")``), each piece
    that is one symbol in its role's colour, the rest in the text's: a symbol keeps its colour
    inside a formula as it does alone."""
    formula = MathTex(*pieces, font_size=font_size, color=theme.text)
    for piece, part in zip(pieces, formula.submobjects):
        role = symbol_role(piece)
        if role is not None:
            part.set_color(theme.role(role))
    return formula


def unbreakable_words(text: str) -> list[str]:
    """The words a line of ``text`` may break between: each "=" is joined to the words either
    side ("s₀ = 0." stays on one line: a line ending "s₀ =" over a line "0." reads as two things)."""
    out: list[str] = []
    glue = False
    for w in text.split():
        if w == "=" and out:
            out[-1] += " ="
            glue = True
        elif glue:
            out[-1] += " " + w
            glue = False
        else:
            out.append(w)
    return out


def text_leaves(mob: Mobject) -> list[Mobject]:
    """Whole text objects (a Text, a formula), not their glyphs: what the audit and the
    moves take for a text."""
    if isinstance(mob, (Text, MathTex, SingleStringMathTex, Tex)):
        return [mob]
    out: list[Mobject] = []
    for sub in mob.submobjects:
        out.extend(text_leaves(sub))
    return out


def declared_reading(mob: Mobject) -> str | None:
    """The reading a composed line declares (its ``text`` string, see :func:`read_as_line`),
    or ``None``. A :class:`Text`'s own ``text`` is not one: Manim strips its spaces."""
    said = getattr(mob, "text", None)
    return said if isinstance(said, str) and not isinstance(mob, Text) else None


def reading(mob: Mobject) -> str:
    """How a part of a line reads in the captions file: a number as shown, a text as written,
    a formula by its ``spoken`` words (none: not read), a group by what it says (``text``) or
    else by its parts run together (a cell: its number; an angle: "73\u00b0")."""
    if isinstance(mob, NumberLabel):
        return mob.shown
    if isinstance(mob, Text):
        return mob.original_text
    said = declared_reading(mob)
    if said is not None:
        return said
    if isinstance(mob, SingleStringMathTex):  # MathTex and Tex too
        return getattr(mob, "spoken", "")
    return "".join(reading(m) for m in mob.submobjects)


def read_as_line(group: Mobject, sep: str = " ") -> Mobject:
    """Make ``group`` (words, numbers, formulas side by side) one caption that reads its parts
    in order, numbers included: the captions file reads only texts of three words or more, so
    without this "all 69 sum to" would lose its "1.00"."""
    group.text = sep.join(r for r in (reading(m) for m in group.submobjects) if r)
    return group


def baseline_of(text: Text) -> float:
    """The y of a one-line text's baseline, wherever it was moved or scaled to.

    Manim keeps only the glyphs' outlines, so the baseline is found again: in ``"x" + text``
    the x sits on the baseline, and the rest is the text itself, so the depth of its
    descenders below the x, scaled to the text's size now, gives the baseline.
    """
    probe = Text("x" + text.original_text, font=text.font, font_size=text.font_size,
                 slant=text.slant, weight=text.weight)
    rest = VGroup(*probe[1:])
    depth = probe[0].get_bottom()[1] - rest.get_bottom()[1]
    return float(text.get_bottom()[1] + depth * text.height / rest.height)


def on_baseline(line: Mobject) -> Mobject:
    """Put the texts of a line (arranged left to right) on the first one's baseline.

    ``arrange`` centres each part, so a word with a descender (g, p, y, ;) rides above its
    neighbours; numbers and formulas move with their texts' line."""
    texts = [m for m in line.submobjects if isinstance(m, Text) and m.original_text.strip()]
    if texts:
        y = baseline_of(texts[0])
        for t in texts[1:]:
            t.shift(UP * (y - baseline_of(t)))
    return line


def fit_within(mob: Mobject, max_width: float | None = None, max_height: float | None = None) -> Mobject:
    """Scale ``mob`` down (never up) so it fits the given box."""
    if max_width is not None and mob.width > max_width:
        mob.scale(max_width / mob.width)
    if max_height is not None and mob.height > max_height:
        mob.scale(max_height / mob.height)
    return mob


def readable_text(text: str, theme: Theme, font_size: float = 24, max_width: float | None = None,
                  max_height: float | None = None, colour: Any = None, font: str | None = None,
                  min_size: float = MIN_FONT_SIZE) -> Text:
    """``text`` scaled down (never up) to fit the box, but not below ``min_size``.

    A text that does not fit even at ``min_size`` keeps that size and loses
    its end to an ellipsis ("internationalisa\u2026"); ``full_text`` keeps the
    whole text.
    """
    font = font or theme.font
    colour = colour or theme.text

    def make(shown: str) -> Text:
        return Text(shown, font=font, font_size=font_size, color=colour)

    def needed(mob: Text) -> float:
        scale = 1.0
        if max_width is not None and mob.width > max_width:
            scale = max_width / mob.width
        if max_height is not None and mob.height * scale > max_height:
            scale = max_height / mob.height
        return scale

    mob = make(text)
    floor = min(1.0, min_size / font_size)
    scale = needed(mob)
    if scale < floor and max_width is not None and len(text) > 1:
        # Cut at the floor: estimate the characters that fit, then trim until it does.
        keep = max(1, int(len(text) * max_width / (mob.width * floor)) - 1)
        while keep > 1:
            mob = make(text[:keep].rstrip() + ELLIPSIS)
            if mob.width * floor <= max_width:
                break
            keep -= 1
        else:
            mob = make(text[:1] + ELLIPSIS)
    mob.scale(max(min(needed(mob), 1.0), floor))
    mob.full_text = text
    return mob


def title_bar(*parts: Mobject, y: float, buff: float = 0.5, max_width: float = 13.4,
              **arrange: Any) -> VGroup:
    """A scene's title line: ``parts`` (a name, a formula...) side by side,
    scaled down to ``max_width`` if needed, centred at height ``y``."""
    bar = VGroup(*parts).arrange(RIGHT, buff=buff, **arrange)
    return fit_within(bar, max_width=max_width).move_to([0, y, 0])


def arrow_between(a: Mobject, b: Mobject, colour: Any, buff: float = 0.12, **kw: Any) -> Arrow:
    """A straight arrow from the side of ``a`` facing ``b`` to ``b``."""
    return Arrow(
        a.get_center(), b.get_center(), buff=0, color=colour, stroke_width=3,
        max_tip_length_to_length_ratio=0.15, **kw
    ).put_start_and_end_on(
        _edge_towards(a, b.get_center(), buff), _edge_towards(b, a.get_center(), buff)
    )


def _edge_towards(mob: Mobject, target: np.ndarray, buff: float) -> np.ndarray:
    """Point on ``mob``'s bounding box in the direction of ``target``."""
    centre = mob.get_center()
    d = target - centre
    if np.allclose(d, 0):
        return centre
    half_w, half_h = mob.width / 2 + buff, mob.height / 2 + buff
    scale = min(half_w / abs(d[0]) if d[0] else np.inf, half_h / abs(d[1]) if d[1] else np.inf)
    return centre + d * min(scale, 1.0)


class NumberLabel(Text):
    """A number on screen, formatted by the theme.

    Attributes
    ----------
    value
        The exact value from the core.
    shown
        The text on screen (``theme.fmt(value)``).
    key
        Where the value comes from, e.g. ``("encoder.hidden", 3, 1)``.
    """

    def __init__(self, value: float, theme: Theme, key: tuple | None = None,
                 font_size: float = NUMBER_SIZE, colour: Any = None, decimals: int | None = None,
                 **kw: Any) -> None:
        self.value = float(value)
        #: Decimals shown: the theme's, fewer where a cell is too narrow.
        self.decimals = theme.decimals if decimals is None else decimals
        self.shown = format_number(self.value, self.decimals)
        self.key = key
        super().__init__(self.shown, font=theme.number_font, font_size=font_size,
                         color=colour or theme.text, **kw)


def fitted_number(value: float, theme: Theme, key: tuple | None, font_size: float,
                  max_width: float, max_height: float) -> NumberLabel:
    """A number scaled to fit the box, never below :data:`MIN_FONT_SIZE`:
    a number too wide at that size is shown with fewer decimals instead."""
    floor = min(1.0, MIN_FONT_SIZE / font_size)
    for decimals in range(theme.decimals, -1, -1):
        label = NumberLabel(value, theme, key, font_size=font_size, decimals=decimals)
        scale = min(1.0, max_width / label.width, max_height / label.height)
        if scale >= floor or decimals == 0:
            return label.scale(max(scale, floor))
    raise AssertionError("unreachable")


class ValueCell(VGroup):
    """One value: a rectangle tinted by sign and magnitude, its number inside."""

    def __init__(self, value: float, theme: Theme, key: tuple | None = None,
                 width: float = CELL_W, height: float = CELL_H, scale: float = 1.0,
                 show_number: bool = True, font_size: float = NUMBER_SIZE,
                 fill: Any = None) -> None:
        colour, opacity = theme.value_fill(value, scale) if fill is None else (fill, 0.85)
        self.box = Rectangle(width=width, height=height, stroke_width=1,
                             stroke_color=theme.panel, fill_color=colour, fill_opacity=opacity)
        super().__init__(self.box)
        self.value = float(value)
        self.number: NumberLabel | None = None
        if show_number:
            self.number = fitted_number(value, theme, key, font_size, width * 0.9, height * 0.8)
            self.number.move_to(self.box)
            self.add(self.number)


def kept_indices(n: int, max_shown: int, keep: Sequence[int] = ()) -> list[int | None]:
    """Indices to show, with ``None`` where dots stand for the elided rows.

    The first rows, the last one and every index in ``keep`` (e.g. the row
    with the largest weight, which must never hide behind the dots) are
    shown; each run of elided rows takes one slot for its dots.
    """
    if n <= max_shown:
        return list(range(n))

    def slots(chosen: set[int]) -> int:
        ordered = sorted(chosen)
        gaps = sum(1 for a, b in zip([-1, *ordered], ordered) if b - a > 1)
        return len(ordered) + gaps

    chosen = {n - 1, *(int(k) for k in keep if 0 <= k < n)}
    for i in range(n):
        if i in chosen:
            continue
        if slots(chosen | {i}) > max_shown:
            break
        chosen.add(i)
    out: list[int | None] = []
    for i in sorted(chosen):
        if (out and i - out[-1] > 1) or (not out and i > 0):
            out.append(None)
        out.append(i)
    return out


class VectorColumn(VGroup):
    """A vector as a column of value cells, framed in its role colour.

    Parameters
    ----------
    values
        The vector.
    theme
        Colours and format.
    key
        Name of the source array; cell ``i`` gets the key ``(key, i)``.
    label
        Optional TeX shown above the column (e.g. ``"h_{3}"``).
    colour
        The role colour of the frame and label.
    show_numbers
        False gives a compact colour-only chip.
    max_rows
        Longer vectors show their first rows, dots, and the last row.
    """

    def __init__(self, values: Sequence[float], theme: Theme, key: str | None = None,
                 label: str | None = None, colour: Any = None, show_numbers: bool = True,
                 cell_width: float = CELL_W, cell_height: float = CELL_H, scale: float = 1.0,
                 max_rows: int = 8, label_size: float = 30, font_size: float = NUMBER_SIZE,
                 keep: Sequence[int] = ()) -> None:
        super().__init__()
        values = np.asarray(values, dtype=float)
        colour = colour or theme.text
        self.cells = VGroup()
        self.cell_by_index: dict[int, ValueCell] = {}
        for i in kept_indices(len(values), max_rows, keep):
            if i is None:
                dots = VGroup(Rectangle(width=cell_width, height=cell_height, stroke_width=0),
                              MathTex(r"\vdots", font_size=max(font_size * 1.2, ELIDED_DOTS_SIZE), color=theme.muted))
                self.cells.add(dots)
                continue
            cell = ValueCell(values[i], theme, (key, i) if key else None, cell_width,
                             cell_height, scale, show_numbers, font_size)
            self.cell_by_index[i] = cell
            self.cells.add(cell)
        self.cells.arrange(DOWN, buff=0)
        self.frame = Rectangle(width=self.cells.width + 0.08, height=self.cells.height + 0.08,
                               stroke_color=colour, stroke_width=3).move_to(self.cells)
        self.add(self.cells, self.frame)
        self.label: Mobject | None = None
        if label is not None:
            self.label = math_label(label, theme, label_size, colour)
            self.label.next_to(self.frame, UP, buff=0.12)
            self.add(self.label)


class ValueMatrix(VGroup):
    """A matrix of value cells with optional row and column labels.

    Rows or columns beyond ``max_rows``/``max_cols`` are elided with dots,
    never shrunk below readability. Cell ``(i, j)`` gets key ``(key, i, j)``.
    """

    def __init__(self, values: np.ndarray, theme: Theme, key: str | None = None,
                 row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None,
                 colour: Any = None, max_rows: int = 8, max_cols: int = 8,
                 cell_width: float = CELL_W, cell_height: float = CELL_H, scale: float | None = None,
                 font_size: float = NUMBER_SIZE, label_size: float = 20,
                 heat: bool = False, keep_rows: Sequence[int] = (),
                 keep_cols: Sequence[int] = ()) -> None:
        super().__init__()
        values = np.atleast_2d(np.asarray(values, dtype=float))
        n_rows, n_cols = values.shape
        scale = scale if scale is not None else max(float(np.max(np.abs(values))), 1e-9)
        rows_shown = kept_indices(n_rows, max_rows, keep_rows)
        cols_shown = kept_indices(n_cols, max_cols, keep_cols)
        self.cell_by_index: dict[tuple[int, int], ValueCell] = {}
        self.grid = VGroup()
        for r, i in enumerate(rows_shown):
            for c, j in enumerate(cols_shown):
                pos = np.array([c * cell_width, -r * cell_height, 0.0])
                if i is None or j is None:
                    sym = r"\vdots" if i is None and j is not None else (
                        r"\cdots" if j is None and i is not None else r"\ddots")
                    dots = MathTex(sym, font_size=max(font_size * 1.1, ELIDED_DOTS_SIZE),
                                   color=theme.muted).move_to(pos)
                    self.grid.add(dots)
                    continue
                fill = theme.heat(values[i, j]) if heat else None
                cell = ValueCell(values[i, j], theme, (key, i, j) if key else None,
                                 cell_width, cell_height, scale, True, font_size, fill=fill)
                cell.move_to(pos)
                self.cell_by_index[(i, j)] = cell
                self.grid.add(cell)
        self.frame = Rectangle(width=len(cols_shown) * cell_width + 0.1,
                               height=len(rows_shown) * cell_height + 0.1,
                               stroke_color=colour or theme.panel, stroke_width=3).move_to(self.grid)
        self.add(self.grid, self.frame)
        self.row_labels = VGroup()
        if row_labels is not None:
            for r, i in enumerate(rows_shown):
                if i is None:
                    continue
                lab = readable_text(row_labels[i], theme, label_size, max_height=cell_height * 0.8)
                lab.next_to(self.frame, LEFT, buff=0.15)
                lab.set_y(self.grid[r * len(cols_shown)].get_y())
                self.row_labels.add(lab)
            self.add(self.row_labels)
        self.col_labels = VGroup()
        if col_labels is not None:
            for c, j in enumerate(cols_shown):
                if j is None:
                    continue
                lab = readable_text(col_labels[j], theme, label_size, max_width=cell_width * 0.95)
                lab.next_to(self.frame, UP, buff=0.1)
                lab.set_x(self.grid[c].get_x())
                self.col_labels.add(lab)
            self.add(self.col_labels)

    def cell(self, i: int, j: int) -> ValueCell | None:
        """The cell of entry ``(i, j)``, or ``None`` if it is elided."""
        return self.cell_by_index.get((i, j))


def word_box(text: str, theme: Theme, colour: Any, font_size: float = 24,
             max_width: float = WORD_MAX_W) -> VGroup:
    """One word in a rounded box: ``VGroup(box, word)``; a word wider than
    ``max_width`` shrinks, down to :data:`MIN_FONT_SIZE`, then is cut with an ellipsis."""
    word = readable_text(text, theme, font_size, max_width=max_width)
    box = RoundedRectangle(corner_radius=0.08, width=word.width + 0.25,
                           height=max(word.height, 0.32) + 0.2, stroke_color=colour,
                           stroke_width=2).move_to(word)
    return VGroup(box, word)


class TokenStrip(VGroup):
    """Words in boxes, left to right.

    A sentence too long for ``max_width`` at a readable size wraps onto a
    second row (a third for twelve long words) instead of shrinking below
    ``min_scale`` of its font size.
    """

    def __init__(self, tokens: Sequence[str], theme: Theme, colour: Any = None,
                 font_size: float = 24, max_width: float = 13.0, buff: float = 0.15,
                 min_scale: float = 0.8) -> None:
        super().__init__()
        colour = colour or theme.muted
        self.words = VGroup()
        self.boxes = VGroup()
        for tok in tokens:
            boxed = word_box(tok, theme, colour, font_size)
            self.words.add(boxed[1])
            self.boxes.add(boxed)
        self.boxes.arrange(RIGHT, buff=buff)
        self.add(self.boxes)
        widest = max_width / min_scale
        n_rows = 1
        # Two rows as before; a third only when two would shrink the words too far
        # (twelve long words): each word is at most WORD_MAX_W wide, so three fit.
        while self.width > widest and n_rows < min(3, len(tokens)):
            n_rows += 1
            per_row = -(-len(tokens) // n_rows)
            rows = VGroup(*(VGroup(*self.boxes[i:i + per_row]).arrange(RIGHT, buff=buff)
                            for i in range(0, len(tokens), per_row)))
            rows.arrange(DOWN, buff=0.12)
        fit_within(self, max_width=max_width)
        self._words_on_one_baseline()

    def _words_on_one_baseline(self) -> None:
        """Each row's words on one baseline, in boxes of one height.

        A word box centres its word, so a word with a descender ("growth", "years") rode
        higher than its neighbours and a word with ascenders ("ball") lower than "a", each in
        a box of its own height (issue 22). Each row's boxes take the tallest ascent and the
        deepest descent of its words, and every word sits on the baseline those leave."""
        rows: dict[float, list[int]] = {}
        for k, boxed in enumerate(self.boxes):
            rows.setdefault(round(float(boxed.get_y()), 2), []).append(k)
        for members in rows.values():
            words = [self.boxes[k][1] for k in members]
            baselines = [baseline_of(w) for w in words]
            ascent = max(w.get_top()[1] - b for w, b in zip(words, baselines))
            depth = max(b - w.get_bottom()[1] for w, b in zip(words, baselines))
            y0 = float(np.mean([self.boxes[k].get_y() for k in members]))
            height = max(ascent + depth, 0.32) + 0.2
            baseline = y0 - height / 2 + 0.1 + depth + max(0.0, 0.32 - ascent - depth) / 2
            for k, word, b in zip(members, words, baselines):
                word.shift([0, baseline - b, 0])
                box = self.boxes[k][0]
                box.become(RoundedRectangle(corner_radius=0.08, width=box.width, height=height,
                                            stroke_color=box.get_stroke_color(), stroke_width=2)
                           .move_to([box.get_x(), y0, 0]))


class CellBox(VGroup):
    """A block of the network (an RNN cell, the softmax) as a labelled box."""

    def __init__(self, label: str, theme: Theme, colour: Any, width: float = 2.4,
                 height: float = 1.3, font_size: float = 24) -> None:
        self.box = RoundedRectangle(corner_radius=0.2, width=width, height=height,
                                    stroke_color=colour, stroke_width=4,
                                    fill_color=colour, fill_opacity=0.12)
        self.text = readable_text(label, theme, font_size, width * 0.85, height * 0.8)
        self.text.move_to(self.box)
        super().__init__(self.box, self.text)


class HeatStrip(VGroup):
    """Attention weights as a row of heat-coloured cells with their numbers."""

    def __init__(self, weights: Sequence[float], theme: Theme, key: str | None = None,
                 cell_width: float = CELL_W, cell_height: float = CELL_H,
                 show_numbers: bool = True, font_size: float = NUMBER_SIZE) -> None:
        super().__init__()
        for i, w in enumerate(np.asarray(weights, dtype=float)):
            self.add(ValueCell(w, theme, (key, i) if key else None, cell_width, cell_height,
                               1.0, show_numbers, font_size, fill=theme.heat(w)))
        self.arrange(RIGHT, buff=0)


#: Where the strip of encoder states rests: its names' bottom edge. ``encoder`` leaves h_1 .. h_T
#: there, and ``bottleneck`` and ``attention_process`` pick them up from there (issue 22).
STATE_STRIP_BOTTOM = -3.3  # the ring round h_T (encoder) keeps 0.12 from the caption under it
#: A chip of the strip: every number of a state as a thin colour band (no digits).
STATE_CHIP_W, STATE_CHIP_H = 0.34, 0.7


#: The strip's side note ("h_T: the context vector"): over the 14 px floor at 480p.
CONTEXT_NAME_SIZE = 24


class StateStrip(VGroup):
    """The encoder states h_1 .. h_T as a row of colour-only chips, each named below.

    One definition of the strip that leaves the encoder and that the next
    scenes pick up, so it is the same object in the same place in all of them:
    ``strip[t]`` is ``VGroup(chip, name)`` (``chip`` a colour-only
    :class:`VectorColumn`, every value a band, scaled as the states are, in
    (-1, 1)). The row stands with its names' bottom on
    :data:`STATE_STRIP_BOTTOM`, centred together with the room kept on its
    right for a side note as wide as ``"h_T: the context vector"``
    (:meth:`place_note` puts a note there).
    """

    def __init__(self, states: np.ndarray, theme: Theme, colour: Any = None, letter: str = "h",
                 bottom: float = STATE_STRIP_BOTTOM) -> None:
        super().__init__()
        states = np.asarray(states, dtype=float)
        colour = colour or theme.encoder
        T, H = states.shape
        for t, h in enumerate(states, start=1):
            chip = VectorColumn(h, theme, show_numbers=False, colour=colour, cell_width=STATE_CHIP_W,
                                cell_height=STATE_CHIP_H / H, max_rows=H)
            # At the text floor (14 px at 480p), as every label.
            name = caption(f"{letter}{subscript(t)}", theme, MIN_FONT_SIZE, colour).next_to(chip, DOWN, buff=0.08)
            self.add(VGroup(chip, name))
        self.arrange(RIGHT, buff=0.3 if T > 9 else 0.42, aligned_edge=UP)
        self.room = caption(f"{letter}{subscript(T)}: the context vector", theme, CONTEXT_NAME_SIZE).width + 0.3
        self.move_to([-self.room / 2, bottom + self.height / 2, 0])

    @property
    def chips(self) -> list[VectorColumn]:
        return [part[0] for part in self]

    def chip_y(self) -> float:
        """The height of the chips' centres (a side note is centred there)."""
        return float(self[0][0].get_y())

    def place_note(self, note: Mobject) -> Mobject:
        """``note`` in the room on the strip's right, level with the chips."""
        return note.next_to(self, RIGHT, buff=0.3).set_y(self.chip_y())

    def context_name(self, theme: Theme) -> Mobject:
        """"h_T: the context vector" in the room on the right (how ``encoder`` ends)."""
        T, letter = len(self), self[0][1].original_text[0]
        return self.place_note(caption(f"{letter}{subscript(T)}: the context vector", theme, CONTEXT_NAME_SIZE, theme.highlight))

    def context_ring(self, theme: Theme) -> Mobject:
        """The ring round the last chip, h_T (how ``encoder`` ends)."""
        return SurroundingRectangle(self[len(self) - 1], color=theme.highlight, buff=0.06)


class OpacityScaling(Animation):
    """An animation that scales each part's own opacity (fill and stroke) by a factor,
    without copying the mobject; subclasses say which factor when."""

    def create_starting_mobject(self) -> Mobject:
        return Mobject()  # unused: interpolation reads the saved opacities

    def begin(self) -> None:
        # Containers without points too (a Text holding its glyphs), so the
        # whole object, not only its glyphs, is transparent once faded out.
        self.saved = [(m, m.fill_rgbas[:, 3].copy(), m.stroke_rgbas[:, 3].copy())
                      for m in self.mobject.get_family()
                      if len(getattr(m, "fill_rgbas", ())) and len(getattr(m, "stroke_rgbas", ()))]
        super().begin()

    def scale_opacity(self, k: float) -> None:
        """Each part at ``k`` times the opacity it had when the animation began."""
        for m, fill, stroke in self.saved:
            m.fill_rgbas[:, 3] = fill * k
            m.stroke_rgbas[:, 3] = stroke * k


class _Fade(OpacityScaling):
    """A fade in or out that scales each part's own opacity, without copying.

    Manim's FadeIn/FadeOut deep-copy their mobject, which for columns of
    numbers (text glyphs) costs most of a scene's build time. This fade
    keeps the per-cell opacities (value-coloured fills) and scales them.

    A fade out leaves its parts transparent, each remembering the look it
    had (``_before_fade``): a part of a group is still held by the group once
    removed from the scene, and would flash back at full opacity whenever the
    group is on screen again (slid, re-added). A fade in brings the
    remembered look back; so does adding the faded thing itself
    (:func:`restore_faded`, called by the scenes' ``add``).
    """

    def __init__(self, mobject: Mobject, out: bool, shift: np.ndarray | None = None, **kw) -> None:
        self.out = out
        self.offset = np.zeros(3) if shift is None else np.asarray(shift, dtype=float)
        self._applied = np.zeros(3)
        super().__init__(mobject, remover=out, introducer=not out, **kw)

    def begin(self) -> None:
        super().begin()
        if not self.out:
            # What was faded out comes back as it was before, not at the nothing it was left at.
            self.saved = [(m, *_remembered(m, fill, stroke)) for m, fill, stroke in self.saved]

    def interpolate_mobject(self, alpha: float) -> None:
        # Manim applies rate_func per submobject, in the code this replaces.
        alpha = self.rate_func(alpha)
        self.scale_opacity(1.0 - alpha if self.out else alpha)
        if not self.offset.any():
            return  # a fade in place: no shift (a zero shift still walks every glyph's points)
        # Fade in arrives from -shift; fade out leaves towards +shift.
        want = self.offset * (alpha if self.out else alpha - 1.0)
        self.mobject.shift(want - self._applied)
        self._applied = want

    def clean_up_from_scene(self, scene) -> None:
        super().clean_up_from_scene(scene)
        if self.out:  # gone from the scene: back in its place, transparent, its look remembered
            self.mobject.shift(-self._applied)
            self._applied = np.zeros(3)
            record = []
            for m, fill, stroke in self.saved:
                look = (fill, stroke)
                if not hasattr(m, "_before_fade"):  # faded out twice: the first look is the one
                    m._before_fade = look
                record.append((m, look))
            if not getattr(self.mobject, "_faded_out", False):
                self.mobject._faded_out = record  # what restore_faded gives back
            self.scale_opacity(0.0)
        else:
            for m, _, _ in self.saved:
                if hasattr(m, "_before_fade"):
                    del m._before_fade


def _remembered(m: Mobject, fill: np.ndarray, stroke: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The opacities ``m`` had before a fade out left it transparent (else ``fill``, ``stroke``)."""
    before = getattr(m, "_before_fade", None)
    if before is None or len(before[0]) != len(fill) or len(before[1]) != len(stroke):
        return fill, stroke
    return before


def restore_faded(mob: Mobject) -> Mobject:
    """``mob``, faded out by :func:`fade_out` and now wanted on screen again as it is
    (added by name), gets back the look it had when that fade began (a part it holds that
    was faded out on its own before stays out, and remembers its own look)."""
    record = getattr(mob, "_faded_out", None)
    if not record:
        return mob
    for m, look in record:
        fill, stroke = look
        if len(getattr(m, "fill_rgbas", ())) == len(fill) and len(getattr(m, "stroke_rgbas", ())) == len(stroke):
            m.fill_rgbas[:, 3], m.stroke_rgbas[:, 3] = fill, stroke
        if getattr(m, "_before_fade", None) is look:
            del m._before_fade
    mob._faded_out = None
    return mob


def fade_in(mobject: Mobject, shift: np.ndarray | None = None, **kw) -> _Fade:
    return _Fade(mobject, out=False, shift=shift, **kw)


def fade_out(mobject: Mobject, **kw) -> _Fade:
    return _Fade(mobject, out=True, **kw)


# -- captions that change step by step ------------------------------------------

#: Where a scene's step captions sit (bottom of the frame) and their size
#: (14.6 px capitals at 480p).
STEP_CAPTION_Y = -3.3
STEP_CAPTION_SIZE = 24


def step_caption(text: str, theme: Theme, y: float = STEP_CAPTION_Y,
                 font_size: float = STEP_CAPTION_SIZE) -> VGroup:
    """A caption line (or two) at the bottom of the frame, fitted to its width."""
    lines = VGroup()
    for line in text.split("\n"):
        one = caption(line, theme, font_size)
        if one.width > 13.6 and " " in line:
            # Too long for one line at a readable size: break it, don't shrink it.
            words = line.split(" ")
            cut = min(range(1, len(words)), key=lambda k: abs(len(" ".join(words[:k])) - len(line) / 2))
            lines.add(caption(" ".join(words[:cut]), theme, font_size),
                      caption(" ".join(words[cut:]), theme, font_size))
        else:
            lines.add(one)
    lines.arrange(DOWN, buff=0.12)
    fit_within(lines, max_width=13.6)
    lines.text = "\n".join(line.original_text for line in lines)  # as the lines break on screen
    return lines.move_to([0, y, 0])


def _first_half(t: float) -> float:
    return smooth(min(1.0, 2.0 * t))


def _second_half(t: float) -> float:
    return smooth(max(0.0, 2.0 * t - 1.0))


def caption_out(cap: Any) -> Animation:
    """The old caption fades out in the first half of the animation ..."""
    return fade_out(cap, rate_func=_first_half)


def caption_in(cap: Any) -> Animation:
    """... and the new one fades in during the second half, so they never cross."""
    return fade_in(cap, rate_func=_second_half)
