"""Point Zéro competent AI: the decision's shortcuts answer as the plain computation (issue 5, logs unchanged).

The shortcuts (systems/point_zero/tactics.py): a decision asked again with every input it reads the same
(:func:`tactics.decision_key`: the actors' states, the round's initiatives and declarations) answers as it did,
in fights of :data:`tactics.SAME_DECISION_ACTORS` actors or fewer; from rules edition 5, a side with no more able
foes than a decision weighs (:data:`tactics.NEAREST_FOES`) weighs them all, from one list a side for the round
(:func:`tactics.foes`), not the nearest asked of the crowd for each actor; each cell's nearest cover cells are
kept for the fight (:func:`tactics._cover_cells`); what a foe's attacks on an actor owe to the two alone is kept
for the round's decisions (:func:`tactics._foe_attacks`), each cell's threat read from it; each cell's light and
cover modifiers are kept for the fight (:func:`tactics._cell_modifiers`).

Each fight test plays real fights (every Point Zéro scenario and variants of the endless brawl, under the default
rules edition and editions 3 to 5) with every decision and every list of foes weighed checked against the plain
computation, and counts that the shortcuts were taken (a check that never meets them proves nothing); one test
breaks each shortcut on purpose and sees the check fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems.point_zero import tactics

ROOT = Path(__file__).resolve().parents[2]
ENDLESS = "tests/data/pz_endless.toml"
#: The endless brawl's two, 29 m apart and slower: five rounds of sprints toward each other, then the stalemate
#: (a decision key that left out where they stand would answer a stalemate round as an approach round)
APPROACH = (
    ("round_limit = 10000", "round_limit = 40"),
    ("width = 10", "width = 30"),
    ("position = [4, 4]", "position = [0, 4]"),
    ("position = [5, 4]", "position = [29, 4]"),
    ("INIT = 2, DEP = 12", "INIT = 1, DEP = 3"),
)
#: The endless brawl's two unarmoured and deft enough to land blows: Shock wounds, holds and blows
SPARRING = (
    ("round_limit = 10000", "round_limit = 80"),
    ('armour = "heavy_combat"', 'armour = "none"'),
    ("ADR = 2", "ADR = 3"),
)
#: The endless brawl with fifteen unarmoured brawlers more (17 actors, more than are kept decisions for): one
#: side has the most foes a decision weighs (8), the other one more (its nearest 8 weighed, rules edition 5 on)
EXTRA = "".join(
    f'[[actors]]\nid = "x{i}"\nside = "{"ab"[i % 2]}"\nposition = [{i % 10}, {i // 10 + 6}]\n'
    "attributes = { PER = 2, ADR = 2, VIG = 5, INIT = 2, DEP = 12 }\nskills = { brawl = 3 }\n"
    for i in range(15)
)
CROWD = (("round_limit = 10000", "round_limit = 3"), ('[[actors]]\nid = "ann"', EXTRA + '[[actors]]\nid = "ann"'))
#: (scenario file, changes to its text, seeds, rules editions (None: the scenario's own))
FIGHTS = [
    (ENDLESS, CROWD, (1,), (None, 4)),
    (ENDLESS, APPROACH, (1, 2), (None, 4)),
    ("scenarios/point_zero/duel.toml", (), (1, 2, 3), (None, 3, 5)),
    ("scenarios/point_zero/mira_vs_guard.toml", (), (1, 2), (None, 4)),
    ("scenarios/point_zero/warehouse.toml", (), (1, 2), (None, 5)),
    (ENDLESS, (("round_limit = 10000", "round_limit = 60"),), (1, 2), (None, 4)),
    (ENDLESS, SPARRING, (1, 2, 3), (None,)),
]


def _scenario(file: str, changes: tuple[tuple[str, str], ...], edition: int | None) -> object:
    text = read_scenario_text(ROOT / file)
    for old, new in changes:
        assert old in text, (file, old)
        text = text.replace(old, new)
    if edition is not None:
        text += f"\n[rules]\nedition = {edition}\n"
    return build_scenario(file, text)


def plain_cover_cells(enc: Encounter, here: tactics.Cell) -> list[tactics.Cell]:
    """The nearest cell of each cover zone (the lowest (x, y) of equally near cells), as before it was kept."""
    out = []
    hx, hy = here
    for z in enc.scenario.map.cover:
        if z.w <= 0 or z.h <= 0:
            continue
        x = min(max(hx, z.x), z.x + z.w - 1)
        y = min(max(hy, z.y), z.y + z.h - 1)
        out.append((x, y))
    return out


def plain_threat_at(enc: Encounter, actor: str, cell: tactics.Cell, sprinting: bool) -> float:
    """Each foe's best attack at ``cell``, every part asked again for each cell, as before the foes' attacks were
    kept for the round."""
    T, R = tactics, tactics.R
    me = enc.state.actors[actor]
    r = R.rules(enc)
    total = 0.0
    for f in T.foes(enc, actor):
        best = 0.0
        fpos = R.pos(f)
        for w in T.ready_ranged(enc, f.id):
            if R.distance(fpos, cell) > w.bands.extreme:
                continue
            diff = T.shot_difficulty(enc, f.id, w, me, fpos, target_cell=cell)
            if diff is None:
                continue
            if sprinting:
                diff += r.sprinting_target
            p = T.p_success(R.sheet(enc, f.id).skills.get(w.skill, 0), T._keep(enc, f.id, "PER"), diff)
            best = max(best, p * T.expected_harm(enc, f.id, w, me))
        if R.distance(fpos, cell) - 1 <= R.free_move(enc, f.id):
            w = T.melee_weapon(enc, f.id)
            level = R.sheet(enc, actor).skills.get(w.skill, 0)
            diff = r.melee_base + level + T._light_at(enc, cell)
            p = T.p_success(R.sheet(enc, f.id).skills.get(w.skill, 0), T._keep(enc, f.id, "ADR"), diff)
            best = max(best, p * T.expected_harm(enc, f.id, w, me))
        total += best
    return total


def plain_foes(enc: Encounter, actor: str) -> list[str]:
    """Every able foe (rules edition 4 and before), or the :data:`tactics.NEAREST_FOES` nearest by (distance, id),
    in the state's order."""
    me = enc.state.actors[actor]
    able = [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]
    if tactics.R.rules(enc).edition >= tactics.BOUNDED_EDITION:
        nearest = sorted(able, key=lambda f: (max(abs(f.x - me.x), abs(f.y - me.y)), f.id))[: tactics.NEAREST_FOES]
        able = [a for a in able if a in nearest]
    return [a.id for a in able]


