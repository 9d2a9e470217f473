"""Each built-in policy against a simple odds-aware reference policy written here (issue 16).

The reference plays the duels the way the issue's outside policy did: the
attack with the best exact odds (from here, or after the free move toward
the foe), aiming when that adds 15 points, surpassing only when it adds 10,
never a shot at 0 %, reloading or closing in otherwise. It is registered
through the public plugin route (entry points in the group
``fracas.policies.<system>`` of an installed distribution, docs/plugins.md),
for the tests of this module only.

Each built-in policy plays both seats against it over the same seeds; the
built-in policy must not be beaten by more than 5 points: its win rate
less the reference's, with a 95 % interval printed, may not be below -5.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import register_entry_points
from fracas.core import events as E
from fracas.core.encounter import Encounter
from fracas.core.log import read_log
from fracas.core.system import forget_plugins, get_system
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems.d100 import resolution as DR
from fracas.systems.d100.odds import odds as d100_odds
from fracas.systems.d100.policies import Plan as DPlan
from fracas.systems.point_zero import resolution as PR
from fracas.systems.point_zero.odds import at_least
from fracas.systems.point_zero.policies import Plan as PZPlan
from fracas.systems.point_zero.sheet import MELEE_SKILLS
from fracas.systems.zcorps import resolution as ZR
from fracas.systems.zcorps.odds import success_probability
from fracas.systems.zcorps.resolution import Plan as ZCPlan
from fracas.systems.zcorps.sheet import parse_damage, ranges_of

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = "reference"
Z95 = 1.959963984540054


# ------------------------------------------------------------- Point Zéro


def _pz_odds(
    enc: Encounter, actor: str, weapon: Any, target: Any, cell: tuple[int, int], extra: int, aim: int
) -> float:
    r = PR.rules(enc)
    band = PR.range_band(weapon.bands, PR.distance(cell, (target.x, target.y)))
    if band is None:
        return 0.0
    zone = PR.cover_at(enc, (target.x, target.y))
    light = zone.light if zone is not None and zone.light else enc.scenario.map.light
    difficulty = r.range_difficulty[band] + r.light_modifiers.get(light, 0) + aim
    if zone is not None:
        difficulty += r.cover_modifiers[zone.level]
    dice = PR.sheet(enc, actor).skills.get(weapon.skill, 0) + extra
    keep = PR.effective_attribute(enc, actor, "PER")[0]
    return float(at_least(dice, keep, difficulty)) if dice else 0.0


def pz_reference(enc: Encounter, actor: str) -> PZPlan:
    a = enc.state.actors[actor]
    here = (a.x, a.y)
    foes = [f for f in enc.state.actors.values() if f.side != a.side and f.can_act()]
    guns = [w for w in PR.sheet(enc, actor).weapons if w.skill not in MELEE_SKILLS]
    if not foes or not guns:
        return PZPlan(kind="hold")
    gun = guns[0]
    state = a.weapons.get(gun.name, "ready")
    if state in ("jammed", "dropped"):
        return PZPlan(kind="clear" if state == "jammed" else "pickup", weapon=gun.name)
    if a.ammo.get(gun.name, 0) <= 0:
        return PZPlan(kind="reload", weapon=gun.name) if a.spare.get(gun.name, 0) else PZPlan(kind="hold")
    aimed = a.conditions.get("aiming")
    best: tuple[float, PZPlan] = (0.0, PZPlan(kind="hold"))
    for f in foes:
        index = list(enc.actor_specs).index(f.id)
        aim_now = PR.rules(enc).aim_bonus if aimed == index else 0
        cells = [(here, [])]
        path = PR.path_toward(here, (f.x, f.y), PR.free_move(enc, actor))
        cells += [(path[k - 1], path[:k]) for k in range(1, len(path) + 1) if path[k - 1] != (f.x, f.y)]
        for cell, before in cells:
            p = _pz_odds(enc, actor, gun, f, cell, 0, aim_now if not before else 0)
            extra = 0
            if PR.worst_level(a) < 2 and _pz_odds(enc, actor, gun, f, cell, 1, 0) - p >= 0.10:
                extra, p = 1, _pz_odds(enc, actor, gun, f, cell, 1, 0)
            if p > best[0]:
                best = (p, PZPlan(kind="attack", target=f.id, weapon=gun.name, before=list(before), surpass=extra))
        p_aim = _pz_odds(enc, actor, gun, f, here, 0, PR.rules(enc).aim_bonus)
        if aimed != index and p_aim >= best[0] + 0.15:
            best = (p_aim - 0.15, PZPlan(kind="aim", target=f.id))
    if best[0] > 0.0:
        return best[1]
    nearest = min(foes, key=lambda f: (PR.distance(here, (f.x, f.y)), f.id))
    d = PR.distance(here, (nearest.x, nearest.y))
    return PZPlan(
        kind="sprint", after=PR.path_toward(here, (nearest.x, nearest.y), min(PR.sprint_distance(enc, actor), d - 2))
    )


# ---------------------------------------------------------------- Z-Corps


def _zc_odds(enc: Encounter, actor: str, gun: Any, f: Any, mode: str, aim: int) -> float:
    """The exact odds of a shot at ``f`` (ZC-ATK-1): range, light and cover dice, the mode's difficulty dice,
    the wound and multi-action penalties, aiming; every rolled die averaged over exactly."""
    r = ZR.rules(enc)
    a = enc.state.actors[actor]
    band = ZR.range_band(enc, gun, ZR.distance((a.x, a.y), (f.x, f.y)))
    if band is None:
        return 0.0
    zone = ZR.cover_at(enc, (f.x, f.y))
    light = zone.light if zone is not None and zone.light else enc.scenario.map.light
    cover = ZR.cover_against(enc, a, f)
    up = (r.poor_light_dice if light in ZR.POOR_LIGHT else 0) + (r.cover_dice.get(cover.level, 0) if cover else 0)
    mode_dice = r.firing_modes[mode][0] * (r.semi_auto_max_rounds - 1 if mode == "semi" else 1)
    dice = [1] * up + [-1] * -mode_dice
    sums: dict[int, float] = {0: 1.0}
    for sign in dice:
        step: dict[int, float] = {}
        for t, p in sums.items():
            for face in range(1, 7):
                step[t + sign * face] = step.get(t + sign * face, 0.0) + p / 6
        sums = step
    pool = sum(d for _, d, _ in ZR.wound_penalty(enc, actor)) - a.conditions.get("extra_actions", 0) + aim
    code = ZR.with_dice(ZR.trait(enc, actor, "firearms"), pool)
    if code.dice <= 0:
        return 0.0
    base = r.passive_defence + r.range_modifiers[band]
    return sum(p * float(success_probability(code, max(r.min_difficulty, base + v))) for v, p in sums.items())


def zc_reference(enc: Encounter, actor: str) -> ZCPlan:
    a = enc.state.actors[actor]
    foes = [f for f in enc.state.actors.values() if f.side != a.side and f.can_act()]
    guns = ZR.traits(enc, actor).firearms
    if not foes or not guns:
        return ZCPlan(kind="hold")
    gun = guns[0]
    if a.ammo.get(gun.name, 0) <= 0:
        return ZCPlan(kind="reload", weapon=gun.name) if a.spare.get(gun.name, 0) else ZCPlan(kind="hold")
    # the best odds times the damage dice of the mode (the mode's extra dice count), over each foe and mode
    r = ZR.rules(enc)
    aimed = a.conditions.get("aim_target")
    best: tuple[float, float, str | None, str] = (0.0, 0.0, None, "single")
    for f in foes:
        aim = a.conditions.get("aiming", 0) if aimed == ZR.index_of(enc, f.id) else 0
        for mode in ("single", "semi", "burst", "single_auto"):
            if ZR.mode_legal(enc, actor, gun, mode, 1) is not None or mode not in r.firing_modes:
                continue
            p = _zc_odds(enc, actor, gun, f, mode, aim)
            extra = r.firing_modes[mode][1] * (r.semi_auto_max_rounds - 1 if mode == "semi" else 1)
            value = p * (parse_damage(gun.damage, ZR.trait(enc, actor, "puissance")).dice + extra)
            if value > best[0]:
                best = (value, p, f.id, mode)
    if best[2] is None:
        nearest = min(foes, key=lambda f: (ZR.distance((a.x, a.y), (f.x, f.y)), f.id))
        path = ZR.path_toward(
            (a.x, a.y), (nearest.x, nearest.y), min(ZR.sheet(enc, actor).move, 10), stop=ranges_of(gun)[2]
        )
        return ZCPlan(kind="move", targets=[nearest.id], path=path)
    # aim when the die adds 15 points to a shot under one half
    target = enc.state.actors[best[2]]
    if best[1] < 0.5 and a.conditions.get("aiming", 0) < r.aim_max_dice:
        aim = a.conditions.get("aiming", 0) if aimed == ZR.index_of(enc, best[2]) else 0
        if _zc_odds(enc, actor, gun, target, best[3], aim + 1) - best[1] >= 0.15:
            return ZCPlan(kind="aim", targets=[best[2]])
    return ZCPlan(kind="shoot", targets=[best[2]], weapon=gun.name, mode=best[3])


# ------------------------------------------------------------------ d100


def d100_reference(enc: Encounter, actor: str) -> DPlan:
    """Shoot the foe in sight with the best exact P(hit) x mean damage through its armour; reload when empty."""
    a = enc.state.actors[actor]
    spec = DR.sheet(enc, actor)
    guns = [w for w in spec.weapons if a.weapons.get(w.name, "ready") == "ready"]
    if not guns:
        return DPlan(kind="nothing")
    gun = guns[0]
    if a.ammo.get(gun.name, 0) <= 0:
        return DPlan(kind="reload", weapon=gun.name) if a.spare.get(gun.name, 0) else DPlan(kind="nothing")
    skill = spec.skills.get(gun.skill, 0) + sum(m.value for m in DR.standing_modifiers(enc, actor, "attack"))
    groups, flat = DR.dice_terms(gun.damage)
    mean = flat + sum(n * (sides + 1) / 2 for n, sides in groups)
    best: tuple[float, str] | None = None
    for f in enc.state.actors.values():
        if f.side == a.side or not f.can_act() or not enc.battlefield.sees((a.x, a.y), (f.x, f.y)):
            continue
        armour = DR.rules(enc).armour.get(DR.sheet(enc, f.id).armour, 0)
        worth = float(d100_odds(skill).p_success) * max(mean - armour, 0.5)
        if best is None or (-worth, f.id) < (-best[0], best[1]):
            best = (worth, f.id)
    if best is None:
        return DPlan(kind="nothing")
    return DPlan(kind="shoot", target=best[1], weapon=gun.name, mode=gun.modes[0])


def _d100_reference_reaction(enc: Encounter, defender: str, attacker: str) -> str:
    """Dodge when the dodge, with its penalties, succeeds half the time; else parry with a shield; else nothing."""
    spec = DR.sheet(enc, defender)
    further = DR.rules(enc).further_reaction * DR.reactions_used(enc, defender)
    if DR.can_dodge(enc, defender) and spec.skills.get("dodge", 0) + further >= 50:
        return "dodge"
    if DR.can_parry(enc, defender) and spec.parry_object in DR.rules(enc).shields:
        return "parry"
    return "none"


d100_reference.reaction = _d100_reference_reaction  # type: ignore[attr-defined]


# ------------------------------------------------------------------- runs

#: The reference policies by system, as entry points name them (this module, importable by its name).
ENTRY_POINTS = {
    "fracas.policies.point_zero": {REFERENCE: f"{__name__}:pz_reference"},
    "fracas.policies.zcorps": {REFERENCE: f"{__name__}:zc_reference"},
    "fracas.policies.d100": {REFERENCE: f"{__name__}:d100_reference"},
}


@pytest.fixture(scope="module")
def reference_installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The reference policies registered through the public plugin route: entry points of an installed
    distribution (a ``dist-info`` on ``sys.path``), exactly as a designer's package would register them."""
    folder = register_entry_points(tmp_path_factory.mktemp("site"), "reference-policies", ENTRY_POINTS)
    sys.path.insert(0, str(folder))
    forget_plugins()
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        forget_plugins()


