"""``dot_product``: the dot product as a similarity score (movie and user).

Draft 000, "Dot product as a similarity measure": the movie vector ``m`` and
the user vector ``u`` hold one value per feature; their element-wise
products appear one by one and add up to the score; then the score is
related to the angle between the vectors (``m . u = |m| |u| cos theta``)
and a turning user vector shows that aligned vectors score high and opposed
ones low. The last frame is the draft's static figure ``dot_product``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Arc,
    Arrow,
    Create,
    DashedVMobject,
    Dot,
    GrowArrow,
    Indicate,
    Line,
    Mobject,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
)

from .base import FINAL_HOLD, RESULT_PAUSE, WalkthroughScene
from .components import (
    NumberLabel,
    ValueCell,
    caption,
    fade_in,
    fade_out,
    fit_within,
    math_label,
)

__all__ = ["DotProductScene"]

TITLE_Y = 3.55
TABLE_TOP = 2.45
ROW_H = 0.44
CELL_W = 0.86  # at least; wider when the numbers are longer (e.g. 180.50)
CHAR_W = 0.165  # width of one digit of the number font at NUM_SIZE
NAME_RIGHT = -5.15
NUM_SIZE = 20
# The plane (right half): m along +x from this origin, the longer vector R long.
PLANE_ORIGIN = np.array([3.75, 0.6, 0.0])
PLANE_R = 2.3
# The score-versus-angle plot under the plane.
CURVE_LEFT, CURVE_RIGHT = 1.55, 5.95
CURVE_MID_Y, CURVE_HALF_H = -2.35, 0.8


def _degrees(theme: Any, key: tuple, value: float, colour: Any = None) -> VGroup:
    """An angle in whole degrees (more would be false precision): number and sign."""
    number = NumberLabel(value, theme, key, font_size=NUM_SIZE, colour=colour, decimals=0)
    sign = caption("\u00b0", theme, 20, colour)
    sign.next_to(number, RIGHT, buff=0.03).align_to(number, UP)
    return VGroup(number, sign)


def _row(*parts: Mobject, buff: float = 0.12) -> VGroup:
    """Captions, formulas and numbers in one line."""
    return VGroup(*parts).arrange(RIGHT, buff=buff)


class DotProductScene(WalkthroughScene):
    scene_id = "dot_product"
    trace_sections = ("dot_product",)
    description = ("Dot product as similarity: movie and user feature vectors, their products "
                   "summed to a score, and the score against the angle between them.")

    def construct(self) -> None:
        theme, dp = self.theme, self.trace.dot_product
        n = len(dp.features)
        self._columns()

        title = _row(caption("Dot product as a similarity score", theme, 28),
                     math_label(r"m \cdot u = \sum_i m_i\,u_i", theme, 32), buff=0.5)
        title.move_to([0, TITLE_Y, 0]).to_edge(LEFT, buff=0.4)
        # The first frame is the title, never black.
        self.add(title)

        # -- the two feature vectors side by side ------------------------------
        headers = self._headers()
        names, movie, user, products, sums = VGroup(), VGroup(), VGroup(), VGroup(), VGroup()
        scale = max(float(np.max(np.abs(np.concatenate([dp.movie, dp.user])))), 1e-9)
        pscale = max(float(np.max(np.abs(dp.products))), 1e-9)
        for i, feature in enumerate(dp.features):
            y = TABLE_TOP - (i + 0.5) * ROW_H
            name = caption(feature, theme, 20)
            fit_within(name, max_width=1.7)
            name.move_to([self.col_x["name"], y, 0]).align_to([self.col_x["name"] + 0.6, 0, 0], RIGHT)
            names.add(name)
            movie.add(self._cell(dp.movie[i], ("dot_product.movie", i), scale, self.col_x["movie"], y))
            user.add(self._cell(dp.user[i], ("dot_product.user", i), scale, self.col_x["user"], y))
            products.add(self._cell(dp.products[i], ("dot_product.products", i), pscale,
                                    self.col_x["product"], y))
            sums.add(self._cell(dp.running_sum[i], ("dot_product.running_sum", i), pscale,
                                self.col_x["sum"], y))
        self.table_cells = VGroup(*movie, *user, *products, *sums)  # the tests check the plane clears it
        m_frame = self._frame(movie, theme.key)
        u_frame = self._frame(user, theme.query)
        self.play(fade_in(headers[:3]), fade_in(names), fade_in(movie), Create(m_frame))
        self.play(fade_in(user), Create(u_frame))

        # -- element-wise products one by one, and the running sum -------------
        self.play(fade_in(headers[3:]))
        times = VGroup()
        for i in range(n):
            y = TABLE_TOP - (i + 0.5) * ROW_H
            times.add(caption("\u00d7", theme, 22, theme.muted).move_to([(self.col_x["movie"] + self.col_x["user"]) / 2, y, 0]))
        for i in range(n):
            focus = SurroundingRectangle(VGroup(movie[i], user[i]), color=theme.highlight, buff=0.04)
            self.play(Create(focus), fade_in(times[i]), run_time=0.4)
            # Copies are replaced by their targets, so what stays on screen is
            # the keyed number itself, never a morphed copy of another one.
            self.play(ReplacementTransform(VGroup(movie[i], user[i]).copy(), products[i]),
                      run_time=0.6)
            addends = VGroup(products[i]) if i == 0 else VGroup(sums[i - 1], products[i])
            self.play(ReplacementTransform(addends.copy(), sums[i]), fade_out(focus), run_time=0.6)

        score_cell = ValueCell(dp.score, theme, ("dot_product.score",), width=self.cell_w,
                               height=ROW_H, scale=pscale, font_size=NUM_SIZE)
        score_row = _row(caption("score = m \u00b7 u =", theme, 24), score_cell)
        table_bottom = TABLE_TOP - n * ROW_H
        score_row.next_to([-3.6, table_bottom - 0.2, 0], DOWN, buff=0)
        self.play(ReplacementTransform(sums[n - 1].copy(), score_cell), fade_in(score_row[0]))
        self.wait(RESULT_PAUSE)

        story = self._story()
        below = score_row
        if story is not None:
            story.next_to(score_row, DOWN, buff=0.3)
            self.play(fade_in(story))
            below = story

        # -- the score and the angle -------------------------------------------
        cos_rows = self._cosine_rows()
        cos_rows.next_to(below, DOWN, buff=0.4).set_x(-3.6)
        # cos(theta) (one or two lines), then theta.
        self.play(*(fade_in(row) for row in cos_rows[:-1]))
        self.wait(RESULT_PAUSE)
        self.play(fade_in(cos_rows[-1]))
        self.wait(RESULT_PAUSE)

        plane = self._plane()
        self.play(fade_in(plane["caption"]), Create(plane["base"]), GrowArrow(plane["m"]),
                  fade_in(plane["m_label"]))
        self.play(GrowArrow(plane["u"]), fade_in(plane["u_label"]))
        self.play(Create(plane["arc"]), fade_in(plane["theta"]))

        # -- turning u: aligned scores high, opposed low -------------------------
        curve = self._curve_axes()
        self.play(Create(plane["circle"]), fade_in(curve))
        turning = plane["u"].copy()
        self.play(plane["u"].animate.set_opacity(0.3), plane["u_label"].animate.set_opacity(0.3),
                  plane["arc"].animate.set_stroke(opacity=0.3), plane["theta"].animate.set_opacity(0.3))
        readout = None
        dots = VGroup()
        for k in range(len(dp.sweep_angles_deg)):
            target = self._arrow_to(dp.sweep_users[k], self.theme.query)
            new_readout = self._readout(k)
            dot = Dot(self._curve_point(dp.sweep_angles_deg[k], dp.sweep_scores[k]), radius=0.06,
                      color=theme.query)
            anims = [Transform(turning, target), fade_in(dot)]
            anims.append(fade_in(new_readout) if readout is None else ReplacementTransform(readout, new_readout))
            self.play(*anims, run_time=0.7)
            readout = new_readout
            dots.add(dot)
        path = VMobject(stroke_color=theme.query, stroke_width=2, stroke_opacity=0.6)
        path.set_points_smoothly([d.get_center() for d in dots])
        ours = self._our_point()
        self.play(Create(path), fade_out(turning), fade_out(readout), fade_out(plane["circle"]),
                  plane["u"].animate.set_opacity(1), plane["u_label"].animate.set_opacity(1),
                  plane["arc"].animate.set_stroke(opacity=1), plane["theta"].animate.set_opacity(1))
        self.play(fade_in(ours), Indicate(score_cell, color=theme.highlight, scale_factor=1.1))
        # The final figure (the draft's dot_product figure) held for a poster and a loop.
        self.wait(FINAL_HOLD)

    # -- builders --------------------------------------------------------------

    def _columns(self) -> None:
        """Cell width from the longest number shown, then the column centres."""
        dp = self.trace.dot_product
        shown = [self.theme.fmt(v) for v in (*dp.movie, *dp.user, *dp.products, *dp.running_sum)]
        self.cell_w = max(CELL_W, CHAR_W * max(len(t) for t in shown) + 0.16)
        movie = NAME_RIGHT + 0.25 + self.cell_w / 2
        user = movie + self.cell_w + 0.5  # room for the x sign
        product = user + self.cell_w + 0.4
        self.col_x = {"name": NAME_RIGHT - 0.6, "movie": movie, "user": user, "product": product,
                      "sum": product + self.cell_w + 0.3}
        # The plane goes right of the table (wide numbers push it right and
        # make it smaller), so no arrow ever crosses a cell.
        table_right = self.col_x["sum"] + self.cell_w / 2
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
        feature = caption("feature", theme, 20, theme.muted).move_to([self.col_x["name"], y, 0])
        movie = VGroup(caption("movie", theme, 20, theme.key), math_label("m", theme, 28, theme.key)
                       ).arrange(DOWN, buff=0.06).move_to([self.col_x["movie"], y + 0.15, 0])
        user = VGroup(caption("user", theme, 20, theme.query), math_label("u", theme, 28, theme.query)
                      ).arrange(DOWN, buff=0.06).move_to([self.col_x["user"], y + 0.15, 0])
        product = math_label(r"m_i\,u_i", theme, 28).move_to([self.col_x["product"], y, 0])
        running = VGroup(caption("running", theme, 20, theme.muted),
                         caption("sum", theme, 20, theme.muted)).arrange(DOWN, buff=0.04)
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
            lines.append(_row(caption(f"{dp.features[up]} pushes the score up:", theme, 20, theme.positive),
                              NumberLabel(dp.products[up], theme, ("dot_product.products", up),
                                          font_size=NUM_SIZE)))
        if dp.products[down] < 0:
            lines.append(_row(caption(f"{dp.features[down]} pulls it down:", theme, 20, theme.negative),
                              NumberLabel(dp.products[down], theme, ("dot_product.products", down),
                                          font_size=NUM_SIZE)))
        if not lines:
            return None
        rows = VGroup(*lines).arrange(DOWN, buff=0.15)
        return fit_within(rows, max_width=6.6)

    def _cosine_rows(self) -> VGroup:
        """cos(theta) from the numbers on screen; "\u2248" where rounding enters.

        The norms are shown, not their product: a product of rounded norms
        can differ from the rounded product, so the reader recomputes from
        exactly what is on screen; the result is computed before rounding.
        """
        theme, dp = self.theme, self.trace.dot_product
        formula = math_label(r"\cos\theta = \frac{m \cdot u}{|m|\,|u|}", theme, 28)
        first = _row(
            caption("=", theme, 22),
            NumberLabel(dp.score, theme, ("dot_product.score",), font_size=NUM_SIZE),
            caption("/ (", theme, 22),
            NumberLabel(dp.norm_movie, theme, ("dot_product.norm_movie",), font_size=NUM_SIZE,
                        colour=theme.key),
            caption("\u00d7", theme, 22),
            NumberLabel(dp.norm_user, theme, ("dot_product.norm_user",), font_size=NUM_SIZE,
                        colour=theme.query),
            caption(") \u2248", theme, 22),
            NumberLabel(dp.cosine, theme, ("dot_product.cosine",), font_size=NUM_SIZE,
                        colour=theme.highlight),
        )
        second = _row(
            _row(caption("\u03b8 \u2248", theme, 22, theme.highlight),
                 _degrees(theme, ("dot_product.angle_deg",), dp.angle_deg, theme.highlight)),
            caption("(\u2248: computed before rounding)", theme, 20, theme.muted),
            buff=0.5,
        )
        if _row(formula.copy(), first.copy()).width <= 6.6:
            rows = VGroup(_row(formula, first), second).arrange(DOWN, buff=0.3)
        else:  # long numbers: the formula on its own line rather than shrunk
            rows = VGroup(formula, first, second).arrange(DOWN, buff=0.2)
        return fit_within(rows, max_width=6.9)

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
        m_label = math_label("m", theme, 32, theme.key).next_to(m.get_end(), DOWN, buff=0.12)
        u_dir = (u.get_end() - self.plane_origin) / max(np.linalg.norm(u.get_end() - self.plane_origin), 1e-9)
        u_label = math_label("u", theme, 32, theme.query).move_to(u.get_end() + u_dir * 0.3)
        theta_rad = np.radians(dp.angle_deg)
        arc_r = 0.6
        arc = Arc(radius=arc_r, start_angle=0, angle=theta_rad, arc_center=self.plane_origin,
                  color=theme.highlight, stroke_width=3)
        mid = theta_rad / 2
        theta = math_label(r"\theta", theme, 30, theme.highlight).move_to(
            self.plane_origin + (arc_r + 0.3) * np.array([np.cos(mid), np.sin(mid), 0]))
        if dp.angle_deg < 30:
            # A narrow angle has no room inside: put the symbol above the arrows.
            theta.move_to(self.plane_origin + np.array([arc_r + 0.2, 0.0, 0.0]))
            theta.set_y(max(u.get_top()[1], m.get_top()[1]) + 0.3)
            theta.set_x(self.plane_origin[0] + arc_r + 0.2)
        circle = DashedVMobject(
            Arc(radius=dp.norm_user * k, start_angle=0, angle=np.pi, arc_center=self.plane_origin,
                color=theme.muted, stroke_width=2), num_dashes=30)
        base = Line(self.plane_origin + LEFT * self.plane_r, self.plane_origin + RIGHT * self.plane_r,
                    color=theme.panel, stroke_width=2)
        cap = VGroup(caption("the plane through m and u", theme, 20, theme.muted),
                     caption("(true lengths and angle)", theme, 20, theme.muted)).arrange(DOWN, buff=0.08)
        fit_within(cap, max_width=4.4)
        cap.move_to([self.plane_origin[0], self.plane_origin[1] - 0.72, 0])
        return {"base": base, "m": m, "u": u, "m_label": m_label, "u_label": u_label, "arc": arc,
                "theta": theta, "circle": circle, "caption": cap}

    def _curve_point(self, angle_deg: float, score: float) -> np.ndarray:
        dp = self.trace.dot_product
        x = CURVE_LEFT + (CURVE_RIGHT - CURVE_LEFT) * angle_deg / 180.0
        y = CURVE_MID_Y + CURVE_HALF_H * score / max(dp.norm_product, 1e-9)
        return np.array([x, y, 0.0])

    def _curve_axes(self) -> VGroup:
        theme = self.theme
        zero = Line([CURVE_LEFT, CURVE_MID_Y, 0], [CURVE_RIGHT, CURVE_MID_Y, 0],
                    color=theme.panel, stroke_width=2)
        yaxis = Line([CURVE_LEFT, CURVE_MID_Y - CURVE_HALF_H - 0.1, 0],
                     [CURVE_LEFT, CURVE_MID_Y + CURVE_HALF_H + 0.1, 0], color=theme.panel,
                     stroke_width=2)
        ylab = caption("score", theme, 20, theme.muted).next_to(yaxis, LEFT, buff=0.12)
        below = CURVE_MID_Y - CURVE_HALF_H - 0.3
        left = caption("aligned", theme, 20, theme.positive).move_to([CURVE_LEFT, below, 0])
        right = caption("opposed", theme, 20, theme.negative).move_to([CURVE_RIGHT, below, 0])
        mid = caption("angle between u and m \u2192", theme, 20, theme.muted)
        mid.move_to([(CURVE_LEFT + CURVE_RIGHT) / 2, below - 0.3, 0])
        return VGroup(zero, yaxis, ylab, left, right, mid)

    def _readout(self, k: int) -> VGroup:
        theme, dp = self.theme, self.trace.dot_product
        row = _row(
            caption("angle =", theme, 20),
            _degrees(theme, ("dot_product.sweep.angles_deg", k), dp.sweep_angles_deg[k]),
            caption(",  score = |m| |u| cos(angle) =", theme, 20),
            NumberLabel(dp.sweep_scores[k], theme, ("dot_product.sweep.scores", k),
                        font_size=NUM_SIZE, colour=theme.query),
        )
        fit_within(row, max_width=6.2)
        row.move_to([self.plane_origin[0], self.plane_origin[1] - 1.35, 0])
        if row.get_right()[0] > 6.9:  # a plane pushed right by wide numbers
            row.shift(LEFT * (row.get_right()[0] - 6.9))
        return row

    def _our_point(self) -> VGroup:
        theme, dp = self.theme, self.trace.dot_product
        p = self._curve_point(dp.angle_deg, dp.score)
        ring = Dot(p, radius=0.09, color=theme.highlight)
        note = _row(caption("our user:", theme, 20, theme.highlight),
                    NumberLabel(dp.score, theme, ("dot_product.score",), font_size=NUM_SIZE,
                                colour=theme.highlight), buff=0.08)
        # The curve falls from left to right, so up and to the right is clear of it.
        note.next_to(ring, UR, buff=0.08)
        if note.get_right()[0] > 7.0:
            note.shift(LEFT * (note.get_right()[0] - 7.0))
        return VGroup(ring, note)
