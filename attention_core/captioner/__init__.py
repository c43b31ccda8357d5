"""The image captioner of ``cnn_attention``: drawn scenes, a GRU decoder with
soft attention over a CNN's grid cells (Xu et al. 2015), trained in numpy.

* :mod:`.drawing` draws the scenes and knows which cells each object covers;
* :mod:`.model` is the decoder, forward and hand-written backward;
* :mod:`.train` trains it, measures it on held-out scenes, loads the shipped weights.
"""

from __future__ import annotations

__all__ = ["drawing", "model", "train"]