def _seated(path: Path, seats: dict[str, str]) -> Any:
    """The scenario with each actor's policy replaced (actor id -> policy)."""
    text = read_scenario_text(path)
    out = []
    current: str | None = None
    for line in text.splitlines():
        if line.startswith("id = "):
            current = line.split('"')[1]
        if line.startswith("policy = "):
            continue
        out.append(line)
        if line.startswith("side = ") and current in seats:
            out.append(f'policy = "{seats[current]}"')
    return build_scenario(str(path), "\n".join(out) + "\n")


def duel(system: str, builtin: str, fights: int) -> tuple[int, int, int]:
    """(built-in wins, reference wins, fights) over both seats, seeds 1..fights each."""
    path = ROOT / "scenarios" / system / "duel.toml"
    loaded = build_scenario(str(path), read_scenario_text(path))
    ids = [a.id for a in loaded.spec.actors]
    side_of = {a.id: a.side for a in loaded.spec.actors}
    won = lost = 0
    for first in (builtin, REFERENCE):
        second = REFERENCE if first == builtin else builtin
        seated = _seated(path, {ids[0]: first, ids[1]: second})
        mine = side_of[ids[0]] if first == builtin else side_of[ids[1]]
        for seed in range(1, fights + 1):
            winner = run_scenario(seated, seed=str(seed)).winner
            won += winner == mine
            lost += winner is not None and winner != mine
    return won, lost, 2 * fights


