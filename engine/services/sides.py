"""One colour per side, the same in the viewer and in every batch plot.

A side whose id or name says a colour (``red``, ``Blue team``) is drawn in
that colour; the others take the palette's colours in scenario order,
skipping those already taken. A side keeps its colour whatever the plot
(win bars, sweep curves) and whatever the order its figures come in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

#: The palette (matplotlib's "tab" colours), in the order sides without a colour name take them.
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#e377c2")

#: Colour words a side may be named by.
NAMED = {
    "blue": "#1f77b4",
    "red": "#d62728",
    "green": "#2ca02c",
    "purple": "#9467bd",
    "orange": "#ff7f0e",
    "brown": "#8c564b",
    "cyan": "#17becf",
    "pink": "#e377c2",
    "yellow": "#bcbd22",
    "grey": "#7f7f7f",
    "gray": "#7f7f7f",
    "black": "#222222",
    "white": "#bbbbbb",
}

#: Draws (no winner) in every plot.
DRAW = "#7f7f7f"


def side_colours(sides: Sequence[str], names: Mapping[str, str] | None = None) -> dict[str, str]:
    """``{side id: colour}``: named colours first, then the palette in scenario order."""
    names = names or {}
    out: dict[str, str] = {}
    for side in sides:
        words = re.findall(r"[a-z]+", f"{side} {names.get(side, '')}".lower())
        named = next((NAMED[w] for w in words if w in NAMED), None)
        if named is not None and named not in out.values():
            out[side] = named
    free = [c for c in PALETTE if c not in out.values()]
    for side in sides:
        if side not in out:
            out[side] = free.pop(0) if free else PALETTE[len(out) % len(PALETTE)]
    return {side: out[side] for side in sides}
