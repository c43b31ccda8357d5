"""Manim scenes of the attention walkthrough, one module per animation.

``SCENES`` maps each scene id (stable: links to the clips depend on it) to
its class; ``render.py`` and the tests find scenes only through it.
"""

from __future__ import annotations

from .attention_process import AttentionProcessScene
from .base import WalkthroughScene
from .dot_product import DotProductScene
from .cnn_attention import CnnAttentionScene
from .encoder import EncoderScene
from .length_curve import LengthCurveScene
from .hidden_state_map import HiddenStateMapScene
from .seq2seq_overview import Seq2SeqOverviewScene
from .trained_attention import TrainedAttentionScene
from .word_embeddings import WordEmbeddingsScene
from .decoder import DecoderScene
from .output_mapping import OutputMappingScene
from .bottleneck import BottleneckScene
from .theme import DARK, LIGHT, THEMES, Theme

__all__ = ["SCENES", "WalkthroughScene", "Theme", "THEMES", "DARK", "LIGHT"]

SCENES: dict[str, type[WalkthroughScene]] = {
    cls.scene_id: cls
    for cls in (
        EncoderScene,
        LengthCurveScene,
        # part 1b, in the draft's order
        Seq2SeqOverviewScene,
        HiddenStateMapScene,
        DotProductScene,
        CnnAttentionScene,
        TrainedAttentionScene,
        WordEmbeddingsScene,
        DecoderScene,
        OutputMappingScene,
        BottleneckScene,
        AttentionProcessScene,
    )
}
