"""Z-Corps ``human`` policy: the legal actions of an action count, offered with their odds.

The list (each entry a :class:`~fracas.systems.zcorps.resolution.Plan`, shown by its
text, the text its ``ActionDeclared`` will carry), distinct by text:

- held (ZC-BRAWL-1): only the escape;
- what the aggressive and the cautious AI would do, first;
- stand up when prone, bite whoever one holds, reload a firearm that is not
  full and has a spare magazine (ZC-FIRE-1);
- for each foe still fighting, nearest first: each single-target firing mode
  legal now with each loaded firearm in range (ZC-FIRE-1), the first of
  them again with high stakes (CP may be bought, ZC-CP-1) and critical
  stakes (Cojones too, ZC-COJ-1), a head shot at the dead (ZC-AIM-1); at
  reach a strike and each manoeuvre (ZC-BRAWL-1), else a move toward it;
  aiming at it (ZC-AIM-1);
- hold.

Odds (attacks only) are the exact probability that the attack test succeeds
as things stand at declaration: the pool with its penalties and aiming
dice, the difficulty with the target's current defences, the range band and
every "+ND" difficulty die (cover, light, firing mode, called shot,
manoeuvre) convolved exactly, ZC-DIFF-1's floor of 3 applied, from
:mod:`fracas.systems.zcorps.odds`; before any CP or Cojones (the stakes only allow
them). An active defence the target may still roll is not in them.

Active defence (ZC-DEF-1) is the human's choice too, asked when an attack on
the actor allows one: "active defence (SKILL) against X, spending an
action", the very text the resolution declares, or "no active defence
against X", which :func:`human_defence` declares itself, so every question
is followed by exactly one ``ActionDeclared`` with ``policy="human"``
(fracas.core.decide's contract). A human takes no extra action (ZC-MULTI-1).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import msgspec
from fracas.core import events as E
from fracas.core.decide import ROLL_CHOICE, Choice, ask_human
from fracas.core.encounter import Encounter
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, success_probability
from fracas.systems.zcorps.rules import FIREARMS

if TYPE_CHECKING:
    from fracas.systems.zcorps.resolution import Plan

HUMAN = "human"
_MULTI = ("semi_multi", "burst_multi")


def legal_plans(enc: Encounter, actor: str) -> list[Plan]:
    """The plans offered to a human for ``actor`` at this action count, distinct by text."""
    from fracas.systems.zcorps.policies import aggressive, cautious, foes

    a = enc.state.actors[actor]
    here = R.pos(a)
    spec = R.sheet(enc, actor)
    r = R.rules(enc)
    if "grabbed" in a.conditions:
        return [R.Plan(kind="escape", targets=[R.actor_at(enc, a.conditions["grabbed"])])]
    plans: list[Plan] = [aggressive(enc, actor), cautious(enc, actor)]
    if r.edition >= 4:  # CP and Cojones are offered roll by roll (asked_roll_by_roll): no stakes on an action
        plans = [msgspec.structs.replace(p, stakes=0) for p in plans]
    if "prone" in a.conditions:
        plans.append(R.Plan(kind="stand"))
    if "grabbing" in a.conditions:
        plans.append(R.Plan(kind="bite", targets=[R.actor_at(enc, a.conditions["grabbing"])]))
    firearms = [w for w in spec.weapons if w.type in FIREARMS]
    for w in firearms:
        if a.ammo.get(w.name, 0) < (w.magazine or 0) and a.spare.get(w.name, 0) > 0:
            plans.append(R.Plan(kind="reload", weapon=w.name))
    melee = next((w.name for w in spec.weapons if w.type == "melee"), None)
    for foe in sorted(foes(enc, actor), key=lambda f: (R.distance(here, R.pos(f)), f.id)):
        d = R.distance(here, R.pos(foe))
        undead = R.sheet(enc, foe.id).undead
        in_sight = R.sees(enc, a, foe)
        for w in firearms:
            if a.ammo.get(w.name, 0) <= 0 or R.range_band(enc, w, d) is None or not in_sight:
                continue
            modes = [
                m
                for m in r.legal_modes.get(w.type, [])
                if m not in _MULTI and R.mode_legal(enc, actor, w, m, 1) is None
            ]
            for m in modes:
                plans.append(R.Plan(kind="shoot", targets=[foe.id], weapon=w.name, mode=m))
            if modes:
                first = modes[0]
                staked = r.edition < 4  # edition 4 on: CP and Cojones are offered roll by roll, not by stakes
                if staked and spec.cp > 0 and a.resources.get("cp", 0) > 0:
                    plans.append(R.Plan(kind="shoot", targets=[foe.id], weapon=w.name, mode=first, stakes=1))
                if staked and (a.resources.get("cp", 0) > 0 or a.resources.get("cojones", 0) > 0):
                    plans.append(R.Plan(kind="shoot", targets=[foe.id], weapon=w.name, mode=first, stakes=2))
                if undead and "head" in r.called_shots:
                    plans.append(R.Plan(kind="shoot", targets=[foe.id], weapon=w.name, mode=first, called="head"))
        if d <= 1 and in_sight:
            plans.append(R.Plan(kind="strike", weapon=melee, targets=[foe.id]))
            for move in r.manoeuvres:
                plans.append(R.Plan(kind="manoeuvre", manoeuvre=move, targets=[foe.id]))
        else:
            path = R.walk(enc, here, R.pos(foe), min(spec.move, 10), stop=1, blocked=R.occupied(enc, actor))
            if path:
                plans.append(R.Plan(kind="move", targets=[foe.id], path=path))
        if firearms and d > 0 and in_sight:
            plans.append(R.Plan(kind="aim", targets=[foe.id]))
    plans.append(R.Plan(kind="hold"))
    seen: dict[str, Plan] = {}
    for p in plans:
        seen.setdefault(p.text(), p)
    return list(seen.values())


# ------------------------------------------------------------------ odds


@lru_cache(maxsize=4096)
def _at_least(dice: int, pips: int, vs: int) -> Fraction:
    return success_probability(DCode(dice, pips), vs)


@lru_cache(maxsize=256)
def _dice_delta(plus: int, minus: int) -> dict[int, Fraction]:
    """Exact distribution of (sum of ``plus`` d6) - (sum of ``minus`` d6)."""
    dist: dict[int, int] = {0: 1}
    for sign in [1] * plus + [-1] * minus:
        step: dict[int, int] = {}
        for v, c in dist.items():
            for face in range(1, 7):
                step[v + sign * face] = step.get(v + sign * face, 0) + c
        dist = step
    space = 6 ** (plus + minus)
    return {v: Fraction(c, space) for v, c in sorted(dist.items())}


def pool_odds(code: DCode, fixed: int, plus: int, minus: int, *, bonus: int = 0, floor: int = 3) -> Fraction:
    """P(code + bonus >= max(floor, fixed + plus d6 - minus d6)), exactly (ZC-DICE-1..ZC-WILD-2, ZC-DIFF-1)."""
    if code.dice <= 0:
        return Fraction(0)
    return sum(
        (
            p * _at_least(code.dice, code.pips, max(floor, fixed + d) - bonus)
            for d, p in _dice_delta(plus, minus).items()
        ),
        Fraction(0),
    )


def _difficulty_dice(enc: Encounter, dice: int, sign: int) -> tuple[int, int, int]:
    """(fixed points, plus dice, minus dice) of a "+ND" / "-ND" difficulty modifier (ZC-COVER-1 and kin)."""
    r = R.rules(enc)
    if r.modifier_dice == "fixed":
        return sign * dice * r.fixed_per_die, 0, 0
    return 0, dice if sign > 0 else 0, dice if sign < 0 else 0


def _pool_dice(enc: Encounter, actor: str, *, agility: bool) -> int:
    """ZC-WOUND-1, ZC-MULTI-1, ZC-BRAWL-1: the dice the actor's roll loses now (as pool_penalties, emitting nothing)."""
    a = enc.state.actors[actor]
    out = sum(d for _, d, _ in R.wound_penalty(enc, actor))
    out -= a.conditions.get("extra_actions", 0) * R.rules(enc).multi_action_dice
    if agility:
        out -= a.conditions.get("off_balance", 0)
    return out


