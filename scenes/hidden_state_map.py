"""``hidden_state_map``: sentences as points, their encodings drawn by PCA.

Draft 000, "3. Hidden state", borrows figure 2 of Sutskever et al. (2014):
the final states of an encoder for many sentences, drawn in 2-D by PCA,
where sentences of similar meaning cluster. Here the sentences of
``[hidden_state_map]`` are read by the encoder the Part 1 scenes show: by
default the translator trained without attention (each point is its last
encoder state h_T, the only vector its decoder gets), or the small seeded
tanh RNN (also h_T, untrained) when the translator does not know a word of
the map, which the scene then names. The core projects the vectors on their first two principal
components. Points are coloured by the topic the numbers file gives each
sentence (a legend names them), and sentences made of the same words in
another order are joined by a line, as in Sutskever et al.'s figure. The
scene ends on what the core measured on this map (how many sentences lie
nearest one of their own topic, how far the word-order pairs lie apart
against the median distance), so it claims nothing the points do not show.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    DashedLine,
    Create,
    Dot,
    LaggedStart,
    Line,
    Mobject,
    ReplacementTransform,
    Text,
    VGroup,
)

from .base import FINAL_HOLD, RESULT_PAUSE, SAFE_EDGE, CaptionPacer, WalkthroughScene, reading_time
from .components import (
    NumberLabel,
    ValueCell,
    baseline_of,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    on_baseline,
    read_as_line,
)

__all__ = ["HiddenStateMapScene", "Stage", "shorten", "place_labels", "place_label_options", "topic_colours"]

TITLE_Y = 3.55
SUBTITLE_Y = 3.0
LEGEND_TOP = 2.65
CAPTION_Y = -3.35
# The plot's frame; points are mapped inside it with a margin for labels.
# Its top is under the legend (set per scene, as the legend may wrap).
PLOT_LEFT, PLOT_RIGHT = -6.3, SAFE_EDGE
PLOT_BOTTOM = -2.45
LABEL_SIZE = 23.5  # 14.3 px capitals at 480p, the legibility floor (issue 31)
TEXT_SIZE = 24  # the statement and the captions
TEX_SIZE = 34  # h_T: the TeX floor (part1_layout.MIN_TEX_SIZE)
#: The ending: held at least FINAL_HOLD and at most this (the rule: 4-8 s).
END_HOLD_MAX = 7.5
NOTE_CHARS = 120  # what one caption line holds at about 18 pt
# Labels are cut to the first of these lengths at which they all fit.
LABEL_CHARS = (40, 30, 24, 18, 14)
MAX_LABEL_CHARS = LABEL_CHARS[-1]
DOT_R = 0.08
#: How far a label keeps from the dashed word-order lines: closer, a line reads as touching it
#: (the default map's "The dog sees the cat" was 0.02 from one, issue 22).
LINK_CLEARANCE = 0.1
#: How far a label keeps from other points where it can: nearer, it may read as theirs.
OTHER_POINT_GAP = 0.3

Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def shorten(text: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """``text`` cut at a word boundary with an ellipsis if it is too long."""
    if len(text) <= max_chars:
        return text
    cut = text[: max_chars - 1]
    if " " in cut[max_chars // 2:]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:.") + "\u2026"


def _distinct_cuts(sentences: Sequence[str], k: int, lengths: Sequence[int]) -> list[str]:
    """Sentence ``k`` cut to each of ``lengths``, longest first, leaving out cuts
    that read the same as another sentence's cut at that length (twelve
    sentences that differ in their fourth word must not all read "a small\u2026")."""
    # Against every cut of the others at *any* length: labels may be cut to
    # different lengths, and "the cat sees\u2026" at 18 must not meet the same
    # text cut at 14 from another sentence (issue 25: two points, one label).
    others = {shorten(other, chars) for j, other in enumerate(sentences) if j != k for chars in lengths}
    others |= {other for j, other in enumerate(sentences) if j != k}
    cuts = [text for text in (shorten(sentences[k], chars) for chars in lengths) if text not in others]
    return list(dict.fromkeys(cuts or [sentences[k]]))


def _state_tex(hm) -> str:
    """The name of each sentence's vector: what the decoder would start from."""
    return r"h_T"


