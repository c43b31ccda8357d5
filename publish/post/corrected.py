"""The draft's printed matrices, struck through beside the true ones (``{{ path | corrected }}``).

Draft 002 prints s, alpha and C that its own X and q do not give (the core
checks them: ``worked_example.draft_check``). The page shows the computed
table, labelled and rounded as on screen, and beside it the draft's printed
values as the draft wrote them, struck through, as the ``worked_example``
clip does. Manim-free.
"""

from __future__ import annotations

import html
from typing import Any

from attention_core.formatting import format_number

from publish.tables import section

__all__ = ["PRINTED", "corrected_table"]

#: A computed matrix -> where the draft's printed one is, and the decimals the draft prints.
PRINTED = {
    "worked_example.scores": ("worked_example.draft_check.printed_scores", 2, "s"),
    "worked_example.weights": ("worked_example.draft_check.printed_weights", 4, "alpha"),
    "worked_example.context": ("worked_example.draft_check.printed_context", 4, "C"),
}


def corrected_table(path: str, table_html: str, data: dict[str, Any]) -> str:
    """``table_html`` (the true values) with the draft's printed matrix for ``path`` struck through."""
    if path not in PRINTED:
        raise ValueError(f"{path}: the draft printed no values of it to correct "
                               f"(corrected applies to {', '.join(PRINTED)})")
    printed_path, decimals, name = PRINTED[path]
    try:
        printed = section(data, printed_path)
    except KeyError:  # other inputs than the draft's: nothing of the draft's to strike
        return table_html
    # Written as the true table beside it writes its numbers (its minus sign too).
    minus = "\u2212" if "\u2212" in table_html else "-"
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(format_number(float(v), decimals).replace(chr(0x2212), minus))}"
                                    f"</td>" for v in row)
                   + "</tr>" for row in printed)
    draft = (f'<table class="numbers draft" aria-label="the draft\'s printed {name}, wrong">'
             f"<caption>the draft printed this {html.escape(name)} (wrong)</caption>{rows}</table>")
    return f'<div class="corrected">{table_html}<del class="draft">{draft}</del></div>'
