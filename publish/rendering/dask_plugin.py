"""The Dask worker plugin that installs Manim's speedups in each worker, once.

Registered by :class:`publish.rendering.executors.DaskPool` on its client: every
worker of the cluster, those that join later too, runs :meth:`SpeedupsPlugin.setup`
when it starts, as a local worker runs its initialiser. A module of its own because
it imports ``distributed``, which only the Dask executor needs.
"""

from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin

__all__ = ["SpeedupsPlugin"]


class SpeedupsPlugin(WorkerPlugin):
    """Installs :mod:`manim_speedups` in the worker's process (its environment decides:
    ``ATTENTION_SPEEDUPS=off`` there means plain Manim there)."""

    name = "attention-manim-speedups"
    idempotent = True  # one registration per cluster is enough

    def setup(self, worker: Any) -> None:
        from publish.rendering.render_setup import install_speedups

        install_speedups()
