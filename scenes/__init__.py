"""Manim scenes of the attention walkthrough, one module per animation.

``SCENES`` maps each scene id (stable: links to the clips depend on it) to
its class; ``render.py`` and the tests find scenes only through it.
"""

from __future__ import annotations

from .attention_process import AttentionProcessScene
from .base import WalkthroughScene
from .encoder import EncoderScene
from .theme import DARK, LIGHT, THEMES, Theme

__all__ = ["SCENES", "WalkthroughScene", "Theme", "THEMES", "DARK", "LIGHT"]

SCENES: dict[str, type[WalkthroughScene]] = {
    cls.scene_id: cls
    for cls in (
        EncoderScene,
        AttentionProcessScene,
    )
}
