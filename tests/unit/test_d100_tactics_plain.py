"""d100 competent AI: the decision's shortcuts answer as the plain computation (issue 5's target, logs unchanged).

The shortcuts (systems/d100/tactics.py): a shot's weighed reactions (the target's best reaction and the harm the
shot does through it) kept for the fight by all they are made from (the shooter's modified skill, the weapon's
damage, the mode, the target, its HP and its possible reactions with their modified skills), so another shooter
as skilled or a later decision reads them again; in a decision, what depends on the shooter and weapon alone read
once a weapon and a foe's defence once a foe; a hit's worth read once per damage reduction; when the foes are few,
the candidate targets read from one list of them all by (distance, id) instead of the crowd's searches.

Each fight test plays real fights (the corridor, the duel, the siege's first rounds, a siege mixed with shields,
stunners, sealed armour, passive foes and a cramped zone, a crowded siege of more foes than the crowd calls few)
with every call of the shortened functions checked against the plain computation written out here as it was
before them, and counts that the shortcuts were taken (a check that never meets them proves nothing); each break
test breaks a shortcut on purpose and sees the check fail. Floats must be equal, not close.
"""

from __future__ import annotations

import copy
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems.d100 import resolution as R
from fracas.systems.d100 import tactics as T
from fracas.systems.d100.odds import TEST_BANDS
from fracas.systems.d100.rules import ALL_DAMAGE
from fracas.systems.d100.sheet import Weapon

ROOT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------- the plain computation (as before the shortcuts)


def plain_reaction_outcomes(enc: Encounter, defender: str, choice: str) -> list[tuple[float, int, int]]:
    if choice == "none":
        return [(1.0, 0, 0)]
    r = R.rules(enc)
    spec = R.sheet(enc, defender)
    skill = spec.skills.get(choice, 0) + sum(m.value for m in R.standing_modifiers(enc, defender, choice))
    skill += r.further_reaction * R.reactions_used(enc, defender)
    odds = T.reaction_odds(skill)
    if choice == "dodge":
        return [(p, r.dodge_modifiers.get(band, 0), 0) for band, p in zip(TEST_BANDS, odds, strict=True)]
    obj = spec.parry_object or "improvised"
    base = r.parry_reduction.get(obj, 0) if obj in r.shields else 0
    num, den = r.parry_critical_multiplier
    critical = ALL_DAMAGE if base == ALL_DAMAGE else base * num // den
    return [(odds[0], 0, critical), (odds[1], 0, base), (odds[2], 0, 0), (odds[3], r.parry_fumble_bonus, 0)]


def plain_harm(enc: Encounter, shooter: str, weapon: Weapon, mode: str, target: str, choice: str) -> float:
    skill = R.sheet(enc, shooter).skills.get(weapon.skill, 0)
    skill += sum(m.value for m in R.standing_modifiers(enc, shooter, "attack"))
    total = 0.0
    for p, modifier, reduction in plain_reaction_outcomes(enc, target, choice):
        if p <= 0.0:
            continue
        plain, critical = T.hit_worth(enc, weapon, mode, target, reduction)
        if plain <= 0.0 and critical <= 0.0:
            continue
        p_critical, p_plain = T.attack_odds(skill + modifier)
        total += p * (p_critical * critical + p_plain * plain)
    return total


def plain_best_reaction(
    enc: Encounter, defender: str, attacker: str, weapon: Weapon, mode: str, order: Sequence[str] = ("dodge", "parry")
) -> str:
    best, least = "none", plain_harm(enc, attacker, weapon, mode, defender, "none")
    for choice in T.reactions_possible(enc, defender, order):
        h = plain_harm(enc, attacker, weapon, mode, defender, choice)
        if h < least - T.EPSILON:
            best, least = choice, h
    return best


def plain_fire_chance(enc: Encounter, shooter: str, weapon: Weapon) -> float:
    panne = min(max(weapon.panne - 1, 0), 100) / 100
    luck = enc.state.actors[shooter].resources.get("luck", 0)
    return panne + (1.0 - panne) * T.success_chance(luck)


def plain_shot_worth(enc: Encounter, shooter: str, weapon: Weapon, mode: str, target: str) -> float:
    passive = R.sheet(enc, target).policy == "passive"
    choice = "none" if passive else plain_best_reaction(enc, target, shooter, weapon, mode)
    return plain_fire_chance(enc, shooter, weapon) * plain_harm(enc, shooter, weapon, mode, target, choice)


