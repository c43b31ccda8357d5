"""Faults a reader saw in dot_product, hidden_state_map and word_embeddings
(issues 22 and 25), each checked on the built scene (headless)."""

from __future__ import annotations

import numpy as np
import pytest
from manim import DashedLine, Dot, Text

from scenes.components import baseline_of

from .helpers import build_scene, check_scene, default_data, trace_from, varied

MIN_TEXT_PX = 12.0


def _family(scene):
    return [m for top in scene.mobjects for m in top.get_family()]


def _box(m, pad: float = 0.0):
    return (m.get_left()[0] - pad, m.get_bottom()[1] - pad, m.get_right()[0] + pad, m.get_top()[1] + pad)


def _segment_hits_box(p, q, box) -> bool:
    # Sampled: the dashed lines are a few units long, the labels tenths wide.
    return any(box[0] <= x <= box[2] and box[1] <= y <= box[3]
               for x, y in (p + (q - p) * t for t in np.linspace(0, 1, 400)))


MORE_PAIRS = [["The horse sees the cat", "animals meet"], ["The cat sees the horse", "animals meet"]]


@pytest.mark.parametrize("more", [[], MORE_PAIRS], ids=["default", "12-sentences-3-pairs"])
def test_map_labels_keep_clear_of_other_points_and_the_dashed_lines(more):
    data = default_data()
    data["hidden_state_map"] = {"sentences": [*data["hidden_state_map"]["sentences"], *more]}
    trace = trace_from(data)
    scene = build_scene("hidden_state_map", trace)
    hm = trace.hidden_state_map
    family = _family(scene)
    dots = [m for m in family if isinstance(m, Dot) and m.get_y() < scene.plot_top]  # not the legend's
    centres = [d.get_center() for d in dots]
    points = scene._point_positions()

    def on_a_dot(p) -> bool:
        return any(np.linalg.norm(p - c) < 0.02 for c in centres)

    # The pairs' lines: from a point to a point (not their dashes, not the legend's sample).
    links = [m for m in family if isinstance(m, DashedLine) and m.submobjects
             and on_a_dot(m.get_start()) and on_a_dot(m.get_end())]
    assert len(links) == len(hm.word_order_pairs) > 0
    labels = [m for m in family if isinstance(m, Text)
              and any(s.startswith(m.original_text.rstrip("\u2026")) for s in hm.sentences)]
    assert len(labels) == len(hm.sentences)
    for label in labels:
        box = _box(label)
        # Its own point: where the scene put its sentence (in a cluster the nearest dot may be another's).
        mine = [k for k, s in enumerate(hm.sentences) if s.startswith(label.original_text.rstrip("\u2026"))]
        assert len(mine) == 1, (label.original_text, mine)
        own = min(dots, key=lambda d: np.linalg.norm(d.get_center() - points[mine[0]]))
        assert np.linalg.norm(own.get_center() - points[mine[0]]) < 1e-6
        for dot in dots:
            if dot is not own:
                r = dot.radius
                grown = (box[0] - r, box[1] - r, box[2] + r, box[3] + r)
                c = dot.get_center()
                assert not (grown[0] - r <= c[0] <= grown[2] + r and grown[1] - r <= c[1] <= grown[3] + r), (
                    f"{label.original_text!r} touches the point at {c[:2]}")
        for link in links:
            p, q = link.get_start()[:2], link.get_end()[:2]
            # Closer than a dot's radius, the line reads as touching the label (a few px at 480p).
            assert not _segment_hits_box(np.array(p), np.array(q), _box(label, pad=0.06)), (
                f"a dashed line runs through or touches {label.original_text!r}")


def _token_texts(scene, tokens):
    texts = [m for m in _family(scene) if isinstance(m, Text) and m.original_text in tokens and m.get_y() > 2.2]
    assert len(texts) >= len(tokens), [t.original_text for t in texts]
    return texts[:len(tokens)]


