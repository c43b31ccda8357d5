"""The numbers file: the default, explicit overrides, and every kind of bad input."""

from __future__ import annotations

import json
import warnings

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
    utf16 = tmp_path / "utf16.toml"
    utf16.write_bytes("seed = 3\n".encode("utf-16"))
    with pytest.raises(NumbersError, match=r"utf16\.toml: is UTF-16 text, expected UTF-8"):
        load_numbers(utf16)


# --- the text encoding of the file -----------------------------------------


def _default_text() -> str:
    from attention_core.numbers_file import default_numbers_text

    return default_numbers_text()


def test_a_byte_order_mark_is_accepted(tmp_path):
    # Windows editors save "UTF-8 with BOM"; the file means the same thing.
    with_bom = tmp_path / "bom.toml"
    with_bom.write_bytes(b"\xef\xbb\xbf" + _default_text().encode("utf-8"))
    assert load_numbers(with_bom).target_sentence == load_numbers().target_sentence


def test_latin1_text_names_the_file_and_the_byte(tmp_path):
    latin1 = tmp_path / "latin1.toml"
    text = _default_text()
    latin1.write_bytes(text.encode("latin-1"))
    first = text.index("\u00e9")  # the first accent of the shipped file
    line = text.count("\n", 0, first) + 1
    with pytest.raises(NumbersError) as err:
        load_numbers(latin1)
    assert str(err.value) == (f"{latin1}: not UTF-8 text (byte 0xe9 at position {first}, "
                              f"line {line}); save it as UTF-8")


def test_a_binary_file_is_not_utf8_text(tmp_path):
    png = tmp_path / "picture.toml"
    png.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(NumbersError, match=r"picture\.toml: not UTF-8 text \(byte 0x89 at position 0, line 1\)"):
        load_numbers(png)


# --- value ranges ------------------------------------------------------------

# One entry per numeric key of the file: (table changes with a single value v).
def _ranged(v: float) -> dict[str, dict]:
    return {
        "embeddings.source.growth[0]": dict(embeddings={"source": {"growth": [v, 0.0, 0.0, 0.0]}}),
        "embeddings.target.la[0]": dict(embeddings={"target": {"la": [v, 0.0, 0.0, 0.0]}}),
        "encoder.W_x[0][0]": dict(encoder={"W_x": [[v, 0, 0, 0]] + [[0.0] * 4] * 3}),
        "encoder.b[0]": dict(encoder={"b": [v, 0.0, 0.0, 0.0]}),
        "decoder.W_s[0][0]": dict(decoder={"W_s": [[v, 0, 0, 0]] + [[0.0] * 4] * 3}),
        "decoder.b[0]": dict(decoder={"b": [v, 0.0, 0.0, 0.0]}),
        "attention.v_a[0]": dict(attention={"score": "additive", "v_a": [v, 0.0, 0.0, 0.0]}),
        "dot_product.movie[0]": dict(dot_product={"features": ["a", "b"], "movie": [v, 1.0],
                                                  "user": [1.0, 1.0]}),
        "dot_product_attention.query[0]": dict(dot_product_attention={"query": [v, 0.0, 0.0]}),
        "dot_product_attention.inputs[0][0]": dict(
            dot_product_attention={"inputs": [[v, 0.0, 0.0], [0.0, 1.0, 0.0]]}),
        "multi_query_attention.queries[0][0]": dict(multi_query_attention={"queries": [[v, 0.0, 0.0]]}),
        "worked_example.inputs[0][0]": dict(worked_example={"inputs": [[v, 0.0, 0.0], [0.0, 1.0, 0.0]]}),
        "worked_example.queries[0][0]": dict(worked_example={"queries": [[v, 0.0, 0.0]]}),
        "cnn.filters[0][0][0][0]": dict(cnn={"features": 2, "filters": [[[[v, 0.0, 0.0]] * 3] * 3] * 2}),
    }