def _reader(hm) -> str:
    """Which encoder read the map's sentences, in words."""
    if hm.network == "translator":
        return ("the encoder of the translator trained without attention" if hm.trained
                else "the translator's encoder with seeded, untrained weights")
    if hm.unknown_words:
        # The other scenes show the translator: this RNN is the map's own.
        return "a small seeded tanh RNN (not trained)"
    return "the small tanh RNN of the encoder scene (not trained)"


def _quoted(words: Sequence[str], shown: int = 3) -> str:
    text = ", ".join(f"“{w}”" for w in words[:shown])
    return text + (f" and {len(words) - shown} more" if len(words) > shown else "")


def _first_note(hm, H: int) -> str:
    if hm.unknown_words:
        # Name as many unknown words as keep the line readable.
        for shown in (3, 2, 1):
            text = (f"The translator does not know {_quoted(hm.unknown_words, shown)}: a "
                    "seeded tanh RNN reads every sentence instead")
            if len(text) <= NOTE_CHARS:
                break
        return text
    if hm.network == "translator":
        return (f"each sentence read by the same encoder: one row of {H} numbers, "
                "the only thing its decoder would see of it")
    return f"each sentence read by the same encoder: its last state, {H} numbers, is one row"


def topic_colours(theme, topics: Sequence[str]) -> dict[str, Any]:
    """One colour per topic, in the order given (the theme's role colours, cycled)."""
    palette = (theme.encoder, theme.decoder, theme.embedding, theme.key, theme.value,
               theme.query, theme.positive, theme.negative)
    return {t: palette[k % len(palette)] for k, t in enumerate(topics)}


def _overlaps(a: Box, b: Box, pad: float = 0.04) -> bool:
    return (min(a[2], b[2]) - max(a[0], b[0]) > -pad) and (min(a[3], b[3]) - max(a[1], b[1]) > -pad)


def _overlap_area(a: Box, b: Box) -> float:
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def _leader_end(box: Box, point: Sequence[float]) -> np.ndarray:
    """Where a leader line from ``point`` meets ``box``: its nearest point."""
    return np.array([min(max(point[0], box[0]), box[2]), min(max(point[1], box[1]), box[3])])


def _segment_hits_box(p: np.ndarray, q: np.ndarray, box: Box, pad: float = 0.05) -> bool:
    """True if the segment p-q passes through ``box`` grown by ``pad`` (Liang-Barsky clip)."""
    x0, y0, x1, y1 = box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad
    d = q - p
    lo, hi = 0.0, 1.0
    for delta, start, low, high in ((d[0], p[0], x0, x1), (d[1], p[1], y0, y1)):
        if abs(delta) < 1e-12:
            if start < low or start > high:
                return False
            continue
        t0, t1 = (low - start) / delta, (high - start) / delta
        lo, hi = max(lo, min(t0, t1)), min(hi, max(t0, t1))
        if lo > hi:
            return False
    return True


# (dx, dy, align): beside, above/below centred, above/below starting or
# ending at the point (align +1/-1), then the diagonals.
_DIRECTIONS = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 1, 1), (0, -1, 1),
               (0, 1, -1), (0, -1, -1), (1, 1, 0), (1, -1, 0), (-1, 1, 0), (-1, -1, 0))
RADII = (0.14, 0.4, 0.75, 1.1, 1.5)


def place_labels(points: np.ndarray, sizes: Sequence[tuple[float, float]], bounds: Box,
                 radii: Sequence[float] = RADII) -> tuple[list[tuple[np.ndarray, bool]], bool]:
    """Greedy, collision-avoiding placement of one label per point (one size each).

    See :func:`place_label_options`; returns its placements and ``clean``.
    """
    placements, _, clean, _ = place_label_options(points, [[size] for size in sizes], bounds, radii)
    return placements, clean


