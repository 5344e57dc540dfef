"""Colour strings to RGBA floats."""
from __future__ import annotations


def parse_colour(s: str) -> tuple[float, float, float, float]:
    """"#rrggbb" or "#rrggbbaa" → (r, g, b, a) in 0..1."""
    h = s.lstrip("#")
    vals = [int(h[i:i + 2], 16) / 255.0 for i in range(0, len(h), 2)]
    return tuple(vals + [1.0] * (4 - len(vals)))  # type: ignore[return-value]
