"""Point Zéro's competent AI weighs a bounded number of foes a decision from rules edition 5.

The attack: a crowd where every actor stands next to foes (two sides in alternate cells).
Edition 4's AI scored every firing cell against every foe, so such a fight grew with the cube
of the actors (500 did not finish three rounds in 300 s). Edition 5 weighs the nearest
``tactics.NEAREST_FOES``; a table-sized fight weighs every foe, as before.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.services.batch import build_scenario
from fracas.services.run import run_scenario
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero import tactics as T

ROOT = Path(__file__).resolve().parents[2]


def packed(actors: int, edition: int | None = None) -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from scenario_limits import big_scenario  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "tools"))
    text = str(big_scenario(actors)).replace("round_limit = 1", "round_limit = 2")
    return text if edition is None else text + f"[rules]\nedition = {edition}\n"


def weighed_lists(monkeypatch: pytest.MonkeyPatch, text: str) -> list[tuple[str, list[str], list[str]]]:
    """(actor, the foes its decision weighed, every able foe then) for each decision of the fight."""
    seen: list[tuple[str, list[str], list[str]]] = []
    real = T.foes

    def spy(enc: Encounter, actor: str) -> list[ActorState]:
        got = real(enc, actor)
        me = enc.state.actors[actor]
        able = [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]
        everyone = sorted(able, key=lambda f: (R.distance(R.pos(me), R.pos(f)), f.id))
        seen.append((actor, [f.id for f in got], [f.id for f in everyone]))
        return got

    monkeypatch.setattr(T, "foes", spy)
    run_scenario(build_scenario("packed.toml", text), seed="1")
    return seen


def test_in_a_crowd_a_decision_weighs_only_the_nearest_foes(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = weighed_lists(monkeypatch, packed(120))
    assert len(seen) > 1000
    for actor, weighed, everyone in seen:
        assert set(weighed) == set(everyone[: T.NEAREST_FOES]), actor  # the nearest; ties at the cut by id
        assert weighed == sorted(weighed, key=lambda i: int(i[1:])), actor  # in the state's order (x0, x1, ...)


def test_edition_4_weighs_every_foe(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = weighed_lists(monkeypatch, packed(40, edition=4))
    assert any(len(everyone) > T.NEAREST_FOES for _, _, everyone in seen)
    assert all(set(weighed) == set(everyone) for _, weighed, everyone in seen)


@pytest.mark.parametrize("name", ["duel", "mira_vs_guard", "warehouse"])
def test_a_table_sized_fight_plays_as_under_edition_4(name: str) -> None:
    # no shipped Point Zéro fight has more foes than a decision weighs: edition 5 changes none of them
    text = (ROOT / "scenarios" / "point_zero" / f"{name}.toml").read_text(encoding="utf-8")
    events: list[list[Any]] = [[], []]
    for k, edition in enumerate((4, 5)):
        loaded = build_scenario(f"{name}.toml", text + f"\n[rules]\nedition = {edition}\n")
        run_scenario(loaded, seed="3", listeners=[lambda *entry, k=k: events[k].append(entry[-1])])
    assert len(events[0]) > 30 and events[0][1:] == events[1][1:]  # all but the header, which names the edition
