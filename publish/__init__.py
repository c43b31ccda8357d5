"""Publishing the walkthrough: formats, render cache, parallel jobs, gallery.

``publish.tables``, ``publish.rendering.cache``, ``publish.targets.gallery``, ``publish.rendering.names``
(the draft's file names), ``publish.rendering.captions`` (WebVTT) and
``publish.rendering.progress`` (the live display) never import manim (the number
export and the cache check stay fast), nor does ``publish.rendering.render_setup``
(qualities, memory budget, encoder options); ``publish.rendering.encode``,
``publish.rendering.vector`` (svg stills), ``publish.rendering.scene_render`` (one scene, whole),
``publish.rendering.split`` (one scene in parts) and ``publish.rendering.pipeline`` (the cache
check and the jobs) do the rendering.
"""

from __future__ import annotations

__all__: list[str] = []
