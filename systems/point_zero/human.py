"""Point Zéro ``human`` policy: the legal actions of the round, offered with their odds.

The list (each entry a :class:`~fracas.systems.point_zero.policies.Plan`, shown by
its text, the text its ``ActionDeclared`` will carry):

- what the aggressive and the cautious AI would do, first;
- readying a weapon (clear a jam, pick it up, reload) when one needs it;
- for each enemy still fighting: shoot with each ready ranged weapon in
  reach (and surpassing oneself by +1D, PZ-SURP-1), close in and strike
  when the free move reaches them (PZ-MOVE-1), aim (PZ-DIFF-3);
- flee toward each exit (PZ-MOVE-3), hold, surrender.

Odds are the exact probability of success of the attack test from where
the attack is made: after the plan's move when it moves first (range, the
target's cover, light, movement so far), from
:mod:`fracas.systems.point_zero.odds`; other actions have none. An attack
that cannot succeed from there (0 %) is not offered. The decision itself
goes through :func:`fracas.core.decide.ask_human`, so a replay takes it from the
log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fracas.core.decide import Choice, ask_human
from fracas.core.encounter import Encounter
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero.odds import at_least
from fracas.systems.point_zero.sheet import MELEE_SKILLS

if TYPE_CHECKING:
    from fracas.systems.point_zero.policies import Plan


def legal_plans(enc: Encounter, actor: str) -> list[Plan]:
    """The plans offered to a human for ``actor`` this round, distinct by text."""
    from fracas.systems.point_zero.policies import Plan, aggressive, cautious, enemies

    a = enc.state.actors[actor]
    here = R.pos(a)
    spec = R.sheet(enc, actor)
    plans: list[Plan] = [aggressive(enc, actor), cautious(enc, actor)]
    for w in spec.weapons:
        state = a.weapons.get(w.name, "ready")
        if state == "jammed":
            plans.append(Plan(kind="clear", weapon=w.name))
        elif state == "dropped":
            plans.append(Plan(kind="pickup", weapon=w.name))
        elif w.ammo is not None and a.ammo.get(w.name, 0) < w.ammo and a.spare.get(w.name, 0) > 0:
            plans.append(Plan(kind="reload", weapon=w.name))
    melee = next((w.name for w in spec.weapons if w.skill in MELEE_SKILLS and a.weapons.get(w.name) == "ready"), None)
    for foe in sorted(enemies(enc, actor), key=lambda f: f.id):
        d = R.distance(here, R.pos(foe))
        in_sight = R.sees(enc, a, foe)
        for w in spec.weapons:
            if w.skill in MELEE_SKILLS or a.weapons.get(w.name, "ready") != "ready" or a.ammo.get(w.name, 0) <= 0:
                continue
            if d <= w.bands.extreme and in_sight:
                plans.append(Plan(kind="attack", target=foe.id, weapon=w.name))
                plans.append(Plan(kind="attack", target=foe.id, weapon=w.name, surpass=1))
        walked = enc.battlefield.walk_distance(here, R.pos(foe))  # around the walls; None: no way there
        if walked is not None and walked - 1 <= R.free_move(enc, actor):
            d = walked
            plans.append(Plan(kind="attack", target=foe.id, weapon=melee, before=R.walk(enc, here, R.pos(foe), d - 1)))
        if any(w.skill not in MELEE_SKILLS for w in spec.weapons) and in_sight:
            plans.append(Plan(kind="aim", target=foe.id))
    for ex in enc.scenario.map.exits:
        run = R.walk(enc, here, (ex.x, ex.y), R.sprint_distance(enc, actor))
        plans.append(Plan(kind="flee", after=run, exit=ex.name))
    plans.append(Plan(kind="hold"))
    plans.append(Plan(kind="surrender"))
    seen: dict[str, Plan] = {}
    for p in plans:
        seen.setdefault(p.text(enc), p)
    return list(seen.values())


def plan_odds(enc: Encounter, actor: str, plan: Plan) -> float | None:
    """P(the attack test succeeds) from where it is made (after ``plan.before``); None for anything but an attack."""
    if plan.kind != "attack" or plan.target is None or plan.target not in enc.state.actors:
        return None
    a = enc.state.actors[actor]
    if not plan.before:
        return _odds_here(enc, actor, plan)
    # PZ-MOVE-1: the attack comes after the move: the odds are the ones from the last cell.
    # The state is put back at once; nothing is emitted, so the log never sees it.
    home = (a.x, a.y)
    a.x, a.y = plan.before[-1]
    try:
        return _odds_here(enc, actor, plan)
    finally:
        a.x, a.y = home


def _odds_here(enc: Encounter, actor: str, plan: Plan) -> float:
    assert plan.target is not None
    weapon = R.weapon_of(enc, actor, plan.weapon)
    if weapon.skill in MELEE_SKILLS:
        base, mods = R.melee_difficulty(enc, actor, plan.target, weapon)
        attribute = "ADR"
    else:
        diff = R.ranged_difficulty(enc, actor, plan.target, weapon)
        if diff is None:
            return 0.0
        base, mods = diff
        attribute = "PER"
    difficulty = base + sum(m.value for m in mods)
    keep, _ = R.effective_attribute(enc, actor, attribute)
    surpass = plan.surpass if R.worst_level(enc.state.actors[actor]) < 2 else 0
    n = R.sheet(enc, actor).skills.get(weapon.skill, 0) + surpass
    return float(at_least(n, keep, difficulty)) if n else float(difficulty <= 0)


def human(enc: Encounter, actor: str) -> Plan:
    """Ask the human at the table (or the log, on replay) which plan to follow."""
    offered = [(p, plan_odds(enc, actor, p)) for p in legal_plans(enc, actor)]
    offered = [(p, odds) for p, odds in offered if odds is None or odds > 0]  # no hopeless attack (fists from 8 m)
    choices = [Choice(text=p.text(enc), odds=odds) for p, odds in offered]
    return offered[ask_human(enc, actor, choices)][0]
