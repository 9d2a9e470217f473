"""d100 ``human`` policy: the legal choices of a turn, offered with their odds.

Three questions, each followed by exactly one ``ActionDeclared`` with
``policy="human"`` and the chosen text (fracas.core.decide's contract):

- rules edition 1 only, as the round starts (D100-TURN-1: a reload took the
  whole round, so it was committed then), asked only when a ready weapon has
  room in its magazine and a spare one: "reload the W (the whole round)" for
  each such weapon, or "act at my initiative count";
- at the actor's count: stand up when prone; from edition 2, reload each
  ready weapon with room in its magazine and a spare one; pick up, clear or work on each
  dropped or jammed weapon (D100-ATK-2, D100-JAM-1); for each enemy still
  fighting, nearest first, a shot with each ready, loaded weapon in each of
  its modes; nothing;
- when an enemy shoots at the actor (D100-REACT-1), asked only when a
  reaction is possible: dodge (room to move), parry (an object to parry
  with), or no reaction.

Odds are exact, from :mod:`fracas.systems.d100.odds`, as things stand when asked:
a shot's attack roll (D100-ATK-1: the weapon skill with the shooter's
standing penalties, before the target's reaction and the Panne check), a
reaction's dodge or parry roll (its standing penalties and -20 per reaction
already made this round).
"""

from __future__ import annotations

from fracas.core import events as E
from fracas.core.decide import Choice, ask_human
from fracas.core.encounter import Encounter
from fracas.systems.d100 import resolution as R
from fracas.systems.d100.odds import odds
from fracas.systems.d100.policies import Plan, enemies

HUMAN = "human"


def _declare(enc: Encounter, actor: str, action: str, text: str, target: str | None, rule: str) -> None:
    enc.emit(E.ActionDeclared(actor=actor, action=action, text=text, target=target, policy=HUMAN, rule=rule))


def human_round_start(enc: Encounter, actor: str) -> Plan:
    """D100-TURN-1: reload now (the whole round) or act at the initiative count; not asked when no reload is legal.

    Returns the reload plan (declared by the round, as the AI's), a ``wait``
    plan (declared here) or, when nothing was asked, ``nothing``.
    """
    spec = R.sheet(enc, actor)
    a = enc.state.actors[actor]
    reloads = [
        Plan(kind="reload", weapon=w.name)
        for w in spec.weapons
        if a.weapons.get(w.name, R.READY) == R.READY and a.ammo.get(w.name, 0) < w.ammo and a.spare.get(w.name, 0) > 0
    ]
    if not reloads:
        return Plan(kind="nothing")
    plans = [Plan(kind="wait"), *reloads]
    plan = plans[ask_human(enc, actor, [Choice(text=p.text(enc)) for p in plans])]
    if plan.kind == "wait":
        _declare(enc, actor, "wait", plan.text(enc), None, "D100-TURN-1")
    return plan


def legal_plans(enc: Encounter, actor: str) -> list[Plan]:
    """The plans offered to a human at its count, distinct by text."""
    spec = R.sheet(enc, actor)
    a = enc.state.actors[actor]
    here = R.pos(a)
    plans: list[Plan] = []
    if R.IS_PRONE in a.conditions:
        plans.append(Plan(kind="stand"))
    for w in spec.weapons:
        state = a.weapons.get(w.name, R.READY)
        fix = {R.WEAPON_DROPPED: "pickup", R.JAMMED: "clear", R.SERIOUSLY_JAMMED: "unjam"}.get(state)
        if fix is not None:
            plans.append(Plan(kind=fix, weapon=w.name))
    if R.rules(enc).edition >= 2:  # D100-TURN-1: a reload is chosen on the turn (the rest of the round)
        for w in spec.weapons:
            if a.weapons.get(w.name, R.READY) == R.READY and a.ammo.get(w.name, 0) < w.ammo and a.spare.get(w.name, 0):
                plans.append(Plan(kind="reload", weapon=w.name))
    for foe in sorted(enemies(enc, actor), key=lambda f: (R.distance(here, R.pos(f)), f.id)):
        if not enc.battlefield.sees(here, R.pos(foe)):
            continue  # no shot without a line of sight
        for w in spec.weapons:
            if a.weapons.get(w.name, R.READY) != R.READY or a.ammo.get(w.name, 0) <= 0:
                continue
            for mode in w.modes:
                plans.append(Plan(kind="shoot", target=foe.id, weapon=w.name, mode=mode))
    plans.append(Plan(kind="nothing"))
    seen: dict[str, Plan] = {}
    for p in plans:
        seen.setdefault(p.text(enc), p)
    return list(seen.values())


def plan_odds(enc: Encounter, actor: str, plan: Plan) -> float | None:
    """P(the attack roll succeeds) as things stand (D100-ATK-1); None for anything but a shot."""
    weapon = R.weapon_of(enc, actor, plan.weapon)
    if plan.kind != "shoot" or weapon is None:
        return None
    mod = sum(m.value for m in R.standing_modifiers(enc, actor, "attack"))
    return float(odds(R.sheet(enc, actor).skills.get(weapon.skill, 0), mod, attack=True).p_success)


def human_turn(enc: Encounter, actor: str) -> Plan:
    """D100-TURN-1: ask the human at the table (or the log, on replay) what to do at this count."""
    offered = [(p, plan_odds(enc, actor, p)) for p in legal_plans(enc, actor)]
    offered = [(p, odds) for p, odds in offered if odds is None or odds > 0] or offered  # no hopeless shot
    choices = [Choice(text=p.text(enc), odds=odds) for p, odds in offered]
    return offered[ask_human(enc, actor, choices)][0]


def reaction_odds(enc: Encounter, defender: str, kind: str) -> float:
    """P(the dodge or parry roll succeeds) as things stand (D100-REACT-1, D100-DODGE-1, D100-PARRY-1)."""
    mod = sum(m.value for m in R.standing_modifiers(enc, defender, kind))
    mod += R.rules(enc).further_reaction * R.reactions_used(enc, defender)
    return float(odds(R.sheet(enc, defender).skills.get(kind, 0), mod, attack=False).p_success)


def human_reaction(enc: Encounter, defender: str, attacker: str) -> str:
    """D100-REACT-1: the human target's reaction to a shot: ``dodge``, ``parry`` or ``none`` (declared here)."""
    options: list[tuple[str, str, float | None]] = []
    shot = f"{R.name(enc, attacker)}'s shot"
    if R.can_dodge(enc, defender):
        options.append(("dodge", f"react to {shot}: dodge", reaction_odds(enc, defender, "dodge")))
    if R.can_parry(enc, defender):
        obj = (R.sheet(enc, defender).parry_object or "").replace("_", " ")
        options.append(("parry", f"react to {shot}: parry with the {obj}", reaction_odds(enc, defender, "parry")))
    if not options:
        return "none"
    options.append(("none", f"no reaction to {shot}", None))
    kind, text, _ = options[ask_human(enc, defender, [Choice(text=t, odds=o) for _, t, o in options])]
    _declare(enc, defender, "react" if kind != "none" else "no_reaction", text, attacker, "D100-REACT-1")
    return kind


__all__ = ["human_reaction", "human_round_start", "human_turn", "legal_plans", "plan_odds", "reaction_odds"]
