"""d100 policies: what an actor does on its turn and how it reacts to a shot.

- ``security``: a security officer: parries with its shield (dodges when it
  has none), shoots in stun mode, at the nearest able enemy.
- ``raider`` (``aggressive`` is the same): dodges when there is room (parries
  otherwise), shoots to kill, at the most hurt then nearest enemy.
- ``passive``: shoots (lethal first) at the nearest enemy and never reacts.
- ``human``: the person at the table decides the reload, the turn and the
  reaction (:mod:`fracas.systems.d100.human`).
- a policy another package registers (group ``fracas.policies.d100``,
  docs/plugins.md): a callable ``(enc, actor) -> Plan`` for the turn, also
  asked as the round starts (a ``reload`` it returns then is committed for
  the whole round), with an optional ``reaction(enc, defender, attacker)``
  returning ``"parry"``, ``"dodge"`` or ``"none"`` (no reaction without it).

All of them stand up when prone, pick up a dropped weapon, clear jams, work
on serious jams, reload when empty, and fall back on their next weapon when
one is broken or out of ammunition. Policies are deterministic: no
randomness, so a replay needs no AI code.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from fracas.core.encounter import Encounter
from fracas.core.errors import FracasError
from fracas.core.state import ActorState
from fracas.core.system import policy_table
from fracas.systems.d100 import tactics
from fracas.systems.d100.resolution import (
    IS_PRONE,
    JAMMED,
    READY,
    SERIOUSLY_JAMMED,
    WEAPON_DROPPED,
    can_dodge,
    can_parry,
    name,
    pos,
    sheet,
)
from fracas.systems.d100.sheet import Actor

HUMAN = "human"


class Plan(msgspec.Struct, kw_only=True):
    """What an actor does on its turn (D100-TURN-1)."""

    kind: str  # shoot | reload | clear | unjam | pickup | stand | wait | nothing
    target: str | None = None
    weapon: str | None = None
    mode: str = "lethal"

    def text(self, enc: Encounter) -> str:
        if self.kind == "shoot" and self.target is not None:
            return f"aim and shoot at {name(enc, self.target)} with the {self.weapon} ({self.mode} mode)"
        if self.kind == "reload":
            if enc.rules.edition < 2:
                return f"reload the {self.weapon} (the whole round)"
            return f"reload the {self.weapon} (the rest of the round)"
        if self.kind == "clear":
            return f"clear the jammed {self.weapon}"
        if self.kind == "unjam":
            return f"work on the serious jam of the {self.weapon}"
        if self.kind == "pickup":
            return f"pick up the {self.weapon}"
        if self.kind == "stand":
            return "stand up"
        if self.kind == "wait":
            return "act at my initiative count (no reload this round)"
        return "nothing"


class Policy(msgspec.Struct, frozen=True, kw_only=True):
    """A policy: the mode it prefers, how it reacts, how it picks a target."""

    mode: str
    reactions: tuple[str, ...]
    most_hurt_first: bool


POLICY_TABLE: dict[str, Policy] = {
    "security": Policy(mode="stun", reactions=("parry", "dodge"), most_hurt_first=False),
    "raider": Policy(mode="lethal", reactions=("dodge", "parry"), most_hurt_first=True),
    "aggressive": Policy(mode="lethal", reactions=("dodge", "parry"), most_hurt_first=True),
    "passive": Policy(mode="lethal", reactions=(), most_hurt_first=False),
}


def enemies(enc: Encounter, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]


def _target(enc: Encounter, actor: str, most_hurt_first: bool) -> ActorState | None:
    """The enemy to shoot (rules editions 1-4): in sight, then (``most_hurt_first``) the most hurt, then the
    nearest, then by id.

    The crowd index answers (fracas.core.battlefield: it grades d100 actors by the HP they have lost), with
    no scan of every actor: the worst grade that holds a foe able and in sight, its nearest; when no foe
    in sight is hurt, the nearest of all.
    """
    me = enc.state.actors[actor]
    here = pos(me)
    field = enc.battlefield
    actors = enc.state.actors
    crowd = enc.crowd
    sides = crowd.other_sides(me.side)
    accept = None
    if field.opaque:

        def accept(fid: str) -> bool:
            return field.sees(here, pos(actors[fid]))

    if most_hurt_first:  # the crowd grades d100 actors by HP lost: the most hurt first
        for grade in crowd.grades(sides):
            if grade < 0:
                break  # the unhurt: the nearest of all, below
            found = crowd.nearest(me.x, me.y, sides, grades=(grade,), accept=accept)
            if found is not None:
                return actors[found[1][0]]
    found = crowd.nearest(me.x, me.y, sides, accept=accept)
    return actors[found[1][0]] if found is not None else None


def decide(enc: Encounter, actor: str) -> Plan:
    """D100-TURN-1: the plan of ``actor`` on its turn, by its policy."""
    spec = sheet(enc, actor)
    if spec.policy == HUMAN:
        from fracas.systems.d100.human import human_turn

        return human_turn(enc, actor)
    if spec.policy not in POLICY_TABLE:
        return registered(spec.policy)(enc, actor)
    return _ai_plan(enc, actor, spec, aim=True)


def competent(enc: Encounter, policy: str) -> bool:
    """Rules edition 5 (issue 16): the built-in AI policies but ``passive`` choose by expected value
    (:mod:`fracas.systems.d100.tactics`); earlier editions keep the rule-of-thumb AI they were played with."""
    return enc.rules.edition >= 5 and policy in POLICY_TABLE and policy != "passive"


def _ai_plan(enc: Encounter, actor: str, spec: Actor, *, aim: bool) -> Plan:
    """The AI policies' plan; without ``aim``, a shot is only ``wait`` (whom to shoot is chosen at the count)."""
    policy = POLICY_TABLE[spec.policy]
    if aim and competent(enc, spec.policy):
        chosen = tactics.choose(enc, actor, spec.weapons, policy.mode)
        return Plan(kind=chosen.kind, target=chosen.target, weapon=chosen.weapon, mode=chosen.mode)
    a = enc.state.actors[actor]
    if IS_PRONE in a.conditions:
        return Plan(kind="stand")
    for w in spec.weapons:
        state = a.weapons.get(w.name, READY)
        if state == WEAPON_DROPPED:
            return Plan(kind="pickup", weapon=w.name)
        if state == JAMMED:
            return Plan(kind="clear", weapon=w.name)
        if state == SERIOUSLY_JAMMED:
            return Plan(kind="unjam", weapon=w.name)
        if state != READY:
            continue  # broken: the next weapon
        if a.ammo.get(w.name, 0) > 0:
            if not aim:
                return Plan(kind="wait")
            target = _target(enc, actor, policy.most_hurt_first)
            if target is None:
                return Plan(kind="nothing")
            mode = policy.mode if policy.mode in w.modes else w.modes[0]
            return Plan(kind="shoot", target=target.id, weapon=w.name, mode=mode)
        if a.spare.get(w.name, 0) > 0:
            return Plan(kind="reload", weapon=w.name)
    return Plan(kind="nothing")