def plain_best_shot(
    enc: Encounter, actor: str, weapons: Sequence[Weapon], preferred: str, foes: Sequence[ActorState]
) -> T.Shot | None:
    here = R.pos(enc.state.actors[actor])
    best: tuple[float, int, int, str] | None = None
    found: T.Shot | None = None
    for index, weapon in enumerate(weapons):
        for foe in foes:
            for mode in T.modes_in_order(weapon, preferred):
                worth = plain_shot_worth(enc, actor, weapon, mode, foe.id)
                if worth > T.EPSILON:
                    break
            else:
                continue
            key = (-worth, R.distance(here, R.pos(foe)), index, foe.id)
            if best is None or key < best:
                best, found = key, T.Shot(worth=worth, weapon=weapon.name, mode=mode, target=foe.id)
    return found


def plain_candidates(enc: Encounter, actor: str) -> list[str]:
    me = enc.state.actors[actor]
    here = (me.x, me.y)
    field = enc.battlefield
    actors = enc.state.actors
    crowd = enc.crowd
    sides = crowd.other_sides(me.side)
    looked = crowd.nearest_few(me.x, me.y, sides, T.LOOKED_AT)

    def sees(fid: str) -> bool:
        return not field.opaque or field.sees(here, R.pos(actors[fid]))

    chosen = [fid for fid in looked if sees(fid)][: T.NEAREST]
    for grade in crowd.grades(sides)[: T.MOST_HURT]:
        if grade < 0:
            break
        found = crowd.nearest(me.x, me.y, sides, grades=(grade,))
        if found is not None:
            fid = found[1][0]
            if fid not in chosen and sees(fid):
                chosen.append(fid)
    return sorted(chosen)


# ----------------------------------------------------------------- the fights


def _siege(rounds: int, *, mixed: bool = False, crowded: bool = False, alike: bool = False) -> Any:
    """The long siege's first rounds; ``mixed``: with shields, stunners, sealed armour, passive foes and a cramped
    zone; ``crowded``: each side doubled (more foes than the crowd calls few); ``alike``: every hit a loss of 4 or 5
    (foes share a grade); the last two with the actors at many distances."""
    doc = tomllib.loads(read_scenario_text(ROOT / "tests" / "data" / "d100_siege.toml"))
    doc["round_limit"] = rounds
    actors = doc["actors"]
    if mixed:
        doc["map"]["cramped"] = [{"name": "crates", "x": 0, "y": 0, "w": 40, "h": 9}]
        for i, a in enumerate(actors):
            if i % 5 != 4:  # either shield and the same skill: only the shield tells them apart
                a["parry_object"] = "riot_shield" if i // 2 % 2 else "small_shield"
                a["skills"]["parry"] = 50
            if i % 4 == 1:
                a["weapons"][0]["modes"] = ["stun", "lethal"]
            if i % 7 == 3:
                a["sealed"] = True
            if i % 9 == 4:
                a["policy"] = "passive"
            if i % 3 == 2:
                a["hp"] = 14
            if i % 4 == 3:
                a["armour"] = "heavy_clothing"
    for i, a in enumerate(actors):
        if alike:
            a["weapons"][0]["damage"] = "1d2+6"  # a loss of 4 or 5 through the stab vest: foes share a grade
        if mixed or alike:
            a["position"][0] += (i * 7) % 13 * (1 if a["side"] == "security" else -1)  # many distances
    if crowded:
        twins = []
        for a in actors:
            twin = copy.deepcopy(a)
            twin["id"] = f"{a['id']}b"
            twin["position"] = [a["position"][0] + (1 if a["side"] == "security" else -1), a["position"][1] + 1]
            twins.append(twin)
        doc["actors"] = actors + twins
    return build_scenario("d100_siege.toml", tomli_w.dumps(doc))


def _scenario(name: str) -> Any:
    path = ROOT / "scenarios" / "d100" / f"{name}.toml"
    return build_scenario(str(path), read_scenario_text(path))


#: (what, scenario, seeds)
FIGHTS = [
    ("corridor", lambda: _scenario("corridor"), (1, 2, 3)),
    ("duel", lambda: _scenario("duel"), (1, 2)),
    ("siege", lambda: _siege(3), (1,)),
    ("mixed siege", lambda: _siege(4, mixed=True), (1, 2)),
    ("crowded siege", lambda: _siege(2, crowded=True), (1,)),
    ("alike siege", lambda: _siege(6, alike=True), (1, 2)),
]