def checked_fights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, Counter[str]]]:
    """Play the fights with every decision checked against the plain computation; yields per fight the
    decisions checked and the shortcuts met (an AssertionError names the first difference)."""
    seen: Counter[str] = Counter()
    choose = tactics.choose
    plain = tactics._choose

    def checked_choose(enc: Encounter, actor: str, style: tactics.Style) -> tactics.Option:
        key = tactics.decision_key(enc, actor, style)
        kept = enc.scratch.get(tactics.DECISIONS, {})
        again = key is not None and key in kept
        got = choose(enc, actor, style)
        assert got == plain(enc, actor, style), (enc.round, actor)
        seen["decisions"] += 1
        seen["decisions answered again"] += again
        return got

    foes = tactics.foes

    def checked_foes(enc: Encounter, actor: str) -> list[ActorState]:
        got = foes(enc, actor)
        assert [f.id for f in got] == plain_foes(enc, actor), (enc.round, actor)
        seen["foe lists"] += 1
        me = enc.state.actors[actor]
        few = sum(1 for a in enc.state.actors.values() if a.side != me.side and a.can_act()) <= tactics.NEAREST_FOES
        seen["few foes, the side's list"] += few and tactics.R.rules(enc).edition >= tactics.BOUNDED_EDITION
        seen["more foes, the nearest"] += not few and tactics.R.rules(enc).edition >= tactics.BOUNDED_EDITION
        return got

    cover_cells = tactics._cover_cells

    def checked_cover_cells(enc: Encounter, here: tactics.Cell) -> tuple[tactics.Cell, ...]:
        again = here in enc.scratch.get(tactics.COVER_CELLS, {})
        got = cover_cells(enc, here)
        assert list(got) == plain_cover_cells(enc, here), (enc.round, here)
        seen["cover cells read again"] += again and bool(got)
        return got

    threat_at = tactics._threat_at

    def checked_threat_at(enc: Encounter, actor: str, cell: tactics.Cell, sprinting: bool) -> float:
        got = threat_at(enc, actor, cell, sprinting)
        assert got == plain_threat_at(enc, actor, cell, sprinting), (enc.round, actor, cell, sprinting)
        seen["threats"] += 1
        seen["threats of a shot"] += any(tactics.ready_ranged(enc, f.id) for f in tactics.foes(enc, actor))
        return got

    cell_modifiers = tactics._cell_modifiers

    def checked_cell_modifiers(enc: Encounter, cell: tactics.Cell) -> tuple[int, int]:
        again = cell in enc.scratch.get(tactics.CELL_MODIFIERS, {})
        got = cell_modifiers(enc, cell)
        r = tactics.R.rules(enc)
        zone = tactics.R.cover_at(enc, cell)
        light = zone.light if zone is not None and zone.light else enc.scenario.map.light
        assert got == (r.light_modifiers.get(light, 0), r.cover_modifiers[zone.level] if zone else 0), cell
        seen["cell modifiers read again"] += again
        seen["cell modifiers of a zone read again"] += again and zone is not None
        return got

    monkeypatch.setattr(tactics, "choose", checked_choose)
    monkeypatch.setattr(tactics, "_cell_modifiers", checked_cell_modifiers)
    monkeypatch.setattr(tactics, "_threat_at", checked_threat_at)
    monkeypatch.setattr(tactics, "_cover_cells", checked_cover_cells)
    monkeypatch.setattr(tactics, "foes", checked_foes)
    for file, changes, seeds, editions in FIGHTS:
        for edition in editions:
            scenario = _scenario(file, changes, edition)
            for seed in seeds:
                seen.clear()
                run_scenario(scenario, seed=str(seed), log_path=tmp_path / "fight.jsonl")  # type: ignore[arg-type]
                yield f"{file} edition {edition} seed {seed}", Counter(seen)