def place_label_options(points: np.ndarray, options: Sequence[Iterable[tuple[float, float]]],
                        bounds: Box, radii: Sequence[float] = RADII,
                        links: Sequence[tuple[np.ndarray, np.ndarray]] = (),
                        ) -> tuple[list[tuple[np.ndarray, bool]], list[int], bool, int]:
    """Greedy, collision-avoiding placement of one label per point.

    Label ``i`` may take any of the sizes ``options[i]`` (say, its text cut
    shorter and shorter). For a size, it tries positions around its point
    (right, left, above, below, above or below starting or ending at the
    point, then the diagonals) at growing distances. A position is *clean*
    when its box stays inside ``bounds`` and touches neither an already
    placed label nor any point; it is also *unambiguous* when, if it needs a
    leader line, that line crosses no other label or point, and its box lies
    on no earlier leader line (so every line ends at one label only) and on
    none of ``links`` (the dashed lines drawn later between points).

    The label takes the first unambiguous position of its longest size that
    has one; else the clean position, of any size, whose leader crosses the
    fewest labels; else the position with the least overlap.

    Returns
    -------
    placements, picks, clean, ambiguous
        For each label its centre and whether it sits far enough from its
        point to need a leader line; the index of the size it took; ``clean``
        is False if some label could not be placed without touching another
        or leaving ``bounds``; how many labels were placed without an
        unambiguous position.
    """
    all_clean = True
    ambiguous = 0
    pts = np.asarray(points, dtype=float)[:, :2]
    dots: list[Box] = [(x - DOT_R, y - DOT_R, x + DOT_R, y + DOT_R) for x, y in pts]
    placed: list[Box] = []
    leaders: list[tuple[np.ndarray, np.ndarray]] = []
    out: list[tuple[np.ndarray, bool]] = []
    picks: list[int] = []
    for idx, point in enumerate(pts):
        others = [d for j, d in enumerate(dots) if j != idx]
        # A leader line leaves its dot through the dots that overlap it (a cluster): those it
        # cannot avoid, and they do not make it ambiguous; farther dots do.
        apart = [d for j, d in enumerate(dots) if j != idx and np.hypot(*(pts[j] - point)) > 2.5 * DOT_R]
        unambiguous = None
        clean: tuple[int, tuple] | None = None  # (crossings, candidate)
        least: tuple[float, tuple] | None = None  # (penalty, candidate)
        for pick, (w, h) in enumerate(options[idx]):
            for r_i, r in enumerate(radii):
                for dx, dy, align in _DIRECTIONS:
                    cx = point[0] + dx * (r + w / 2) + align * (w / 2 - DOT_R)
                    cy = point[1] + dy * (r + h / 2)
                    box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                    candidate = (np.array([cx, cy, 0.0]), r_i > 0, box, pick)
                    inside = (box[0] >= bounds[0] and box[2] <= bounds[2]
                              and box[1] >= bounds[1] and box[3] <= bounds[3])
                    # A gap of a dot's radius to other points: closer, a label
                    # reads as touching the point (issue 22).
                    touches = (any(_overlaps(box, b) for b in placed)
                               or any(_overlaps(box, b, DOT_R) for b in others))
                    # A label on an earlier leader would make that line ambiguous,
                    # and so would this label's leader crossing another label.
                    crossings = (sum(_segment_hits_box(a, b, box) for a, b in leaders)
                                 + sum(_segment_hits_box(a, b, box, LINK_CLEARANCE) for a, b in links)
                                 # near another point, a label may read as its name
                                 + sum(_overlaps(box, b, OTHER_POINT_GAP) for b in apart))
                    if r_i > 0:
                        end = _leader_end(box, point)
                        crossings += (sum(_segment_hits_box(point, end, b) for b in placed)
                                      + sum(_segment_hits_box(point, end, b, 0.0) for b in apart))
                    if inside and not touches:
                        if not crossings:
                            unambiguous = candidate
                            break
                        if clean is None or crossings < clean[0]:
                            clean = (crossings, candidate)
                    penalty = (sum(_overlap_area(box, b) for b in placed + others)
                               + (0 if inside else 100) + 0.01 * r)
                    if least is None or penalty < least[0]:
                        least = (penalty, candidate)
                if unambiguous is not None:
                    break
            if unambiguous is not None:
                break
        if unambiguous is not None:
            chosen = unambiguous
        elif clean is not None:
            chosen = clean[1]
            ambiguous += 1
        else:
            assert least is not None
            chosen = least[1]
            all_clean = False
            ambiguous += 1
        placed.append(chosen[2])
        if chosen[1]:
            leaders.append((point, _leader_end(chosen[2], point)))
        out.append((chosen[0], chosen[1]))
        picks.append(chosen[3])
    return out, picks, all_clean, ambiguous


def _on_one_line(row: VGroup) -> VGroup:
    """A legend row's entries (a mark, then a name) with their names on one baseline and
    their marks at the middle of the letters without ascenders: ``arrange`` centres each
    entry, so "economy" (a descender, no ascender) rode above "animals eat" (issue 22)."""
    names = [entry[1] for entry in row]
    base = baseline_of(names[0])
    probe = Text("x", font=names[0].font, font_size=names[0].font_size)
    for entry, name in zip(row, names):
        name.shift(UP * (base - baseline_of(name)))
        entry[0].set_y(base + probe.height / 2)
    return row


