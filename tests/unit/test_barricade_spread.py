"""The barricade is a fight, not a queue: the dead spread round the living (ZC-MOVE-1, rules edition 5).

Since walls landed, the dead of scenarios/zcorps/barricade.toml jammed at the barricade's end:
each stepped only to a cell nearer its nearest survivor, so the one at the gap stopped
the others, and two dead taking turns grabbing the same survivor each left the other
biting nobody, round after round. Edition 5 sends them round to a free side of a survivor
and leaves a held survivor to its holder; edition 4 still plays the old way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS
from fracas.core import events as E
from fracas.core.battlefield import Battlefield
from fracas.core.log import iter_log
from fracas.core.scenario import load_scenario
from fracas.services.run import run_scenario
from fracas.systems.zcorps import policies as zcorps_policies

BARRICADE = SCENARIOS / "zcorps" / "barricade.toml"


def events(log: Path) -> list[Any]:
    return [e.ev for e in iter_log(log) if isinstance(e, E.Entry)]


def barricade_fight(tmp_path: Path, edition: int) -> list[Any]:
    """The barricade with survivors who stand and hold (the walk of the dead alone decides who they reach)."""
    text = BARRICADE.read_text(encoding="utf-8")
    text = text.replace('policy = "cautious"', 'policy = "scripted"\nscript = [{ action = "hold" }]')
    text = text.replace("round_limit = 20\n", f"round_limit = 12\n[rules]\nedition = {edition}\n")
    path = tmp_path / f"barricade-{edition}.toml"
    path.write_text(text, encoding="utf-8")
    log = tmp_path / f"barricade-{edition}.jsonl"
    run_scenario(path, seed="3", log_path=log)
    return events(log)


def test_nobody_steps_onto_or_squeezes_through_the_barricade() -> None:
    spec = load_scenario(BARRICADE).spec
    field = Battlefield(spec.map)
    where = {a.id: (a.position[0], a.position[1]) for a in spec.actors}
    steps = 0
    for ev in events(BARRICADE.with_suffix("").with_suffix(".expected.jsonl")):
        if isinstance(ev, E.Moved):
            cell = (ev.x, ev.y)
            assert cell not in field.wall_at, f"{ev.actor} stands on the barricade at {cell}"
            assert field.can_step(where[ev.actor], cell), f"{ev.actor}: {where[ev.actor]} -> {cell}"
            where[ev.actor] = cell
            steps += 1
    assert steps > 50


def survivors_reached(evs: list[Any]) -> set[str]:
    """The survivors the dead grabbed or bit at least once."""
    return {
        ev.target
        for ev in evs
        if isinstance(ev, E.ActionDeclared) and ev.actor.startswith("z") and ev.action in ("bite", "manoeuvre")
    }


def regrabs(evs: list[Any]) -> int:
    """Grabs declared at a survivor another zombie holds (ZC-BRAWL-1 keeps one holder: the grab takes the hold)."""
    ids = [a.id for a in load_scenario(BARRICADE).spec.actors]
    holder: dict[str, str] = {}
    found = 0
    for ev in evs:
        if isinstance(ev, E.ConditionSet) and ev.condition == "grabbed":
            holder[ev.actor] = ids[ev.value]
        elif isinstance(ev, E.ConditionCleared) and ev.condition == "grabbed":
            holder.pop(ev.actor, None)
        elif isinstance(ev, E.ActionDeclared) and ev.action == "manoeuvre" and ev.target in holder:
            found += holder[ev.target] != ev.actor
    return found


def test_without_the_one_holder_reading_the_dead_take_holds_from_each_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack on the check below: ignore who holds whom, and the dead re-grab each other's victims."""
    monkeypatch.setattr(zcorps_policies, "_held_by_another", lambda enc, foe, me: False)
    assert regrabs(barricade_fight(tmp_path, 5)) > 0


