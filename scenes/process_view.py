"""One view of an attention decode, from the trained translator or the seeded core.

The ``attention_process`` scene shows the same story whichever section
it reads: encoder states, then per decoder step the scores, weights,
context, previous and new state, input word and chosen word. The Trace
keeps that story in two layouts: ``model`` (the trained GRU translator,
one record per step under ``model.steps.<t>``) and ``attention`` (the
seeded Bahdanau decoder, one array per quantity). :func:`process_view`
presents either as the same sequence of :class:`StepView` records, each
value paired with its NumberLabel key path into ``Trace.to_dict()``.
It only selects and names values; it computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["StepView", "ProcessView", "process_view"]


@dataclass(frozen=True)
class StepView:
    """Decoder step t (0-based): what it reads, scores, weighs and writes.

    Every ``*_key`` is the NumberLabel key of the matching value: a
    string for vectors (element i is ``(key, i)``), a full key tuple for
    the single probability.
    """

    input_word: str
    input_embedding: np.ndarray
    input_embedding_key: str
    previous_state: np.ndarray
    previous_state_key: str
    scores: np.ndarray
    scores_key: str
    weights: np.ndarray
    weights_key: str
    context: np.ndarray
    context_key: str
    state: np.ndarray
    state_key: str
    chosen: str
    probability: float
    probability_key: tuple


@dataclass(frozen=True)
class ProcessView:
    """Everything the attention_process scene shows, from one Trace section.

    ``trained`` is True for the trained translator; ``untrained`` says the
    weights are seeded (either section), so the scene must say the words
    are not a translation. ``score`` names the scoring function
    ("additive", "dot", "scaled_dot"); ``decoder`` is "gru" for the
    translator, "tanh" for the seeded core's plain tanh decoder.
    """

    section: str
    trained: bool
    untrained: bool
    score: str
    decoder: str
    source_tokens: tuple[str, ...]
    encoder_states: np.ndarray  # T x H
    encoder_keys: tuple[str, ...]  # one key per h_i
    steps: tuple[StepView, ...]
    alignment: np.ndarray  # steps x T
    alignment_key: str

    @property
    def chosen(self) -> tuple[str, ...]:
        return tuple(s.chosen for s in self.steps)


def process_view(trace) -> ProcessView:
    """The trained model's decode when the Trace has one with attention,
    else the seeded ``attention`` section's."""
    m = getattr(trace, "model", None)
    if m is not None and m.attention is not None:
        return _from_model(m)
    return _from_attention(trace.attention)


def _from_model(m) -> ProcessView:
    steps = []
    for t in range(len(m.chosen)):
        k = f"model.steps.{t}"
        steps.append(StepView(
            input_word=m.inputs[t],
            input_embedding=m.input_embeddings[t], input_embedding_key=f"{k}.input_embedding",
            previous_state=m.previous_states[t], previous_state_key=f"{k}.previous_state",
            scores=m.scores[t], scores_key=f"{k}.scores",
            weights=m.attention[t], weights_key=f"{k}.weights",
            context=m.contexts[t], context_key=f"{k}.context",
            state=m.states[t], state_key=f"{k}.state",
            chosen=m.chosen[t],
            probability=float(m.probabilities[t, m.chosen_ids[t]]),
            probability_key=(f"{k}.chosen_probability",),
        ))
    T = len(m.source_tokens)
    return ProcessView(
        section="model", trained=m.weights == "trained", untrained=m.weights != "trained",
        score="additive", decoder="gru", source_tokens=tuple(m.source_tokens),
        encoder_states=m.annotations, encoder_keys=tuple(f"model.annotations.{j}" for j in range(T)),
        steps=tuple(steps), alignment=m.attention, alignment_key="model.attention",
    )


def _from_attention(att) -> ProcessView:
    steps = []
    for t in range(att.steps):
        steps.append(StepView(
            input_word=att.inputs[t],
            input_embedding=att.input_embeddings[t], input_embedding_key=f"attention.input_embeddings.{t}",
            previous_state=att.states[t], previous_state_key=f"attention.states.{t}",
            scores=att.scores[t], scores_key=f"attention.scores.{t}",
            weights=att.weights[t], weights_key=f"attention.weights.{t}",
            context=att.contexts[t], context_key=f"attention.contexts.{t}",
            state=att.states[t + 1], state_key=f"attention.states.{t + 1}",
            chosen=att.chosen[t],
            probability=float(att.chosen_probabilities[t]),
            probability_key=("attention.chosen_probabilities", t),
        ))
    T = len(att.source_tokens)
    # The seeded core's keys h_i are the encoder section's states (1-based: h_0 is the zero state).
    return ProcessView(
        section="attention", trained=False, untrained=bool(att.untrained), score=att.params.score,
        decoder="tanh", source_tokens=tuple(att.source_tokens), encoder_states=att.keys,
        encoder_keys=tuple(f"encoder.hidden.{i + 1}" for i in range(T)),
        steps=tuple(steps), alignment=att.weights, alignment_key="attention.weights",
    )
