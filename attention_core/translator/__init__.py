"""A tiny English -> French translator trained in numpy (issue 7).

- :mod:`.corpus`: the bilingual grammar, with word alignments by construction;
- :mod:`.model`: GRU encoder (both directions), GRU decoder with additive
  attention, output by dot product with the target embeddings after a
  linear layer; forward and hand-written backward passes;
- :mod:`.train`: Adam training, evaluation, weights cached by a hash of
  corpus and configuration (the default weights ship as
  ``weights_default.npz``);
- :mod:`.settings`: the numbers file's ``[model]`` table;
- :mod:`.section`: the Trace sections ``model`` and ``length_experiment``.

Modules are imported where used so ``import attention_core`` stays light.
"""

from __future__ import annotations

__all__: list[str] = []
