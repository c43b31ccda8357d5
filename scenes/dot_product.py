"""``dot_product``: the dot product as a similarity score (movie and user).

Draft 000, "Dot product as a similarity measure": the movie vector ``m`` and
the user vector ``u`` hold one value per feature; their element-wise
products appear one by one and add up to the score; then the score is
related to the angle between the vectors (``m . u = |m| |u| cos theta``)
and a turning user vector shows that aligned vectors score high and opposed
ones low. The last frame is the draft's static figure ``dot_product``.

Magnitude is drawn, not only printed: beside the running sums a waterfall of
bars steps from 0 by each product (green up, pink down) to the score.

What the screen may round (issue 25): every number is the core's, at
decimals the core chose (``shown_decimals``, 2 to 6) so that each product and
running sum, and score / (|m| |u|) and arccos of the cosine, redone from the
numbers as shown, give the shown results, which are the true ones (the arrow
and the sweep are drawn from the true values and never contradict them).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    DL,
    DR,
    UL,
    UR,
    Animation,
    Arc,
    Arrow,
    Create,
    DashedVMobject,
    Dot,
    GrowArrow,
    Indicate,
    Line,
    UpdateFromAlphaFunc,
    linear,
    Mobject,
    Rectangle,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
)

from .base import SAFE_EDGE, SAFE_EDGE_TEXT, WalkthroughScene
from .components import (
    NumberLabel,
    ValueCell,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
    read_as_line,
)
from .motion import digits_of, fly

__all__ = ["DotProductScene", "Stage"]

TITLE_Y = 3.5
TABLE_TOP = 2.35
ROW_H = 0.44
CELL_W = 0.86  # at least; wider when the numbers are longer (e.g. 180.50)
CHAR_W = 0.194  # width of one digit of the number font at NUM_SIZE
NAME_RIGHT = -5.15
NUM_SIZE = 23.5  # 14.3 px capitals at 480p (the floor of issue 31)
SMALL = 23.5  # the smallest text: labels, notes, the readout
# The plane (right half): m along +x from this origin, the longer vector R long.
PLANE_ORIGIN = np.array([3.75, 0.6, 0.0])
PLANE_R = 2.3
# The waterfall of running sums: a strip this wide right of the table.
WATERFALL_W = 1.3
#: The widest the cosine's formula and first line may be on one row (the left column, set at x = -3.6).
COSINE_ROW_W = 6.9
WATERFALL_GAP = 0.3
# The score-versus-angle plot under the plane.
CURVE_LEFT, CURVE_RIGHT = 1.55, 5.95
CURVE_MID_Y, CURVE_HALF_H = -2.2, 0.75


def _degrees(theme: Any, key: tuple, value: float, colour: Any = None) -> VGroup:
    """An angle in whole degrees (more would be false precision): number and sign."""
    number = NumberLabel(value, theme, key, font_size=NUM_SIZE, colour=colour, decimals=0)
    sign = caption("\u00b0", theme, SMALL, colour)
    sign.next_to(number, RIGHT, buff=0.03).align_to(number, UP)
    return VGroup(number, sign)


def _row(*parts: Mobject, buff: float = 0.12) -> VGroup:
    """Captions, formulas and numbers in one line, read as one caption."""
    return read_as_line(VGroup(*parts).arrange(RIGHT, buff=buff))


@dataclass
class Stage:
    """What is on screen across the beats (STYLE.md \u00a73.2): the slots a beat reads and writes."""

    headers: VGroup
    plane: dict[str, Mobject]  # base line, m and u arrows and names, arc, theta, circle, caption
    names: VGroup = field(default_factory=VGroup)
    movie: VGroup = field(default_factory=VGroup)
    user: VGroup = field(default_factory=VGroup)
    products: VGroup = field(default_factory=VGroup)
    sums: VGroup = field(default_factory=VGroup)
    times: VGroup = field(default_factory=VGroup)
    zero_line: Mobject | None = None
    steps: VGroup | None = None  # the waterfall's bars
    focus: Mobject | None = None  # the frame round the feature being multiplied
    score_cell: ValueCell | None = None
    score_row: Mobject | None = None
    below: Mobject | None = None  # the lowest line of the left column so far
    curve: VGroup | None = None  # the score-vs-angle plot's axes and values
    turning: Mobject | None = None  # the copy of u that sweeps round
    traced: VMobject | None = None  # the curve traced so far by the sweep
    traced_full: VMobject | None = None  # the whole curve through the sweep's stops
    dots: VGroup = field(default_factory=VGroup)
    readout: VGroup | None = None


class DotProductScene(WalkthroughScene):
    scene_id = "dot_product"
    trace_sections = ("dot_product",)
    description = ("Dot product as similarity: movie and user feature vectors, their products "
                   "summed to a score, and the score against the angle between them.")
    shown_results = ("score", "angle")

    def construct(self) -> None:
        self.set_stage()
        self.show_the_two_vectors()
        self.draw_them_as_arrows()
        self.open_the_sum()
        for i in range(len(self.trace.dot_product.features)):
            self.multiply_feature(i)
            self.add_to_the_sum(i)
        self.total_the_score()
        self.name_what_moves_it()
        self.relate_the_score_to_the_angle()
        self.turn_the_user()
        self.draw_the_curve()
        # The final figure (the draft's dot_product figure) held for a poster and a loop.
        self.hold_final()

    # -- beats -------------------------------------------------------------------

    def set_stage(self) -> None:
        """The title (the first frame); the table's cells, the waterfall and the plane, built."""
        dp = self.trace.dot_product
        # The table's decimals are the core's choice: the fewest at which every
        # product and sum redone from the shown operands gives the shown result.
        self.theme = theme = replace(self.theme, decimals=dp.shown_decimals)
        self._columns()
        title = _row(caption("Dot product as a similarity score", theme, 28),
                     math_label(r"m \cdot u = \sum_i m_i\,u_i", theme, 34), buff=0.5)
        title.move_to([0, TITLE_Y, 0]).to_edge(LEFT, buff=0.4)
        self.add(title)
        st = self.stage = Stage(headers=self._headers(), plane=self._plane())
        scale = max(float(np.max(np.abs(np.concatenate([dp.movie, dp.user])))), 1e-9)
        pscale = max(float(np.max(np.abs(dp.products))), 1e-9)
        for i, feature in enumerate(dp.features):
            y = TABLE_TOP - (i + 0.5) * ROW_H
            name = caption(feature, theme, SMALL)  # never shrunk: long names move the table right
            st.names.add(name.move_to([self.col_x["name"], y, 0]).align_to([self.col_x["name"] + 0.6, 0, 0], RIGHT))
            st.movie.add(self._cell(dp.movie[i], ("dot_product.movie", i), scale, self.col_x["movie"], y))
            st.user.add(self._cell(dp.user[i], ("dot_product.user", i), scale, self.col_x["user"], y))
            st.products.add(self._cell(dp.products[i], ("dot_product.products", i), pscale,
                                       self.col_x["product"], y))
            st.sums.add(self._cell(dp.running_sum[i], ("dot_product.running_sum", i), pscale, self.col_x["sum"], y))
            st.times.add(caption("\u00d7", theme, 24, theme.muted).move_to(
                [(self.col_x["movie"] + self.col_x["user"]) / 2, y, 0]))
        self.table_cells = VGroup(*st.movie, *st.user, *st.products, *st.sums)  # the tests check the plane clears it
        self.left_column_right = -7.0  # the right edge of the lines under the table, as they come
        st.zero_line, st.steps = self._waterfall()
        st.score_cell = ValueCell(dp.score, theme, ("dot_product.score",), width=self.cell_w,
                                  height=ROW_H, scale=pscale, font_size=NUM_SIZE)

    def show_the_two_vectors(self) -> None:
        """The movie's features, then the user's, side by side."""
        st, theme = self.stage, self.theme
        self.play(fade_in(st.headers[:3]), fade_in(st.names), fade_in(st.movie),
                  Create(self._frame(st.movie, theme.key)))
        self.play(fade_in(st.user), Create(self._frame(st.user, theme.query)))

    def draw_them_as_arrows(self) -> None:
        """The two vectors as arrows from the start: the right half is never empty while the
        products are summed, and the angle is there to be named."""
        plane = self.stage.plane
        self.play(fade_in(plane["caption"]), Create(plane["base"]), GrowArrow(plane["m"]),
                  fade_in(plane["m_label"]), GrowArrow(plane["u"]), fade_in(plane["u_label"]))

    def open_the_sum(self) -> None:
        """The products' and running sums' columns, and the waterfall's zero line."""
        st = self.stage
        self.play(fade_in(st.headers[3:]), Create(st.zero_line))

    def multiply_feature(self, i: int) -> None:
        """m_i and u_i framed; their product slides in from the operands' side (a box flying
        from m_i would cross u_i's digits; numbers are never morphed)."""
        st = self.stage
        st.focus = SurroundingRectangle(VGroup(st.movie[i], st.user[i]), color=self.theme.highlight, buff=0.04)
        self.play(Create(st.focus), fade_in(st.times[i]), run_time=0.4)
        self.play(fade_in(st.products[i], shift=RIGHT * 0.3), run_time=0.6)

    def add_to_the_sum(self, i: int) -> None:
        """The product travels into the running sum, its box only (no digits in flight); the
        sum appears as it lands, and the waterfall steps by the product."""
        st = self.stage
        digits_of(st.products[i]).set_z_index(1)  # the box leaving the cell passes under its digits
        self.play(fly(st.products[i], st.sums[i], what="add", src=("dot_product.products", i),
                      dst=("dot_product.running_sum", i)),
                  fade_in(st.steps[i]), fade_out(st.focus), run_time=0.6)

    def total_the_score(self) -> None:
        """score = m . u, the last running sum, under the table."""
        st, theme = self.stage, self.theme
        st.score_row = _row(caption("score = m \u00b7 u =", theme, 24), st.score_cell)
        table_bottom = TABLE_TOP - len(st.products) * ROW_H
        st.score_row.next_to([-3.6, table_bottom - 0.2, 0], DOWN, buff=0)
        self.play(fade_in(st.score_row))
        self.pause_on_result("score")
        # Read once: the products and running sums step back (the waterfall keeps their sizes);
        # the operands and the score stay.
        self.play(*(digits_of(cell).animate.set_opacity(0.3) for cell in (*st.products, *st.sums)), run_time=0.5)
        st.below = st.score_row

    def name_what_moves_it(self) -> None:
        """Which feature pushes the score up most, which pulls it down most."""
        st = self.stage
        story = self._story()
        if story is not None:
            story.next_to(st.score_row, DOWN, buff=0.3)
            self.play(fade_in(story))
            st.below = story

    def relate_the_score_to_the_angle(self) -> None:
        """cos(theta) from the score and the lengths (one or two lines), then theta, drawn."""
        st, plane = self.stage, self.stage.plane
        cos_rows = self._cosine_rows()
        cos_rows.next_to(st.below, DOWN, buff=0.4).set_x(-3.6)
        low = -3.85 - cos_rows.get_bottom()[1]
        if low > 0:  # many features: the lines close up under the table rather than leave the frame
            cos_rows.shift(UP * min(low, 0.28))
            if cos_rows.get_bottom()[1] < -3.85:
                cos_rows.arrange(DOWN, buff=0.08, aligned_edge=LEFT).next_to(st.below, DOWN, buff=0.12)
                cos_rows.set_x(-3.6)
        if cos_rows.get_left()[0] < -6.85:  # long numbers: keep the frame's margin
            cos_rows.shift(RIGHT * (-6.85 - cos_rows.get_left()[0]))
        self.left_column_right = max(self.left_column_right, cos_rows.get_right()[0])
        self.play(*(fade_in(row) for row in cos_rows[:-1]))
        self.pause_on_result("angle")
        self.play(fade_in(cos_rows[-1]))
        self.pause_on_result("angle")
        self.play(Create(plane["arc"]), fade_in(plane["theta"]))

    def turn_the_user(self) -> None:
        """u turns from aligned to opposed, one stop at a time in one continuous motion: at each
        stop a dot lands on the plot and the curve traced so far grows behind it, and the
        readout's numbers change in place (never fading out and back)."""
        st, theme, dp = self.stage, self.theme, self.trace.dot_product
        plane = st.plane
        st.curve = self._curve_axes()
        self.play(Create(plane["circle"]), fade_in(st.curve), *self._dim_our_user(0.3))
        labels, slots = self._readout_labels()
        readouts = [self._readout_numbers(k, slots) for k in range(len(dp.sweep_angles_deg))]
        st.dots = VGroup(*(Dot(self._curve_point(a, c), radius=0.06, color=theme.query)
                           for a, c in zip(dp.sweep_angles_deg, dp.sweep_cosines)))
        st.traced = self._traced_curve()
        st.turning = self._arrow_to(dp.sweep_users[0], theme.query)
        self.play(GrowArrow(st.turning), fade_in(labels), fade_in(readouts[0]), fade_in(st.dots[0]))
        for k in range(1, len(readouts)):
            self.play(self._turn_to(k, readouts), run_time=0.35, rate_func=linear)
        self.remove(*readouts[:-1])  # each was shown in place and is hidden now
        st.readout = VGroup(labels, readouts[-1])
        self.pause_on_result("angle")

    def draw_the_curve(self) -> None:
        """The turning copy and its readout leave; our user back in full, its score marked on the
        curve it traced."""
        st = self.stage
        ours = self._our_point(st.traced, [*st.curve[2].submobjects, *st.curve[3:], *st.dots])
        self.play(fade_out(st.turning), fade_out(st.readout), fade_out(st.plane["circle"]),
                  *self._dim_our_user(1.0))
        self.play(fade_in(ours), Indicate(st.score_cell, color=self.theme.highlight, scale_factor=1.1))

    def _turn_to(self, k: int, readouts: list[VGroup]) -> Animation:
        """One step of the sweep: the arrow turns from stop k-1 to stop k (a rotation, drawn, about
        the plane's origin), the traced curve grows to dot k, and at the halfway point the readout
        shows the nearer stop's numbers, in place."""
        st, dp = self.stage, self.trace.dot_product
        start = st.turning.copy()
        turn = np.radians(dp.sweep_angles_deg[k] - dp.sweep_angles_deg[k - 1])
        before, after = readouts[k - 1], readouts[k]
        last = len(readouts) - 1
        full = st.traced_full
        after.set_opacity(0)
        st.dots[k].set_opacity(0)
        self.add(after, st.dots[k], st.traced)

        def step(group: Mobject, alpha: float) -> None:
            st.turning.become(start.copy().rotate(turn * alpha, about_point=self.plane_origin))
            st.traced.pointwise_become_partial(full, 0, (k - 1 + alpha) / last)
            now, then = (before, after) if alpha < 0.5 else (after, before)
            now.set_opacity(1)
            then.set_opacity(0)
            st.dots[k].set_opacity(1 if alpha >= 1 else 0)

        return UpdateFromAlphaFunc(VGroup(st.turning, before, after, st.dots[k], st.traced), step)

    def _traced_curve(self) -> VMobject:
        """The curve through the sweep's stops (``traced_full``) and the part traced so far."""
        st, theme = self.stage, self.theme
        st.traced_full = VMobject(stroke_color=theme.query, stroke_width=2, stroke_opacity=0.6)
        st.traced_full.set_points_smoothly([d.get_center() for d in st.dots])
        return st.traced_full.copy().pointwise_become_partial(st.traced_full, 0, 0)

    # -- builders --------------------------------------------------------------

    def _dim_our_user(self, opacity: float) -> list:
        """Our user's arrow, name and angle to ``opacity`` (dimmed while u turns)."""
        plane = self.stage.plane
        return [plane["u"].animate.set_opacity(opacity), plane["u_label"].animate.set_opacity(opacity),
                plane["arc"].animate.set_stroke(opacity=opacity), plane["theta"].animate.set_opacity(opacity)]

    def _columns(self) -> None:
        """Cell width from the longest number shown, then the column centres."""
        dp = self.trace.dot_product
        shown = [self.theme.fmt(v) for v in (*dp.movie, *dp.user, *dp.products, *dp.running_sum)]
        self.cell_w = max(CELL_W, CHAR_W * max(len(t) for t in shown) + 0.16)
        # Names at the readable size; long ones push the table right.
        widest = max(caption(f, self.theme, SMALL).width for f in dp.features)
        name_right = max(NAME_RIGHT, -6.85 + widest)
        movie = name_right + 0.25 + self.cell_w / 2
        user = movie + self.cell_w + 0.5  # room for the x sign
        product = user + self.cell_w + 0.4
        self.col_x = {"name": name_right - 0.6, "movie": movie, "user": user, "product": product,
                      "sum": product + self.cell_w + 0.3}
        # The plane goes right of the table (wide numbers push it right and
        # make it smaller), so no arrow ever crosses a cell.
        self.waterfall_left = self.col_x["sum"] + self.cell_w / 2 + WATERFALL_GAP
        table_right = self.waterfall_left + WATERFALL_W
        plane_left = max(PLANE_ORIGIN[0] - PLANE_R, table_right + 0.35)
        self.plane_r = min(PLANE_R, (6.85 - plane_left) / 2)
        self.plane_origin = np.array([plane_left + self.plane_r, PLANE_ORIGIN[1], 0.0])

    def _cell(self, value: float, key: tuple, scale: float, x: float, y: float) -> ValueCell:
        return ValueCell(value, self.theme, key, width=self.cell_w, height=ROW_H, scale=scale,
                         font_size=NUM_SIZE).move_to([x, y, 0])

    def _frame(self, cells: VGroup, colour: Any) -> Mobject:
        from manim import Rectangle

        return Rectangle(width=cells.width + 0.08, height=cells.height + 0.08,
                         stroke_color=colour, stroke_width=3).move_to(cells)

    def _headers(self) -> VGroup:
        theme = self.theme
        y = TABLE_TOP + 0.3
        feature = caption("feature", theme, SMALL, theme.muted).move_to([self.col_x["name"], y, 0])
        movie = VGroup(caption("movie", theme, SMALL, theme.key), math_label("m", theme, 34, theme.key)
                       ).arrange(DOWN, buff=0.06).move_to([self.col_x["movie"], y + 0.15, 0])
        user = VGroup(caption("user", theme, SMALL, theme.query), math_label("u", theme, 34, theme.query)
                      ).arrange(DOWN, buff=0.06).move_to([self.col_x["user"], y + 0.15, 0])
        product = math_label(r"m_i\,u_i", theme, 34).move_to([self.col_x["product"], y, 0])
        running = VGroup(caption("running", theme, SMALL, theme.muted),
                         caption("sum", theme, SMALL, theme.muted)).arrange(DOWN, buff=0.04)
        running.move_to([self.col_x["sum"], y + 0.15, 0])
        # Pango and TeX glyphs sit at different heights: centre them on one line.
        for mob in (feature, product):
            mob.set_y(y)
        return VGroup(feature, movie, user, product, running)

    def _story(self) -> VGroup | None:
        """Which feature pushes the score up most, which pulls it down most."""
        theme, dp = self.theme, self.trace.dot_product
        up, down = dp.top_term, dp.bottom_term
        lines: list[Mobject] = []
        if dp.products[up] > 0:
            lines.append(_row(caption(f"{dp.features[up]} pushes the score up:", theme, SMALL, theme.positive),
                              NumberLabel(dp.products[up], theme, ("dot_product.products", up),
                                          font_size=NUM_SIZE)))
        if dp.products[down] < 0:
            lines.append(_row(caption(f"{dp.features[down]} pulls it down:", theme, SMALL, theme.negative),
                              NumberLabel(dp.products[down], theme, ("dot_product.products", down),
                                          font_size=NUM_SIZE)))
        if not lines:
            return None
        rows = VGroup(*lines).arrange(DOWN, buff=0.15)
        return fit_within(rows, max_width=6.6)

    def _cosine_rows(self) -> VGroup:
        """cos(theta) and theta, at decimals the core chose so that the reader
        who redoes score / (|m| x |u|) from the shown numbers gets the shown
        (true) cosine, and arccos of it gives the drawn angle in whole degrees.
        """
        theme, dp = self.theme, self.trace.dot_product
        formula = math_label(r"\cos\theta = \frac{m \cdot u}{|m|\,|u|}", theme, 34)
        formula.spoken = "cos \u03b8 = m \u00b7 u / (|m| |u|)"  # for the captions file
        first = _row(
            caption("=", theme, 24),
            NumberLabel(dp.score, theme, ("dot_product.score",), font_size=NUM_SIZE),
            caption("/ (", theme, 24),
            NumberLabel(dp.norm_movie, theme, ("dot_product.norm_movie",), font_size=NUM_SIZE,
                        colour=theme.key),
            caption("\u00d7", theme, 24),
            NumberLabel(dp.norm_user, theme, ("dot_product.norm_user",), font_size=NUM_SIZE,
                        colour=theme.query),
            caption(") =", theme, 24),
            NumberLabel(dp.shown_cosine, theme, ("dot_product.shown.cosine",), font_size=NUM_SIZE,
                        colour=theme.highlight, decimals=dp.cosine_decimals),
        )
        second = _row(
            caption("\u03b8 = arccos(", theme, 24, theme.highlight),
            NumberLabel(dp.shown_cosine, theme, ("dot_product.shown.cosine",), font_size=NUM_SIZE,
                        colour=theme.highlight, decimals=dp.cosine_decimals),
            caption(") \u2248", theme, 24, theme.highlight),
            _degrees(theme, ("dot_product.shown.angle_deg",), dp.shown_angle_deg, theme.highlight),
        )
        if _row(formula.copy(), first.copy()).width <= COSINE_ROW_W:
            rows = VGroup(_row(formula, first), second).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        else:  # long numbers: the formula on its own line rather than shrunk
            rows = VGroup(formula, first, second).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        return rows

    def _waterfall(self) -> tuple[Line, VGroup]:
        """The running sum as bars: row i steps from the sum before it by m_i u_i
        (green up, pink down), so the last bar ends at the score."""
        theme, dp = self.theme, self.trace.dot_product
        ends = np.concatenate([[0.0], dp.running_sum])
        lo, hi = min(0.0, float(ends.min())), max(0.0, float(ends.max()))
        span = max(hi - lo, 1e-9)

        def x(v: float) -> float:
            return self.waterfall_left + (v - lo) / span * WATERFALL_W

        n = len(dp.features)
        top, bottom = TABLE_TOP, TABLE_TOP - n * ROW_H
        zero = Line([x(0.0), top + 0.05, 0], [x(0.0), bottom - 0.05, 0], color=theme.muted, stroke_width=2)
        steps = VGroup()
        for i in range(n):
            y = TABLE_TOP - (i + 0.5) * ROW_H
            a, b = x(ends[i]), x(ends[i + 1])
            colour = theme.positive if dp.products[i] >= 0 else theme.negative
            bar = Rectangle(width=max(abs(b - a), 0.02), height=ROW_H * 0.55, stroke_width=0,
                            fill_color=colour, fill_opacity=0.9).move_to([(a + b) / 2, y, 0])
            steps.add(bar)
        return zero, steps

    def _plane_scale(self) -> float:
        dp = self.trace.dot_product
        return self.plane_r / max(dp.norm_movie, dp.norm_user)

    def _arrow_to(self, xy: np.ndarray, colour: Any) -> Arrow:
        end = self.plane_origin + np.array([xy[0], xy[1], 0.0]) * self._plane_scale()
        return Arrow(self.plane_origin, end, buff=0, color=colour, stroke_width=5,
                     max_tip_length_to_length_ratio=0.12, max_stroke_width_to_length_ratio=8)

    def _plane(self) -> dict[str, Mobject]:
        theme, dp = self.theme, self.trace.dot_product
        k = self._plane_scale()
        m = self._arrow_to(dp.plane_movie, theme.key)
        u = self._arrow_to(dp.plane_user, theme.query)
        m_label = math_label("m", theme, 36, theme.key).next_to(m.get_end(), DOWN, buff=0.12)
        u_dir = (u.get_end() - self.plane_origin) / max(np.linalg.norm(u.get_end() - self.plane_origin), 1e-9)
        u_label = math_label("u", theme, 36, theme.query).move_to(u.get_end() + u_dir * 0.3)
        if u_label.get_right()[0] > SAFE_EDGE_TEXT:  # u nearly along m, at the frame's edge: above its tip
            u_label.next_to(u.get_end(), UP, buff=0.12).shift(LEFT * 0.1)
        theta_rad = np.radians(dp.angle_deg)
        arc_r = 0.6
        arc = Arc(radius=arc_r, start_angle=0, angle=theta_rad, arc_center=self.plane_origin,
                  color=theme.highlight, stroke_width=3)
        mid = theta_rad / 2
        theta = math_label(r"\theta", theme, 34, theme.highlight).move_to(
            self.plane_origin + (arc_r + 0.3) * np.array([np.cos(mid), np.sin(mid), 0]))
        if dp.angle_deg < 30:
            # A narrow angle has no room inside: put the symbol above the arrows.
            theta.move_to(self.plane_origin + np.array([arc_r + 0.2, 0.0, 0.0]))
            theta.set_y(max(u.get_top()[1], m.get_top()[1]) + 0.3)
            theta.set_x(self.plane_origin[0] + arc_r + 0.2)
            clear = max(u_label.get_top()[1], m_label.get_top()[1]) + 0.08 + theta.height / 2
            if theta.get_y() < clear and abs(theta.get_x() - u_label.get_x()) < (theta.width + u_label.width) / 2 + 0.05:
                theta.set_y(clear)
        circle = DashedVMobject(
            Arc(radius=dp.norm_user * k, start_angle=0, angle=np.pi, arc_center=self.plane_origin,
                color=theme.muted, stroke_width=2), num_dashes=30)
        base = Line(self.plane_origin + LEFT * self.plane_r, self.plane_origin + RIGHT * self.plane_r,
                    color=theme.panel, stroke_width=2)
        cap = VGroup(caption("the plane through m and u", theme, SMALL, theme.muted),
                     caption("(true lengths and angle)", theme, SMALL, theme.muted)).arrange(DOWN, buff=0.08)
        fit_within(cap, max_width=4.4)
        cap.move_to([self.plane_origin[0], self.plane_origin[1] - 0.72, 0])
        if cap.get_right()[0] > 6.85:  # a small plane pushed right by wide numbers
            cap.shift(LEFT * (cap.get_right()[0] - 6.85))
        if cap.get_left()[0] < self.waterfall_left + WATERFALL_W + 0.15:
            cap = VGroup()  # no room beside the waterfall: the plane goes unlabelled
        return {"base": base, "m": m, "u": u, "m_label": m_label, "u_label": u_label, "arc": arc,
                "theta": theta, "circle": circle, "caption": cap}

    def _curve_left(self) -> float:
        """The plot's left end: :data:`CURVE_LEFT`, or further right when the left column's lines
        (long numbers) and the score axis's values would otherwise meet."""
        dp = self.trace.dot_product
        widest = max(NumberLabel(v, self.theme, None, font_size=NUM_SIZE).width
                     for v in (dp.sweep_scores[0], dp.sweep_scores[-1]))
        return max(CURVE_LEFT, self.left_column_right + 0.3 + widest + 0.12)

    def _curve_point(self, angle_deg: float, cosine: float) -> np.ndarray:
        """score = |m| |u| cos(angle), drawn from its true cosine: the plot spans
        -|m||u| to |m||u|, so no point ever leaves it (rounded norms could)."""
        left = self._curve_left()
        x = left + (CURVE_RIGHT - left) * angle_deg / 180.0
        y = CURVE_MID_Y + CURVE_HALF_H * float(np.clip(cosine, -1.0, 1.0))
        return np.array([x, y, 0.0])

    def _curve_axes(self) -> VGroup:
        theme = self.theme
        CURVE_LEFT = self._curve_left()  # noqa: N806 (the constant, moved right for long numbers)
        zero = Line([CURVE_LEFT, CURVE_MID_Y, 0], [CURVE_RIGHT, CURVE_MID_Y, 0],
                    color=theme.panel, stroke_width=2)
        yaxis = Line([CURVE_LEFT, CURVE_MID_Y - CURVE_HALF_H - 0.1, 0],
                     [CURVE_LEFT, CURVE_MID_Y + CURVE_HALF_H + 0.1, 0], color=theme.panel,
                     stroke_width=2)
        dp = self.trace.dot_product
        # Axis values: the scores at 0 and 180 degrees (+-|m||u|), and 0, 90, 180 degrees.
        last = len(dp.sweep_angles_deg) - 1
        top = NumberLabel(dp.sweep_scores[0], theme, ("dot_product.sweep.scores", 0), font_size=NUM_SIZE,
                          colour=theme.muted)
        top.next_to([CURVE_LEFT, CURVE_MID_Y + CURVE_HALF_H, 0], LEFT, buff=0.12)
        bottom = NumberLabel(dp.sweep_scores[last], theme, ("dot_product.sweep.scores", last),
                             font_size=NUM_SIZE, colour=theme.muted)
        bottom.next_to([CURVE_LEFT, CURVE_MID_Y - CURVE_HALF_H, 0], LEFT, buff=0.12)
        ylab = caption("score", theme, SMALL, theme.muted).next_to([CURVE_LEFT, CURVE_MID_Y, 0], LEFT, buff=0.12)
        ticks = VGroup()
        below = CURVE_MID_Y - CURVE_HALF_H - 0.28
        for k in (0, last // 2, last):
            x = CURVE_LEFT + (CURVE_RIGHT - CURVE_LEFT) * dp.sweep_angles_deg[k] / 180.0
            ticks.add(Line([x, CURVE_MID_Y - 0.06, 0], [x, CURVE_MID_Y + 0.06, 0], color=theme.panel,
                           stroke_width=2))
            ticks.add(_degrees(theme, ("dot_product.sweep.angles_deg", k), dp.sweep_angles_deg[k],
                               theme.muted).move_to([x, below, 0]))
        words = below - 0.34
        left = caption("aligned", theme, SMALL, theme.positive)
        left.move_to([CURVE_LEFT, words, 0]).align_to([CURVE_LEFT - 0.3, 0, 0], LEFT)
        right = caption("opposed", theme, SMALL, theme.negative)
        right.move_to([CURVE_RIGHT, words, 0]).align_to([CURVE_RIGHT + 0.3, 0, 0], RIGHT)
        mid = caption("angle \u2192", theme, SMALL, theme.muted).move_to([(CURVE_LEFT + CURVE_RIGHT) / 2, words, 0])
        return VGroup(zero, yaxis, ticks, top, bottom, ylab, left, right, mid)

    def _readout_labels(self) -> tuple[VGroup, list[np.ndarray]]:
        """The sweep's readout under the plane (two lines) and where its numbers go."""
        theme = self.theme
        angle = caption("angle =", theme, SMALL)
        # Not "|m| |u| cos(angle) =": redone from the rounded norms on screen that
        # product could miss the true score by a digit (1.10 x 1.24 = 1.36, true 1.37).
        score = caption("score m \u00b7 u =", theme, SMALL)
        # Room for the widest number after each label.
        widest = max(len(self.theme.fmt(v)) for v in self.trace.dot_product.sweep_scores)
        labels = VGroup(angle, score).arrange(DOWN, buff=0.15, aligned_edge=LEFT)
        width = labels.width + 0.1 + widest * CHAR_W
        labels.move_to([self.plane_origin[0] - (width - labels.width) / 2, self.plane_origin[1] - 1.5, 0])
        right = labels.get_left()[0] + width
        if right > SAFE_EDGE:  # a plane pushed right by wide numbers
            labels.shift(LEFT * (right - SAFE_EDGE))
        slots = [np.array([line.get_right()[0] + 0.12, line.get_y(), 0.0]) for line in labels]
        return labels, slots

    def _readout_numbers(self, k: int, slots: list[np.ndarray]) -> VGroup:
        theme, dp = self.theme, self.trace.dot_product
        angle = _degrees(theme, ("dot_product.sweep.angles_deg", k), dp.sweep_angles_deg[k])
        score = NumberLabel(dp.sweep_scores[k], theme, ("dot_product.sweep.scores", k),
                            font_size=NUM_SIZE, colour=theme.query)
        for mob, slot in ((angle, slots[0]), (score, slots[1])):
            mob.move_to(slot, aligned_edge=LEFT)
        return VGroup(angle, score)

    def _our_point(self, path: VMobject, avoid: list[Mobject]) -> VGroup:
        theme, dp = self.theme, self.trace.dot_product
        p = self._curve_point(dp.angle_deg, dp.cosine)
        ring = Dot(p, radius=0.09, color=theme.highlight)
        note = _row(caption("our user:", theme, SMALL, theme.highlight),
                    NumberLabel(dp.score, theme, ("dot_product.score",), font_size=NUM_SIZE,
                                colour=theme.highlight), buff=0.08)
        # The corner whose label no part of the curve, no axis value and no
        # sweep dot touches, in the frame (the curve falls left to right, so
        # up-right usually is clear).
        curve = [path.point_from_proportion(t) for t in np.linspace(0, 1, 121)]
        boxes = [(m.get_corner(DL), m.get_corner(UR)) for m in avoid]

        def place(corner: np.ndarray, buff: float) -> None:
            note.next_to(ring, corner, buff=buff)
            if note.get_right()[0] > 7.0:
                note.shift(LEFT * (note.get_right()[0] - 7.0))

        def hits() -> int:
            lo, hi = note.get_corner(DL) - 0.05, note.get_corner(UR) + 0.05
            n = sum(1 for q in curve if lo[0] <= q[0] <= hi[0] and lo[1] <= q[1] <= hi[1])
            n += sum(10 for a, b in boxes if a[0] < hi[0] and b[0] > lo[0] and a[1] < hi[1] and b[1] > lo[1])
            return n + 1000 * (note.get_bottom()[1] < -3.95 or note.get_top()[1] > 3.95)

        # Nearest first; a farther place only when every nearer one touches something.
        best, best_hits = (UR, 0.1), None
        for buff in (0.1, 0.35, 0.6, 0.9, 1.2):  # past the zero line when the point is at an end
            for corner in (UR, UL, DL, DR, UP, DOWN):
                place(corner, buff)
                found = hits()
                if best_hits is None or found < best_hits:
                    best, best_hits = (corner, buff), found
            if best_hits == 0:
                break
        place(*best)
        return VGroup(ring, note)
