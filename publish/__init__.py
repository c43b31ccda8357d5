"""Publishing the walkthrough: formats, render cache, parallel jobs, gallery.

``publish.tables``, ``publish.cache``, ``publish.gallery``, ``publish.names``
(the draft's file names), ``publish.captions`` (WebVTT) and
``publish.progress`` (the live display) never import manim (the number
export and the cache check stay fast); ``publish.encode``,
``publish.vector`` (svg stills) and ``publish.pipeline`` do the rendering.
"""

from __future__ import annotations

__all__: list[str] = []