def test_word_embeddings_tokens_sit_on_one_baseline_in_boxes_of_one_height():
    trace = trace_from(default_data())  # "Economic growth has slowed down in recent years"
    scene = build_scene("word_embeddings", trace)
    texts = _token_texts(scene, trace.plain_model.source_tokens)
    rows: dict[float, list[float]] = {}
    for t in texts:
        rows.setdefault(round(t.get_y(), 0), []).append(baseline_of(t))
    for baselines in rows.values():
        assert max(baselines) - min(baselines) < 0.01, baselines


def test_word_embeddings_with_the_longest_words_keeps_every_text_readable():
    # 25 letters (the longest word a file may hold) in an unknown sentence:
    # the small RNN and its "untrained" notice, every text at 12 px or more.
    long_word = "anticonstitutionnellement"
    assert len(long_word) == 25
    data = varied(sentences={"source": f"the {long_word} {long_word}x"[:-1] + " cat",
                             "target": f"le {long_word} chat"})
    scene = build_scene("word_embeddings", trace_from(data), min_text_px=MIN_TEXT_PX)
    check_scene(scene, trace_from(data))


def test_dot_product_draws_the_arrows_before_the_products(monkeypatch):
    # The right half stayed empty for 16 s while the products were summed
    # (issue 22): the vectors' arrows now come with the table.
    from scenes.dot_product import DotProductScene

    seen: list[tuple[bool, bool]] = []
    original = DotProductScene.play

    def play(self, *args, **kwargs):
        original(self, *args, **kwargs)
        family = _family(self)
        arrows = any(type(m).__name__ == "Arrow" and m.get_center()[0] > 1.0 for m in family)
        products = any(getattr(m, "key", None) and m.key[0] == "dot_product.products" for m in family)
        seen.append((arrows, products))

    monkeypatch.setattr(DotProductScene, "play", play)
    build_scene("dot_product", trace_from(default_data()))
    first_product = next(k for k, (_, products) in enumerate(seen) if products)
    first_arrows = next(k for k, (arrows, _) in enumerate(seen) if arrows)
    assert first_arrows < first_product <= 8, seen[:10]


def test_no_two_map_labels_can_read_the_same():
    # Each sentence's possible labels (its cuts, "the cat sees…") against every
    # other sentence's, at every length: two points once got the same label.
    import random

    from scenes.hidden_state_map import LABEL_CHARS, _distinct_cuts

    rng = random.Random(1)
    words = ("the cat sees a dog big small eats fish bread cheese horse likes cow today "
             "yesterday extraordinarily").split()
    shared = []
    for _ in range(3000):
        sentences = list(dict.fromkeys(" ".join(rng.choice(words) for _ in range(rng.randint(1, 8)))
                                       for _ in range(rng.randint(3, 12))))
        options = [set(_distinct_cuts(sentences, k, LABEL_CHARS)) for k in range(len(sentences))]
        shared += [(sentences[a], sentences[b], options[a] & options[b])
                   for a in range(len(sentences)) for b in range(a + 1, len(sentences))
                   if options[a] & options[b]]
    # Sentences alike beyond the longest cut (40 characters) fell back to the same cut.
    alike = ["a small black horse has seen a black cat in recent years",
             "a small black horse has seen a black cat in recent days", "the cow eats"]
    options = [set(_distinct_cuts(alike, k, LABEL_CHARS)) for k in range(3)]
    shared += [(alike[0], alike[1], options[0] & options[1])] if options[0] & options[1] else []
    assert not shared, shared[:3]


@pytest.mark.parametrize("table", [
    dict(features=["x", "y"], movie=[9.99, -9.99], user=[-9.99, 9.98]),  # opposed: the curve's right end
    dict(features=["x", "y"], movie=[9.99, 9.99], user=[9.99, 9.98]),  # aligned: its left end
    dict(features=["x", "y"], movie=[1, 0], user=[0, 1]),  # at 90 degrees: its middle
], ids=["opposed", "aligned", "orthogonal"])
def test_our_user_label_crosses_neither_the_curve_nor_an_axis_value(table):
    from manim import VMobject

    scene = build_scene("dot_product", trace_from(varied(dot_product=table)))
    assert scene.audit.faults == []
    family = _family(scene)
    note = next(m for m in family if isinstance(m, Text) and m.original_text.startswith("our user"))
    row = next(top for top in family if note in top.submobjects and len(top.submobjects) == 2)
    x0, y0, x1, y1 = _box(row, 0.03)
    curves = [m for m in family if type(m) is VMobject and len(m.points) > 8]
    assert curves
    for curve in curves:
        for t in np.linspace(0, 1, 400):
            x, y, _ = curve.point_from_proportion(t)
            assert not (x0 <= x <= x1 and y0 <= y <= y1), f"the curve crosses 'our user' at {x:.2f}, {y:.2f}"