RANGED_KEYS = sorted(_ranged(0.0))


@pytest.mark.parametrize("key", RANGED_KEYS)
@pytest.mark.parametrize("edge", [-10.0, 10.0])
def test_every_numeric_table_accepts_its_range_edges(key, edge):
    trace = trace_from(varied(**_ranged(edge)[key]))
    assert trace is not None


@pytest.mark.parametrize("key", RANGED_KEYS)
@pytest.mark.parametrize("bad", [10.01, -10.5, 1e300, -1e308, 10**30])
def test_every_numeric_table_rejects_values_outside_its_range(key, bad):
    with pytest.raises(NumbersError) as err:
        parse_numbers(varied(**_ranged(bad)[key]), "f.toml")
    assert str(err.value) == f"{key}: expected a number from -10 to 10, got {bad!r}"


def test_cnn_bias_has_its_wider_range():
    ok = varied(cnn={"features": 2, "bias": [100.0, -100.0]})
    assert trace_from(ok).cnn is not None
    with pytest.raises(NumbersError, match=r"^cnn\.bias\[1\]: expected a number from -100 to 100, got -1e\+300$"):
        parse_numbers(varied(cnn={"features": 2, "bias": [0.0, -1e300]}))


def test_a_dot_product_vector_must_show_a_direction():
    # 1e-300 is in range but has no norm, and shows as 0.00: no angle to draw.
    with pytest.raises(NumbersError, match=r"^dot_product\.movie: expected a vector with an entry of at least 0\.005"):
        parse_numbers(varied(dot_product={"features": ["a", "b"], "movie": [1e-300, 0.0],
                                          "user": [1.0, 1.0]}))


def _extreme(v: float, sign_pattern: bool) -> dict:
    """Every numeric table at its largest shapes, every entry +-v."""
    def full(shape, value=v):
        a = np.full(shape, float(value))
        if sign_pattern:
            a.reshape(-1)[1::2] *= -1
        return a.tolist()

    H = E = 8
    return varied(
        sizes={"embedding": E, "hidden": H},
        embeddings={"source": {"economic": full(E)}, "target": {"la": full(H)}},
        encoder={"W_x": full((H, E)), "W_h": full((H, H)), "b": full(H)},
        decoder={"W_o": full((H, H)), "W_s": full((H, H)), "W_c": full((H, H)), "b": full(H)},
        attention={"score": "additive", "size": 8, "W_a": full((8, H)), "U_a": full((8, H)),
                   "v_a": full(8)},
        dot_product={"features": list("abcdef"), "movie": full(6, max(abs(v), 0.005)),
                     "user": full(6, -max(abs(v), 0.005))},
        dot_product_attention={"inputs": full((10, 6)), "query": full(6)},
        multi_query_attention={"queries": full((6, 6))},
        worked_example={"inputs": full((10, 6)), "queries": full((6, 6))},
        cnn={"grid": 8, "features": 8, "filters": [full((3, 3, 3))] * 8, "bias": full(8, 10 * v)},
    )


@pytest.mark.parametrize("v", [10.0, -10.0, 1e-300, 5e-324])
@pytest.mark.parametrize("sign_pattern", [True, False], ids=["alternating", "same-sign"])
def test_derived_values_stay_finite_at_the_range_edges(v, sign_pattern):
    # No numpy RuntimeWarning (overflow, 0/0) may reach the user: make them errors.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        data = trace_from(_extreme(v, sign_pattern)).to_dict()
    json.dumps(data, allow_nan=False)  # raises on nan or inf anywhere
    shown = ("encoder", "decoder", "output_mapping", "attention", "dot_product", "cnn",
             "hidden_state_map", "dot_product_attention", "multi_query_attention", "worked_example")
    biggest = {k: max(abs(x) for x in _numbers(data[k])) for k in shown if k != "cnn"}
    # A 6-feature score of +-10 entries is at most 6 * 10 * 10.
    assert max(biggest.values()) <= 600 + 1e-9, biggest
    # The captioning scores add a bias of up to 100 to 27 weighted pixels per filter.
    cnn = data["cnn"]
    assert max(abs(x) for k in ("features", "scores", "contexts") for x in _numbers(cnn[k])) < 1000