def checked_fights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, Counter[str]]]:
    """Play the fights with each shortened function checked against its plain computation; yields per fight the
    calls checked and the shortcuts met (an AssertionError names the first difference)."""
    seen: Counter[str] = Counter()
    best_shot, best_reaction, candidates = T.best_shot, T.best_reaction, T.candidates
    weigh = T._weigh_reactions

    def checked_best_shot(enc, actor, weapons, preferred, foes):  # type: ignore[no-untyped-def]
        got = best_shot(enc, actor, weapons, preferred, foes)
        assert got == plain_best_shot(enc, actor, weapons, preferred, foes), (actor, [f.id for f in foes])
        seen["best shots"] += 1
        # every shot the decision read from the kept ones (not only the one it took) is the plain computation's
        kept = T._kept(enc)
        for weapon in weapons:
            skill = T.attack_skill(enc, actor, weapon)
            for foe in foes:
                possible = T.expected_defence(enc, foe.id)
                for n, mode in enumerate(T.modes_in_order(weapon, preferred)):
                    key = (skill, weapon.damage, mode, T._sheet_number(enc, foe.id), foe.hp, foe.hp_max, possible)
                    if n > 0 and key not in kept:  # the first mode was worth something: this one was not asked
                        continue
                    passive = R.sheet(enc, foe.id).policy == "passive"
                    choice = "none" if passive else plain_best_reaction(enc, foe.id, actor, weapon, mode)
                    plain = (choice, plain_harm(enc, actor, weapon, mode, foe.id, choice))
                    assert kept.get(key) == plain, (actor, foe.id, key)
                    seen["shots checked"] += 1
        return got

    def checked_best_reaction(enc, defender, attacker, weapon, mode, order=("dodge", "parry")):  # type: ignore[no-untyped-def]
        got = best_reaction(enc, defender, attacker, weapon, mode, order)
        assert got == plain_best_reaction(enc, defender, attacker, weapon, mode, order), (defender, attacker)
        for choice in ("none", *T.reactions_possible(enc, defender, order)):
            assert T.harm(enc, attacker, weapon, mode, defender, choice) == plain_harm(
                enc, attacker, weapon, mode, defender, choice
            ), (defender, attacker, choice)
        seen["reactions"] += 1
        seen["reactions " + got] += 1
        return got

    def checked_candidates(enc, actor):  # type: ignore[no-untyped-def]
        got = candidates(enc, actor)
        assert [f.id for f in got] == plain_candidates(enc, actor), actor
        me = enc.state.actors[actor]
        few = enc.crowd.all_near(me.x, me.y, enc.crowd.other_sides(me.side)) is not None
        seen["candidates, few foes" if few else "candidates, many foes"] += 1
        seen["candidates, a hurt foe beyond the nearest"] += few and len(got) > T.NEAREST
        if few:
            sides = enc.crowd.other_sides(me.side)
            grades = [enc.crowd.placed[f][1] for f in (f.id for f in got) if enc.crowd.placed[f][1] >= 0]
            seen["candidates, a grade held by several foes"] += any(
                len(enc.crowd.within(me.x, me.y, sides, 10**6, grades=(g,))) > 1 for g in grades
            )
        return got

    def counted_weigh(enc, skill, weapon, mode, target, possible):  # type: ignore[no-untyped-def]
        seen["shots weighed anew"] += 1
        seen["sheets shared"] = len(enc.scratch["d100_tactics_sheets"][0]) - len(enc.scratch["d100_tactics_sheets"][1])
        return weigh(enc, skill, weapon, mode, target, possible)

    monkeypatch.setattr(T, "best_shot", checked_best_shot)
    monkeypatch.setattr(T, "best_reaction", checked_best_reaction)
    monkeypatch.setattr(T, "candidates", checked_candidates)
    monkeypatch.setattr(T, "_weigh_reactions", counted_weigh)
    for name, scenario, seeds in FIGHTS:
        loaded = scenario()
        for seed in seeds:
            seen.clear()
            run_scenario(loaded, seed=str(seed), log_path=tmp_path / f"{name}-{seed}.jsonl")
            yield f"{name} seed {seed}", Counter(seen)


