"""Publishing the walkthrough: formats, render cache, parallel jobs, gallery.

``publish.tables``, ``publish.cache``, ``publish.gallery``, ``publish.names``
(the draft's file names), ``publish.captions`` (WebVTT) and
``publish.progress`` (the live display) never import manim (the number
export and the cache check stay fast), nor does ``publish.render_setup``
(qualities, memory budget, encoder options); ``publish.encode``,
``publish.vector`` (svg stills), ``publish.scene_render`` (one scene, whole),
``publish.split`` (one scene in parts) and ``publish.pipeline`` (the cache
check and the jobs) do the rendering.
"""

from __future__ import annotations

__all__: list[str] = []
