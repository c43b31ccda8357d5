"""The numbers file: the default, explicit overrides, and every kind of bad input."""

from __future__ import annotations

import numpy as np
import pytest

from attention_core import NumbersError, compute_trace, load_numbers, parse_numbers
from attention_core.params import seeded_normal

from .helpers import default_data, trace_from, varied


def test_default_file_gives_the_drafts_sentence():
    trace = compute_trace(load_numbers())
    assert trace.source_tokens == (
        "economic", "growth", "has", "slowed", "down", "in", "recent", "years",
    )
    # h_0 .. h_8 for the 8-token sentence, as in the draft
    assert trace.encoder.hidden.shape == (9, trace.scenario.sizes.hidden)
    assert np.all(trace.encoder.hidden[0] == 0)
    assert trace.decoder_inputs[0] == "<START>"
    assert trace.decoder_outputs[-1] == "<END>"


def test_encoder_values_follow_the_formula_from_the_exported_parameters():
    # Recompute every h_t from the JSON export alone, as a reader would.
    d = compute_trace(load_numbers()).to_dict()
    p = d["parameters"]
    W_x, W_h, b = (np.array(p["encoder"][k]) for k in ("W_x", "W_h", "b"))
    emb = np.array(p["source_embeddings"])
    h = np.zeros(len(b))
    for t, word in enumerate(d["source"]["tokens"], start=1):
        x = emb[p["source_vocabulary"].index(word)]
        assert d["encoder"]["inputs"][t - 1] == pytest.approx(x.tolist())
        h = np.tanh(W_x @ x + W_h @ h + b)
        assert d["encoder"]["hidden"][t] == pytest.approx(h.tolist())
    assert d["encoder"]["context"] == pytest.approx(h.tolist())


def test_same_file_same_numbers():
    a, b = compute_trace(load_numbers()), compute_trace(load_numbers())
    assert np.array_equal(a.encoder.hidden, b.encoder.hidden)


def test_seeded_values_are_rounded_to_the_shown_decimals():
    trace = compute_trace(load_numbers())
    for arr in (trace.params.source_embeddings, trace.params.encoder_W_x, trace.params.encoder_b):
        assert np.allclose(arr * 100, np.round(arr * 100))


def test_explicit_values_override_and_leave_the_rest_alone():
    base = trace_from(default_data())
    W_x = [[0.1] * 4 for _ in range(4)]
    data = varied(encoder={"W_x": W_x}, embeddings={"source": {"growth": [1.0, -1.0, 0.5, 0.0]}})
    t = trace_from(data)
    assert np.array_equal(t.params.encoder_W_x, np.array(W_x))
    assert np.array_equal(t.params.encoder_W_h, base.params.encoder_W_h)
    assert t.encoder.inputs[1] == pytest.approx([1.0, -1.0, 0.5, 0.0])
    assert np.array_equal(t.encoder.inputs[0], base.encoder.inputs[0])


def test_adding_a_word_does_not_change_other_embeddings():
    base = trace_from(default_data())
    more = trace_from(varied(vocabulary={"source_extra": ["the", "cat", "eats", "fish", "zebra"]}))
    assert "zebra" in more.params.source_vocab and "zebra" not in base.params.source_vocab
    for word in base.params.source_vocab.words:
        assert np.array_equal(
            more.params.source_embeddings[more.params.source_vocab.index(word)],
            base.params.source_embeddings[base.params.source_vocab.index(word)],
        ), word


def test_seeded_normal_is_per_name_and_per_seed():
    a = seeded_normal(1, "x", (3,), 1.0)
    assert np.array_equal(a, seeded_normal(1, "x", (3,), 1.0))
    assert not np.array_equal(a, seeded_normal(1, "y", (3,), 1.0))
    assert not np.array_equal(a, seeded_normal(2, "x", (3,), 1.0))


BAD = [
    (dict(sizes={"embedding": 9}), "sizes.embedding", "from 2 to 8"),
    (dict(sizes={"hidden": "four"}), "sizes.hidden", "whole number"),
    (dict(sentences={"source": "  ...  "}), "sentences.source", "at least one word"),
    (dict(sentences={"source": " ".join(["word"] * 13)}), "sentences.source", "at most 12"),
    (dict(sentences={"target": 5}), "sentences.target", "a string"),
    (dict(encoder={"W_x": [[0.1, 0.2], [0.3, 0.4]]}), "encoder.W_x", "4x4"),
    (dict(encoder={"W_h": [[0.1, 0.2, 0.3, 0.4]] * 3 + [[0.1, 0.2, 0.3]]}), "encoder.W_h", "row 3"),
    (dict(encoder={"b": [0.1, "x", 0.3, 0.4]}), "encoder.b[1]", "a number"),
    (dict(encoder={"b": [0.1, float("nan"), 0.3, 0.4]}), "encoder.b[1]", "finite"),
    (dict(encoder={"b": [0.1, float("inf"), 0.3, 0.4]}), "encoder.b[1]", "finite"),
    (dict(encoder={"W": 1}), "encoder.W", "unknown key"),
    (dict(colour="red"), "colour", "unknown key"),
    (dict(seed=-1), "seed", "whole number"),
    (dict(embeddings={"source": {"growth": [1, 2]}}), "embeddings.source.growth", "expected 4 numbers"),
    (dict(vocabulary={"source_extra": ["two words"]}), "vocabulary.source_extra[0]", "a single word"),
]


@pytest.mark.parametrize("changes,key,expected", BAD, ids=[b[1] + ":" + b[2] for b in BAD])
def test_bad_values_name_the_key(changes, key, expected):
    with pytest.raises(NumbersError) as err:
        parse_numbers(varied(**changes), "f.toml")
    message = str(err.value)
    assert message.startswith(key), message
    assert expected in message
    assert "\n" not in message


def test_missing_required_table():
    data = default_data()
    del data["sizes"]
    with pytest.raises(NumbersError, match=r"^sizes: missing"):
        parse_numbers(data)


def test_file_level_errors(tmp_path):
    with pytest.raises(NumbersError, match="no such file"):
        load_numbers(tmp_path / "absent.toml")
    with pytest.raises(NumbersError, match="is a folder"):
        load_numbers(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("seed = = 3\n")
    with pytest.raises(NumbersError, match=r"bad\.toml: not valid TOML"):
        load_numbers(bad)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(NumbersError, match="cannot read"):
        load_numbers(binary)
