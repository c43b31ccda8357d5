"""The numeric core of the attention walkthrough: numpy only, never manim.

Data flows one way: numbers file -> :class:`Scenario` -> :func:`compute_trace`
-> frozen :class:`Trace` records that the scenes lay out.
"""

from __future__ import annotations

from .maths import (
    additive_score,
    context_vector,
    dot_scores,
    encoder_unroll,
    rnn_step,
    scaled_dot_scores,
    softmax,
)
from .numbers_file import NumbersError, Scenario, load_numbers, parse_numbers
from .text import END, START, Vocabulary, tokenize
from .trace import EncoderTrace, Parameters, Trace, compute_trace
from .decoder import DecoderTrace, OutputMappingTrace, decoder_step, greedy_decode, output_distribution

__all__ = [
    "additive_score",
    "context_vector",
    "dot_scores",
    "encoder_unroll",
    "rnn_step",
    "scaled_dot_scores",
    "softmax",
    "NumbersError",
    "Scenario",
    "load_numbers",
    "parse_numbers",
    "END",
    "START",
    "Vocabulary",
    "tokenize",
    "EncoderTrace",
    "Parameters",
    "Trace",
    "compute_trace",
    "DecoderTrace",
    "OutputMappingTrace",
    "decoder_step",
    "greedy_decode",
    "output_distribution",
]