def gap_interval(won: int, lost: int, n: int) -> tuple[float, float, float]:
    """The built-in's win rate less the reference's, with a 95 % normal interval (paired multinomial)."""
    p, q = won / n, lost / n
    gap = p - q
    var = (p + q - gap * gap) / n
    half = Z95 * math.sqrt(max(var, 0.0))
    return gap, gap - half, gap + half


CASES = [
    ("point_zero", "aggressive"),
    ("point_zero", "cautious"),
    ("zcorps", "aggressive"),
    ("zcorps", "cautious"),
    ("d100", "security"),
    ("d100", "raider"),
    ("d100", "aggressive"),
]


@pytest.mark.parametrize(("system", "builtin"), CASES, ids=[f"{s}-{b}" for s, b in CASES])
@pytest.mark.usefixtures("reference_installed")
def test_builtin_policy_is_not_beaten_by_the_reference(system: str, builtin: str) -> None:
    won, lost, n = duel(system, builtin, 100)
    gap, lo, hi = gap_interval(won, lost, n)
    print(f"{system} {builtin} vs reference: {won}-{lost} of {n}, gap {gap:+.1%} [{lo:+.1%}, {hi:+.1%}]")
    assert won + lost > 0
    assert gap >= -0.05, f"{builtin} beaten by the reference by {-gap:.1%} [{lo:+.1%}, {hi:+.1%}] ({won}-{lost} of {n})"


