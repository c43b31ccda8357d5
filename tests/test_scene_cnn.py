"""The cnn_attention scene, built headless for the default and varied numbers."""

from __future__ import annotations

import numpy as np
from PIL import Image


from .helpers import build_scene, check_scene, default_data, load_default_trace, shown_keys, trace_from, varied


def _weight_keys(trace) -> set[tuple]:
    T, G = trace.cnn.weights.shape[:2]
    return {(f"cnn.weights.{t}.{i}", j) for t in range(T) for i in range(G) for j in range(G)}


def _vector_keys(trace) -> set[tuple]:
    T, D = trace.cnn.contexts.shape
    keys = {(f"cnn.contexts.{t}", d) for t in range(T) for d in range(D)}
    keys |= {(f"cnn.states.{t}", d) for t in range(T) for d in range(D)}
    return keys


def _feature_keys(trace) -> set[tuple]:
    G, _, D = trace.cnn.features.shape
    return {(f"cnn.features.{i}.{j}", d) for i in range(G) for j in range(G) for d in range(D)}


def _check(scene, independent) -> None:
    check_scene(scene, independent)


def test_default_numbers_every_frame():
    trace = load_default_trace()
    scene = build_scene("cnn_attention", trace, skip=False)
    _check(scene, load_default_trace())
    # 4x4 cells of 4 numbers and 16 weights per word are big enough to show
    # every number: each feature, each weight, each s_{t-1} and each c_t.
    assert shown_keys(scene) == _feature_keys(trace) | _weight_keys(trace) | _vector_keys(trace)


def _cnn(**keys):
    return varied(cnn={**default_data()["cnn"], **keys})


def test_coarsest_grid_widest_vectors_one_word():
    data = _cnn(grid=3, features=8, caption="ball")
    scene = build_scene("cnn_attention", trace_from(data))
    independent = trace_from(data)
    _check(scene, independent)
    seen = shown_keys(scene)
    assert _vector_keys(independent) <= seen
    # 3x3 cells are wide enough for the weights, but 8 stripes of a cell are
    # too thin for numbers: the features are shown as colour only.
    assert _weight_keys(independent) <= seen
    assert not _feature_keys(independent) & seen


def test_finest_grid_narrowest_vectors_eight_words_another_image(tmp_path):
    # A wide image written here: noise with a bright blob, many distinct pixels.
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 200, (60, 90, 3), dtype=np.uint8)
    pixels[20:40, 50:70] = (250, 250, 40)
    path = tmp_path / "other.jpg"
    Image.fromarray(pixels, "RGB").save(path, quality=90)
    data = _cnn(image=str(path), grid=8, features=2, input_size=16,
                caption="a small red ball lies on green grass")
    scene = build_scene("cnn_attention", trace_from(data))
    independent = trace_from(data)
    _check(scene, independent)
    assert independent.cnn.image_size == (90, 60)
    seen = shown_keys(scene)
    assert _vector_keys(independent) <= seen
    # 8x8 cells are too small for numbers: weights and features as colour only.
    assert not (_weight_keys(independent) | _feature_keys(independent)) & seen