def round_start(enc: Encounter, actor: str) -> Plan:
    """D100-TURN-1: the decision as the round starts, where a reload (the whole round) is committed."""
    spec = sheet(enc, actor)
    if spec.policy == HUMAN:
        from fracas.systems.d100.human import human_round_start

        return human_round_start(enc, actor)
    if spec.policy not in POLICY_TABLE:
        plan = registered(spec.policy)(enc, actor)
        return plan if plan.kind == "reload" else Plan(kind="wait")
    # Only a reload is committed now: a plan to shoot waits for the count to pick its target.
    return _ai_plan(enc, actor, spec, aim=False)


def reaction(enc: Encounter, defender: str, attacker: str, weapon: str | None = None, mode: str | None = None) -> str:
    """D100-REACT-1: the target's choice before the shot (``attacker``'s, with ``weapon`` in ``mode``, as
    declared): under rules edition 5 the reaction that prevents the most expected harm (tactics.py), none
    when none prevents any; before, its first possible reaction, else none."""
    policy = sheet(enc, defender).policy
    if policy == HUMAN:
        from fracas.systems.d100.human import human_reaction

        return human_reaction(enc, defender, attacker)
    if policy not in POLICY_TABLE:
        return _registered_reaction(enc, policy, defender, attacker)
    if competent(enc, policy):
        return tactics.choose_reaction(enc, defender, attacker, weapon, mode, POLICY_TABLE[policy].reactions)
    for choice in POLICY_TABLE[policy].reactions:
        if choice == "parry" and can_parry(enc, defender):
            return "parry"
        if choice == "dodge" and can_dodge(enc, defender):
            return "dodge"
    return "none"


POLICIES: dict[str, Callable[[Encounter, str], Plan]] = {name: decide for name in (*POLICY_TABLE, HUMAN)}


def registered(policy: str) -> Callable[[Encounter, str], Plan]:
    """A policy another package registers for d100 (group ``fracas.policies.d100``)."""
    return policy_table("d100", POLICIES, expected="a callable (Encounter, actor id) -> Plan")[policy]


def _registered_reaction(enc: Encounter, policy: str, defender: str, attacker: str) -> str:
    """D100-REACT-1: a registered policy's reaction, when it has one, checked against what the defender can do."""
    react = getattr(registered(policy), "reaction", None)
    if react is None:
        return "none"
    choice = react(enc, defender, attacker)
    possible = {"none": True, "parry": can_parry(enc, defender), "dodge": can_dodge(enc, defender)}
    if not possible.get(choice, False):
        raise FracasError(
            f"policy {policy!r}: {name(enc, defender)} cannot react with {choice!r} in round {enc.round} (D100-REACT-1)"
        )
    return str(choice)
