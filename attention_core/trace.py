"""Computing a scenario: frozen records of every value a scene shows.

``compute_trace(scenario)`` is the one entry point. Scenes receive the
:class:`Trace` and lay out what it holds; they never compute.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from . import dot_attention as dot_attn
from . import maths
from .decoder import (
    DEFAULT_OUTPUT_STEP,
    DecoderTrace,
    OutputMappingTrace,
    decoder_weights,
    greedy_decode,
    output_mapping,
)
from .numbers_file import NumbersError, Scenario
from .attention import AttentionDecode, attention_decode, attention_parameters
from .params import seeded_embeddings, seeded_normal
from .sentence_map import (
    DEFAULT_MAP,
    HiddenStateMapTrace,
    compute_hidden_state_map,
    map_from_states,
)
from .similarity import DEFAULT_DOT_PRODUCT, DotProductTrace, compute_dot_product
from .text import END, START, Vocabulary, tokenize

__all__ = ["Parameters", "EncoderTrace", "Trace", "compute_trace", "frozen", "network_report",
           "TRAINED_SECTIONS", "needs_translator"]

#: Trace sections computed by the translator: making them may train it (minutes
#: for a [model] table of many steps), so they are made only for scenes that
#: show one of them (issue 25).
TRAINED_SECTIONS = ("model", "plain_model", "plain_output_mapping", "bottleneck_example", "hidden_state_map")


def needs_translator(sections) -> bool:
    """Whether any of these trace sections (``plain_model.network``...) is one
    of :data:`TRAINED_SECTIONS`; ``None`` (every section) does."""
    if sections is None:
        return True
    return any(str(s).split(".")[0] in TRAINED_SECTIONS for s in sections)


def frozen(array: np.ndarray) -> np.ndarray:
    """A read-only float copy, so no scene can change a value by accident."""
    out = np.array(array, dtype=float)
    out.flags.writeable = False
    return out


def _tolist(a: np.ndarray) -> Any:
    return np.asarray(a).tolist()


@dataclass(frozen=True)
class Parameters:
    """Every parameter used, seeded or given, so anyone can recompute."""

    source_vocab: Vocabulary
    source_embeddings: np.ndarray  # len(source_vocab) x E
    target_vocab: Vocabulary
    target_embeddings: np.ndarray  # len(target_vocab) x H
    encoder_W_x: np.ndarray  # H x E
    encoder_W_h: np.ndarray  # H x H
    encoder_b: np.ndarray  # H

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_vocabulary": list(self.source_vocab.words),
            "source_embeddings": _tolist(self.source_embeddings),
            "target_vocabulary": list(self.target_vocab.words),
            "target_embeddings": _tolist(self.target_embeddings),
            "encoder": {
                "W_x": _tolist(self.encoder_W_x),
                "W_h": _tolist(self.encoder_W_h),
                "b": _tolist(self.encoder_b),
            },
        }


@dataclass(frozen=True)
class EncoderTrace:
    """The encoder RNN run over the source sentence."""

    tokens: tuple[str, ...]
    token_ids: tuple[int, ...]  # rows of the source embedding table
    inputs: np.ndarray  # T x E: x_1 ... x_T
    hidden: np.ndarray  # (T+1) x H: h_0 = 0, h_1 ... h_T

    @property
    def context(self) -> np.ndarray:
        """h_T, the single context vector of the plain encoder-decoder."""
        return self.hidden[-1]

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": list(self.tokens),
            "token_ids": list(self.token_ids),
            "inputs": _tolist(self.inputs),
            "hidden": _tolist(self.hidden),
            "context": _tolist(self.context),
        }


@dataclass(frozen=True)
class Trace:
    """Every value the scenes show, computed from one scenario."""

    scenario: Scenario
    params: Parameters
    source_tokens: tuple[str, ...]
    target_tokens: tuple[str, ...]
    encoder: EncoderTrace
    # The network with attention on the source sentence: the trained GRU
    # translator, or the seeded tanh RNN fallback (network = "tanh_rnn")
    # when the grammar cannot read the sentence or the file sets that RNN's
    # values by hand (see _plain_settings). Same keys either way.
    model: Any = None
    # Measured accuracy by sentence length, with and without attention.
    length_experiment: Any = None
    # The same network without attention, on the same sentence: the plain
    # encoder-decoder the Part 1 scenes show (the tanh RNN fallback exactly
    # when ``model`` is).
    plain_model: Any = None
    # Its output mapping at the [output_mapping] step.
    plain_output_mapping: Any = None
    # A long held-out sentence the plain network gets wrong and the one with
    # attention gets right (None for the tanh RNN fallback or seeded weights).
    bottleneck_example: Any = None
    # The alignment of the sentence at each snapshot of the training of
    # ``model`` (None for seeded weights, the tanh RNN, no attention).
    attention_learning: Any = None
    dot_product: DotProductTrace | None = None
    hidden_state_map: HiddenStateMapTrace | None = None
    cnn: Any = None  # attention_core.cnn.CnnTrace
    decoder: DecoderTrace | None = None
    output_mapping: OutputMappingTrace | None = None
    attention: AttentionDecode | None = None
    dot_product_attention: dot_attn.DotProductAttentionTrace | None = None
    multi_query_attention: dot_attn.MultiQueryAttentionTrace | None = None
    worked_example: dot_attn.WorkedExampleTrace | None = None

    @property
    def decoder_inputs(self) -> tuple[str, ...]:
        """op_0 ... op_{T'-1}: ``<START>`` then the target words."""
        return (START, *self.target_tokens)

    @property
    def decoder_outputs(self) -> tuple[str, ...]:
        """op_1 ... op_{T'}: the target words then ``<END>``."""
        return (*self.target_tokens, END)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready values; the keys are documented in the README."""
        s = self.scenario
        return {
            "numbers_file": s.origin,
            "seed": s.seed,
            "sizes": {"embedding": s.sizes.embedding, "hidden": s.sizes.hidden},
            "source": {"sentence": s.source_sentence, "tokens": list(self.source_tokens)},
            "target": {
                "sentence": s.target_sentence,
                "tokens": list(self.target_tokens),
                "decoder_inputs": list(self.decoder_inputs),
                "decoder_outputs": list(self.decoder_outputs),
            },
            "parameters": self.params.to_dict(),
            "encoder": self.encoder.to_dict(),
            "model": self.model.to_dict() if self.model is not None else None,
            "plain_model": self.plain_model.to_dict() if self.plain_model is not None else None,
            "plain_output_mapping": (self.plain_output_mapping.to_dict()
                                     if self.plain_output_mapping is not None else None),
            "bottleneck_example": (self.bottleneck_example.to_dict()
                                   if self.bottleneck_example is not None else None),
            "length_experiment": (self.length_experiment.to_dict()
                                  if self.length_experiment is not None else None),
            "attention_learning": (self.attention_learning.to_dict()
                                   if self.attention_learning is not None else None),
            **({"dot_product": self.dot_product.to_dict()} if self.dot_product else {}),
            **({"hidden_state_map": self.hidden_state_map.to_dict()} if self.hidden_state_map else {}),
            **({"cnn": self.cnn.to_dict()} if self.cnn is not None else {}),
            **({"decoder": self.decoder.to_dict()} if self.decoder is not None else {}),
            **({"output_mapping": self.output_mapping.to_dict()} if self.output_mapping is not None else {}),
            **({"attention": self.attention.to_dict()} if self.attention is not None else {}),
            **{name: getattr(self, name).to_dict() for name in (
                "dot_product_attention", "multi_query_attention", "worked_example")
               if getattr(self, name) is not None},
        }


def _parameters(s: Scenario) -> Parameters:
    E, H = s.sizes.embedding, s.sizes.hidden
    # The map's sentence words come last: seeded per word, they change no
    # embedding of the sentence or the extra words.
    source_vocab = Vocabulary.from_tokens(
        s.source_tokens, s.source_extra_words, *(tokenize(x) for x in _map_sentences(s))
    )
    target_vocab = Vocabulary.from_tokens((START, END), s.target_tokens, s.target_extra_words)
    enc = s.encoder
    # Weight scale 1/sqrt(fan-in) keeps tanh away from saturation, so the
    # hidden states stay varied enough to be worth showing.
    W_x = enc.W_x if enc.W_x is not None else seeded_normal(s.seed, "encoder.W_x", (H, E), E**-0.5)
    W_h = enc.W_h if enc.W_h is not None else seeded_normal(s.seed, "encoder.W_h", (H, H), H**-0.5)
    b = enc.b if enc.b is not None else seeded_normal(s.seed, "encoder.b", (H,), 0.1)
    return Parameters(
        source_vocab=source_vocab,
        source_embeddings=frozen(
            seeded_embeddings(s.seed, "embeddings.source", source_vocab.words, E, dict(s.source_embeddings))
        ),
        target_vocab=target_vocab,
        target_embeddings=frozen(
            seeded_embeddings(s.seed, "embeddings.target", target_vocab.words, H, dict(s.target_embeddings))
        ),
        encoder_W_x=frozen(W_x),
        encoder_W_h=frozen(W_h),
        encoder_b=frozen(b),
    )


def _map_sentences(s: Scenario) -> tuple[str, ...]:
    return (s.hidden_state_map or DEFAULT_MAP).sentences


def _map_topics(s: Scenario) -> tuple[str, ...]:
    return (s.hidden_state_map or DEFAULT_MAP).topics


def compute_trace(scenario: Scenario, sections=None) -> Trace:
    """Compute every value the scenes show for ``scenario``.

    ``sections``: the trace sections the caller will read (its scenes'
    ``trace_sections``); ``None``: all. The translator's sections
    (:data:`TRAINED_SECTIONS`) are left ``None`` unless one is asked for, so a
    scene that shows no translator never waits for one to train.
    """
    translator = needs_translator(sections)
    params = _parameters(scenario)
    tokens = scenario.source_tokens
    ids = params.source_vocab.indices(tokens)
    inputs = params.source_embeddings[list(ids)]
    hidden = maths.encoder_unroll(inputs, params.encoder_W_x, params.encoder_W_h, params.encoder_b)
    encoder = EncoderTrace(tokens=tokens, token_ids=ids, inputs=frozen(inputs), hidden=frozen(hidden))
    shows_tanh = _plain_settings(scenario) is None
    fallback = shows_tanh or not translator  # not translator: nothing to train
    # The [output_mapping] step is checked against the decoder the scenes show.
    decoded, mapping = _decode(scenario, params, encoder, strict=shows_tanh)
    attention = _attention(scenario, params, encoder)
    if fallback:
        from .translator.section import model_output_mapping

        plain = _fallback_plain(scenario, params, encoder, decoded)
        plain_mapping = model_output_mapping(plain, mapping.step)
        model = _fallback_model(scenario, params, encoder, attention)
        if not translator:
            plain = plain_mapping = model = None
    else:
        plain, plain_mapping = _plain_sections(scenario)
        model = _model_section(scenario)
    dot = scenario.dot_attention or dot_attn.parse_dot_attention({}, scenario.seed)
    return Trace(
        scenario=scenario,
        params=params,
        source_tokens=tokens,
        target_tokens=scenario.target_tokens,
        encoder=encoder,
        model=model,
        length_experiment=_length_section(),
        plain_model=plain,
        plain_output_mapping=plain_mapping,
        bottleneck_example=None if fallback else _bottleneck_example(scenario),
        attention_learning=None if fallback else _attention_learning(scenario, model),
        dot_product=compute_dot_product(scenario.dot_product or DEFAULT_DOT_PRODUCT),
        hidden_state_map=_hidden_state_map(scenario, params) if translator else None,
        cnn=_cnn_trace(scenario),
        decoder=decoded,
        output_mapping=mapping,
        attention=attention,
        dot_product_attention=dot_attn.single_query_attention(dot.inputs, dot.query),
        multi_query_attention=dot_attn.multi_query_attention(dot.mq_inputs, dot.mq_queries),
        worked_example=dot_attn.worked_example(dot.we_inputs, dot.we_queries),
    )


def _fallback_weights_kind(s: Scenario) -> str:
    """"given" when the numbers file sets every value of the tanh RNN the
    scenes use, else "seeded" (some value drawn from the seed)."""
    enc_given = all(getattr(s.encoder, n) is not None for n in ("W_x", "W_h", "b"))
    dec_given = all(getattr(s.decoder, n) is not None for n in ("W_o", "W_s", "W_c", "b"))
    return "given" if enc_given and dec_given else "seeded"


def _tanh_common(s: Scenario, params: Parameters, encoder: EncoderTrace) -> dict[str, Any]:
    """The fields both fallback networks share: the tanh encoder's values."""
    return dict(
        network="tanh_rnn",
        config=None,
        key="seeded",
        source_tokens=encoder.tokens,
        source_ids=tuple(encoder.token_ids),
        target_vocabulary=tuple(params.target_vocab.words),
        source_vocabulary=tuple(params.source_vocab.words),
        source_embedding_matrix=params.source_embeddings,
        target_embedding_matrix=params.target_embeddings,
        embeddings=encoder.inputs,
        encoder_states=encoder.hidden,
        gates=None,
        reference=s.target_tokens,
        reference_alignment=None,
        held_out=None,
    )


def _tanh_parameters(params: Parameters) -> dict[str, np.ndarray]:
    return {"src_emb": params.source_embeddings, "tgt_emb": params.target_embeddings,
            "enc_W_x": params.encoder_W_x, "enc_W_h": params.encoder_W_h, "enc_b": params.encoder_b}


def _fallback_plain(s: Scenario, params: Parameters, encoder: EncoderTrace, decoded: DecoderTrace):
    """The seeded tanh RNN without attention, in the translator's record:
    ``s_t = tanh(W_o op_{t-1} + W_s s_{t-1} + W_c h_T + b)``."""
    from .translator.section import ModelTrace

    n = decoded.steps
    return ModelTrace(
        **_tanh_common(s, params, encoder),
        weights=_fallback_weights_kind(s),
        has_attention=False,
        inputs=tuple(decoded.input_words),
        input_embeddings=decoded.input_embeddings,
        attention_scores=None,
        attention=None,
        contexts=frozen(np.tile(encoder.context, (n, 1))),
        states=frozen(decoded.states[1:]),
        chosen_ids=tuple(decoded.chosen_ids),
        parameters={**_tanh_parameters(params),
                    **{f"dec_{k}": frozen(v) for k, v in decoded.weights.items()}},
    )


def _fallback_model(s: Scenario, params: Parameters, encoder: EncoderTrace, att: AttentionDecode):
    """The seeded tanh RNN with attention over the same h_1 ... h_T:
    ``s_t = tanh(W_o op_{t-1} + W_s s_{t-1} + W_c c_t + b)``, decoded greedily
    over the whole French vocabulary like every other network here (the
    legacy ``attention`` section leaves <START> out of its choices)."""
    from .attention import attention_decoder_step, attention_scores, attention_weights
    from .translator.section import ModelTrace

    p = att.params
    keys = encoder.hidden[1:]
    words = params.target_vocab.words
    table = params.target_embeddings
    s_prev = np.zeros(table.shape[1])
    word = START
    inputs, ops, scores, weights, contexts, states, chosen = [], [], [], [], [], [], []
    for _ in range(len(s.target_tokens) + 1):
        op = table[words.index(word)]
        e = attention_scores(p.score, s_prev, keys, p)
        a = attention_weights(e)
        c = a @ keys
        s_prev = attention_decoder_step(op, s_prev, c, p.W_o, p.W_s, p.W_c, p.b)
        k = int(np.argmax(table @ s_prev))
        for rows, value in ((inputs, word), (ops, op), (scores, e), (weights, a), (contexts, c),
                            (states, s_prev), (chosen, k)):
            rows.append(value)
        word = words[k]
        if word == END:
            break
    dec = {f"dec_{k}": frozen(getattr(p, k)) for k in ("W_o", "W_s", "W_c", "b")}
    if p.W_a is not None:
        dec.update(att_W_a=frozen(p.W_a), att_U_a=frozen(p.U_a), att_v_a=frozen(p.v_a))
    kind = "seeded" if p.seeded else _fallback_weights_kind(s)
    return ModelTrace(
        **_tanh_common(s, params, encoder),
        weights=kind,
        has_attention=True,
        inputs=tuple(inputs),
        input_embeddings=frozen(ops),
        attention_scores=frozen(scores),
        attention=frozen(weights),
        contexts=frozen(contexts),
        states=frozen(states),
        chosen_ids=tuple(chosen),
        parameters={**_tanh_parameters(params), **dec},
    )


def _attention(s: Scenario, params: Parameters, encoder: EncoderTrace) -> AttentionDecode:
    """The attention decode of the sentence: len(target) + 1 steps at most."""
    att = attention_parameters(s.attention, s.seed, s.sizes.hidden)
    # Untrained as long as any weight on the path comes from the seed.
    untrained = bool(att.seeded) or s.encoder.W_x is None or s.encoder.W_h is None
    return attention_decode(
        encoder.hidden[1:], att, params.target_vocab.words, params.target_embeddings,
        START, END, max_steps=len(s.target_tokens) + 1, source_tokens=encoder.tokens,
        untrained=untrained,
    )


def _model_settings(scenario: Scenario):
    """The [model] settings, or the defaults when the table is absent and the
    trained model can read the sentence; None otherwise."""
    from .translator.corpus import source_words
    from .translator.settings import ModelSettings

    if scenario.model is not None:
        return scenario.model
    if not set(scenario.source_tokens) <= set(source_words()):
        return None
    return ModelSettings()


def _model_section(scenario: Scenario):
    from .translator.section import model_trace

    settings = _model_settings(scenario)
    return model_trace(scenario.source_tokens, settings, scenario.seed) if settings is not None else None


def sets_small_rnn_by_hand(s: Scenario) -> bool:
    """True when the numbers file gives the small tanh RNN's values itself
    ([embeddings.*], [encoder], [decoder] or [attention] tables)."""
    att = s.attention
    return bool(
        s.source_embeddings or s.target_embeddings
        or any(getattr(s.encoder, n) is not None for n in ("W_x", "W_h", "b"))
        or any(getattr(s.decoder, n) is not None for n in ("W_o", "W_s", "W_c", "b"))
        # The trained network has its own attention: a score or weight given
        # for the tanh RNN's attention is the reader's own network too.
        or att.score != "additive"
        or any(getattr(att, n) is not None for n in ("size", "W_a", "U_a", "v_a", "W_o", "W_s", "W_c", "b"))
    )


def _plain_settings(scenario: Scenario):
    """Settings of the translator without attention that the Part 1 scenes
    show, or None when they show the small seeded tanh RNN: the sentence has
    words the grammar lacks (and no [model] table says otherwise), or the
    file sets that RNN's values by hand (a reader's own numbers win)."""
    if scenario.model is None and sets_small_rnn_by_hand(scenario):
        return None
    settings = _model_settings(scenario)
    return settings.plain if settings is not None else None


def _plain_sections(scenario: Scenario):
    from .translator.section import model_output_mapping, model_trace

    settings = _plain_settings(scenario)
    if settings is None:
        return None, None
    plain = model_trace(scenario.source_tokens, settings, scenario.seed)
    steps = len(plain.chosen)
    step = scenario.output_mapping_step
    if step is None:
        step = min(DEFAULT_OUTPUT_STEP, steps)
    elif step > steps:
        raise NumbersError(
            f"output_mapping.step: expected a whole number from 1 to {steps} "
            f"(the translator chose <END> after {steps} steps), got {step}"
        )
    return plain, model_output_mapping(plain, step)


def _bottleneck_example(scenario: Scenario):
    from .translator.section import bottleneck_example

    settings = _model_settings(scenario)
    if settings is None or settings.weights != "trained" or not settings.config.attention:
        return None
    return bottleneck_example(settings.config)


def _attention_learning(scenario: Scenario, model):
    from .translator.section import attention_learning

    return attention_learning(model, _model_settings(scenario))


def _hidden_state_map(scenario: Scenario, params: Parameters) -> HiddenStateMapTrace:
    """The map read by the encoder the Part 1 scenes show: the translator
    without attention when it can read every map sentence, else the tanh RNN."""
    from .translator.corpus import source_words
    from .translator.section import encoder_summaries

    sentences = _map_sentences(scenario)
    settings = _plain_settings(scenario)
    unknown: tuple[str, ...] = ()
    if settings is not None:
        words = dict.fromkeys(w for s in sentences for w in tokenize(s))
        known = set(source_words())
        unknown = tuple(w for w in words if w not in known)
        if settings.weights == "seeded" or not unknown:
            states = encoder_summaries(tuple(tokenize(s) for s in sentences), settings, scenario.seed)
            return map_from_states(sentences, states, topics=_map_topics(scenario), network="translator",
                                   trained=settings.weights == "trained")
    tanh_map = compute_hidden_state_map(
        sentences, params.source_vocab, params.source_embeddings,
        params.encoder_W_x, params.encoder_W_h, params.encoder_b, topics=_map_topics(scenario),
    )
    return replace(tanh_map, unknown_words=unknown)


def _length_section():
    from .translator.section import load_length_curves

    return load_length_curves()


def _cnn_trace(scenario: Scenario) -> Any:
    from .cnn import compute_cnn

    return compute_cnn(scenario.cnn, scenario.seed) if scenario.cnn is not None else None


def _decode(s: Scenario, params: Parameters, encoder: EncoderTrace,
            strict: bool = True) -> tuple[DecoderTrace, OutputMappingTrace]:
    """The plain decoder from h_T, and the output mapping of one of its steps."""
    weights = decoder_weights(s.seed, s.sizes.hidden, s.decoder)
    seeded = tuple(name for name in weights if getattr(s.decoder, name) is None)
    decoded = greedy_decode(encoder.context, params.target_vocab, params.target_embeddings,
                            weights, len(s.target_tokens) + 1, seeded)
    step = s.output_mapping_step
    if step is None:
        # The draft's s_2 -> op_2, or the last step when <END> came sooner.
        step = min(DEFAULT_OUTPUT_STEP, decoded.steps)
    elif step > decoded.steps and not strict:
        step = decoded.steps
    elif step > decoded.steps:
        raise NumbersError(
            f"output_mapping.step: expected a whole number from 1 to {decoded.steps} "
            f"(the decoder chose <END> after {decoded.steps} steps), got {step}"
        )
    return decoded, output_mapping(decoded, step, params.target_vocab, params.target_embeddings)


def network_report(scenario: Scenario) -> dict[str, str]:
    """Which network the Part 1 scenes (``"plain"``) and the attention scenes
    (``"attention"``) show, and why, in words for the run's report: a file
    that switches to the small RNN is never silent about it (issue 25).
    Computed from the settings alone (nothing is trained)."""
    from .translator.corpus import source_words

    by_hand = [name for name, given in (
        ("[embeddings]", bool(scenario.source_embeddings or scenario.target_embeddings)),
        ("[encoder]", any(getattr(scenario.encoder, n) is not None for n in ("W_x", "W_h", "b"))),
        ("[decoder]", any(getattr(scenario.decoder, n) is not None for n in ("W_o", "W_s", "W_c", "b"))),
    ) if given]
    if scenario.model is None and sets_small_rnn_by_hand(scenario):
        why = (f"the numbers file sets its values ({', '.join(by_hand) or '[attention]'}); "
               "add a [model] table to show the translator")
        return {"plain": f"the small tanh RNN without attention, because {why}",
                "attention": f"the small tanh RNN with attention, because {why}"}
    settings = _model_settings(scenario)
    if settings is None:
        unknown = [w for w in dict.fromkeys(scenario.source_tokens) if w not in set(source_words())]
        why = (f"the trained translator does not know {', '.join(map(repr, unknown[:4]))} "
               "(set [model] weights = \"seeded\" to show the translator untrained)")
        return {"plain": f"the small seeded tanh RNN without attention, because {why}",
                "attention": f"the small seeded tanh RNN with attention, because {why}"}
    if settings.weights == "seeded":
        how = "untrained (seeded) weights, as [model] weights = \"seeded\" asks"
    elif settings.explicit:
        how = f"weights trained with your [model] settings ({settings.config.steps} steps)"
    else:
        how = "the shipped trained weights"
    return {"plain": f"the GRU translator trained without attention, {how}",
            "attention": f"the GRU translator trained with attention, {how}"}
