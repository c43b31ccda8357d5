"""The cnn_attention scene, built headless for the default and varied numbers."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest
from PIL import Image

from scenes import DARK, LIGHT
from scenes.base import _visible
from scenes.components import text_leaves
from scenes.cnn_attention import CnnAttentionScene

from .helpers import (MIN_TEXT_PX, build_scene, check_scene, load_default_trace, observed_default, shown_keys,
                      trace_from, varied)

# At 480p a frame unit is 60 pixels; text of font size 20 stands about 12.6
# pixels tall (a digit or a letter with an ascender), the least we allow.
MIN_FONT_SIZE = 20


@pytest.fixture
def smallest_text(monkeypatch):
    """Record the smallest visible text (font size after any scaling) at every snapshot."""
    seen: list[tuple[float, str]] = []
    original = CnnAttentionScene._snapshot

    def snapshot(self):
        original(self)
        for top in self.mobjects:
            for leaf in text_leaves(top):
                if _visible(leaf):
                    label = getattr(leaf, "text", None) or getattr(leaf, "tex_string", "")
                    seen.append((float(leaf.font_size), label))

    monkeypatch.setattr(CnnAttentionScene, "_snapshot", snapshot)
    return seen


def _weight_keys(trace, words=None) -> set[tuple]:
    T, G = trace.cnn.weights.shape[:2]
    return {(f"cnn.weights.{t}.{i}", j) for t in (range(T) if words is None else words)
            for i in range(G) for j in range(G)}


def _context_keys(trace, words=None) -> set[tuple]:
    T, D = trace.cnn.contexts.shape
    return {(f"cnn.contexts.{t}", d) for t in (range(T) if words is None else words) for d in range(D)}


def _tints_seen(scene_id: str, trace, **kw):
    """Build ``scene_id`` and record every weight tint on screen: (key, value, centre)."""
    seen: dict[tuple, tuple[float, np.ndarray]] = {}

    def observe(scene):
        for top in scene.mobjects:
            for m in top.get_family():
                key = getattr(m, "key", None)
                if (isinstance(key, tuple) and str(key[0]).startswith("cnn.weights.") and hasattr(m, "value")
                        and _visible(m)):
                    seen[key] = (m.value, m.get_center())

    scene = build_scene(scene_id, trace, observe=observe, **kw)
    return scene, seen


def _mass_keys(trace) -> set[tuple]:
    return {("cnn.object_mass", t) for t, m in enumerate(trace.cnn.object_mass) if m is not None}


def _zoom_keys(trace) -> set[tuple]:
    """The numbers of the cell shown up close: the first cell (in reading
    order) of the first object the caption names."""
    cells = next(c for c in trace.cnn.object_cells if c)
    i, j = sorted(tuple(c) for c in cells)[0]
    return {(f"cnn.features.{i}.{j}", d) for d in range(trace.cnn.features.shape[2])}


def _next_object_keys(trace) -> set[tuple]:
    """A word without an object of its own ("a", "and"): its weight on the next word's object."""
    return {("cnn.next_object_mass", t) for t, u in enumerate(trace.cnn.next_object) if u is not None}


def test_default_numbers_every_frame(smallest_text):
    trace = load_default_trace()
    scene = build_scene("cnn_attention", trace, skip=False)
    check_scene(scene, load_default_trace())
    # Digits once (issue 31): the first word's weights and context in the close-up; after that
    # the weights are their tints and c_t its colours. Each object word's mass on its object,
    # the held-out attention accuracy, and the D features of the cell shown up close.
    assert shown_keys(scene) == (_weight_keys(trace, [0]) | _context_keys(trace, [0]) | _mass_keys(trace)
                                 | {("cnn.held_out.attention_accuracy",)} | _zoom_keys(trace)
                                 | _next_object_keys(trace))
    assert [what for what, *_ in scene.close_ups] == ["the first word's weights and its context"]
    assert len(_mass_keys(trace)) >= 2
    small = min(smallest_text)
    assert small[0] >= MIN_FONT_SIZE - 1e-6, small


