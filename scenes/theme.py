"""One theme for every scene: colours per role, fonts, number format.

A theme is a value passed to each scene, never a global: the CLI picks one
per render, and nothing is frozen at import time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from manim import ManimColor, interpolate_color

from attention_core.formatting import format_number, parse_number

__all__ = ["Theme", "DARK", "LIGHT", "THEMES", "ROLES", "format_number", "parse_number", "hex_to_lab",
           "delta_e_2000"]


@dataclass(frozen=True)
class Theme:
    """Colours and type for one look (dark or light background).

    Roles keep one colour in every scene: the same vector has the same
    colour wherever it appears (:data:`ROLES` maps each symbol of
    ``docs/notation.md`` to its field). Values are coloured by sign
    (``positive``, ``negative``) with brightness by magnitude; attention
    weights use the heat scale from ``heat_low`` to ``heat_high`` (= ``weight``).

    Part 2's query is Part 1's decoder state (s_2) and its keys are the
    encoder states (h_i): ``query`` is ``decoder`` and ``key`` is ``encoder``,
    so no role changes colour between the parts. ``value`` is the context
    role (c_t, o, O). ``highlight`` is neutral (the text colour): a frame or
    ring points, it does not claim a role.
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
    #: The attention-weight role (a_tj, A: bars and frames of softmax outputs).
    weight: str = "#FFD43B"
    #: The French-embedding role (op_t, e_w): the written word fed back in.
    target_embedding: str = "#9BE564"
    #: The attention-score role (e_tj, E).
    score: str = "#5FE0C0"
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

    def role(self, symbol: str) -> str:
        """The colour of a symbol's role (``"h"``, ``"s"``, ``"E"``, ...: :data:`ROLES`)."""
        return getattr(self, ROLES[symbol])

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
    query="#FF9F43",  # = decoder: s_2 is the query
    key="#58C4DD",  # = encoder: the h_i are the keys
    value="#FF5C5C",  # the context role: c_t, o, O
    heat_low="#1D2230",
    heat_high="#FFD43B",  # = weight
    highlight="#ECEFF4",  # = text: neutral
    weight="#FFD43B",
    target_embedding="#9BE564",
    score="#5FE0C0",
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
    decoder="#E0720F",
    query="#E0720F",  # = decoder
    key="#1F78B4",  # = encoder
    value="#C0182F",  # the context role
    heat_low="#F2F4F8",
    heat_high="#A88600",  # = weight
    highlight="#1B1F27",  # = text: neutral
    weight="#A88600",
    target_embedding="#4C8F00",
    score="#0E8A75",
)

THEMES: dict[str, Theme] = {"dark": DARK, "light": LIGHT}

#: Each symbol of docs/notation.md -> the Theme field of its role's colour.
#: Synonyms share a role: op_t and e_w are French embeddings, E holds the
#: e_tj, A the a_tj, and o / O are Part 2's c_t.
ROLES: dict[str, str] = {
    "x": "embedding",
    "h": "encoder",
    "s": "decoder",
    "op": "target_embedding", "e_w": "target_embedding",
    "e_tj": "score", "E": "score",
    "a_tj": "weight", "A": "weight",
    "c_t": "value", "o": "value", "O": "value",
    "query": "query", "Q": "query",
    "keys": "key", "X": "key",
}


def hex_to_lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour given as ``#RRGGBB``."""
    h = str(colour).lstrip("#")[:6]
    rgb = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    x = (0.4124564 * lin[0] + 0.3575761 * lin[1] + 0.1804375 * lin[2]) / 0.95047
    y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2]
    z = (0.0193339 * lin[0] + 0.1191920 * lin[1] + 0.9503041 * lin[2]) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e_2000(lab1: tuple[float, float, float], lab2: tuple[float, float, float]) -> float:
    """CIEDE2000 colour difference (Sharma, Wu and Dalal 2005): about 2 is
    just noticeable, 20 or more reads as another colour at a glance."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dh = 0.0
    if c1p * c2p:
        dh = h2p - h1p
        dh = dh - 360 if dh > 180 else dh + 360 if dh < -180 else dh
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6)) - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c, s_h = 1 + 0.045 * cp_bar, 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((d_l / s_l) ** 2 + (d_c / s_c) ** 2 + (d_h / s_h) ** 2
                     + r_t * (d_c / s_c) * (d_h / s_h))
