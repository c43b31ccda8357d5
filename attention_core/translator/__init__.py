"""A tiny English -> French translator trained in numpy (issue 7).

- :mod:`.corpus`: the bilingual grammar, with word alignments by construction;
- :mod:`.model`: the drafts' network: a GRU encoder (one direction, h_0 = 0),
  a GRU decoder from s_0 = 0 reading op_{t-1} and a context (h_T, or with
  additive attention c_t), output scores s_t . e_w over the French
  embeddings; forward and hand-written backward passes;
- :mod:`.train`: Adam training, evaluation, weights cached by a hash of
  corpus and configuration (the default weights ship as
  ``weights_default.npz``);
- :mod:`.settings`: the numbers file's ``[model]`` table;
- :mod:`.section`: the Trace sections ``model``/``plain_model`` (one record
  for the trained GRU and the tanh RNN fallback) and ``length_experiment``.

Modules are imported where used so ``import attention_core`` stays light.
"""

from __future__ import annotations

__all__: list[str] = []
