"""Manim scenes of the attention walkthrough, one module per animation.

``SCENES`` maps each scene id (stable: links to the clips depend on it) to
its class; ``render.py`` and the tests find scenes only through it.
"""

from __future__ import annotations

from .base import WalkthroughScene
from .dot_product_attention import DotProductAttentionScene
from .encoder import EncoderScene
from .multi_query_attention import MultiQueryAttentionScene
from .worked_example import WorkedExampleScene
from .theme import DARK, LIGHT, THEMES, Theme

__all__ = ["SCENES", "WalkthroughScene", "Theme", "THEMES", "DARK", "LIGHT"]

SCENES: dict[str, type[WalkthroughScene]] = {
    cls.scene_id: cls
    for cls in (
        EncoderScene,
        DotProductAttentionScene,
        MultiQueryAttentionScene,
        WorkedExampleScene,
    )
}
