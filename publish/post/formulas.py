"""LaTeX to MathML at build time: the page needs no script, font or style from elsewhere.

Chromium, Firefox and Safari draw MathML Core natively. latex2mathml writes
``mathvariant="bold"`` and ``"monospace"``, which MathML Core ignores on
anything but a one-letter ``<mi>`` set to ``normal``; :func:`to_mathml`
turns them into CSS the browsers do apply. A display formula with ``\\\\``
line breaks (the draft's notation list) becomes one formula per line. Manim-free.
"""

from __future__ import annotations

import functools
import html
import re

__all__ = ["MathError", "to_mathml", "split_lines"]


class MathError(ValueError):
    """A formula latex2mathml cannot read."""


_VARIANT_STYLE = {
    "bold": ("normal", "font-weight:bold"),
    "bold-italic": (None, "font-weight:bold"),
    "monospace": ("normal", "font-family:monospace"),
    "sans-serif": ("normal", "font-family:sans-serif"),
    "italic": (None, "font-style:italic"),
}
_VARIANT = re.compile(r'<(mi|mn|mo|mtext|ms)( [^>]*)?mathvariant="([a-z-]+)"([^>]*)>')
#: Commands latex2mathml does not know, with what they mean.
_SYNONYMS = {r"\textup": r"\textrm", r"\degree": r"^{\circ}"}


def split_lines(latex: str) -> list[str]:
    """A display formula's lines: split at ``\\\\`` outside braces and environments, blank lines dropped."""
    lines, current, depth, envs, i = [], [], 0, 0, 0
    while i < len(latex):
        if latex.startswith("\\begin", i):
            envs += 1
        elif latex.startswith("\\end", i):
            envs = max(0, envs - 1)
        if latex.startswith("\\\\", i) and depth == 0 and envs == 0:
            lines.append("".join(current))
            current = []
            i += 2
            continue
        if latex[i] == "\\" and i + 1 < len(latex):
            current.append(latex[i:i + 2])  # an escaped character: \{ is no brace
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(latex[i], 0)
        current.append(latex[i])
        i += 1
    lines.append("".join(current))
    return [line.strip() for line in lines if line.strip()]


def _prepare(latex: str) -> str:
    latex = latex.strip()
    latex = re.sub(r"(\\\\\s*)+$", "", latex)  # a trailing line break ends nothing
    # latex2mathml puts a matrix with a subscript into one malformed <msub> (its cells then drawn as a
    # subscript): the script goes on an empty group after the closing bracket instead.
    latex = re.sub(r"(\\end\{[a-zA-Z]*matrix\})\s*(?=[_^])", r"\1{}", latex)
    for command, meaning in _SYNONYMS.items():
        latex = re.sub(re.escape(command) + r"(?![A-Za-z])", lambda _: meaning, latex)
    return latex


def _css_variants(mathml: str) -> str:
    def restyle(match: re.Match[str]) -> str:
        tag, before, variant, after = match.group(1), match.group(2) or "", match.group(3), match.group(4)
        keep, style = _VARIANT_STYLE.get(variant, (variant, ""))
        attrs = before + (f' mathvariant="{keep}"' if keep and tag == "mi" else "") + after
        return f'<{tag}{attrs} style="{style}">' if style else f"<{tag}{attrs}>"

    return _VARIANT.sub(restyle, mathml)


def to_mathml(latex: str, display: bool = False) -> str:
    """One formula as ``<math>`` (``display="block"`` for display math); :class:`MathError` if unreadable.
    A formula met again (checked before the renders, then written; or written twice) costs nothing."""
    return _to_mathml(latex, display)


@functools.lru_cache(maxsize=4096)
def _to_mathml(latex: str, display: bool) -> str:
    from latex2mathml.converter import convert_to_element

    from publish.post.mathml_sanitize import serialise

    source = _prepare(latex)
    try:
        # The tree, written from an allow-list (latex2mathml's own text would let \text{<script>} through).
        mathml = serialise(convert_to_element(source, display="block" if display else "inline"))
    except Exception as exc:  # latex2mathml raises many kinds for a formula it cannot read
        shown = latex if len(latex) <= 80 else latex[:77] + "..."  # one readable line, whatever its length
        reason = str(exc) if len(str(exc)) <= 120 else str(exc)[:117] + "..."
        raise MathError(f"cannot typeset ${shown}$ ({type(exc).__name__}: {reason})") from None
    # \texttt{encoder\_RNN}: inside text an escaped underscore is an underscore.
    mathml = mathml.replace("\\_", "_")
    mathml = _css_variants(mathml)
    # What a reader can copy: the LaTeX it was made from.
    alttext = html.escape(latex.strip()).replace("\u2063", "&#x2063;")  # never a placeholder's marker
    return mathml.replace("<math ", f'<math alttext="{alttext}" ', 1)
