"""A tiny English -> French translator trained in numpy (issue 7)."""
