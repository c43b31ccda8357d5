"""The CNN feature grid and the caption attention over it (attention_core.cnn)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from attention_core import NumbersError, compute_trace, load_numbers
from attention_core.cnn import (
    MAX_IMAGE_SIDE,
    convolve,
    hand_filters,
    mean_pool_grid,
    pool_regions,
    relu,
    spotlight,
    square_resize,
)

from .helpers import default_data, trace_from, varied


def _png(path, width, height, colour=None, seed=0):
    """Write an image for a test: one colour, or seeded noise."""
    if colour is not None:
        pixels = np.zeros((height, width, 3), np.uint8) + np.array(colour, np.uint8)
    else:
        pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    Image.fromarray(pixels, "RGB").save(path)
    return path


def _cnn(**keys):
    data = varied()
    data["cnn"].update(keys)
    if "image" in keys:  # an image replaces the drawn scene
        data["cnn"].pop("scene", None)
    return data


# -- the convolution ---------------------------------------------------------


def test_convolution_worked_by_hand():
    image = np.array([[1, 2, 3, 4],
                      [0, 1, 0, 1],
                      [2, 0, 1, 3]], float)[:, :, None]
    kernel = np.array([[1, 0, -1],
                       [0, 1, 0],
                       [-1, 0, 1]], float)[None, :, :, None]
    # Window at x=0: 1*1 + 3*(-1) + 1*1 + 2*(-1) + 1*1 = -2, plus bias 0.5 -> -1.5.
    # Window at x=1: 2*1 + 4*(-1) + 0*1 + 0*(-1) + 3*1 = 1, plus bias 0.5 -> 1.5.
    out = convolve(image, kernel, np.array([0.5]))
    assert out.shape == (1, 2, 1)
    np.testing.assert_allclose(out[0, :, 0], [-1.5, 1.5])
    np.testing.assert_allclose(relu(out)[0, :, 0], [0.0, 1.5])


def _nested_loop_convolution(image, filters, bias):
    h, w, c = image.shape
    d, k = filters.shape[0], filters.shape[1]
    out = np.zeros((h - k + 1, w - k + 1, d))
    for y in range(h - k + 1):
        for x in range(w - k + 1):
            for f in range(d):
                total = bias[f]
                for u in range(k):
                    for v in range(k):
                        for ch in range(c):
                            total += image[y + u, x + v, ch] * filters[f, u, v, ch]
                out[y, x, f] = total
    return out


def test_convolution_matches_nested_loops():
    rng = np.random.default_rng(5)
    image = rng.random((7, 6, 3))
    filters = rng.normal(size=(2, 3, 3, 3))
    bias = rng.normal(size=2)
    np.testing.assert_allclose(convolve(image, filters, bias),
                               _nested_loop_convolution(image, filters, bias))


def test_pooling_worked_by_hand():
    maps = np.arange(25, dtype=float).reshape(5, 5, 1)  # value 5*row + col
    # 5 rows in 2 blocks: rows 0-1 and rows 2-4 (same for columns).
    assert pool_regions(5, 2) == [(0, 2), (2, 5)]
    pooled = mean_pool_grid(maps, 2)
    # Block means: rows 0-1 x cols 0-1 = (0+1+5+6)/4 = 3; rows 0-1 x cols 2-4 =
    # (2+3+4+7+8+9)/6 = 5.5; rows 2-4 x cols 0-1 = (10+11+15+16+20+21)/6 = 15.5;
    # rows 2-4 x cols 2-4: centre 18, mean of a symmetric 3x3 block = 18.
    np.testing.assert_allclose(pooled[:, :, 0], [[3, 5.5], [15.5, 18]])


def test_square_resize_crops_the_centre_and_averages_blocks():
    pixels = np.zeros((2, 4, 3), np.uint8)
    pixels[:, :, 0] = [[0, 51, 102, 255], [0, 153, 204, 255]]
    # Centre crop of the 2x4 image is columns 1-2; to 1x1 it is their mean:
    # (51 + 102 + 153 + 204) / 4 = 127.5, over 255 -> 0.5.
    np.testing.assert_allclose(square_resize(pixels, 1)[0, 0], [0.5, 0, 0])
    # At 2x2 each output pixel is one source pixel.
    np.testing.assert_allclose(square_resize(pixels, 2)[:, :, 0], [[0.2, 0.4], [0.6, 0.8]])


def test_hand_filters_on_a_pure_red_image(tmp_path):
    _png(tmp_path / "red.png", 32, 32, colour=(255, 0, 0))
    trace = trace_from(_cnn(image=str(tmp_path / "red.png"), features=8, grid=3, input_size=32))
    feats = trace.cnn.features
    assert trace.cnn.filter_names[:6] == ("red", "green", "blue", "yellow", "bright", "dark")
    # red: 3*1 - 1.5*0 - 1.5*0 - 0.3 = 2.7; green, blue: -1.5 - 0.3 < 0 -> 0;
    # yellow: 1.5*1 + 1.5*0 - 3*0 - 1.2 = 0.3; bright: 0.5 - 1 < 0 -> 0;
    # dark: -1 + 0.7 < 0 -> 0; no edges in a flat image.
    np.testing.assert_allclose(feats[:, :, 0], 2.7)
    np.testing.assert_allclose(feats[:, :, 3], 0.3)
    np.testing.assert_allclose(feats[:, :, [1, 2, 4, 5, 6, 7]], 0.0)


def test_hand_filters_are_a_prefix_of_the_bank():
    names, filters, bias = hand_filters(3)
    assert names == ("red", "green", "blue")
    assert filters.shape == (3, 3, 3, 3) and bias.shape == (3,)
    np.testing.assert_array_equal(hand_filters(8)[1][:3], filters)


def test_spotlight_worked_by_hand_before_the_blur():
    # A 2x2 grid at 4 pixels: cell (0, 0) is pixels 0-1 of rows 0-1. Blurred (dark
    # outside the image), the block stays brightest and brightness falls away from it.
    w = np.array([[1.0, 0.0], [0.0, 0.0]])
    up = spotlight(w, 4)
    assert up.shape == (4, 4) and up.max() == pytest.approx(1.0)
    assert np.unravel_index(np.argmax(up), up.shape) in {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert np.all(np.diff(up[1, 1:]) <= 1e-12) and np.all(np.diff(up[1:, 1]) <= 1e-12)
    # A uniform grid lights the inside equally, the border no less than half.
    flat = spotlight(np.full((3, 3), 1 / 9), 24)
    np.testing.assert_allclose(flat[6:18, 6:18], 1.0, atol=1e-9)
    assert flat.min() >= 0.25


def test_the_glow_of_one_border_cell_is_centred_on_that_cell():
    # Issue 22: the ball's cell (3, 0) of a 4x4 grid at 48 px (pixels 36-47 by 0-11,
    # centre 41.5, 5.5) glowed on the image's corner: the bilinear upsampling,
    # clamped at the border, spread the peak to the cell's outer corner.
    w = np.zeros((4, 4))
    w[3, 0] = 1.0
    up = spotlight(w, 48)
    bright = up >= 0.9
    ii, jj = np.nonzero(bright)
    assert abs(ii.mean() - 41.5) <= 0.5 and abs(jj.mean() - 5.5) <= 0.5
    i, j = np.unravel_index(np.argmax(up), up.shape)
    assert abs(i - 41.5) <= 1 and abs(j - 5.5) <= 1


def test_spotlight_is_brightest_on_the_attended_cell():
    w = np.zeros((4, 4))
    w[2, 1] = 1.0
    up = spotlight(w, 48)
    i, j = np.unravel_index(np.argmax(up), up.shape)
    assert 24 <= i < 36 and 12 <= j < 24
    # Far corners stay dark.
    assert up[0, 47] < 0.05 and up[0, 0] < 0.05


# -- shapes and properties -----------------------------------------------------


@pytest.mark.parametrize("width,height,grid,features", [
    (40, 30, 3, 2), (64, 64, 5, 8), (100, 50, 8, 4), (33, 90, 6, 3),
])
def test_shapes_weights_and_contexts(tmp_path, width, height, grid, features):
    path = _png(tmp_path / "noise.png", width, height, seed=width)
    caption = "a ball and a car on the sand"
    trace = trace_from(_cnn(image=str(path), grid=grid, features=features, caption=caption,
                            input_size=24))
    c = trace.cnn
    T = 8
    assert c.tokens == tuple(caption.split()) and c.forced
    assert not c.trained  # other sizes than the captioner's: seeded decoder
    assert c.features.shape == (grid, grid, features)
    assert c.conv_size == 22
    assert c.weights.shape == (T, grid, grid) and c.scores.shape == (T, grid, grid)
    assert c.contexts.shape == (T, features)
    assert c.image_size == (width, height)
    assert np.all(c.features >= 0)  # after ReLU and average pooling
    cells = c.features.reshape(-1, features)
    for t in range(T):
        assert c.weights[t].sum() == pytest.approx(1.0)
        assert np.all(c.weights[t] > 0)
        e = np.exp(c.scores[t] - c.scores[t].max())
        np.testing.assert_allclose(c.weights[t], e / e.sum())
        # The context is inside the convex hull of the cells: each coordinate
        # between the cells' least and greatest, and a weighted sum of them.
        assert np.all(c.contexts[t] >= cells.min(axis=0) - 1e-12)
        assert np.all(c.contexts[t] <= cells.max(axis=0) + 1e-12)
        np.testing.assert_allclose(c.contexts[t], c.weights[t].reshape(-1) @ cells)
    # A user image: no object is known, so no word has object cells.
    assert c.object_cells == ((),) * T and c.object_mass == (None,) * T


def test_to_dict_section():
    data = trace_from(default_data()).to_dict()
    section = data["cnn"]
    json.dumps(section)  # plain JSON values
    assert set(section["image"]) == {"source", "drawn_scene", "width", "height", "input_size", "sha256"}
    assert section["trained"] is True
    assert set(section["held_out"]) >= {"caption_exact", "attention_accuracy", "object_mass"}
    assert np.asarray(section["features"]).shape == (4, 4, 8)
    assert np.asarray(section["filters"]).shape == (8, 3, 3, 3)
    T = len(section["caption"])
    assert len(section["weights"]) == len(section["object_cells"]) == len(section["object_mass"]) == T
    for w, cells, mass in zip(section["weights"], section["object_cells"], section["object_mass"]):
        assert np.asarray(w).shape == (4, 4) and np.sum(w) == pytest.approx(1.0)
        if cells:
            assert mass == pytest.approx(sum(w[i][j] for i, j in cells))
        else:
            assert mass is None
    assert len(section["contexts"]) == T


def test_explicit_filters_and_bias_replace_the_bank():
    ones = [[[1.0, 0.0, 0.0]] * 3] * 3
    trace = trace_from(_cnn(features=2, filters=[ones, ones], bias=[0.0, -100.0]))
    assert trace.cnn.filter_names == ("filter 1", "filter 2") and not trace.cnn.trained
    np.testing.assert_allclose(trace.cnn.filters[0, :, :, 0], 1.0)
    np.testing.assert_allclose(trace.cnn.features[:, :, 1], 0.0)  # the bias kills it


def test_relative_image_path_is_resolved_against_the_numbers_file(tmp_path, monkeypatch):
    (tmp_path / "imgs").mkdir()
    _png(tmp_path / "imgs" / "pic.png", 50, 50, colour=(0, 0, 255))
    numbers = tmp_path / "n.toml"
    numbers.write_text('seed = 1\n[sentences]\nsource = "a b"\ntarget = "c d"\n'
                       '[sizes]\nembedding = 2\nhidden = 2\n'
                       '[cnn]\nimage = "imgs/pic.png"\n', "utf-8")
    monkeypatch.chdir("/")
    trace = compute_trace(load_numbers(numbers))
    assert trace.cnn.image_source == "imgs/pic.png"
    assert trace.cnn.image_size == (50, 50)


# -- bad numbers ---------------------------------------------------------------


def _error(data) -> str:
    with pytest.raises(NumbersError) as info:
        trace_from(data)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_image_names_the_key_and_path(tmp_path):
    missing = str(tmp_path / "nope.png")
    message = _error(_cnn(image=missing))
    assert message.startswith("cnn.image") and missing in message


def test_a_text_file_is_not_an_image(tmp_path):
    bad = tmp_path / "notes.png"
    bad.write_text("not an image", "utf-8")
    message = _error(_cnn(image=str(bad)))
    assert message.startswith("cnn.image") and str(bad) in message


def test_a_truncated_png_is_unreadable(tmp_path):
    good = _png(tmp_path / "good.png", 40, 40, seed=1)
    cut = tmp_path / "cut.png"
    cut.write_bytes(good.read_bytes()[:200])
    message = _error(_cnn(image=str(cut)))
    assert message.startswith("cnn.image") and str(cut) in message


def test_wrong_image_format(tmp_path):
    gif = tmp_path / "pic.gif"
    Image.new("RGB", (40, 40), (10, 20, 30)).save(gif)
    message = _error(_cnn(image=str(gif)))
    assert message.startswith("cnn.image") and "GIF" in message and str(gif) in message


def test_a_folder_is_not_an_image(tmp_path):
    message = _error(_cnn(image=str(tmp_path)))
    assert message.startswith("cnn.image") and str(tmp_path) in message


def test_image_smaller_than_the_input_size(tmp_path):
    small = _png(tmp_path / "small.png", 20, 40, seed=2)
    message = _error(_cnn(image=str(small), input_size=32))
    assert message.startswith("cnn.image") and "20x40" in message


@pytest.mark.parametrize("key,value", [
    ("grid", 2), ("grid", 9), ("grid", 4.0), ("features", 1), ("features", 9),
    ("input_size", 15), ("input_size", 65), ("caption", ""), ("image", 3),
    ("caption", "a zebra on the grass"), ("scene", -1), ("scene", 500), ("scene", "5"),
    ("caption", "one two three four five six seven eight nine"), ("bias", [0.1, 0.2]),
    ("bias", [0.1, 0.2, float("nan"), 0.4]), ("filters", [[[[0.0, 0.0, 0.0]] * 3] * 3]),
    ("filters", [[[[0.0, 0.0]] * 3] * 3] * 4), ("image", ""),
])
def test_bad_values_name_the_key(key, value):
    message = _error(_cnn(**{key: value}))
    assert message.startswith(f"cnn.{key}"), message


def test_unknown_key_is_rejected():
    message = _error(_cnn(grdi=4))
    assert message.startswith("cnn.grdi: unknown key")


def test_load_numbers_prefixes_the_file(tmp_path):
    numbers = tmp_path / "n.toml"
    numbers.write_text('seed = 1\n[sentences]\nsource = "a"\ntarget = "b"\n'
                       '[sizes]\nembedding = 2\nhidden = 2\n[cnn]\nimage = "gone.jpg"\n', "utf-8")
    with pytest.raises(NumbersError) as info:
        load_numbers(numbers)
    assert str(info.value).startswith(f"{numbers}: cnn.image")
    assert str(tmp_path / "gone.jpg") in str(info.value)


def test_image_and_scene_together_are_refused(tmp_path):
    path = _png(tmp_path / "pic.png", 60, 60, seed=4)
    message = _error(varied(cnn={"image": str(path), "scene": 2}))
    assert message.startswith("cnn:") and "image" in message and "scene" in message


# -- decompression bombs (issue 15, item 5) ------------------------------------


def _huge_png(path, side):
    # A 1-bit image is side*side/8 bytes in memory and compresses to almost
    # nothing, so even 15000x15000 is cheap to write.
    Image.new("1", (side, side)).save(path)
    return path


@pytest.mark.parametrize("side", [10_000, 15_000])
def test_a_huge_image_is_one_clear_error_without_warnings(tmp_path, side):
    import warnings

    path = _huge_png(tmp_path / f"huge{side}.png", side)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        message = _error(_cnn(image=str(path)))
    assert message.startswith("cnn.image") and str(path) in message
    assert f"at most {MAX_IMAGE_SIDE}" in message


def test_a_huge_image_from_the_command_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    _huge_png(tmp_path / "huge.png", 15_000)
    numbers = tmp_path / "n.toml"
    # A numbers file holds only what it changes; the rest is the shipped default.
    numbers.write_text('[cnn]\nimage = "huge.png"\n', "utf-8")
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, str(root / "render.py"), "numbers", "--numbers", str(numbers),
                          "--scene", "cnn_attention"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=120)
    assert run.returncode != 0
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "cnn.image" in lines[0] and "huge.png" in lines[0] and "Traceback" not in run.stderr


def test_a_word_without_an_object_is_measured_on_the_next_words_object():
    # The default drawn scene captioned "a ball and a car": by hand, "a" (0) is
    # followed by the object word "ball" (1), "and" (2) and the second "a" (3) by
    # "car" (4); object words themselves have their own object, no next one.
    data = varied()
    data["cnn"].update(caption="a ball and a car")
    c = trace_from(data).cnn
    assert c.tokens == ("a", "ball", "and", "a", "car")
    assert c.next_object == (1, None, 4, 4, None)
    for t, u in enumerate(c.next_object):
        if u is None:
            assert c.next_object_mass[t] is None
            continue
        # The weight word t puts on the cells of the object that word u names.
        by_hand = sum(float(c.weights[t][i, j]) for i, j in c.object_cells[u])
        assert c.next_object_mass[t] == pytest.approx(by_hand)
        assert 0.0 <= c.next_object_mass[t] <= 1.0 + 1e-9
    assert c.to_dict()["next_object"] == [1, None, 4, 4, None]