def _numbers(node):
    if isinstance(node, bool):
        return
    if isinstance(node, (int, float)):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _numbers(value)
    elif isinstance(node, list):
        for value in node:
            yield from _numbers(value)


# --- scripts the fonts can draw ---------------------------------------------

UNDRAWABLE = [
    (dict(sentences={"source": "the cat 猫 eats"}), "sentences.source", "'猫' has '猫' (U+732B, CJK script)"),
    (dict(sentences={"target": "le chat 🐱 mange"}), "sentences.target",
     "'🐱' has '🐱' (U+1F431, an emoji or symbol)"),
    (dict(hidden_state_map={"sentences": ["the cat", "a dog", "مرحبا بك"]}),
     "hidden_state_map.sentences[2]", "'مرحبا' has 'م' (U+0645, Arabic script)"),
    (dict(cnn={"caption": "a ball ⚽"}), "cnn.caption", "(U+26BD, an emoji or symbol)"),
    (dict(embeddings={"source": {"ねこ": [0.0, 0.0, 0.0, 0.0]}}), "embeddings.source.ねこ",
     "(U+306D, Hiragana script)"),
]


@pytest.mark.parametrize("changes,key,expected", UNDRAWABLE, ids=[u[1] for u in UNDRAWABLE])
def test_scripts_the_fonts_cannot_draw_are_refused_by_name(changes, key, expected):
    with pytest.raises(NumbersError) as err:
        parse_numbers(varied(**changes))
    message = str(err.value)
    assert message.startswith(f"{key}: "), message
    assert expected in message
    assert message.endswith("which the fonts cannot draw; supported: Latin, Greek and Cyrillic "
                            "letters, digits and punctuation")


def test_latin_greek_and_cyrillic_words_are_accepted():
    trace = trace_from(varied(sentences={"source": "Ελληνικά кошка naïve façade",
                                         "target": "l'été dernières œuvre ÿ"}))
    assert trace.source_tokens == ("ελληνικά", "кошка", "naïve", "façade")
    assert trace.target_tokens == ("l'été", "dernières", "œuvre", "ÿ")


def test_an_accent_typed_as_a_combining_mark_joins_its_letter():
    # "e" + U+0301 would otherwise split "été" into "e", "te".
    trace = trace_from(varied(sentences={"target": "l'e\u0301te\u0301 dernier"}))
    assert trace.target_tokens == ("l'\u00e9t\u00e9", "dernier")


def test_every_table_of_the_file_has_one_reader_and_the_sections_fill_the_scenario():
    # The registry (attention_core/numbers_sections.py) against the shipped file and
    # the Scenario: every top-level table is read by the numbers file or by exactly one
    # section, and each section fills a field the Scenario has.
    import dataclasses
    import tomllib

    from attention_core.numbers_file import Scenario, default_numbers_text
    from attention_core.numbers_sections import SECTIONS, section_tables

    own = {"seed", "sentences", "sizes", "vocabulary", "embeddings", "encoder"}
    tables = [t for s in SECTIONS for t in s.tables]
    assert len(tables) == len(set(tables)) and not own & set(tables), tables
    assert set(tomllib.loads(default_numbers_text())) <= own | section_tables()
    fields = {f.name for f in dataclasses.fields(Scenario)}
    assert {s.field for s in SECTIONS} <= fields
    assert len({s.field for s in SECTIONS}) == len(SECTIONS)
    # A table the registry does not list is refused, with the known keys named.
    with pytest.raises(NumbersError, match=r"^cnns: unknown key \(known here: .*\bcnn\b.*\bworked_example\b"):
        parse_numbers({**default_data(), "cnns": {}})
