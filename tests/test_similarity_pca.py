"""Dot product, cosine and PCA against cases worked by hand; the [dot_product]
and [hidden_state_map] tables; the map's states from the encoder."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from attention_core import NumbersError
from attention_core.pca import pca
from attention_core.similarity import (
    angle_degrees,
    cosine_similarity,
    dot_product,
    elementwise_products,
    norm,
    plane_coordinates,
    rotation_sweep,
    running_sums,
)

from .helpers import default_data, trace_from, varied


def _with(table: str, value) -> dict:
    """The default numbers with one table replaced whole (not merged)."""
    data = default_data()
    data[table] = value
    return data

# --------------------------------------------------------------------------
# dot product, norms, cosine, angle: by hand
# --------------------------------------------------------------------------


def test_dot_product_worked_by_hand():
    # m = (1, 2, 3), u = (4, -5, 6): products 4, -10, 18; running 4, -6, 12.
    m, u = np.array([1.0, 2.0, 3.0]), np.array([4.0, -5.0, 6.0])
    assert elementwise_products(m, u).tolist() == [4.0, -10.0, 18.0]
    assert running_sums(m, u).tolist() == [4.0, -6.0, 12.0]
    assert dot_product(m, u) == 12.0


def test_cosine_and_angle_worked_by_hand():
    # (3, 4) . (4, 3) = 24, both of length 5: cos = 24/25 = 0.96;
    # sin = 7/25 = 0.28, so theta = atan(0.28/0.96) = 16.26 degrees.
    assert norm([3.0, 4.0]) == 5.0
    assert cosine_similarity([3.0, 4.0], [4.0, 3.0]) == pytest.approx(0.96)
    assert angle_degrees([3.0, 4.0], [4.0, 3.0]) == pytest.approx(16.26, abs=0.005)
    # (1, 2, 2) . (2, 0, -1) = 2 + 0 - 2 = 0: perpendicular, 90 degrees.
    assert cosine_similarity([1.0, 2.0, 2.0], [2.0, 0.0, -1.0]) == pytest.approx(0.0)
    assert angle_degrees([1.0, 2.0, 2.0], [2.0, 0.0, -1.0]) == pytest.approx(90.0)
    # (1, 0) . (-1, 1) = -1, lengths 1 and sqrt(2): cos = -1/sqrt(2), 135 degrees.
    assert cosine_similarity([1.0, 0.0], [-1.0, 1.0]) == pytest.approx(-1 / math.sqrt(2))
    assert angle_degrees([1.0, 0.0], [-1.0, 1.0]) == pytest.approx(135.0)
    # Same direction and opposite direction.
    assert angle_degrees([1.0, 2.0], [2.0, 4.0]) == pytest.approx(0.0, abs=1e-6)
    assert angle_degrees([1.0, 2.0], [-2.0, -4.0]) == pytest.approx(180.0, abs=1e-6)


def test_angle_agrees_with_arccos_of_the_cosine():
    rng = np.random.default_rng(1)
    for _ in range(50):
        m, u = rng.normal(size=4), rng.normal(size=4)
        assert angle_degrees(m, u) == pytest.approx(math.degrees(math.acos(cosine_similarity(m, u))))


def test_cosine_of_zero_vector_is_an_error():
    with pytest.raises(ValueError):
        cosine_similarity([0.0, 0.0], [1.0, 2.0])


def test_plane_coordinates_by_hand_and_keep_the_dot_product():
    # m = (1, 2, 2) has length 3, u = (2, 0, -1) length sqrt(5), at 90 degrees:
    # in their plane m = (3, 0) and u = (0, sqrt(5)).
    pm, pu = plane_coordinates(np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, -1.0]))
    assert pm == pytest.approx([3.0, 0.0])
    assert pu == pytest.approx([0.0, math.sqrt(5)], abs=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(20):
        m, u = rng.normal(size=5), rng.normal(size=5)
        pm, pu = plane_coordinates(m, u)
        assert pm @ pu == pytest.approx(dot_product(m, u))
        assert np.linalg.norm(pu) == pytest.approx(norm(u))
        assert pu[1] >= 0  # u drawn above m


def test_rotation_sweep_by_hand():
    # |m| = 5 (m = (3, 4)), |u| = 2: score = 10 cos(angle).
    users, cosines, scores = rotation_sweep(np.array([3.0, 4.0]), np.array([0.0, 2.0]),
                                            (0.0, 60.0, 90.0, 180.0))
    assert scores == pytest.approx([10.0, 5.0, 0.0, -10.0], abs=1e-12)
    assert cosines == pytest.approx([1.0, 0.5, 0.0, -1.0], abs=1e-12)
    assert users[2] == pytest.approx([0.0, 2.0], abs=1e-12)  # straight up at 90 degrees
    assert users[3] == pytest.approx([-2.0, 0.0], abs=1e-12)


def test_default_dot_product_tells_the_drafts_story():
    dp = trace_from(varied()).dot_product
    romance, action = dp.features.index("romance"), dp.features.index("action")
    # User hates romance, movie has it: a negative term; both like action: the largest term.
    assert dp.user[romance] < 0 < dp.movie[romance]
    assert dp.products[romance] < 0
    assert dp.top_term == action and dp.products[action] > 0
    # The pieces agree with each other.
    assert dp.running_sum[-1] == pytest.approx(dp.score)
    assert dp.score == pytest.approx(dp.norm_movie * dp.norm_user * dp.cosine)
    assert dp.sweep_scores[0] == pytest.approx(dp.norm_product)
    assert dp.sweep_scores[-1] == pytest.approx(-dp.norm_product)
    assert np.all(np.diff(dp.sweep_scores) < 0)  # turning away lowers the score


# --------------------------------------------------------------------------
# PCA
# --------------------------------------------------------------------------


def test_pca_2d_worked_by_hand():
    # Points on a line through the origin along (2, 1): mean 0, PC1 = (2, 1)/sqrt(5)
    # (largest loading made positive), projections -sqrt(5), 0, sqrt(5);
    # variance (5 + 0 + 5) / (3 - 1) = 5 along PC1, nothing along PC2.
    data = np.array([[-2.0, -1.0], [0.0, 0.0], [2.0, 1.0]])
    fit = pca(data)
    s5 = math.sqrt(5)
    assert fit.mean == pytest.approx([0.0, 0.0])
    assert fit.components[0] == pytest.approx([2 / s5, 1 / s5])
    # PC2 is the perpendicular (-1, 2)/sqrt(5), its larger entry positive.
    assert fit.components[1] == pytest.approx([-1 / s5, 2 / s5])
    assert fit.projected[:, 0] == pytest.approx([-s5, 0.0, s5])
    assert fit.projected[:, 1] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)
    assert fit.explained_variance == pytest.approx([5.0, 0.0], abs=1e-12)
    assert fit.explained_variance_ratio == pytest.approx([1.0, 0.0], abs=1e-12)


def test_pca_3d_worked_by_hand():
    # (±3, 0, 1) and (0, ±1, 1): mean (0, 0, 1). Centred, X^T X = diag(18, 2, 0);
    # over N - 1 = 3: variances 6 and 2/3 along x and y; shares 18/20 and 2/20.
    data = np.array([[3.0, 0, 1], [-3.0, 0, 1], [0, 1.0, 1], [0, -1.0, 1]])
    fit = pca(data)
    assert fit.mean == pytest.approx([0.0, 0.0, 1.0])
    assert fit.components == pytest.approx(np.array([[1.0, 0, 0], [0, 1.0, 0]]), abs=1e-12)
    assert fit.explained_variance == pytest.approx([6.0, 2 / 3])
    assert fit.explained_variance_ratio == pytest.approx([0.9, 0.1])
    assert fit.projected == pytest.approx(np.array([[3.0, 0], [-3.0, 0], [0, 1.0], [0, -1.0]]),
                                          abs=1e-12)


def test_pca_properties():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(9, 6)) * np.array([3.0, 1.0, 0.5, 2.0, 0.2, 1.0])
    fit = pca(data)
    # Orthonormal components.
    assert fit.components @ fit.components.T == pytest.approx(np.eye(2), abs=1e-12)
    # Projected data is centred, with the stated variances, in decreasing order.
    assert fit.projected.mean(axis=0) == pytest.approx([0.0, 0.0], abs=1e-12)
    assert fit.projected.var(axis=0, ddof=1) == pytest.approx(fit.explained_variance)
    assert fit.explained_variance[0] >= fit.explained_variance[1]
    assert 0 < fit.explained_variance_ratio.sum() <= 1 + 1e-12
    # Largest loading of each component is positive (the sign convention).
    for row in fit.components:
        assert row[np.argmax(np.abs(row))] > 0
    # Shifting every state by the same vector changes nothing but the mean.
    shifted = pca(data + np.array([5.0, -2.0, 1.0, 0.0, 3.0, 7.0]))
    assert shifted.components == pytest.approx(fit.components)
    assert shifted.projected == pytest.approx(fit.projected)
    # No other direction holds more variance than PC1.
    centred = data - data.mean(axis=0)
    for _ in range(50):
        d = rng.normal(size=6)
        d /= np.linalg.norm(d)
        assert np.var(centred @ d, ddof=1) <= fit.explained_variance[0] + 1e-9


def test_pca_rejects_too_little_data():
    with pytest.raises(ValueError):
        pca(np.array([[1.0, 2.0]]))


# --------------------------------------------------------------------------
# The map: same encoder, same embeddings
# --------------------------------------------------------------------------


def test_tanh_map_uses_the_small_rnn_of_the_encoder_section():
    # "barked" is a word the translator does not know: the map falls back to
    # the seeded tanh RNN (the trained map is tested in
    # test_hidden_state_map_translator.py).
    data = varied(hidden_state_map={"sentences": [
        "Economic growth has slowed down in recent years", "the cat eats fish", "a dog barked"]})
    trace = trace_from(data)
    hm = trace.hidden_state_map
    assert hm.network == "tanh" and hm.unknown_words == ("barked",)
    # The source sentence itself, read again, lands on that RNN's h_T.
    assert hm.states[0] == pytest.approx(trace.encoder.context)
    assert hm.projected.shape == (3, 2)
    assert hm.projected == pytest.approx((hm.states - hm.mean) @ hm.components.T)


def test_map_words_do_not_change_existing_embeddings():
    # Words the translator does not know: the tanh RNN reads these maps.
    a = trace_from(varied(hidden_state_map={"sentences": ["one two", "three", "four five six"]}))
    assert a.hidden_state_map.network == "tanh"
    b = trace_from(varied(hidden_state_map={"sentences": ["zebra", "yak", "xylophone quartet"]}))
    n = a.params.source_vocab.index("one")  # the words before the map's own
    assert a.params.source_vocab.words[:n] == b.params.source_vocab.words[:n]
    assert a.params.source_embeddings[:n] == pytest.approx(b.params.source_embeddings[:n])
    assert a.encoder.to_dict() == b.encoder.to_dict()
    # A word of the map gets the same embedding whatever else is in the map.
    c = trace_from(varied(hidden_state_map={"sentences": ["zebra", "one", "yak"]}))
    row = lambda t, w: t.params.source_embeddings[t.params.source_vocab.index(w)]  # noqa: E731
    assert row(c, "zebra") == pytest.approx(row(b, "zebra"))
    assert row(c, "one") == pytest.approx(row(a, "one"))


def test_numbers_json_includes_both_sections():
    import render

    result = CliRunner().invoke(render.cli, ["numbers", "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["dot_product"]["features"] == ["romance", "action", "comedy"]
    assert len(data["dot_product"]["sweep"]["scores"]) == len(data["dot_product"]["sweep"]["angles_deg"])
    assert len(data["hidden_state_map"]["projected"]) == len(data["hidden_state_map"]["sentences"])
    assert len(data["hidden_state_map"]["explained_variance_percent"]) == 2


# --------------------------------------------------------------------------
# Bad input: one NumbersError naming the key
# --------------------------------------------------------------------------

_GOOD_DP = {"features": ["romance", "action"], "movie": [1.0, 2.0], "user": [0.5, -1.0]}


@pytest.mark.parametrize(
    "table, key",
    [
        ({**_GOOD_DP, "features": ["romance"], "movie": [1.0], "user": [1.0]}, "dot_product.features"),
        ({**_GOOD_DP, "features": list("abcdefg"), "movie": [1.0] * 7, "user": [1.0] * 7},
         "dot_product.features"),
        ({**_GOOD_DP, "features": "romance"}, "dot_product.features"),
        ({**_GOOD_DP, "features": ["romance", 3]}, "dot_product.features[1]"),
        ({**_GOOD_DP, "features": ["romance", "romance"]}, "dot_product.features"),
        ({**_GOOD_DP, "movie": [1.0, 2.0, 3.0]}, "dot_product.movie"),
        ({**_GOOD_DP, "user": [1.0]}, "dot_product.user"),
        ({**_GOOD_DP, "movie": [float("nan"), 1.0]}, "dot_product.movie[0]"),
        ({**_GOOD_DP, "user": [1.0, float("inf")]}, "dot_product.user[1]"),
        ({**_GOOD_DP, "user": [1.0, "high"]}, "dot_product.user[1]"),
        ({**_GOOD_DP, "movie": [0.0, 0.0]}, "dot_product.movie"),
        ({**_GOOD_DP, "movie": [1.0, 50.0]}, "dot_product.movie[1]"),
        ({"features": ["a", "b"], "movie": [1.0, 2.0]}, "dot_product.user"),
        ({**_GOOD_DP, "colour": "red"}, "dot_product.colour"),
        ("romance", "dot_product"),
    ],
    ids=["one-feature", "seven-features", "features-not-list", "feature-not-string",
         "duplicate-features", "movie-too-long", "user-too-short", "nan", "inf", "string-value",
         "all-zero", "out-of-range", "missing-user", "unknown-key", "not-a-table"],
)
def test_bad_dot_product_table(table, key):
    with pytest.raises(NumbersError) as err:
        trace_from(_with("dot_product", table))
    message = str(err.value)
    assert message.startswith(key + ":") or f"{key}:" in message, message
    assert "\n" not in message


@pytest.mark.parametrize(
    "table, key",
    [
        ({"sentences": ["one", "two"]}, "hidden_state_map.sentences"),
        ({"sentences": [f"sentence {i}" for i in range(13)]}, "hidden_state_map.sentences"),
        ({"sentences": ["a b c d e f g h i j k l m", "b", "c"]}, "hidden_state_map.sentences[0]"),
        ({"sentences": ["a", "...", "c"]}, "hidden_state_map.sentences[1]"),
        ({"sentences": ["a", "b", 3]}, "hidden_state_map.sentences[2]"),
        ({"sentences": ["the cat", "b", "The cat!"]}, "hidden_state_map.sentences[2]"),
        ({"sentences": "the cat"}, "hidden_state_map.sentences"),
        ({}, "hidden_state_map.sentences"),
        ({"sentences": ["a", "b", "c"], "labels": ["x"]}, "hidden_state_map.labels"),
        ({"sentences": ["a", ["b", "x", "y"], "c"]}, "hidden_state_map.sentences[1]"),
        ({"sentences": ["a", "b", ["c", 3]]}, "hidden_state_map.sentences[2][1]"),
        ({"sentences": ["a", ["b", "y" * 25], "c"]}, "hidden_state_map.sentences[1][1]"),
        ({"sentences": ["a", [3, "x"], "c"]}, "hidden_state_map.sentences[1]"),
    ],
    ids=["two-sentences", "thirteen-sentences", "thirteen-words", "no-words", "not-a-string",
         "repeated", "not-a-list", "missing", "unknown-key", "triple", "topic-not-string",
         "topic-too-long", "sentence-not-string"],
)
def test_bad_hidden_state_map_table(table, key):
    with pytest.raises(NumbersError) as err:
        trace_from(_with("hidden_state_map", table))
    message = str(err.value)
    assert f"{key}:" in message, message
    assert "\n" not in message


def test_tables_are_optional():
    data = varied()
    del data["dot_product"], data["hidden_state_map"]
    trace = trace_from(data)
    default = trace_from(varied())
    assert trace.dot_product.to_dict() == default.dot_product.to_dict()
    assert trace.hidden_state_map.to_dict() == default.hidden_state_map.to_dict()


# --------------------------------------------------------------------------
# what the map shows: topics, word-order pairs, nearest points (by hand)
# --------------------------------------------------------------------------


def test_word_order_pairs_by_hand():
    from attention_core.sentence_map import word_order_pairs

    tokens = [("the", "cat", "sees", "the", "dog"), ("a", "dog"), ("the", "dog", "sees", "the", "cat"),
              ("dog", "a"), ("the", "cat", "sees", "a", "dog")]
    # Same words in another order: 0 and 2, 1 and 3; 4 has "a" for one "the".
    assert word_order_pairs(tokens) == ((0, 2), (1, 3))
    assert word_order_pairs([("a", "b"), ("c",), ("b", "c")]) == ()


def test_nearest_neighbours_by_hand():
    from attention_core.sentence_map import nearest_neighbours

    # Distances: 0-1 1, 0-2 5, 0-3 sqrt 29, 1-2 4, 1-3 sqrt 20, 2-3 2.
    points = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [5.0, 2.0]])
    assert nearest_neighbours(points).tolist() == [1, 0, 3, 2]


def test_map_measures_by_hand():
    from attention_core.sentence_map import map_from_states

    # Two-number states: PCA with 2 components only turns and centres them, so
    # the map keeps every distance of the states (the points above).
    states = np.array([[0.0, 0.0], [1.0, 0.0], [5.0, 0.0], [5.0, 2.0]])
    hm = map_from_states(["the cat sees the dog", "The dog sees the cat", "a cow", "the market"],
                         states, topics=("a", "a", "b", "a"))
    assert hm.word_order_pairs == ((0, 1),)
    assert hm.pair_distances.tolist() == pytest.approx([1.0])
    # Sorted distances 1, 2, 4, sqrt 20, 5, sqrt 29: the median is (4 + sqrt 20) / 2.
    assert hm.median_distance == pytest.approx((4 + math.sqrt(20)) / 2)
    # 0 and 1 are each other's nearest (topic a, a); 2 (b) and 3 (a) are too.
    assert hm.nearest.tolist() == [1, 0, 3, 2]
    assert (hm.topic_sentences, hm.same_topic_nearest) == (4, 2)
    assert hm.topic_order == ("a", "b")
    # A sentence without a topic ("") is neither counted nor in the legend.
    untitled = map_from_states(["a", "b", "c", "d"], states, topics=("a", "", "b", "a"))
    assert (untitled.topic_sentences, untitled.same_topic_nearest) == (3, 0)
    assert untitled.topic_order == ("a", "b")


def test_topics_are_optional_and_exported():
    trace = trace_from(_with("hidden_state_map", {"sentences": ["the cat eats fish", "a dog runs",
                                                                "the market has fallen"]}))
    hm = trace.hidden_state_map
    assert hm.topics == ("", "", "") and hm.topic_order == () and hm.topic_sentences == 0
    exported = trace.to_dict()["hidden_state_map"]
    assert exported["topics"] == ["", "", ""] and exported["word_order_pairs"] == []
    # Bare sentences and [sentence, topic] pairs mix; spaces in a topic are tidied.
    mixed = trace_from(_with("hidden_state_map", {"sentences": [
        ["the cat eats fish", " animals  eat "], "a dog runs", ["the market has fallen", "economy"]]}))
    assert mixed.hidden_state_map.topics == ("animals eat", "", "economy")
    assert mixed.hidden_state_map.sentences == ("the cat eats fish", "a dog runs", "the market has fallen")


def test_default_map_has_topics_and_word_order_pairs():
    trace = trace_from(default_data())
    hm = trace.hidden_state_map
    assert len(hm.topic_order) == 3 and all(hm.topics)
    # "The cat sees the dog" / "The dog sees the cat", "The horse likes the cow" / "...cow likes the horse".
    pairs = {(hm.sentences[i].lower(), hm.sentences[j].lower()) for i, j in hm.word_order_pairs}
    assert pairs == {("the cat sees the dog", "the dog sees the cat"),
                     ("the horse likes the cow", "the cow likes the horse")}
    assert hm.topics[hm.word_order_pairs[0][0]] == hm.topics[hm.word_order_pairs[0][1]]


def test_cosine_and_angle_from_the_shown_operands_by_hand():
    # The draft's example: m . u = -0.48 + 0.81 + 0.06 = 0.39; |m| = sqrt 1.21 = 1.10;
    # |u| = sqrt 1.54 = 1.2410 -> 1.24 on screen. Redone from what is shown:
    # 0.39 / (1.10 x 1.24) = 0.2859 -> 0.29, the true cosine 0.2857 -> 0.29 too;
    # arccos(0.29) = 73.14 deg -> 73, the true angle 73.40 -> 73 (issue 25: the
    # screen shows the true values, at decimals where both agree).
    dp = trace_from(default_data()).dot_product
    assert (dp.shown_decimals, dp.cosine_decimals) == (2, 2)
    assert dp.shown_cosine == pytest.approx(0.39 / (1.1 * math.sqrt(1.54)))
    assert dp.shown_angle_deg == pytest.approx(math.degrees(math.acos(0.29)))
    assert dp.shown_sweep_scores.tolist() == pytest.approx(
        [1.364 * math.cos(math.radians(a)) for a in range(0, 181, 15)], abs=1e-12)
    # m . u = 1, |m| = sqrt 3 = 1.732 -> 1.73, |u| = 1: 1 / 1.73 = 0.578 -> 0.58 as
    # the true 0.577 -> 0.58; arccos(0.58) = 54.55 -> 55 as the true 54.74 -> 55.
    from attention_core.similarity import DotProductInputs, compute_dot_product

    other = compute_dot_product(DotProductInputs(("a", "b", "c"), np.array([1.0, 1.0, 1.0]),
                                                 np.array([1.0, 0.0, 0.0])))
    assert other.shown_decimals == 2
    assert other.shown_cosine == pytest.approx(1 / math.sqrt(3))
    assert other.shown_angle_deg == pytest.approx(math.degrees(math.acos(0.58)))