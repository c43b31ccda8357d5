"""Scenes to clips: the render pipeline (plan, cache, run, split, encode, outputs)."""