@pytest.mark.default_build("cnn_attention")
def test_light_theme_and_text_size():
    # The shared light build has the audit's legibility floor on (14 px capitals at 480p, stricter
    # than the font size 20 the other cnn tests ask): check_scene asserts it found nothing.
    scene = observed_default("cnn_attention", "light").scene
    assert scene.audit.min_text_px == MIN_TEXT_PX >= 12.6
    check_scene(scene, load_default_trace())


@pytest.mark.default_build("cnn_attention")
def test_the_zoomed_cell_names_each_number_by_its_filter():
    # The legend of the feature grid: each of the cell's D numbers beside its filter's name, in order.
    trace = load_default_trace()
    scene = observed_default("cnn_attention", "dark").scene
    i, j = scene._zoomed_cell()
    assert _zoom_keys(trace) == {(f"cnn.features.{i}.{j}", d) for d in range(trace.cnn.features.shape[2])}
    zoom = scene._zoom(i, j, scene._feature_grid(3.2))
    assert [n.original_text for n in zoom.names] == list(trace.cnn.filter_names)
    for name, cell in zip(zoom.names, zoom.column.cells):
        assert abs(name.get_y() - cell.get_y()) < 1e-6 and name.get_left()[0] > cell.get_right()[0]
    assert [c.number.key for c in zoom.column.cells] == [(f"cnn.features.{i}.{j}", d)
                                                         for d in range(len(zoom.names))]


@pytest.mark.parametrize("theme", [None, LIGHT], ids=["dark", "light"])
@pytest.mark.default_build("cnn_attention")
def test_the_spotlight_is_brightest_on_the_named_object(theme):
    # The spotlit picture: per object word, the cells of its object stand out
    # from the page (dark or white) more than the rest of the picture does,
    # in both themes.
    from manim import ImageMobject, ManimColor

    trace = load_default_trace()
    scene = observed_default("cnn_attention", (theme or DARK).name).scene
    page = np.array(ManimColor(scene.theme.background).to_rgb())
    # Drawn as rectangles: manim 0.22 cannot render an ImageMobject with Pillow 13.
    assert not any(isinstance(m, ImageMobject) for top in scene.mobjects for m in top.get_family())
    cnn = trace.cnn
    G = cnn.grid
    for t, cells in enumerate(cnn.object_cells):
        if not cells:
            continue
        lit = scene._spotlight(t)[0]
        # Back to pixels: each block's colour (one shape per colour, a block per closed
        # subpath), weighted by its area, per cell.
        bright = np.zeros((G, G))
        area = np.zeros((G, G))
        side = lit.width
        corner = lit.get_corner(np.array([-1, 1, 0]))[:2]
        for shape in lit:
            distance = np.abs(np.array(shape.get_fill_color().to_rgb()) - page).mean()
            for block in shape.get_subpaths():
                lo, hi = block[:, :2].min(axis=0), block[:, :2].max(axis=0)
                x, y = (lo + hi) / 2 - corner
                j, i = min(int(x / side * G), G - 1), min(int(-y / side * G), G - 1)
                a = float(np.prod(hi - lo))
                bright[i, j] += distance * a
                area[i, j] += a
        mean = bright / np.maximum(area, 1e-9)
        inside = np.mean([mean[i, j] for i, j in cells])
        outside = np.mean([mean[i, j] for i in range(G) for j in range(G) if (i, j) not in cells])
        assert inside > 2 * outside, (cnn.tokens[t], inside, outside)


def test_coarsest_grid_fewest_features_untrained_given_caption(smallest_text):
    data = varied()
    data["cnn"].update(grid=3, features=2, caption="ball")
    scene = build_scene("cnn_attention", trace_from(data))
    independent = trace_from(data)
    assert not independent.cnn.trained
    check_scene(scene, independent)
    seen = shown_keys(scene)
    assert _context_keys(independent, [0]) <= seen and _weight_keys(independent, [0]) <= seen
    assert ("cnn.held_out.attention_accuracy",) not in seen  # untrained: no held-out figure
    assert min(smallest_text)[0] >= MIN_FONT_SIZE - 1e-6


