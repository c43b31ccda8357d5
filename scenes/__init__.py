"""Manim scenes of the attention walkthrough, one module per animation.

``SCENES`` maps each scene id (stable: links to the clips depend on it) to
its class, in the order of the drafts; ``render.py`` and the tests find
scenes only through it.
"""

from __future__ import annotations

from .attention_learning import AttentionLearningScene
from .attention_process import AttentionProcessScene
from .base import WalkthroughScene
from .bottleneck import BottleneckScene
from .cnn_attention import CnnAttentionScene
from .decoder import DecoderScene
from .dot_product import DotProductScene
from .dot_product_attention import DotProductAttentionScene
from .encoder import EncoderScene
from .hidden_state_map import HiddenStateMapScene
from .length_curve import LengthCurveScene
from .multi_query_attention import MultiQueryAttentionScene
from .output_mapping import OutputMappingScene
from .seq2seq_overview import Seq2SeqOverviewScene
from .theme import DARK, LIGHT, THEMES, Theme
from .word_embeddings import WordEmbeddingsScene
from .worked_example import WorkedExampleScene

__all__ = ["SCENES", "WalkthroughScene", "Theme", "THEMES", "DARK", "LIGHT"]

SCENES: dict[str, type[WalkthroughScene]] = {
    cls.scene_id: cls
    for cls in (
        # Part 1: the encoder-decoder
        Seq2SeqOverviewScene,
        WordEmbeddingsScene,
        EncoderScene,
        HiddenStateMapScene,
        DecoderScene,
        DotProductScene,
        OutputMappingScene,
        BottleneckScene,
        LengthCurveScene,
        # Part 1: building towards attention
        AttentionProcessScene,
        AttentionLearningScene,
        # Part 2: the three abstractions
        CnnAttentionScene,
        DotProductAttentionScene,
        MultiQueryAttentionScene,
        # Draft 002: the worked numerical example
        WorkedExampleScene,
    )
}