class _Lazy:
    """An iterable of label sizes, each measured only when reached."""

    def __init__(self, sizes, texts: list[str]) -> None:
        self._sizes, self._texts = sizes, texts

    def __iter__(self) -> Iterator[tuple[float, float]]:
        return self._sizes(self._texts)


@dataclass
class Stage:
    """What is on screen across the beats (STYLE.md \u00a73.2): the slots a beat reads and writes."""

    pacer: CaptionPacer
    heading: Mobject | None = None  # over the states' rows
    rows: VGroup | None = None  # per sentence: (its name, its h_T as tinted cells)
    legend: VGroup | None = None
    pair_key: VGroup | None = None  # the legend's "same words" entry
    points: np.ndarray | None = None  # where PCA puts each sentence, in the frame
    dots: list = field(default_factory=list)
    labels: list = field(default_factory=list)
    leaders: list = field(default_factory=list)  # a line per label set apart (None: beside its dot)


class HiddenStateMapScene(WalkthroughScene):
    scene_id = "hidden_state_map"
    trace_sections = ("hidden_state_map",)
    description = ("Sentences as points: the vector the encoder hands the decoder (h_T of the "
                   "translator trained without attention), projected to 2-D by PCA, coloured by "
                   "topic, word-order pairs joined (after Sutskever et al. 2014).")
    shown_results = ("states", "map")

    def construct(self) -> None:
        self.set_stage()
        self.read_every_sentence()
        self.project_the_states()
        self.name_the_points()
        if self.trace.hidden_state_map.word_order_pairs:
            self.join_the_word_order_pairs()
        self.say_what_the_map_shows()

    # -- beats -------------------------------------------------------------------

    def set_stage(self) -> None:
        """Title and which encoder read the sentences (the first frame, never black)."""
        title = caption("Sentences as points: what the encoder hands the decoder", self.theme, 30)
        fit_within(title, max_width=13.4)
        title.move_to([0, TITLE_Y, 0])
        self.add(title, self._reader_line(_state_tex(self.trace.hidden_state_map)))
        self.stage = Stage(pacer=CaptionPacer(self, y=CAPTION_Y))

    def read_every_sentence(self) -> None:
        """Each sentence's h_T as a row of tinted cells, one sentence at a time (the first
        with its heading, so the picture is never the title alone)."""
        st, hm = self.stage, self.trace.hidden_state_map
        st.heading, st.rows = self._state_rows()
        st.pacer.swap(_first_note(hm, hm.states.shape[1]), fade_in(st.heading), fade_in(st.rows[0]))
        for row in st.rows[1:]:
            self.play(fade_in(row), run_time=0.3)
        self.pause_on_result("states")

    def project_the_states(self) -> None:
        """PCA: each sentence's row of numbers travels to where PCA puts it and becomes its
        point (the names leave first: no text crosses another)."""
        st, hm = self.stage, self.trace.hidden_state_map
        N, H = hm.states.shape
        st.legend, st.pair_key = self._legend()
        self.plot_top = self.legend_bottom - 0.15
        self._swap(st.pacer, f"PCA keeps the 2 directions (of {H}) along which the {N} states differ most")
        st.points = self._point_positions()
        st.dots, st.labels, st.leaders = self._map_marks(st.points)
        self.play(fade_out(st.heading), *[fade_out(row[0]) for row in st.rows], fade_in(self._axes()),
                  run_time=0.6)
        self.play(LaggedStart(*[ReplacementTransform(st.rows[i][1], st.dots[i]) for i in range(N)],
                              lag_ratio=0.35), run_time=3.5)

    def name_the_points(self) -> None:
        """The names, the colours' key, and the leader lines of labels set apart from their points."""
        st = self.stage
        self.play(*[fade_in(label) for label in st.labels], fade_in(st.legend),
                  *[Create(line) for line in st.leaders if line is not None], run_time=0.8)
        self.pause_on_result("map")

    def join_the_word_order_pairs(self) -> None:
        """A dashed line between sentences made of the same words in another order."""
        st, hm = self.stage, self.trace.hidden_state_map
        links = VGroup(*(DashedLine(st.points[i], st.points[j], color=self.theme.text, stroke_width=2.5,
                                    dash_length=0.08) for i, j in hm.word_order_pairs))
        self._swap(st.pacer, "Dashed lines join sentences made of the same words in another order",
                   Create(links), fade_in(st.pair_key))
        self.pause_on_result("map")

    def say_what_the_map_shows(self) -> None:
        """What the core measured on this map, said as a statement with its numbers, one line
        at a time: each is read as it comes, so the last picture is held 4-8 s, not the
        whole statement's reading time."""
        st = self.stage
        lines = self._statement()
        for line in lines[1:]:
            line.set_opacity(0)  # comes in after the first is read
        self._swap(st.pacer, lines)
        self.pause_on_result("map", max(RESULT_PAUSE, reading_time(read_as_line(lines[0]).text) - 0.5))
        for k, line in enumerate(lines[1:], start=1):
            line.set_opacity(1)
            self.play(fade_in(line), run_time=0.6)
            said = reading_time(read_as_line(line).text)
            if k < len(lines) - 1:
                self.wait(max(RESULT_PAUSE, said))
        # The poster: held until the last line is read and the whole statement has been up its time.
        due = st.pacer.since + st.pacer.needed(lines.text) - self.time
        self.hold_final(min(END_HOLD_MAX, max(FINAL_HOLD + 0.5, said if len(lines) > 1 else 0.0, due)))
        if hasattr(self, "close_step"):
            self.close_step()
        st.pacer.log[-1] = (st.pacer.log[-1][0], st.pacer.log[-1][1], self.time)

    # -- builders ----------------------------------------------------------------

    def _map_marks(self, points: np.ndarray) -> tuple[list[Dot], list[Mobject], list[Line | None]]:
        """Per sentence: its dot in its topic's colour, its label where it fits, and the
        leader line from the dot to a label set apart (``None`` when beside it)."""
        theme, hm = self.theme, self.trace.hidden_state_map
        labels, placements = self._labels(points)
        colours = topic_colours(theme, hm.topic_order)
        dots, leaders = [], []
        for i, label in enumerate(labels):
            dots.append(Dot(points[i], radius=DOT_R, color=colours.get(hm.topics[i], theme.muted)))
            centre, leader = placements[i]
            label.move_to(centre)
            # A long label at the 14 px floor placed near the plot's right edge: kept in the frame.
            label.shift(LEFT * max(0.0, label.get_right()[0] - PLOT_RIGHT))
            leaders.append(Line(points[i], self._nearest_edge_point(label, points[i]), color=theme.muted,
                                stroke_width=1.5) if leader else None)
        return dots, labels, leaders

    def _swap(self, pacer: CaptionPacer, text: Any, *anims: Any) -> None:
        """The next caption once the current one has been read: out, then in (two
        captions in one place never share a frame)."""
        if pacer.current is not None:
            pacer.wait_for_reader()
            self.play(fade_out(pacer.current), run_time=0.4)
            pacer.current = None
        pacer.swap(text, *anims)

    def _reader_line(self, tex: str) -> Mobject:
        """Under the title, for the whole scene: which encoder read the sentences."""
        theme, hm = self.theme, self.trace.hidden_state_map
        line = VGroup(caption(f"read by {_reader(hm)}; each point is", theme, LABEL_SIZE, theme.muted),
                      math_label(tex, theme, TEX_SIZE, theme.encoder)).arrange(RIGHT, buff=0.12)
        fit_within(line, max_width=13.6)
        return line.move_to([0, SUBTITLE_Y, 0])

    def _state_rows(self) -> tuple[VGroup, VGroup]:
        """Each sentence's h_T as a row of cells tinted by sign and size (the glyph of
        its numbers), its sentence on the left."""
        theme, hm = self.theme, self.trace.hidden_state_map
        N, H = hm.states.shape
        scale = max(float(np.max(np.abs(hm.states))), 1e-9)
        cell_w = min(0.5, 7.0 / H)
        cell_h = min(0.42, 4.6 / N)
        out = VGroup()
        for i in range(N):
            cells = VGroup(*(ValueCell(v, theme, None, cell_w, cell_h * 0.9, scale, show_number=False)
                             for v in hm.states[i])).arrange(RIGHT, buff=0)
            name = caption(shorten(hm.sentences[i], 30), theme, LABEL_SIZE)
            name.next_to(cells, LEFT, buff=0.25)
            out.add(VGroup(name, cells))
        out.arrange(DOWN, buff=cell_h * 0.1, aligned_edge=RIGHT)
        heading = VGroup(math_label(_state_tex(hm), theme, TEX_SIZE, theme.encoder),
                         caption(f"of each sentence: {H} numbers, tinted by sign and size", theme, LABEL_SIZE,
                                 theme.muted)).arrange(RIGHT, buff=0.15)
        heading.next_to(out, UP, buff=0.2).align_to(out, RIGHT)
        VGroup(heading, out).move_to([0.8, -0.15, 0])
        return heading, out

    def _legend(self) -> tuple[VGroup, VGroup]:
        """One entry per topic (a dot in its colour and the name), in rows under the
        reader line; and the key of the word-order lines. Entries are placed, not shown."""
        theme, hm = self.theme, self.trace.hidden_state_map
        colours = topic_colours(theme, hm.topic_order)
        entries = VGroup(*(VGroup(Dot(radius=DOT_R, color=colours[t]), caption(t, theme, LABEL_SIZE))
                           .arrange(RIGHT, buff=0.12) for t in hm.topic_order))
        pair_key = VGroup(DashedLine(LEFT * 0.3, RIGHT * 0.3, color=theme.text, stroke_width=2.5,
                                     dash_length=0.08),
                          caption("same words", theme, LABEL_SIZE)).arrange(RIGHT, buff=0.12)
        items = [*entries, *([pair_key] if hm.word_order_pairs else [])]
        self.legend_bottom = LEGEND_TOP + 0.1  # no legend: the plot takes its room
        if not items:
            return VGroup(), pair_key.move_to([0, LEGEND_TOP, 0])
        # As many per row as fit in the frame's width.
        lines: list[list[Mobject]] = [[]]
        width = 0.0
        for item in items:
            if lines[-1] and width + 0.5 + item.width > 13.4:
                lines.append([])
                width = 0.0
            width += (0.5 if lines[-1] else 0) + item.width
            lines[-1].append(item)
        rows = VGroup(*(_on_one_line(VGroup(*line).arrange(RIGHT, buff=0.5)) for line in lines)
                      ).arrange(DOWN, buff=0.12)
        rows.move_to([0, LEGEND_TOP - rows.height / 2, 0])
        self.legend_bottom = rows.get_bottom()[1]
        return entries, pair_key

    def _statement(self) -> VGroup:
        """The last caption: what the map shows, with the measured numbers."""
        theme, hm = self.theme, self.trace.hidden_state_map
        key = "hidden_state_map."
        parts: list[list[Mobject]] = []

        def number(value: float, path: str, *index: int, decimals: int | None = None) -> NumberLabel:
            return NumberLabel(value, theme, (key + path, *index), font_size=TEXT_SIZE, colour=theme.highlight,
                               decimals=decimals)

        if hm.topic_sentences:
            parts.append([caption("On this map,", theme, TEXT_SIZE),
                          number(hm.same_topic_nearest, "same_topic_nearest", decimals=0),
                          caption("of", theme, TEXT_SIZE),
                          number(hm.topic_sentences, "topic_sentences", decimals=0),
                          caption("sentences lie nearest one of their own topic", theme, TEXT_SIZE)])
        pairs = len(hm.word_order_pairs)
        if pairs and pairs <= 3:
            line: list[Mobject] = [caption("same words, other order:", theme, TEXT_SIZE)]
            for k in range(pairs):
                if k:
                    line.append(caption("and" if k == pairs - 1 else ",", theme, TEXT_SIZE))
                line.append(number(hm.pair_distances[k], "pair_distances", k))
            line += [caption("apart; any two:", theme, TEXT_SIZE),
                     number(hm.median_distance, "median_distance"), caption("(median)", theme, TEXT_SIZE)]
            parts.append(line)
        else:
            parts.append([caption("the median distance between two sentences on this map is", theme, TEXT_SIZE),
                          number(hm.median_distance, "median_distance")])
        if not (hm.network == "translator" and hm.trained):
            # An untrained encoder groups nothing on purpose: say so with the measures.
            parts[-1].append(caption("(not trained: by chance)" if hm.topic_sentences or pairs
                                     else "(encoder not trained)", theme, TEXT_SIZE, theme.muted))
        lines = VGroup(*(on_baseline(VGroup(*line).arrange(RIGHT, buff=0.12)) for line in parts)
                       ).arrange(DOWN, buff=0.12)
        fit_within(lines, max_width=13.6)
        lines.move_to([0, CAPTION_Y, 0])
        lines.text = "\n".join(read_as_line(line).text for line in lines)
        return lines

    def _labels(self, points: np.ndarray) -> tuple[list[Mobject], list[tuple[np.ndarray, bool]]]:
        """Sentence labels, each cut shorter only as far as it needs to fit.

        If some leader line cannot avoid other labels, all labels start
        shorter, as long as that helps: an unambiguous line is worth a
        shorter label. Texts are built only when their size is asked for."""
        bounds = (PLOT_LEFT + 0.1, PLOT_BOTTOM + 0.1, PLOT_RIGHT - 0.1, self.plot_top - 0.05)
        built: dict[str, Mobject] = {}

        def label(text: str) -> Mobject:
            if text not in built:
                built[text] = caption(text, self.theme, LABEL_SIZE)
            return built[text]

        def sizes(texts: list[str]) -> Iterator[tuple[float, float]]:
            for text in texts:
                yield label(text).width, label(text).height

        hm = self.trace.hidden_state_map
        sentences = hm.sentences
        links = [(points[i][:2], points[j][:2]) for i, j in hm.word_order_pairs]
        best = None
        for start in range(len(LABEL_CHARS)):
            texts = [_distinct_cuts(sentences, k, LABEL_CHARS[start:]) for k in range(len(sentences))]
            placements, picks, clean, ambiguous = place_label_options(
                points, [_Lazy(sizes, t) for t in texts], bounds, links=links)
            score = (not clean, ambiguous)
            if best is None or score < best[0]:
                best = (score, [t[k] for t, k in zip(texts, picks)], placements)
            if score == (False, 0):
                break
        # One mobject per sentence: two sentences cut to the same text share
        # the measuring cache, but each needs its own label on screen.
        return [caption(text, self.theme, LABEL_SIZE) for text in best[1]], best[2]

    def _point_positions(self) -> np.ndarray:
        """PC coordinates mapped into the plot, one scale for both axes."""
        proj = self.trace.hidden_state_map.projected
        margin_x, margin_y = 1.3, 0.45
        lo = proj.min(axis=0)
        hi = proj.max(axis=0)
        span = np.maximum(hi - lo, 1e-9)
        width = PLOT_RIGHT - PLOT_LEFT - 2 * margin_x
        height = self.plot_top - PLOT_BOTTOM - 2 * margin_y
        k = min(width / span[0], height / span[1])
        centre_data = (lo + hi) / 2
        centre_plot = np.array([(PLOT_LEFT + PLOT_RIGHT) / 2, (PLOT_BOTTOM + self.plot_top) / 2])
        xy = (proj - centre_data) * k + centre_plot
        return np.column_stack([xy, np.zeros(len(xy))])

    def _axes(self) -> VGroup:
        theme, hm = self.theme, self.trace.hidden_state_map
        x_axis = Line([PLOT_LEFT, PLOT_BOTTOM, 0], [PLOT_RIGHT, PLOT_BOTTOM, 0], color=theme.panel,
                      stroke_width=2)
        y_axis = Line([PLOT_LEFT, PLOT_BOTTOM, 0], [PLOT_LEFT, self.plot_top, 0], color=theme.panel,
                      stroke_width=2)
        pc1 = self._axis_label(1, hm.explained_variance_percent[0])
        pc1.next_to(x_axis, DOWN, buff=0.1).align_to(x_axis, RIGHT)
        pc2 = self._axis_label(2, hm.explained_variance_percent[1]).rotate(PI / 2)
        pc2.next_to(y_axis, LEFT, buff=0.1).align_to(y_axis, DOWN)
        return VGroup(x_axis, y_axis, pc1, pc2)

    def _axis_label(self, k: int, value: float) -> VGroup:
        theme = self.theme
        return read_as_line(VGroup(
            caption(f"PC{k} (", theme, LABEL_SIZE, theme.muted),
            NumberLabel(value, theme, ("hidden_state_map.explained_variance_percent", k - 1),
                        font_size=LABEL_SIZE, colour=theme.muted),
            caption("% of variance)", theme, LABEL_SIZE, theme.muted),
        ).arrange(RIGHT, buff=0.05), sep="")

    @staticmethod
    def _nearest_edge_point(label: Mobject, point: np.ndarray) -> np.ndarray:
        x = min(max(point[0], label.get_left()[0]), label.get_right()[0])
        y = min(max(point[1], label.get_bottom()[1]), label.get_top()[1])
        return np.array([x, y, 0.0])
