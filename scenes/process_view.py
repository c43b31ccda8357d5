"""One view of an attention decode: the network WITH attention (``model``).

The ``attention_process`` scene shows the same
story whichever network the Trace's ``model`` section holds (the trained
GRU translator, or the untrained tanh RNN fallback, same keys): the
encoder states h_1 ... h_T (the SAME kind of vectors the bottleneck scene
shows for the network without attention), then per decoder step the
attention scores e_tj, the weights a_tj, the context c_t, s_{t-1} and s_t,
op_{t-1} and the chosen word. :func:`process_view` presents them as
:class:`StepView` records, each value paired with its NumberLabel key path
into ``Trace.to_dict()``. It only selects and names values; it computes
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .seq2seq_view import section_dict

__all__ = ["StepView", "ProcessView", "process_view"]

SECTION = "model"


@dataclass(frozen=True)
class StepView:
    """Decoder step t (0-based): what it reads, scores, weighs and writes.

    Every ``*_key`` is the NumberLabel key of the matching value: a
    string for vectors (element i is ``(key, i)``), a full key tuple for
    the single probability.
    """

    input_word: str
    input_embedding: np.ndarray  # op_{t-1}
    input_embedding_key: str
    previous_state: np.ndarray  # s_{t-1}
    previous_state_key: str
    scores: np.ndarray  # e_tj over the source words
    scores_key: str
    weights: np.ndarray  # a_tj
    weights_key: str
    context: np.ndarray  # c_t
    context_key: str
    state: np.ndarray  # s_t
    state_key: str
    chosen: str
    probability: float
    probability_key: tuple


@dataclass(frozen=True)
class ProcessView:
    """Everything the attention scenes show of the network with attention.

    ``trained`` is True for the trained translator; ``untrained`` says the
    weights are seeded, so the scene must say the words are not a
    translation. ``score`` names the scoring function ("additive", "dot",
    "scaled_dot"); ``decoder`` is "gru" or "tanh".
    """

    section: str
    trained: bool
    untrained: bool
    score: str
    decoder: str
    source_tokens: tuple[str, ...]
    encoder_states: np.ndarray  # T x H: h_1 ... h_T
    encoder_keys: tuple[str, ...]  # one key per h_j
    initial_state: np.ndarray  # s_0
    initial_state_key: str
    steps: tuple[StepView, ...]
    alignment: np.ndarray  # steps x T
    alignment_key: str
    reference: tuple[str, ...] | None
    reference_alignment: tuple[int, ...] | None

    @property
    def chosen(self) -> tuple[str, ...]:
        return tuple(s.chosen for s in self.steps)


def _arr(value) -> np.ndarray:
    out = np.array(value, dtype=float)
    out.flags.writeable = False
    return out


def process_view(trace) -> ProcessView:
    """The decode of the network with attention on the trace's sentence."""
    m = section_dict(trace, SECTION)
    steps = []
    for t, st in enumerate(m["steps"]):
        k = f"{SECTION}.steps.{t}"
        steps.append(StepView(
            input_word=st["input"],
            input_embedding=_arr(st["input_embedding"]), input_embedding_key=f"{k}.input_embedding",
            previous_state=_arr(st["previous_state"]), previous_state_key=f"{k}.previous_state",
            scores=_arr(st["attention_scores"]), scores_key=f"{k}.attention_scores",
            weights=_arr(st["attention_weights"]), weights_key=f"{k}.attention_weights",
            context=_arr(st["context"]), context_key=f"{k}.context",
            state=_arr(st["state"]), state_key=f"{k}.state",
            chosen=st["chosen"],
            probability=float(st["chosen_probability"]),
            probability_key=(f"{k}.chosen_probability",),
        ))
    T = len(m["tokens"])
    tanh = m["network"] == "tanh_rnn"
    # The fallback's scoring function is the numbers file's [attention] score.
    score = trace.attention.params.score if tanh and trace.attention is not None else "additive"
    ref = m.get("reference")
    ref_align = m.get("reference_alignment")
    return ProcessView(
        section=SECTION, trained=bool(m["trained"]), untrained=not m["trained"],
        score=score, decoder="tanh" if tanh else "gru", source_tokens=tuple(m["tokens"]),
        encoder_states=_arr(m["encoder_states"][1:]),
        encoder_keys=tuple(f"{SECTION}.encoder_states.{j}" for j in range(1, T + 1)),
        initial_state=_arr(m["initial_state"]), initial_state_key=f"{SECTION}.initial_state",
        steps=tuple(steps), alignment=_arr(m["attention"]), alignment_key=f"{SECTION}.attention",
        reference=tuple(ref) if ref is not None else None,
        reference_alignment=tuple(ref_align) if ref_align is not None else None,
    )
