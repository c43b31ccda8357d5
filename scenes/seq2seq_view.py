"""One view of the drafts' encoder-decoder, whichever network computed it.

The Part 1 scenes (word_embeddings, encoder, bottleneck, decoder,
output_mapping, seq2seq_overview) tell draft 000's story in its notation
(``docs/notation.md``): an encoder RNN reads x_1 ... x_T from h_0 = 0 to
h_T, the decoder starts at s_0 = 0 with op_0 = <START> and computes
``s_t = decoder_RNN(op_{t-1}, s_{t-1}, h_T)``, and ``scores_w = s_t . e_w``
over the French embeddings, then a softmax, picks op_t.

The Trace's ``plain_model`` section (with ``plain_output_mapping``) holds
that network, whichever it is: the translator trained without attention
(``network`` "gru", a GRU encoder and decoder; the default), or the small
seeded tanh RNN of ``[sizes]`` (``network`` "tanh_rnn"), the fallback for
sentences the grammar cannot read and for values set by hand. The fallback
is untrained (``trained`` false), and the scenes say so.

A scene asks :func:`seq2seq_view` and gets one :class:`Seq2SeqView`; it
draws it with ONE code path. Only the formulas' text and the note naming
the network differ (:attr:`Seq2SeqView.encoder_formula` and friends). The
view only selects and names values, each paired with its NumberLabel key
path into ``Trace.to_dict()``; it computes nothing.

Keys: a ``*_key`` naming a vector is a string (element i is ``(key, i)``);
a ``*_keys`` tuple holds one such string per position.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "EncoderView",
    "DecoderView",
    "OutputView",
    "Seq2SeqView",
    "seq2seq_view",
    "encoder_view",
    "decoder_view",
    "output_view",
    "uses_translator",
    "section_dict",
    "mismatches",
    "network_note",
]


def uses_translator(trace) -> bool:
    """True when the Part 1 scenes show the trained-grammar translator's GRU
    (trained or seeded), False for the tanh RNN fallback."""
    return section_dict(trace, "plain_model")["network"] != "tanh_rnn"


# The formulas each network computes, in the drafts' notation (LaTeX).
_ENCODER_TEX = {
    "gru": r"h_t = \mathrm{GRU}(x_t,\ h_{t-1})",
    "tanh": r"h_t = \tanh(W_x\,x_t + W_h\,h_{t-1} + b)",
}
_DECODER_TEX = {
    "gru": r"s_t = \mathrm{GRU}(op_{t-1},\ s_{t-1},\ h_{T})",
    "tanh": r"s_t = \tanh(W_o\,op_{t-1} + W_s\,s_{t-1} + W_c\,h_{T} + b)",
}


@dataclass(frozen=True)
class EncoderView:
    """The encoder reading the source sentence.

    ``states`` holds h_0 ... h_T (h_0 the zero vector the RNN starts from),
    one key per state; the plain decoder's context is h_T, the last one.
    """

    section: str  # "plain_model" (or "model")
    network: str  # "gru" or "tanh"
    trained: bool
    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]  # rows of embedding_matrix
    vocabulary: tuple[str, ...]
    embedding_matrix: np.ndarray  # V x E
    embedding_matrix_key: str  # row r is f"{key}.{r}"
    inputs: np.ndarray  # T x E: x_1 ... x_T
    input_keys: tuple[str, ...]
    states: np.ndarray  # (T+1) x H: h_0 = 0, h_1 ... h_T
    state_keys: tuple[str, ...]  # T+1 keys

    @property
    def T(self) -> int:
        return len(self.tokens)

    @property
    def hidden(self) -> np.ndarray:
        """h_1 ... h_T (T x H): one state per word."""
        return self.states[1:]

    @property
    def hidden_keys(self) -> tuple[str, ...]:
        return self.state_keys[1:]

    @property
    def context(self) -> np.ndarray:
        """h_T: all the plain decoder is given of the sentence."""
        return self.states[-1]

    @property
    def context_key(self) -> str:
        return self.state_keys[-1]

    @property
    def formula(self) -> str:
        return _ENCODER_TEX[self.network]

    @property
    def untrained(self) -> bool:
        return not self.trained


@dataclass(frozen=True)
class DecoderView:
    """The plain decoder writing the output, one word per step.

    Step t (1-based) reads ``input_words[t-1]`` (op_{t-1}: <START>, then the
    word written before), s_{t-1} and the fixed context h_T, and writes
    ``states[t-1]`` (s_t) and ``chosen[t-1]`` (op_t). s_0 is zeros.
    """

    section: str  # "plain_model"
    network: str  # "gru" or "tanh"
    trained: bool
    context: np.ndarray  # h_T
    context_key: str
    initial_state: np.ndarray  # s_0 = 0
    initial_state_key: str
    input_words: tuple[str, ...]
    input_embeddings: np.ndarray  # n x H: op_0 ... op_{n-1}
    input_embedding_keys: tuple[str, ...]
    states: np.ndarray  # n x H: s_1 ... s_n
    state_keys: tuple[str, ...]
    chosen: tuple[str, ...]
    chosen_probabilities: np.ndarray  # n
    chosen_probability_keys: tuple[tuple, ...]  # full NumberLabel keys
    ended: bool  # <END> was chosen
    reference: tuple[str, ...] | None  # the right translation, when known

    @property
    def steps(self) -> int:
        return len(self.chosen)

    @property
    def written(self) -> tuple[str, ...]:
        """The words written: the choices without the final <END>."""
        return self.chosen[:-1] if self.ended else self.chosen

    @property
    def mismatches(self) -> tuple[int, ...]:
        """Positions where the written words and the reference differ."""
        return mismatches(self.written, self.reference)

    @property
    def formula(self) -> str:
        return _DECODER_TEX[self.network]

    @property
    def untrained(self) -> bool:
        return not self.trained


def mismatches(written: tuple[str, ...], reference: tuple[str, ...] | None) -> tuple[int, ...]:
    """Positions where ``written`` and ``reference`` hold different words,
    a word missing on either side counting as different; none without a
    reference. A plain string comparison, position by position."""
    if reference is None:
        return ()
    return tuple(i for i in range(max(len(written), len(reference)))
                 if i >= len(written) or i >= len(reference) or written[i] != reference[i])


@dataclass(frozen=True)
class OutputView:
    """One decoder state mapped to an output word: ``scores_w = s_t . e_w``.

    ``mapping`` is the core's record (``plain_output_mapping`` or
    ``output_mapping``), under the key prefix ``section``; both have ``step,
    state, vocabulary, embeddings, products (s_t[i] * e_w[i]), scores,
    probabilities, ranked, chosen_id, chosen_word, chosen_probability,
    chosen_percent``.
    """

    section: str  # "plain_output_mapping"
    network: str
    trained: bool
    mapping: Any

    def key(self, name: str) -> str:
        return f"{self.section}.{name}"

    @property
    def untrained(self) -> bool:
        return not self.trained


@dataclass(frozen=True)
class Seq2SeqView:
    """The whole plain encoder-decoder of one trace, as the Part 1 scenes show it."""

    encoder: EncoderView
    decoder: DecoderView
    output: OutputView
    note: str  # which network, and whether it is trained: shown on screen

    @property
    def network(self) -> str:
        return self.encoder.network

    @property
    def trained(self) -> bool:
        return self.encoder.trained


def section_dict(trace, name: str) -> dict[str, Any]:
    """``Trace.to_dict()[name]`` for the model sections, computed once per trace.

    The views read the JSON form on purpose: its keys are the NumberLabel
    keys, so a value and the key shown with it cannot disagree.
    """
    cache = _SECTIONS.setdefault(id(trace), (trace, {}))[1]
    if len(_SECTIONS) > 8:  # a few traces at a time: keep the newest
        for k in list(_SECTIONS)[:-8]:
            del _SECTIONS[k]
    if name not in cache:
        record = getattr(trace, name)
        cache[name] = record.to_dict() if record is not None else None
    return cache[name]


_SECTIONS: dict[int, tuple[Any, dict]] = {}


def _arr(value) -> np.ndarray:
    out = np.array(value, dtype=float)
    out.flags.writeable = False
    return out


def _network(m: dict) -> str:
    return "tanh" if m["network"] == "tanh_rnn" else "gru"


def encoder_view(trace, section: str = "plain_model") -> EncoderView:
    """The encoder of the network the Part 1 scenes show (``model`` for the attention scenes)."""
    m = section_dict(trace, section)
    T = len(m["tokens"])
    return EncoderView(
        section=section, network=_network(m), trained=bool(m["trained"]),
        tokens=tuple(m["tokens"]), token_ids=tuple(m["token_ids"]),
        vocabulary=tuple(m["source_vocabulary"]), embedding_matrix=_arr(m["source_embedding_matrix"]),
        embedding_matrix_key=f"{section}.source_embedding_matrix",
        inputs=_arr(m["embeddings"]), input_keys=tuple(f"{section}.embeddings.{t}" for t in range(T)),
        states=_arr(m["encoder_states"]),
        state_keys=tuple(f"{section}.encoder_states.{t}" for t in range(T + 1)),
    )


def decoder_view(trace) -> DecoderView:
    """The plain decoder of the network the Part 1 scenes show."""
    m = section_dict(trace, "plain_model")
    steps = m["steps"]
    n = len(steps)
    T = len(m["tokens"])
    network = _network(m)
    reference = m["reference"]
    if reference is None and network == "tanh":
        # The fallback's sentence is not the grammar's: compare with the file's target.
        reference = list(trace.target_tokens)
    chosen = tuple(s["chosen"] for s in steps)
    return DecoderView(
        section="plain_model", network=network, trained=bool(m["trained"]),
        # Without attention the context c_t is h_T at every step: keyed where the encoder keeps it.
        context=_arr(m["encoder_states"][T]), context_key=f"plain_model.encoder_states.{T}",
        initial_state=_arr(m["initial_state"]), initial_state_key="plain_model.initial_state",
        input_words=tuple(s["input"] for s in steps),
        input_embeddings=_arr([s["input_embedding"] for s in steps]),
        input_embedding_keys=tuple(f"plain_model.steps.{t}.input_embedding" for t in range(n)),
        states=_arr([s["state"] for s in steps]),
        state_keys=tuple(f"plain_model.steps.{t}.state" for t in range(n)),
        chosen=chosen,
        chosen_probabilities=_arr([s["chosen_probability"] for s in steps]),
        chosen_probability_keys=tuple((f"plain_model.steps.{t}.chosen_probability",) for t in range(n)),
        ended=bool(n and chosen[-1] == "<END>"),
        reference=tuple(reference) if reference is not None else None,
    )


def output_view(trace) -> OutputView:
    """The output mapping of the network the Part 1 scenes show."""
    m = section_dict(trace, "plain_model")
    return OutputView(section="plain_output_mapping", network=_network(m), trained=bool(m["trained"]),
                      mapping=trace.plain_output_mapping)


def network_note(trace, section: str = "plain_model") -> str:
    """One line for the screen: which network this is, and whether it learned anything."""
    m = section_dict(trace, section)
    if _network(m) == "gru":
        if m["trained"]:
            return f"the translator {m['training_note']} (GRU encoder and decoder)"
        return "an untrained translator (seeded random weights)"
    unknown = _unknown_words(trace)
    if unknown:
        words = ", ".join(f"\u201c{w}\u201d" for w in unknown[:2]) + (" \u2026" if len(unknown) > 2 else "")
        return f"untrained: a small tanh RNN with random weights (the grammar lacks {words})"
    # The reader set the small RNN's values by hand: their numbers, not trained ones.
    if getattr(trace.decoder, "seeded", ()):
        return "untrained: a small tanh RNN with the numbers file's values, the rest random"
    return "a small tanh RNN with the numbers file's values (not trained on the grammar)"


def _unknown_words(trace) -> tuple[str, ...]:
    from attention_core.translator.corpus import source_words

    known = set(source_words())
    return tuple(dict.fromkeys(w for w in trace.source_tokens if w not in known))


def seq2seq_view(trace) -> Seq2SeqView:
    """Everything the Part 1 scenes show of the plain encoder-decoder."""
    return Seq2SeqView(encoder=encoder_view(trace), decoder=decoder_view(trace),
                       output=output_view(trace), note=network_note(trace))