def test_finest_grid_a_user_photo(tmp_path, smallest_text):
    # A wide image written here: noise with a bright blob, many distinct pixels.
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 200, (60, 90, 3), dtype=np.uint8)
    pixels[20:40, 50:70] = (250, 250, 40)
    path = tmp_path / "other.jpg"
    Image.fromarray(pixels, "RGB").save(path, quality=90)
    data = varied()
    data["cnn"] = {"image": str(path), "grid": 8, "features": 8, "input_size": 16}
    scene = build_scene("cnn_attention", trace_from(data))
    independent = trace_from(data)
    check_scene(scene, independent)
    assert independent.cnn.image_size == (90, 60) and independent.cnn.scene is None
    seen = shown_keys(scene)
    assert _context_keys(independent, [0]) <= seen
    # 8x8 cells are too small for numbers: the weights as colour only.
    assert not _weight_keys(independent) & seen
    assert min(smallest_text)[0] >= MIN_FONT_SIZE - 1e-6


def test_a_user_image_says_it_is_not_a_drawn_scene(smallest_text):
    with resources.as_file(resources.files("attention_core").joinpath("sample_image.png")) as path:
        data = varied()
        data["cnn"] = {"image": str(path)}
        trace = trace_from(data)
    assert trace.cnn.trained and trace.cnn.scene is None
    scene = build_scene("cnn_attention", trace)
    check_scene(scene, trace)
    texts = {label for _, label in smallest_text}  # manim's Text drops the spaces
    assert any("notadrawnscene" in t for t in texts)
    assert not any("dashed" in t for t in texts)


def test_every_words_weights_are_tints_over_the_feature_cells():
    """Issue 31: the feature grid becomes what is attended. Every word's G x G weights are
    drawn as tints whose values are the core's, each over its own cell of the same feature
    grid (which slid there from the CNN: never faded out and rebuilt)."""
    trace = load_default_trace()
    independent = load_default_trace()
    scene, seen = _tints_seen("cnn_attention", trace)
    cnn = independent.cnn
    T, G = cnn.weights.shape[:2]
    assert set(seen) == _weight_keys(independent)
    for (name, j), (value, centre) in seen.items():
        t, i = (int(k) for k in name.split(".")[2:4])
        assert value == pytest.approx(float(cnn.weights[t][i, j]), abs=1e-12)
    grid = scene.features  # the feature grid built by the CNN beat
    cells = grid[:-1]  # G*G columns of stripes, then the frame
    for (name, j), (_, centre) in seen.items():
        i = int(name.split(".")[3])
        assert np.allclose(centre[:2], cells[i * G + j].get_center()[:2], atol=1e-6)


@pytest.mark.default_build("cnn_attention")
def test_the_second_a_says_why_it_does_not_look_at_the_car():
    """Issue 31: the caption's second "a" puts 0.00 on the car; the note says why, in one line,
    and names where it does look (a lookup of its strongest cell), only for that word."""
    trace = load_default_trace()
    cnn = trace.cnn
    scene = observed_default("cnn_attention", "dark").scene
    surprising = [t for t in range(len(cnn.tokens)) if scene._surprising(t)]
    # By hand from the weights: "a" (0) and "and" (2) put ~1 on the next object; the second "a" (3) does not.
    assert surprising == [3] and cnn.next_object_mass[3] < 0.01
    top = np.unravel_index(np.argmax(cnn.weights[3]), cnn.weights[3].shape)
    assert tuple(int(k) for k in top) in {tuple(c) for c in cnn.object_cells[1]}  # the ball's cells
    note = scene._word_note(3)
    assert note.text.splitlines()[-1] == "no loss tells it where to look; here: the ball"
    assert "where to look" not in scene._word_note(0).text
