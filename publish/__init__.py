"""Publishing the walkthrough: formats, render cache, parallel jobs, gallery.

``publish.tables`` and ``publish.cache`` never import manim (the number
export and the cache check stay fast); ``publish.encode`` and
``publish.pipeline`` do the rendering.
"""

from __future__ import annotations

__all__: list[str] = []
