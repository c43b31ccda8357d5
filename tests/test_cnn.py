"""The CNN feature grid and the caption attention over it (attention_core.cnn)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from attention_core import NumbersError, compute_trace, load_numbers
from attention_core.cnn import (
    convolve,
    hand_filters,
    max_pool_grid,
    pool_regions,
    relu,
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
    return varied(cnn={**default_data()["cnn"], **keys})


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
    pooled = max_pool_grid(maps, 2)
    # Block maxima are their bottom-right entries: 5*1+1, 5*1+4, 5*4+1, 5*4+4.
    np.testing.assert_allclose(pooled[:, :, 0], [[6, 9], [21, 24]])


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
    trace = trace_from(_cnn(image=str(tmp_path / "red.png"), features=6, grid=3))
    feats = trace.cnn.features
    assert trace.cnn.filter_names[:4] == ("red", "green", "blue", "bright")
    # red: 3*1 - 1.5*0 - 1.5*0 - 0.3 = 2.7; green: -1.5 - 0.3 < 0 -> 0;
    # blue: the same 0; bright: 0.5 - 0.75 < 0 -> 0; no edges in a flat image.
    np.testing.assert_allclose(feats[:, :, 0], 2.7)
    np.testing.assert_allclose(feats[:, :, 1:], 0.0)


def test_hand_filters_then_seeded_random_ones():
    names, filters, bias = hand_filters(3, 8)
    assert names[6:] == ("random 1", "random 2")
    assert filters.shape == (8, 3, 3, 3) and bias.shape == (8,)
    again = hand_filters(3, 8)[1]
    np.testing.assert_array_equal(filters, again)
    assert not np.array_equal(hand_filters(4, 8)[1][6], filters[6])


# -- shapes and properties -----------------------------------------------------


@pytest.mark.parametrize("width,height,grid,features", [
    (40, 30, 3, 2), (64, 64, 5, 8), (100, 50, 8, 4), (33, 90, 6, 3),
])
def test_shapes_weights_and_contexts(tmp_path, width, height, grid, features):
    path = _png(tmp_path / "noise.png", width, height, seed=width)
    caption = "one two three four five six seven eight"
    trace = trace_from(_cnn(image=str(path), grid=grid, features=features, caption=caption,
                            input_size=24))
    c = trace.cnn
    T = 8
    assert c.features.shape == (grid, grid, features)
    assert c.conv_size == 22
    assert c.weights.shape == (T, grid, grid) and c.scores.shape == (T, grid, grid)
    assert c.contexts.shape == (T, features) and c.states.shape == (T + 1, features)
    assert c.image_size == (width, height)
    assert np.all(c.features >= 0)  # after ReLU and max pooling
    cells = c.features.reshape(-1, features)
    for t in range(T):
        assert c.weights[t].sum() == pytest.approx(1.0)
        assert np.all(c.weights[t] > 0)
        # Word t's score of cell (i, j) is the dot product of s_{t-1} and f_ij.
        np.testing.assert_allclose(c.scores[t], np.einsum("d,ijd->ij", c.states[t], c.features))
        # The context is inside the convex hull of the cells: each coordinate
        # between the cells' least and greatest, and a weighted sum of them.
        assert np.all(c.contexts[t] >= cells.min(axis=0) - 1e-12)
        assert np.all(c.contexts[t] <= cells.max(axis=0) + 1e-12)
        np.testing.assert_allclose(c.contexts[t], c.weights[t].reshape(-1) @ cells)


def test_to_dict_section():
    data = trace_from(default_data()).to_dict()
    section = data["cnn"]
    json.dumps(section)  # plain JSON values
    assert set(section["image"]) == {"source", "width", "height", "input_size", "sha256"}
    assert section["caption"] == ["a", "red", "ball", "on", "the", "grass"]
    assert np.asarray(section["features"]).shape == (4, 4, 4)
    assert np.asarray(section["filters"]).shape == (4, 3, 3, 3)
    for w in section["weights"]:
        assert np.sum(w) == pytest.approx(1.0)
    assert len(section["contexts"]) == 6


def test_explicit_filters_and_bias_replace_the_bank():
    ones = [[[1.0, 0.0, 0.0]] * 3] * 3
    trace = trace_from(_cnn(features=2, filters=[ones, ones], bias=[0.0, -100.0]))
    assert trace.cnn.filter_names == ("filter 1", "filter 2")
    np.testing.assert_allclose(trace.cnn.filters[0, :, :, 0], 1.0)
    np.testing.assert_allclose(trace.cnn.features[:, :, 1], 0.0)  # the bias kills it


def test_relative_image_path_is_resolved_against_the_numbers_file(tmp_path, monkeypatch):
    (tmp_path / "imgs").mkdir()
    _png(tmp_path / "imgs" / "pic.png", 40, 40, colour=(0, 0, 255))
    numbers = tmp_path / "n.toml"
    numbers.write_text('seed = 1\n[sentences]\nsource = "a b"\ntarget = "c d"\n'
                       '[sizes]\nembedding = 2\nhidden = 2\n'
                       '[cnn]\nimage = "imgs/pic.png"\n', "utf-8")
    monkeypatch.chdir("/")
    trace = compute_trace(load_numbers(numbers))
    assert trace.cnn.image_source == "imgs/pic.png"
    assert trace.cnn.image_size == (40, 40)


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