def test_the_shortcuts_answer_as_the_plain_computation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for fight, seen in checked_fights(monkeypatch, tmp_path):
        assert seen["decisions"] > 0, fight
        total += seen
    met = ("decisions", "decisions answered again", "foe lists", "few foes, the side's list", "more foes, the nearest")
    met += ("cover cells read again", "threats", "threats of a shot")
    met += ("cell modifiers read again", "cell modifiers of a zone read again")
    for what in met:
        assert total[what] > 0, (what, total)


def test_a_crowd_keeps_no_decision() -> None:
    """Above :data:`tactics.SAME_DECISION_ACTORS` actors a decision's inputs are not looked at for a key."""
    text = read_scenario_text(ROOT / ENDLESS).replace("round_limit = 10000", "round_limit = 2")
    extra = "".join(
        f'[[actors]]\nid = "x{i}"\nside = "{"ab"[i % 2]}"\nposition = [{i % 10}, {i // 10 + 6}]\n'
        "attributes = { PER = 2, ADR = 2, VIG = 5, INIT = 2, DEP = 12 }\nskills = { brawl = 3 }\n"
        for i in range(tactics.SAME_DECISION_ACTORS - 1)
    )
    encounters: list[Encounter] = []
    choose = tactics._choose

    def spy(enc: Encounter, actor: str, style: tactics.Style) -> tactics.Option:
        encounters.append(enc)
        return choose(enc, actor, style)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tactics, "_choose", spy)
        run_scenario(build_scenario("crowd.toml", text + extra), seed="1")  # type: ignore[arg-type]
    assert encounters and len(encounters[-1].state.actors) > tactics.SAME_DECISION_ACTORS
    assert tactics.DECISIONS not in encounters[-1].scratch


