"""C-TIE-1's order (fracas.core.encounter.tie_broken_order) against the plain grouping it shortcuts.

With no two actors equal on the whole key the sorted order is the answer (nobody rolls off); otherwise the
groups of equal keys roll off. Random initiatives and keys, with many ties and none, are ordered both ways
on two encounters with the same dice: the same order, the same events (roll-offs, TieBroken), the same dice.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from fracas.core.bundled import resolve_scenario
from fracas.core.encounter import Encounter, _roll_off, tie_broken_order
from fracas.core.events import TieBroken
from fracas.core.scenario import load_scenario
from fracas.core.system import get_system
from hypothesis import given, settings
from hypothesis import strategies as st

LOADED = load_scenario(resolve_scenario("point_zero/duel"))


def plain_tie_broken_order(
    enc: Encounter,
    inits: dict[str, int],
    key: Callable[[str], tuple[int, ...]],
    *,
    rule: str,
    sides: int = 6,
    rolloff_rule: str = "C-TIE-1",
    purpose: str = "tie roll-off",
) -> list[str]:
    """The order as it was worked out before the shortcut: every group of equal keys, one by one."""
    out: list[str] = []
    for _, group in itertools.groupby(sorted(inits, key=key), key=key):
        tied = list(group)
        out.extend(_roll_off(enc, tied, sides, rolloff_rule, purpose) if len(tied) > 1 else tied)
    if len(set(inits.values())) < len(inits):
        enc.emit(TieBroken(order=out, rule=rule))
    return out


def ordered(how: Any, inits: dict[str, int], keys: dict[str, tuple[int, ...]]) -> tuple[list[str], list[Any], int]:
    enc = Encounter(get_system(LOADED.spec.system), LOADED, seed="tie")
    seen: list[Any] = []
    enc.listeners.append(lambda seq, rnd, count, sec, ev: seen.append(ev))
    order = how(enc, inits, keys.__getitem__, rule="T-1")
    return order, seen, enc.dice.counter


@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), max_size=12))
@settings(max_examples=300, deadline=None)
def test_the_order_is_the_plain_grouping(actors: list[tuple[int, int]]) -> None:
    inits = {f"a{i:02}": init for i, (init, _) in enumerate(actors)}
    keys = {f"a{i:02}": (-init, -tie) for i, (init, tie) in enumerate(actors)}
    assert ordered(tie_broken_order, inits, keys) == ordered(plain_tie_broken_order, inits, keys)