def plan_odds(enc: Encounter, actor: str, plan: Plan) -> float | None:
    """P(the attack test of ``plan`` succeeds) as things stand; None for anything but a shot or a strike."""
    target = plan.target
    if plan.kind not in ("shoot", "strike", "manoeuvre") or target is None or target not in enc.state.actors:
        return None
    r = R.rules(enc)
    a, t = enc.state.actors[actor], enc.state.actors[target]
    base, mods = R.base_difficulty(enc, target)
    fixed, plus, minus = base + sum(m.value for m in mods), 0, 0
    bonus = 0

    def add(dice: int, sign: int) -> None:
        nonlocal fixed, plus, minus
        f, p, m = _difficulty_dice(enc, dice, sign)
        fixed, plus, minus = fixed + f, plus + p, minus + m

    if plan.kind == "shoot":
        weapon = R.weapon_of(enc, actor, plan.weapon)
        metres = R.distance(R.pos(a), R.pos(t))
        band = R.range_band(enc, weapon, metres)
        if band is None or R.mode_legal(enc, actor, weapon, plan.mode, 1) is not None:
            return 0.0
        rmod, bonus = R.range_modifier(enc, weapon, band, metres)
        fixed += rmod.value
        zone = R.cover_at(enc, R.pos(t))
        light = zone.light if zone is not None and zone.light else enc.scenario.map.light
        if light in ("poor", "gloom", "dark"):
            add(r.poor_light_dice, 1)
        cover = R.cover_against(enc, a, t)
        if cover is not None and r.cover_dice.get(cover.level, 0):
            add(r.cover_dice[cover.level], 1)
        diff, _ = r.firing_modes[plan.mode]
        if plan.mode == "semi":
            diff *= R.rounds_needed(enc, actor, weapon, plan.mode, 1) - 1
        elif plan.mode in _MULTI:
            diff = 0  # the first target
        if diff:
            add(abs(diff), 1 if diff > 0 else -1)
        if plan.called:
            add(r.called_shots[plan.called][0], 1)
        skill = "heavy_weapons" if weapon.type == "machine_gun" else "firearms"
        extra = _pool_dice(enc, actor, agility=False)
        if a.conditions.get("aim_target") == R.index_of(enc, target):
            extra += a.conditions.get("aiming", 0)
    else:
        if R.distance(R.pos(a), R.pos(t)) > 1:
            return 0.0
        weapon = R.weapon_of(enc, actor, plan.weapon) if plan.kind == "strike" else R.FISTS
        skill = "melee" if weapon.type == "melee" else "brawl"
        if plan.kind == "manoeuvre" and plan.manoeuvre is not None:
            add(r.manoeuvres[plan.manoeuvre], 1)
        extra = _pool_dice(enc, actor, agility=True)
    if plan.partial:
        extra -= r.partial_defence_dice
    code = R.trait(enc, actor, skill)
    pool = DCode(code.dice + extra, code.pips)
    return _pool_chance(pool.dice, pool.pips, fixed, plus, minus, bonus, r.min_difficulty)