class _KeyWithoutStates:
    """A decision key without the actors' states (where they stand, their wounds): the approach's first rounds
    answer its stalemate's."""

    def encode(self, parts: tuple[object, ...]) -> bytes:
        return _KEY_ENCODER.encode((*parts[:2], None, *parts[3:]))  # (actor, style, states, inits, plans, against)


_KEY_ENCODER = tactics._KEY_ENCODER
_FOE_ATTACKS = tactics._foe_attacks
_CELL_MODIFIERS = tactics._cell_modifiers


def _first_cells(enc: Encounter, here: tactics.Cell) -> tuple[tactics.Cell, ...]:
    """Cover cells kept without the cell they were asked from (broken: the nearest cells move with the actor)."""
    kept: dict[str, tuple[tactics.Cell, ...]] = enc.scratch.setdefault("broken cover cells", {})
    if "first" not in kept:
        kept["first"] = tuple(plain_cover_cells(enc, here))
    enc.scratch.setdefault(tactics.COVER_CELLS, {})[here] = kept["first"]  # counted as read again
    return kept["first"]


#: Each shortcut broken on purpose: (the name in tactics, what stands for it)
BREAKS = {
    "a decision key without the actors' states": ("_KEY_ENCODER", _KeyWithoutStates()),
    "every able foe weighed, however many (the crowd's side with nine)": ("_few_foes", lambda enc, side: True),
    "a foe's attacks kept without the actor they threaten": (
        "_foe_attacks",
        lambda enc, actor, foe: _FOE_ATTACKS(enc, next(iter(sorted(enc.state.actors))), foe),
    ),
    "the first cell's light and cover kept for every cell": (
        "_cell_modifiers",
        lambda enc, cell: enc.scratch.setdefault("broken cell modifiers", _CELL_MODIFIERS(enc, cell)),
    ),
    "the first cell's cover cells kept for every cell": ("_cover_cells", lambda enc, here: _first_cells(enc, here)),
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_the_check_finds_a_broken_shortcut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, broken: str) -> None:
    """Each shortcut broken on purpose: the plain computation answers otherwise, and the check sees it."""
    name, broken_with = BREAKS[broken]
    monkeypatch.setattr(tactics, name, broken_with)
    with pytest.raises(AssertionError):
        for _ in checked_fights(monkeypatch, tmp_path):
            pass


def test_a_declaration_msgspec_cannot_encode_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plug-in policy may declare a plan of its own type (what :class:`tactics.Declared` reads): the decision
    is worked out, not kept, and the fight goes on."""
    text = read_scenario_text(ROOT / ENDLESS).replace("round_limit = 10000", "round_limit = 3")
    seen: list[bytes | None] = []
    choose = tactics.choose

    class OwnPlan:
        """A plan with what a declaration is read for, and nothing msgspec knows how to encode."""

        def __init__(self, plan: Any) -> None:
            self.plan = plan
            self.kind, self.target, self.weapon, self.exit = plan.kind, plan.target, plan.weapon, plan.exit
            self.before, self.after, self.surpass = plan.before, plan.after, plan.surpass

        def acts(self) -> bool:
            return bool(self.plan.acts())

        def text(self, enc: Encounter) -> str:
            return str(self.plan.text(enc))

    def own_plans(enc: Encounter, actor: str, style: tactics.Style) -> tactics.Option:
        declared = enc.scratch.get(tactics.DECLARED, {})
        for aid, plan in list(declared.items()):
            declared[aid] = plan if isinstance(plan, OwnPlan) else OwnPlan(plan)
        seen.append(tactics.decision_key(enc, actor, style))
        return choose(enc, actor, style)

    monkeypatch.setattr(tactics, "choose", own_plans)
    run_scenario(build_scenario("own.toml", text))  # type: ignore[arg-type]
    assert None in seen and any(key is not None for key in seen)  # the first decider of a round sees none