@pytest.mark.slow
@pytest.mark.parametrize(("system", "builtin"), CASES, ids=[f"{s}-{b}" for s, b in CASES])
@pytest.mark.usefixtures("reference_installed")
def test_builtin_policy_is_not_beaten_by_the_reference_over_many_seeds(system: str, builtin: str) -> None:
    won, lost, n = duel(system, builtin, 1000)
    gap, lo, hi = gap_interval(won, lost, n)
    print(f"{system} {builtin} vs reference: {won}-{lost} of {n}, gap {gap:+.1%} [{lo:+.1%}, {hi:+.1%}]")
    assert gap >= -0.05 and hi > -0.05, f"{builtin}: gap {gap:+.1%} [{lo:+.1%}, {hi:+.1%}]"


@pytest.mark.usefixtures("reference_installed")
def test_the_reference_is_registered_and_really_plays(tmp_path: Path) -> None:
    # an adversary check on the harness: the system lists it, the log names it, both seats win some duels
    assert REFERENCE in get_system("point_zero").policies and REFERENCE in get_system("zcorps").policies
    assert REFERENCE in get_system("d100").policies
    path = ROOT / "scenarios" / "point_zero" / "duel.toml"
    seated = _seated(path, {"rook": REFERENCE, "jinx": REFERENCE})
    log = tmp_path / "reference-duel.jsonl"
    run_scenario(seated, seed="1", log_path=log)
    declared = [e.ev for e in read_log(log).entries if isinstance(e.ev, E.ActionDeclared)]
    assert declared and {d.policy for d in declared} == {REFERENCE}
    winners = [run_scenario(seated, seed=str(s)).winner for s in range(1, 41)]
    assert {"red", "blue"} <= set(winners)