@lru_cache(maxsize=4096)
def _pool_chance(dice: int, pips: int, fixed: int, plus: int, minus: int, bonus: int, floor: int) -> float:
    """:func:`pool_odds` as a float, kept: a crowd's prompt asks the same odds of many foes alike."""
    return float(pool_odds(DCode(dice, pips), fixed, plus, minus, bonus=bonus, floor=floor))


def human(enc: Encounter, actor: str) -> Plan:
    """Ask the human at the table (or the log, on replay) which plan to follow at this action count."""
    offered = [(p, plan_odds(enc, actor, p)) for p in legal_plans(enc, actor)]
    offered = [(p, odds) for p, odds in offered if odds is None or odds > 0] or offered  # no hopeless attack
    choices = [Choice(text=p.text(), odds=odds) for p, odds in offered]
    return offered[ask_human(enc, actor, choices)][0]


# ------------------------------------------------------- active defence


def defence_skill(enc: Encounter, defender: str, *, melee: bool) -> str:
    """ZC-DEF-1: the skill an active defence rolls (as resolution.active_defence picks it)."""
    skills = ("dodge", "brawl", "melee") if melee else ("dodge",)
    return max(skills, key=lambda s: (R.trait(enc, defender, s).dice, R.trait(enc, defender, s).pips))