def test_the_dead_go_round_to_every_survivor_instead_of_queueing(tmp_path: Path) -> None:
    old, new = barricade_fight(tmp_path, 4), barricade_fight(tmp_path, 5)
    # edition 4: the queue at the barricade's ends reaches two of the four survivors
    assert len(survivors_reached(old)) <= 2
    assert len(survivors_reached(new)) == 4
    # no bite lost to a hold another grab took over (the dead leave a held survivor to its holder)
    assert not [
        ev for ev in new if isinstance(ev, E.ActionLost) and ev.actor.startswith("z") and "no longer held" in ev.reason
    ]

    assert regrabs(new) == 0

    def held(evs: list[Any]) -> set[str]:
        return {ev.actor for ev in evs if isinstance(ev, E.ConditionSet) and ev.condition == "grabbed"}

    # every survivor is in a zombie's hold at some point, not left alone behind the queue
    assert len(held(old)) <= 2 and held(new) == {"rosa", "marcus", "yumi", "hal"}


# ------------------------------------------------------------ the walk to a free side


def field_of(width: int, height: int, walls: list[tuple[int, int, int, int]]) -> Battlefield:
    class Wall:
        def __init__(self, x: int, y: int, w: int, h: int) -> None:
            self.x, self.y, self.w, self.h, self.height, self.name, self.cover = x, y, w, h, "low", "wall", "half"

    class Map:
        pass

    m: Any = Map()
    m.width, m.height, m.cover, m.walls = width, height, [], [Wall(*w) for w in walls]
    return Battlefield(m)


def test_a_walk_to_a_free_side_goes_round_the_wall_and_the_crowd() -> None:
    field = field_of(12, 12, [(5, 2, 1, 8)])  # a wall x = 5, y = 2..9
    survivor = (4, 5)
    # straight through is a wall; the sides next to it at x = 3 are free
    path, k = field.walk_to_reach((7, 5), [survivor], 20) or ([], -1)
    assert k == 0 and path[-1] in {(3, 4), (3, 5), (3, 6), (4, 4), (4, 6)}
    assert not set(path) & set(field.wall_at)
    # the shortest walk (round the north end, 4 steps to (5, 1), 3 down to (4, 4)), as the walls' own
    # breadth-first distances measure it to the nearest free side
    sides = [(3, 4), (3, 5), (3, 6), (4, 4), (4, 6)]
    assert len(path) == 7 == min(field.walk_distance((7, 5), side) or 99 for side in sides)
    assert all(field.can_step(a, b) for a, b in zip([(7, 5), *path], path, strict=False))
    # the crowd blocks: with (4, 1) .. (6, 1) taken, the walk goes round the south end
    blocked = {(4, 1), (5, 1), (6, 1), (4, 0), (5, 0), (6, 0)}
    path2, _ = field.walk_to_reach((7, 5), [survivor], 20, blocked) or ([], -1)
    assert path2 and not set(path2) & blocked and path2[-1][1] >= 5
    # the same question, the same answer
    assert field.walk_to_reach((7, 5), [survivor], 20, blocked) == (path2, 0)


def test_no_walk_when_every_side_is_taken_or_too_far() -> None:
    field = field_of(12, 12, [])
    survivor = (6, 6)
    sides = {(6 + dx, 6 + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)} - {survivor}
    assert field.walk_to_reach((0, 0), [survivor], 20, sides) is None
    assert field.walk_to_reach((0, 0), [survivor], 3) is None  # the nearest side is 5 steps away
    assert field.walk_to_reach((5, 5), [survivor], 3) is None  # already at arm's reach: nothing to walk


def test_of_equally_near_sides_the_first_target_wins_then_the_lowest_cell() -> None:
    field = field_of(12, 12, [])
    path, k = field.walk_to_reach((5, 5), [(8, 5), (2, 5)], 10) or ([], -1)
    assert (k, len(path), path[-1]) == (0, 2, (7, 4))
    path, k = field.walk_to_reach((5, 5), [(2, 5), (8, 5)], 10) or ([], -1)
    assert (k, len(path), path[-1]) == (0, 2, (3, 4))
