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
)

__all__ = ["LengthCurveScene"]

TITLE_Y = 3.5
AXES_CENTRE = (-2.3, -0.15, 0)
RIGHT_EDGE = 6.8  # the frame's right edge is at 7.1
SECTION = "length_experiment"


class LengthCurveScene(WalkthroughScene):
    scene_id = "length_curve"
    trace_sections = (SECTION,)
    description = ("Measured: exact-match accuracy by sentence length, with attention and with only "
                   "the last encoder state h_T.")
    shown_results = ("accuracy",)

    def construct(self) -> None:
        theme, data = self.theme, self.trace.to_dict()[SECTION]
        if data is None:  # no measurements shipped: say so rather than draw nothing
            self.add(caption("No length measurements shipped.", theme, 28))
            self.play(Wait(0.1))
            self.pause_on_result("accuracy")
            self.hold_final()
            return
        lengths = data["lengths"]
        curves = (
            # name, words, formula, colour; then the formula in plain text for the captions file
            ("without_attention", "without attention: the\ndecoder sees only", r"h_T", theme.encoder, "h_T"),
            ("with_attention", "with attention:", r"c_t = \sum_j a_{tj}\, h_j", theme.heat_high,
             "c_t = \u03a3_j a_tj h_j"),
        )

        title = caption("Longer sentences, with and without attention", theme, 32).move_to([0, TITLE_Y, 0])
        sub = caption(_trained_how(data) + "; unseen test sentences", theme, 20, theme.muted)
        sub.next_to(title, DOWN, buff=0.15)
        # The first frame is the title, never black.
        self.add(title, sub)

        axes, labels = self._axes(lengths)
        self.play(Create(axes), fade_in(labels))

        # The legend is laid out first so each entry can appear with its curve.
        entries = [self._legend_entry(name, text, tex, spoken, colour, len(lengths) - 1, lengths[-1])
                   for name, text, tex, colour, spoken in curves]
        legend = VGroup(*entries).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
        fit_within(legend, max_width=RIGHT_EDGE - (axes.get_right()[0] + 0.5))
        legend.next_to(axes, RIGHT, buff=0.5).align_to(axes, UP)
        for (name, _, _, colour, _), entry in zip(curves, entries):
            graph = axes.plot_line_graph(lengths, data[name]["exact_match"], line_color=colour,
                                         stroke_width=5, vertex_dot_radius=0.07,
                                         vertex_dot_style={"color": colour})
            self.play(Create(graph), fade_in(entry, shift=LEFT * 0.2), run_time=1.6)
            # Each curve's value at the longest length is a result: let it be read.
            self.pause_on_result("accuracy")
        # Both curves and their values: the poster, held for a loop.
        self.hold_final()

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
            labels.add(tick, caption(str(n), theme, 20, theme.muted).next_to(axes.c2p(n, 0), DOWN, buff=0.15))
        for frac in (0.0, 0.5, 1.0):
            # Fractions, as the values in the legend are shown (0.05, not 5 %).
            labels.add(caption(f"{frac:g}", theme, 20, theme.muted)
                       .next_to(axes.c2p(lengths[0] - 0.5, frac), LEFT, buff=0.15))
        labels.add(caption("source sentence length (words)", theme, 20)
                   .next_to(axes.x_axis, DOWN, buff=0.55))
        labels.add(caption("share of sentences translated exactly", theme, 20)
                   .next_to(axes.c2p(lengths[0] - 0.5, 1.0), UP, buff=0.3).align_to(axes, LEFT))
        return axes, labels

    def _legend_entry(self, name: str, text: str, tex: str, spoken: str, colour, last: int,
                      longest: int) -> VGroup:
        """Line sample, name (with the context the decoder reads, in the drafts' symbols), and
        the measured value at the longest length."""
        theme = self.theme
        sample = VGroup(Line(LEFT * 0.3, RIGHT * 0.3, color=colour, stroke_width=5), Dot(radius=0.07, color=colour))
        formula = math_label(tex, theme, 30, colour)
        formula.spoken = spoken
        words = read_as_line(VGroup(caption(text, theme, 20), formula).arrange(DOWN, buff=0.1, aligned_edge=LEFT))
        head = VGroup(sample, words).arrange(RIGHT, buff=0.2, aligned_edge=UP)
        value = NumberLabel(self.trace.to_dict()[SECTION][name]["exact_match"][last], theme,
                            key=(f"{SECTION}.{name}.exact_match", last), font_size=20, colour=colour)
        at = caption(f"at {longest} words:", theme, 20, theme.muted)
        row = read_as_line(VGroup(at, value).arrange(RIGHT, buff=0.15))
        row.next_to(head, DOWN, buff=0.12).align_to(words, LEFT)
        return VGroup(head, row)


def _trained_how(data: dict) -> str:
    """How the two networks were trained: the core's note when the curves carry their settings."""
    return data.get("training_note") or "the same GRU translator trained twice"
