"""One view of the plain encoder-decoder, from the trained translator or the seeded core.

The Part 1 scenes (word_embeddings, encoder, hidden_state_map, decoder,
output_mapping, bottleneck, seq2seq_overview) tell the draft's story of an
encoder-decoder WITHOUT attention. The Trace keeps two networks that tell
it:

- ``plain_model`` (with ``plain_output_mapping``): the translator trained
  without attention: a bidirectional GRU encoder (forward states f_t and
  backward states b_t; the decoder gets ``c = [f_T ; b_1]``), a GRU decoder
  and the output mapping ``o_t = W_o [s_t ; c] + b_o`` dotted with every
  target embedding, plus a bias per word. This is the default.
- ``encoder`` / ``decoder`` / ``output_mapping``: the small seeded tanh RNN
  of ``[sizes]``, shown when the translator cannot read the sentence or the
  numbers file sets that RNN's values by hand.

:func:`encoder_view`, :func:`decoder_view` and :func:`output_view` present
either as the same records, each value paired with its NumberLabel key path
into ``Trace.to_dict()``. They only select and name values; they compute
nothing (like :mod:`scenes.process_view` for the attention scenes).

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
    "encoder_view",
    "decoder_view",
    "output_view",
    "uses_translator",
    "mismatches",
]


def uses_translator(trace) -> bool:
    """True when the Part 1 scenes show the translator (``plain_model``)."""
    return getattr(trace, "plain_model", None) is not None


@dataclass(frozen=True)
class EncoderView:
    """The encoder reading the source sentence.

    ``network`` is "gru" (the translator's bidirectional GRU) or "tanh" (one
    direction, ``h_t = tanh(W_x x_t + W_h h_{t-1} + b)``). For "gru",
    ``forward`` holds f_1 ... f_T and ``backward`` b_1 ... b_T (each H/2
    numbers), ``annotations`` h_j = [f_j ; b_j]. For "tanh", ``forward``
    holds h_1 ... h_T, ``backward`` is None and ``annotations`` equal
    ``forward``. The initial state (zeros) is not in the Trace for "gru":
    scenes show it as a formula ("f_0 = 0"), not as numbers.
    """

    section: str  # "plain_model" or "encoder"
    network: str  # "gru" or "tanh"
    trained: bool
    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]  # rows of embedding_matrix
    vocabulary: tuple[str, ...]
    embedding_matrix: np.ndarray  # V x E
    embedding_matrix_key: str  # row r is f"{key}.{r}"
    inputs: np.ndarray  # T x E: x_1 ... x_T
    input_keys: tuple[str, ...]
    forward: np.ndarray  # T x k
    forward_keys: tuple[str, ...]
    backward: np.ndarray | None  # T x k (gru only)
    backward_keys: tuple[str, ...] | None
    annotations: np.ndarray  # T x H
    annotation_keys: tuple[str, ...]
    context: np.ndarray  # H: what the plain decoder gets
    context_key: str
    context_tex: str  # "[f_T ; b_1]" or "h_T", as LaTeX

    @property
    def untrained(self) -> bool:
        return not self.trained


@dataclass(frozen=True)
class DecoderView:
    """The plain decoder writing the output, one word per step.

    Step t (1-based) reads ``input_words[t-1]`` (<START>, then the word it
    wrote before), the previous state and the fixed ``context`` and writes
    ``states[t-1]`` (s_t) and ``chosen[t-1]``. For "gru" the first state is
    ``s_0 = tanh(W_init c + b_init)``; for "tanh" it is zeros.
    """

    section: str  # "plain_model" or "decoder"
    network: str  # "gru" or "tanh"
    trained: bool
    context: np.ndarray
    context_key: str
    initial_state: np.ndarray  # s_0
    initial_state_key: str
    input_words: tuple[str, ...]
    input_embeddings: np.ndarray  # n x E
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
    """One decoder state mapped to an output word.

    ``mapping`` is the core's record (``plain_output_mapping`` or
    ``output_mapping``); both have ``step, state, vocabulary, embeddings,
    products, scores, probabilities, ranked, chosen_id, chosen_word,
    chosen_probability, chosen_percent``, under the key prefix ``section``.
    For "gru" it also has ``context``, ``output`` (o_t, the vector compared
    with the embeddings), ``dot_products`` and ``bias`` (score = dot product
    + bias); for "tanh" the state itself is compared and the score is the
    dot product.
    """

    section: str  # "plain_output_mapping" or "output_mapping"
    network: str
    trained: bool
    mapping: Any

    @property
    def compared(self) -> np.ndarray:
        """The vector dotted with every target embedding."""
        return self.mapping.output if self.network == "gru" else self.mapping.state

    @property
    def compared_key(self) -> str:
        return f"{self.section}.{'output' if self.network == 'gru' else 'state'}"

    @property
    def untrained(self) -> bool:
        return not self.trained


def encoder_view(trace) -> EncoderView:
    """The translator's encoder when the Part 1 scenes show it, else the tanh RNN's."""
    if uses_translator(trace):
        m = trace.plain_model
        T = len(m.source_tokens)
        keys = lambda name: tuple(f"plain_model.{name}.{j}" for j in range(T))  # noqa: E731
        return EncoderView(
            section="plain_model", network="gru", trained=m.weights == "trained",
            tokens=tuple(m.source_tokens), token_ids=tuple(m.source_ids),
            vocabulary=tuple(m.source_vocabulary), embedding_matrix=m.source_embedding_matrix,
            embedding_matrix_key="plain_model.source_embedding_matrix",
            inputs=m.embeddings, input_keys=keys("embeddings"),
            forward=m.forward_states, forward_keys=keys("encoder_forward"),
            backward=m.backward_states, backward_keys=keys("encoder_backward"),
            annotations=m.annotations, annotation_keys=keys("annotations"),
            context=m.summary, context_key="plain_model.summary", context_tex=r"[f_T ; b_1]",
        )
    enc, params = trace.encoder, trace.params
    T = len(enc.tokens)
    hidden = tuple(f"encoder.hidden.{t}" for t in range(1, T + 1))
    return EncoderView(
        section="encoder", network="tanh", trained=False,
        tokens=tuple(enc.tokens), token_ids=tuple(enc.token_ids),
        vocabulary=tuple(params.source_vocab.words), embedding_matrix=params.source_embeddings,
        embedding_matrix_key="parameters.source_embeddings",
        inputs=enc.inputs, input_keys=tuple(f"encoder.inputs.{t}" for t in range(T)),
        forward=enc.hidden[1:], forward_keys=hidden, backward=None, backward_keys=None,
        annotations=enc.hidden[1:], annotation_keys=hidden,
        context=enc.context, context_key="encoder.context", context_tex=r"h_T",
    )


def decoder_view(trace) -> DecoderView:
    """The translator's decoder when the Part 1 scenes show it, else the tanh RNN's."""
    if uses_translator(trace):
        m = trace.plain_model
        n = len(m.chosen)
        return DecoderView(
            section="plain_model", network="gru", trained=m.weights == "trained",
            context=m.summary, context_key="plain_model.summary",
            initial_state=m.initial_state, initial_state_key="plain_model.initial_state",
            input_words=tuple(m.inputs), input_embeddings=m.input_embeddings,
            input_embedding_keys=tuple(f"plain_model.steps.{t}.input_embedding" for t in range(n)),
            states=m.states, state_keys=tuple(f"plain_model.steps.{t}.state" for t in range(n)),
            chosen=tuple(m.chosen),
            chosen_probabilities=np.array([m.probabilities[t, m.chosen_ids[t]] for t in range(n)]),
            chosen_probability_keys=tuple((f"plain_model.steps.{t}.chosen_probability",) for t in range(n)),
            ended=bool(n and m.chosen[-1] == "<END>"),
            reference=tuple(m.reference) if m.reference is not None else None,
        )
    d = trace.decoder
    n = d.steps
    return DecoderView(
        section="decoder", network="tanh", trained=False,
        context=d.context, context_key="decoder.context",
        initial_state=d.states[0], initial_state_key="decoder.states.0",
        input_words=tuple(d.input_words), input_embeddings=d.input_embeddings,
        input_embedding_keys=tuple(f"decoder.input_embeddings.{t}" for t in range(n)),
        states=d.states[1:], state_keys=tuple(f"decoder.states.{t}" for t in range(1, n + 1)),
        chosen=tuple(d.chosen_words), chosen_probabilities=d.chosen_probabilities,
        chosen_probability_keys=tuple(("decoder.chosen_probabilities", t) for t in range(n)),
        ended=bool(d.ended), reference=tuple(trace.target_tokens),
    )


def output_view(trace) -> OutputView:
    """The translator's output mapping when the Part 1 scenes show it, else the tanh RNN's."""
    if uses_translator(trace):
        return OutputView(section="plain_output_mapping", network="gru",
                          trained=trace.plain_model.weights == "trained",
                          mapping=trace.plain_output_mapping)
    return OutputView(section="output_mapping", network="tanh", trained=False,
                      mapping=trace.output_mapping)