@pytest.mark.parametrize("table", [None, {"features": ["romance", "action", "comedy", "drama"],
                                          "movie": [2.5, -1.25, 0.5, 3.0], "user": [-0.75, 1.5, 2.0, 0.25]}])
def test_dot_product_plot_axis_values_are_true_and_read_off_the_points(table):
    # Issue 22: the score-vs-angle plot had no axis values. Its values must be the plot's
    # true ends (+-|m||u| at 0 and 180 degrees, from the vectors, worked here), and the
    # points read through them must give the sweep's scores and our user's score and angle.
    from scenes.components import NumberLabel

    data = default_data() if table is None else varied(dot_product=table)
    trace = trace_from(data)
    dp = trace.dot_product
    scene = build_scene("dot_product", trace)
    family = _family(scene)
    m, u = np.asarray(dp.movie, float), np.asarray(dp.user, float)
    top_value = float(np.linalg.norm(m) * np.linalg.norm(u))
    dots = [d for d in family if isinstance(d, Dot)]
    last = len(dp.sweep_angles_deg) - 1
    left_x = min(d.get_x() for d in dots)

    def label(name, k):
        found = [n for n in family if isinstance(n, NumberLabel) and n.key == (name, k)]
        assert len(found) == 1, (name, k, len(found))  # the readout numbers are gone by the end
        return found[0]

    def value(n) -> float:
        return float(n.shown.replace("\u2212", "-"))

    top, bottom = label("dot_product.sweep.scores", 0), label("dot_product.sweep.scores", last)
    assert top.get_right()[0] < left_x and bottom.get_right()[0] < left_x  # on the score axis
    assert value(top) == pytest.approx(top_value, abs=0.6 * 10 ** -top.decimals)
    assert value(bottom) == pytest.approx(-top_value, abs=0.6 * 10 ** -bottom.decimals)
    # The angle axis: three ticks, each with its value (in degrees) right under it.
    from manim import Line

    ticks = sorted((t for t in family if type(t) is Line and abs(t.height - 0.12) < 1e-3 and t.width < 1e-3),
                   key=lambda t: t.get_x())
    assert len(ticks) == 3
    degrees = []
    for tick, k in zip(ticks, (0, last // 2, last)):
        shown = label("dot_product.sweep.angles_deg", k)
        assert abs(shown.get_x() - tick.get_x()) < 0.2 and shown.get_y() < tick.get_y()
        degrees.append(value(shown))
    assert degrees[0] == 0.0 and degrees[-1] == 180.0

    def score_at(y):
        return value(top) + (y - top.get_y()) / (bottom.get_y() - top.get_y()) * (value(bottom) - value(top))

    def angle_at(x):
        return (x - ticks[0].get_x()) / (ticks[-1].get_x() - ticks[0].get_x()) * 180.0

    scale = 2 * top_value
    sweep = sorted((d for d in dots if abs(d.radius - 0.06) < 1e-6), key=lambda d: d.get_x())
    assert len(sweep) == last + 1
    for k, d in enumerate(sweep):
        assert score_at(d.get_y()) == pytest.approx(top_value * np.cos(np.radians(dp.sweep_angles_deg[k])),
                                                    abs=0.01 * scale + 0.6 * 10 ** -top.decimals)
    ours = [d for d in dots if d.radius > 0.08]
    assert len(ours) == 1
    assert score_at(ours[0].get_y()) == pytest.approx(float(m @ u), abs=0.01 * scale + 0.6 * 10 ** -top.decimals)
    cos = float(m @ u) / top_value
    assert angle_at(ours[0].get_x()) == pytest.approx(np.degrees(np.arccos(cos)), abs=0.5)


def test_map_legend_names_sit_on_one_baseline_with_their_marks_level():
    # "economy" (a descender, no ascender) rode above "animals eat" in the legend (issue 22).
    trace = trace_from(default_data())
    hm = trace.hidden_state_map
    scene = build_scene("hidden_state_map", trace)
    family = _family(scene)
    names = [m for m in family if isinstance(m, Text) and m.original_text in (*hm.topic_order, "same words")
             and m.get_y() > 2.0]
    assert len(names) == len(hm.topic_order) + (1 if hm.word_order_pairs else 0)
    assert any("y" in n.original_text or "g" in n.original_text for n in names)  # the case that rode high
    rows: dict[float, list] = {}
    for n in names:
        rows.setdefault(round(n.get_y(), 0), []).append(n)
    for row in rows.values():
        baselines = [baseline_of(n) for n in row]
        assert max(baselines) - min(baselines) < 0.01, [(n.original_text, b) for n, b in zip(row, baselines)]
        marks = [d for d in family if isinstance(d, Dot) and abs(d.get_y() - row[0].get_y()) < 0.3
                 and d.get_y() > 2.0]
        assert len(marks) >= len([n for n in row if n.original_text != "same words"])
        assert max(d.get_y() for d in marks) - min(d.get_y() for d in marks) < 0.01


def test_word_embeddings_matrix_words_sit_on_their_rows_line_of_numbers():
    # Centred in its row, "growth" or "years" (descender, little or no ascender) rode above
    # the row's numbers and "the" below them: each word must share its row's baseline.
    from scenes.components import NumberLabel

    trace = trace_from(default_data())
    scene = build_scene("word_embeddings", trace)
    matrix = scene.stage.matrix
    family = _family(scene)
    numbers = [m for m in family if isinstance(m, NumberLabel) and matrix.frame.get_left()[0] < m.get_x()
               < matrix.frame.get_right()[0]]
    words = [m for m in family if isinstance(m, Text) and not isinstance(m, NumberLabel)
             and m.get_right()[0] < matrix.frame.get_left()[0] and m.get_y() < matrix.frame.get_top()[1]]
    # (The matrix shows fewer rows at the 14 px floor; "down" stands for "the": an ascender, no descender.)
    assert {w.original_text for w in words} >= {"growth", "years", "down"}
    for word in words:
        row = [n for n in numbers if abs(n.get_y() - word.get_y()) < 0.12]
        assert row, word.original_text
        line = baseline_of(min(row, key=lambda n: abs(n.get_y() - word.get_y())))
        assert abs(baseline_of(word) - line) < 0.01, (word.original_text, baseline_of(word), line)


@pytest.mark.parametrize("tokens", [["a", "ball", "and", "a", "car"], ["economic", "growth", "has", "years", "a"],
                                    ["anticonstitutionnellement"] * 3 + ["a", "by", "quiet"] * 3])
def test_every_token_strip_sets_its_words_on_one_baseline_per_row(tokens):
    """Every scene's strip of words (the caption in cnn_attention, the sentence in encoder and
    bottleneck), not only word_embeddings': "ball" sat lower than "a", "years" higher."""
    from scenes import DARK
    from scenes.components import TokenStrip

    strip = TokenStrip(tokens, DARK, font_size=24, max_width=9.0)
    rows: dict[float, list[int]] = {}
    for k, boxed in enumerate(strip.boxes):
        rows.setdefault(round(float(boxed.get_y()), 2), []).append(k)
    assert sum(map(len, rows.values())) == len(tokens)
    for members in rows.values():
        bases = [baseline_of(strip.boxes[k][1]) for k in members]
        heights = [strip.boxes[k][0].height for k in members]
        assert max(bases) - min(bases) < 0.005, bases
        assert max(heights) - min(heights) < 1e-6, heights
        for k in members:  # each word inside its own box
            box, word = strip.boxes[k]
            assert box.get_bottom()[1] < word.get_bottom()[1] and word.get_top()[1] < box.get_top()[1]