def human_defence(enc: Encounter, defender: str, attacker: str, *, melee: bool) -> bool:
    """ZC-DEF-1: ask the human whether to spend an action on an active defence against this attack.

    Yes: the resolution declares the defence with the offered text. No: this
    function declares "no active defence against X" itself.
    """
    skill = defence_skill(enc, defender, melee=melee)
    yes = f"active defence ({skill}) against {attacker}, spending an action"
    no = f"no active defence against {attacker}"
    if ask_human(enc, defender, [Choice(text=yes), Choice(text=no)]) == 0:
        return True
    enc.emit(
        E.ActionDeclared(actor=defender, action="no_defence", text=no, target=attacker, policy=HUMAN, rule="ZC-DEF-1")
    )
    return False


# ------------------------------------------------- CP and Cojones, roll by roll


def asked_roll_by_roll(enc: Encounter, actor: str) -> bool:
    """ZC-CP-1 (edition 4 on): a human actor is asked about CP and Cojones at each of its rolls."""
    return R.rules(enc).edition >= 4 and R.traits(enc, actor).policy == HUMAN


def _roll_choice(enc: Encounter, actor: str, question: str, texts: list[str], rule: str) -> int:
    """Ask ``question`` with ``texts`` as the choices, then declare the one taken (ROLL_CHOICE)."""
    index = ask_human(enc, actor, [Choice(text=t, question=question) for t in texts])
    enc.emit(E.ActionDeclared(actor=actor, action=ROLL_CHOICE, text=texts[index], policy=HUMAN, rule=rule))
    return index


def offer_cp(enc: Encounter, actor: str, purpose: str, rolled: str, stands: str) -> int:
    """ZC-CP-1: how many CP (one die each, at most ``max_cp``) the human buys for this roll, after seeing it.

    « avant et après avoir jeté les dés »: the CP dice are the same dice either way, so the engine
    asks once, after the roll, when the player knows more; 0 when the actor has no CP left.
    """
    left = enc.state.actors[actor].resources.get("cp", 0)
    most = min(R.rules(enc).max_cp, left)
    if most <= 0:
        return 0
    texts = [f"no CP on {purpose}"] + [f"spend {n} CP on {purpose}" for n in range(1, most + 1)]
    question = (
        f"{actor} rolled {rolled} for {purpose}: {stands}. "
        f"Character Points ({left} left): one more die each, at most {R.rules(enc).max_cp} [ZC-CP-1]"
    )
    return _roll_choice(enc, actor, question, texts, "ZC-CP-1")


def offer_cojones_double(enc: Encounter, actor: str, purpose: str, pool: str, twice: str, stands: str) -> bool:
    """ZC-COJ-1, first option: double the pool about to be rolled (asked before the roll)."""
    left = enc.state.actors[actor].resources.get("cojones", 0)
    if left <= 0:
        return False
    texts = [f"roll {pool} for {purpose}", f"double the pool with Cojones: {twice} for {purpose}"]
    question = f"{actor} is about to roll {pool} for {purpose} ({stands}). Cojones ({left} left) [ZC-COJ-1]"
    return _roll_choice(enc, actor, question, texts, "ZC-COJ-1") == 1


def offer_cojones_reroll(enc: Encounter, actor: str, purpose: str, stands: str) -> bool:
    """ZC-COJ-1, second option: reroll a failed test (or a resistance roll, ZC-RES-1); the new roll replaces it."""
    left = enc.state.actors[actor].resources.get("cojones", 0)
    if left <= 0:
        return False
    texts = [f"keep the roll for {purpose}", f"reroll {purpose} with Cojones"]
    question = f"{actor}'s roll for {purpose}: {stands}. Cojones ({left} left) [ZC-COJ-1]"
    return _roll_choice(enc, actor, question, texts, "ZC-COJ-1") == 1


__all__ = [
    "asked_roll_by_roll",
    "defence_skill",
    "human",
    "human_defence",
    "legal_plans",
    "offer_cojones_double",
    "offer_cojones_reroll",
    "offer_cp",
    "plan_odds",
    "pool_odds",
]