def test_the_shortcuts_answer_as_the_plain_computation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for fight, seen in checked_fights(monkeypatch, tmp_path):
        assert seen["best shots"] > 0 and seen["reactions"] > 0, (fight, seen)
        total += seen
    met = ("candidates, few foes", "candidates, many foes", "candidates, a hurt foe beyond the nearest")
    met += ("candidates, a grade held by several foes",)
    for what in (*met, "reactions dodge", "reactions parry"):
        assert total[what] > 0, (what, total)
    assert total["reactions none"] > 0, total
    # most shots are read again, from another shooter, another target alike or an earlier decision
    assert total["shots weighed anew"] < (total["shots checked"] + total["reactions"]) / 4, total


def _reacted_without_hp(enc: Encounter, skill: int, weapon: Weapon, mode: str, target: str, possible: Any) -> Any:
    """The weighed shots kept without the target's HP (broken: a hurt target's worth changes)."""
    key = (skill, weapon.damage, mode, T._sheet_number(enc, target), possible)
    kept: dict[Any, Any] = enc.scratch.setdefault("broken_reacted", {})
    if key not in kept:
        kept[key] = T._weigh_reactions(enc, skill, weapon, mode, target, possible)
    return kept[key]


def _reacted_without_defence(enc: Encounter, skill: int, weapon: Weapon, mode: str, target: str, possible: Any) -> Any:
    """The weighed shots kept without the target's reactions (broken: a reaction made or a prone target changes it)."""
    a = enc.state.actors[target]
    key = (skill, weapon.damage, mode, T._sheet_number(enc, target), a.hp)
    kept: dict[Any, Any] = enc.scratch.setdefault("broken_reacted", {})
    if key not in kept:
        kept[key] = T._weigh_reactions(enc, skill, weapon, mode, target, possible)
    return kept[key]


def _last_of_each_grade(near: list[tuple[int, str]], placed: dict[str, Any]) -> dict[int, str]:
    """The farthest foe of each grade (broken: the nearest of a grade is shot at)."""
    return {placed[fid][1]: fid for _, fid in near}


def _near_never_asked_again(enc: Encounter, actor: str, me: ActorState, sides: list[str]) -> Any:
    """The few foes by distance kept for the actor whatever happens to them (broken: the fallen stay targets)."""
    kept: dict[str, Any] = enc.scratch.setdefault("broken_near", {})
    if actor not in kept:
        kept[actor] = enc.crowd.all_near(me.x, me.y, sides)
    return kept[actor]


BREAKS = {
    "a shot kept without the target's HP": ("_reacted", _reacted_without_hp),
    "a shot kept without the target's reactions": ("_reacted", _reacted_without_defence),
    "a target's sheet without its armour": (
        "_sheet_parts",
        lambda enc, target: (R.sheet(enc, target).sealed, R.sheet(enc, target).characteristics.CON),
    ),
    "a target's sheet without its parrying object": (
        "_sheet_parts",
        lambda enc, target: (R.sheet(enc, target).sealed, R.sheet(enc, target).armour),
    ),
    "the few foes kept whoever falls": ("_all_near", _near_never_asked_again),
    "the nearest of a grade read as its farthest": ("_first_of_each_grade", _last_of_each_grade),
    "a defence kept without the reactions made this round": (
        "_defence_key",
        lambda enc, defender, order: (defender, tuple(order), tuple(enc.state.actors[defender].conditions)),
    ),
    "a defence kept without the defender's conditions": (
        "_defence_key",
        lambda enc, defender, order: (defender, tuple(order), R.reactions_used(enc, defender)),
    ),
    "a reaction's skill without the further-reaction penalty": (
        "reaction_skill",
        lambda enc, defender, choice: (
            R.sheet(enc, defender).skills.get(choice, 0)
            + sum(m.value for m in R.standing_modifiers(enc, defender, choice))
        ),
    ),
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_the_check_finds_a_broken_shortcut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, broken: str) -> None:
    """Each shortcut broken on purpose: the plain computation answers otherwise, and the check sees it."""
    name, broken_with = BREAKS[broken]
    monkeypatch.setattr(T, name, broken_with)
    # a fallen foe kept among the few is no longer graded by the crowd: the decision fails before the check
    failure = KeyError if name == "_all_near" else AssertionError
    with pytest.raises(failure):
        for _ in checked_fights(monkeypatch, tmp_path):
            pass
