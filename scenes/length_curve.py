"""``length_curve``: accuracy against sentence length, with and without
attention, as measured on the numpy translator.

Draft 000, "Limitations of this architecture": the real version of the
"drop in performance with sentence length" figure. The same GRU
encoder-decoder is trained twice (``scripts/length_experiment.py``): once
with attention (the context c_t = sum_j a_tj h_j), once with a decoder that
sees only the encoder's last state h_T; each point is the share of unseen test sentences of that source
length translated exactly.
"""

from __future__ import annotations

from typing import Any

from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Axes,
    Create,
    Dot,
    Line,
    VGroup,
    Wait,
)

from .base import WalkthroughScene
from .components import (
    NumberLabel,
    caption,
    fade_in,
    fit_within,
    math_label,
    read_as_line,
    role_formula,
)

__all__ = ["LengthCurveScene"]

TITLE_Y = 3.5
AXES_CENTRE = (-2.3, -0.15, 0)
RIGHT_EDGE = 6.8  # the frame's right edge is at 7.1
SMALL = 23.5  # the smallest text: 14.3 px capitals at 480p (the floor of issue 31)
SECTION = "length_experiment"


class LengthCurveScene(WalkthroughScene):
    scene_id = "length_curve"
    trace_sections = (SECTION,)
    description = ("Measured: exact-match accuracy by sentence length, with attention and with only "
                   "the last encoder state h_T.")
    shown_results = ("accuracy",)

    def construct(self) -> None:
        data = self.trace.to_dict()[SECTION]
        if data is None:  # no measurements shipped: say so rather than draw nothing
            self.add(caption("No length measurements shipped.", self.theme, 28))
            self.play(Wait(0.1))
            self.pause_on_result("accuracy")
            self.hold_final()
            return
        self.set_stage(data)
        axes = self.draw_axes(data["lengths"])
        entries = self._legend(axes, data)
        for (name, colour), entry in zip(self._curves(), entries):
            self.draw_curve(axes, data, name, colour, entry)
        self.say_why(entries)
        # Both curves, their values and the reason: the poster, held for a loop.
        self.hold_final()

    # -- beats -------------------------------------------------------------------

    def set_stage(self, data: dict) -> None:
        """The title and how both networks were trained and tested (the first frame)."""
        theme = self.theme
        title = caption("Longer sentences, with and without attention", theme, 32).move_to([0, TITLE_Y, 0])
        sub = caption(_trained_how(data), theme, SMALL, theme.muted)
        fit_within(sub, max_width=13.4)
        sub.next_to(title, DOWN, buff=0.15)
        self.add(title, sub)

    def draw_axes(self, lengths: list[int]) -> Axes:
        axes, labels = self._axes(lengths)
        self.play(Create(axes), fade_in(labels))
        return axes

    def draw_curve(self, axes: Axes, data: dict, name: str, colour: Any, entry: VGroup) -> None:
        """One network's curve, drawn left to right, and its legend entry with the value at the
        longest length (a result: held still to be read)."""
        graph = axes.plot_line_graph(data["lengths"], data[name]["exact_match"], line_color=colour,
                                     stroke_width=5, vertex_dot_radius=0.07, vertex_dot_style={"color": colour})
        self.play(Create(graph), fade_in(entry, shift=LEFT * 0.2), run_time=1.6)
        self.pause_on_result("accuracy")

    def say_why(self, entries: VGroup) -> None:
        """Why they part: h_T is one fixed-size vector for the whole sentence; c_t is made again
        for every word written (the draft's point)."""
        theme = self.theme
        h_t = math_label("h_T", theme, 34, theme.encoder)
        h_t.spoken = "h_T"
        c_t = math_label("c_t", theme, 34, theme.value)
        c_t.spoken = "c_t"
        why = VGroup(read_as_line(VGroup(h_t, caption("holds the whole sentence;", theme, SMALL)).arrange(RIGHT, buff=0.12)),
                     read_as_line(VGroup(c_t, caption("is rebuilt for each word", theme, SMALL)).arrange(RIGHT, buff=0.12))
                     ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        fit_within(why, max_width=RIGHT_EDGE - entries.get_left()[0])
        why.next_to(entries, DOWN, buff=0.5).align_to(entries, LEFT)
        self.play(fade_in(why))

    # -- builders --------------------------------------------------------------

    def _curves(self) -> tuple[tuple[str, Any], ...]:
        return (("without_attention", self.theme.encoder), ("with_attention", self.theme.weight))

    def _legend(self, axes: Axes, data: dict) -> VGroup:
        """The legend, laid out first so each entry can appear with its curve."""
        theme, lengths = self.theme, data["lengths"]
        curves = (
            # name, the curve's colour, its name, the words before the formula, the formula's pieces
            # (each symbol in its role's colour, as in every clip), the formula in plain text for the
            # captions file
            ("without_attention", theme.encoder, "without attention: the", "decoder sees only", ("h_T",), "h_T"),
            ("with_attention", theme.weight, "with attention:", "", ("c_t", "=", r"\sum_j", "a_{tj}", r"\,", "h_j"),
             "c_t = \u03a3_j a_tj h_j"),
        )
        entries = VGroup(*(self._legend_entry(name, colour, head, lead, pieces, spoken, len(lengths) - 1, lengths[-1])
                           for name, colour, head, lead, pieces, spoken in curves)
                         ).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        fit_within(entries, max_width=RIGHT_EDGE - (axes.get_right()[0] + 0.5))
        entries.next_to(axes, RIGHT, buff=0.5).align_to(axes, UP)
        return entries

    def _axes(self, lengths: list[int]) -> tuple[Axes, VGroup]:
        theme = self.theme
        axes = Axes(
            x_range=[lengths[0] - 0.5, lengths[-1] + 0.5, 1],
            y_range=[0, 1.0, 0.25],
            x_length=7.6, y_length=4.4, tips=False,
            axis_config={"color": theme.muted, "stroke_width": 2, "include_ticks": True},
            x_axis_config={"numbers_to_include": [], "include_ticks": False},
        ).move_to(AXES_CENTRE)
        labels = VGroup()
        # Tick labels: the measured lengths under the axis, a percent scale beside it.
        for n in lengths:
            tick = Line(axes.c2p(n, 0) + DOWN * 0.06, axes.c2p(n, 0) + UP * 0.06, color=theme.muted)
            labels.add(tick)
            if (n - lengths[0]) % 3 == 0 or n == lengths[-1]:  # every third length: fewer numbers to read
                labels.add(caption(str(n), theme, SMALL, theme.muted).next_to(axes.c2p(n, 0), DOWN, buff=0.15))
        for frac in (0.0, 0.5, 1.0):
            # Fractions, as the values in the legend are shown (0.05, not 5 %).
            labels.add(caption(f"{frac:g}", theme, SMALL, theme.muted)
                       .next_to(axes.c2p(lengths[0] - 0.5, frac), LEFT, buff=0.15))
        labels.add(caption("source sentence length (words)", theme, SMALL)
                   .next_to(axes.x_axis, DOWN, buff=0.55))
        labels.add(caption("share of sentences translated exactly", theme, SMALL)
                   .next_to(axes.c2p(lengths[0] - 0.5, 1.0), UP, buff=0.3).align_to(axes, LEFT))
        return axes, labels

    def _legend_entry(self, name: str, colour, head: str, lead: str, pieces: tuple[str, ...], spoken: str,
                      last: int, longest: int) -> VGroup:
        """Line sample, name, what the decoder reads (in the drafts' symbols, each in its role's
        colour: c_t is the context's colour here as in every clip, not the curve's), and the
        measured value at the longest length."""
        theme = self.theme
        sample = VGroup(Line(LEFT * 0.3, RIGHT * 0.3, color=colour, stroke_width=5), Dot(radius=0.07, color=colour))
        formula = role_formula(pieces, theme, 34)
        formula.spoken = spoken
        second = VGroup(caption(lead, theme, SMALL), formula).arrange(RIGHT, buff=0.15) if lead else formula
        words = read_as_line(VGroup(caption(head, theme, SMALL), second).arrange(DOWN, buff=0.1, aligned_edge=LEFT))
        head = VGroup(sample, words).arrange(RIGHT, buff=0.2, aligned_edge=UP)
        value = NumberLabel(self.trace.to_dict()[SECTION][name]["exact_match"][last], theme,
                            key=(f"{SECTION}.{name}.exact_match", last), font_size=SMALL, colour=colour)
        at = caption(f"at {longest} words:", theme, SMALL, theme.muted)
        row = read_as_line(VGroup(at, value).arrange(RIGHT, buff=0.15))
        row.next_to(head, DOWN, buff=0.12).align_to(words, LEFT)
        return VGroup(head, row)


def _trained_how(data: dict) -> str:
    """How the two networks were trained and tested, in the reader's words, from the settings the
    curves carry: the same budget is said once, different ones are both named."""
    configs = [data.get(name, {}).get("config") for name in ("with_attention", "without_attention")]
    if not all(configs):
        return "the same GRU translator trained twice; tested on unseen sentences"
    with_, without = configs
    if (with_["steps"], with_["train_size"]) == (without["steps"], without["train_size"]):
        return (f"both trained alike ({with_['steps']} steps on {with_['train_size']} sentences); "
                "tested on unseen sentences")
    return (f"trained {with_['steps']} steps with attention, {without['steps']} without; "
            "tested on unseen sentences")
