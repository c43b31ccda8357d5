"""Where the clips reach people beyond the page: the gallery, a class deck, a notebook, the live preview."""
