"""Manim scenes of the attention walkthrough, one module per animation.

``SCENE_MODULES`` names each scene id (stable: links to the clips depend on
it) by ``module:Class``, in the order of the drafts, as plain text: a run
that only checks the cache reads it (and the scene modules' files) without
importing a scene or manim. ``SCENES`` maps each id to its class, imported on
first use; ``render.py`` and the tests find scenes only through these two.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCENE_MODULES", "SCENES", "WalkthroughScene", "Theme", "THEMES", "DARK", "LIGHT", "scene_class"]

#: One line per scene: ``id: "module:Class"``.
SCENE_MODULES: dict[str, str] = {
    # Part 1: the encoder-decoder
    "seq2seq_overview": "scenes.seq2seq_overview:Seq2SeqOverviewScene",
    "word_embeddings": "scenes.word_embeddings:WordEmbeddingsScene",
    "encoder": "scenes.encoder:EncoderScene",
    "hidden_state_map": "scenes.hidden_state_map:HiddenStateMapScene",
    "decoder": "scenes.decoder:DecoderScene",
    "dot_product": "scenes.dot_product:DotProductScene",
    "output_mapping": "scenes.output_mapping:OutputMappingScene",
    "bottleneck": "scenes.bottleneck:BottleneckScene",
    "length_curve": "scenes.length_curve:LengthCurveScene",
    # Part 1: building towards attention
    "attention_process": "scenes.attention_process:AttentionProcessScene",
    "attention_learning": "scenes.attention_learning:AttentionLearningScene",
    # Part 2: the three abstractions
    "cnn_attention": "scenes.cnn_attention:CnnAttentionScene",
    "dot_product_attention": "scenes.dot_product_attention:DotProductAttentionScene",
    "multi_query_attention": "scenes.multi_query_attention:MultiQueryAttentionScene",
    # Draft 002: the worked numerical example
    "worked_example": "scenes.worked_example:WorkedExampleScene",
}

_LAZY = {"WalkthroughScene": "scenes.base", "Theme": "scenes.theme", "THEMES": "scenes.theme",
         "DARK": "scenes.theme", "LIGHT": "scenes.theme"}


def scene_class(ref: str) -> type:
    """The class named by ``module:Class``."""
    import importlib

    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> Any:
    # Imported on first use, so `import scenes` (and the cache check) needs no manim.
    if name == "SCENES":
        scenes = {scene_id: scene_class(ref) for scene_id, ref in SCENE_MODULES.items()}
        for scene_id, cls in scenes.items():
            if cls.scene_id != scene_id:
                raise RuntimeError(f"SCENE_MODULES: {scene_id!r} names a class whose scene_id is {cls.scene_id!r}")
        globals()["SCENES"] = scenes
        return scenes
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scenes' has no attribute {name!r}")
