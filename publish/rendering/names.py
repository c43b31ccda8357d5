"""File names: the scene id, or the name the blog draft links to.

The draft (``../shared/seeds/000_*``) embeds some clips and figures under
names of its own (``CNN_attention.mp4``, ``seq2seq_basic.svg``); with
``--names draft`` the render writes those names, so the post needs no
renaming. This table is the only place that knows them; scenes the draft
does not name keep their id. Manim-free.
"""

from __future__ import annotations

import re

__all__ = ["DRAFT_NAMES", "NAMINGS", "draft_name", "output_stem", "step_stem"]

#: scene id -> the file name (without extension) the draft links to.
DRAFT_NAMES: dict[str, str] = {
    "seq2seq_overview": "seq2seq_basic",
    "word_embeddings": "word_embeddings",
    "encoder": "encoder",
    "dot_product": "dot_product",
    "output_mapping": "output_mapping",
    "cnn_attention": "CNN_attention",
}

NAMINGS = ("id", "draft")


def draft_name(scene_id: str) -> str | None:
    """The draft's name for a scene, or ``None`` if the draft embeds none."""
    return DRAFT_NAMES.get(scene_id)


def output_stem(scene_id: str, naming: str = "id") -> str:
    """The file name (without extension) of a scene's outputs."""
    if naming not in NAMINGS:
        raise ValueError(f"unknown naming {naming!r}")
    return DRAFT_NAMES.get(scene_id, scene_id) if naming == "draft" else scene_id


def step_stem(number: int, name: str) -> str:
    """``03-softmax`` for the third step named "Softmax": numbered, URL-safe."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "step"
    return f"{number:02d}-{slug}"
