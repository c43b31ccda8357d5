"""One theme for every scene: colours per role, fonts, number format.

A theme is a value passed to each scene, never a global: the CLI picks one
per render, and nothing is frozen at import time.
"""

from __future__ import annotations

from dataclasses import dataclass

from manim import ManimColor, interpolate_color

from attention_core.formatting import format_number, parse_number

__all__ = ["Theme", "DARK", "LIGHT", "THEMES", "format_number", "parse_number"]


@dataclass(frozen=True)
class Theme:
    """Colours and type for one look (dark or light background).

    Roles keep one colour in every scene: the same vector has the same
    colour wherever it appears. Values are coloured by sign (``positive``,
    ``negative``) with brightness by magnitude; attention weights use the
    heat scale from ``heat_low`` to ``heat_high``.
    """

    name: str
    background: str
    text: str
    muted: str
    panel: str
    positive: str
    negative: str
    embedding: str
    encoder: str
    decoder: str
    query: str
    key: str
    value: str
    heat_low: str
    heat_high: str
    highlight: str
    #: The attention-weight role (bars and frames of softmax outputs); distinct
    #: from query, key and value in both themes.
    weight: str = "#FF8F3F"
    font: str = "DejaVu Sans"
    number_font: str = "DejaVu Sans Mono"
    decimals: int = 2

    def fmt(self, value: float) -> str:
        return format_number(value, self.decimals)

    def value_fill(self, value: float, scale: float = 1.0) -> tuple[ManimColor, float]:
        """Cell fill for a signed value: hue by sign, opacity by magnitude."""
        strength = min(abs(value) / scale, 1.0) if scale > 0 else 0.0
        colour = self.positive if value >= 0 else self.negative
        return ManimColor(colour), 0.12 + 0.6 * strength

    def heat(self, weight: float) -> ManimColor:
        """Colour of an attention weight in [0, 1]."""
        w = min(max(float(weight), 0.0), 1.0)
        return interpolate_color(ManimColor(self.heat_low), ManimColor(self.heat_high), w**0.7)


DARK = Theme(
    name="dark",
    background="#111318",
    text="#ECEFF4",
    muted="#7B8394",
    panel="#3B4252",
    positive="#2BB673",  # green / pink diverging: readable for most colour vision
    negative="#E0529C",
    embedding="#B39DFF",
    encoder="#58C4DD",
    decoder="#FF9F43",
    query="#F7D154",
    key="#3FD0B6",
    value="#FF6B6B",
    heat_low="#1D2230",
    heat_high="#FFC233",
    highlight="#F7D154",
    weight="#FF8F3F",
)

LIGHT = Theme(
    name="light",
    background="#FFFFFF",
    text="#1B1F27",
    muted="#6B7280",
    panel="#C9CED8",
    positive="#15915A",
    negative="#C2307A",
    embedding="#6D4ACF",
    encoder="#1F78B4",
    decoder="#D9660B",
    query="#A87D00",
    key="#0E8A75",
    value="#C8382F",
    heat_low="#F2F4F8",
    heat_high="#E8590C",
    highlight="#D99A00",
    weight="#E8590C",
)

THEMES: dict[str, Theme] = {"dark": DARK, "light": LIGHT}
