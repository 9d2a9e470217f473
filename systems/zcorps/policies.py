"""Z-Corps policies: who acts how, one decision per action (a :class:`Plan`, logged).

- ``aggressive``: a survivor who shoots the nearest threat (a head shot at
  the dead when the exact odds allow it), picks a firing mode by ammunition
  and targets, closes in when out of range, reloads, fights hand to hand
  when the guns are dry; partial defence when something is at arm's reach;
  active defence when outnumbered at arm's reach; an extra action (-1D)
  when three or more foes are in short range.
- ``cautious``: the same from where it stands (never advances), aims when
  nothing is close, takes active defence whenever its side is outnumbered.
- ``zombie``: shambles toward the nearest living, grabs, then bites.
- ``scripted``: one step of the scenario's ``script`` for the round's first action.
- ``human``: the person at the table picks from the legal actions, and
  whether to defend actively (:mod:`systems.zcorps.human`).

CP and Cojones follow the plan's ``stakes`` (see resolution.skill_test).
Policies are deterministic: no randomness, so a replay needs no AI code.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.encounter import Encounter
from engine.state import ActorState
from systems.zcorps.human import human, human_defence
from systems.zcorps.odds import success_probability
from systems.zcorps.resolution import (
    Plan,
    actor_at,
    alive,
    cover_at,
    distance,
    mode_legal,
    occupied,
    path_toward,
    pos,
    range_band,
    rules,
    sheet,
    trait,
    worst_level,
)
from systems.zcorps.rules import FIREARMS, INCAPACITATED
from systems.zcorps.sheet import Weapon, burst_size, ranges_of

Policy = Callable[[Encounter, str], Plan]


def foes(enc: Encounter, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]


def friends(enc: Encounter, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side == me.side and a.can_act()]


def near(enc: Encounter, actor: str, metres: int) -> list[ActorState]:
    here = pos(enc.state.actors[actor])
    return [f for f in foes(enc, actor) if distance(here, pos(f)) <= metres]


def _threat_order(enc: Encounter, actor: str, f: ActorState) -> tuple[int, int, str]:
    """Nearest first; among humans the most wounded first."""
    here = pos(enc.state.actors[actor])
    undead = sheet(enc, f.id).undead
    return (distance(here, pos(f)), 0 if undead else -worst_level(f), f.id)


def _firearm(enc: Encounter, actor: str) -> tuple[Weapon | None, str | None]:
    """The first firearm with rounds (None need), else one to reload ("reload")."""
    a = enc.state.actors[actor]
    reloadable = None
    for w in sheet(enc, actor).weapons:
        if w.type not in FIREARMS:
            continue
        if a.ammo.get(w.name, 0) > 0:
            return w, None
        if reloadable is None and a.spare.get(w.name, 0) > 0:
            reloadable = w
    return (reloadable, "reload") if reloadable else (None, None)


def _close_weapon(enc: Encounter, actor: str) -> str | None:
    for w in sheet(enc, actor).weapons:
        if w.type == "melee":
            return w.name
    return None


def choose_mode(enc: Encounter, actor: str, weapon: Weapon, targets: list[ActorState]) -> tuple[str, list[str]]:
    """ZC-FIRE-1/2 (policy): a mode by ammunition and targets.

    Automatic weapons: a long burst when three or more foes are within
    short range and a spare magazine remains; a burst at several targets
    when two are close together; suppressive fire at a target behind heavy
    cover; else a burst (or a single shot when the magazine runs low).
    Semi-automatic weapons: two rounds at one target while rounds are
    plentiful, else one.
    """
    a = enc.state.actors[actor]
    left = a.ammo.get(weapon.name, 0)
    spare = a.spare.get(weapon.name, 0)
    legal = rules(enc).legal_modes.get(weapon.type, [])
    here = pos(a)
    first = targets[0]
    short = ranges_of(weapon)[0]
    close = [t for t in targets if distance(here, pos(t)) <= short]
    ids = [first.id]

    def ok(mode: str, n: int = 1) -> bool:
        return mode in legal and mode_legal(enc, actor, weapon, mode, n) is None

    if weapon.type in ("smg", "assault_rifle", "machine_gun"):
        if len(close) >= 3 and spare > 0 and ok("long_burst"):
            return "long_burst", ids
        second = next((t for t in close if t.id != first.id and distance(pos(t), pos(first)) <= 3), None)
        if second is not None and ok("burst_multi", 2):
            return "burst_multi", [first.id, second.id]
        zone = cover_at(enc, pos(first))
        if zone is not None and zone.level == "three_quarters" and ok("suppressive"):
            return "suppressive", ids
        if ok("burst") and left >= 2 * burst_size(weapon, rules(enc).assault_rifle_burst):
            return "burst", ids
        for mode in ("single_auto", "burst", "long_burst"):
            if ok(mode):
                return mode, ids
    if ok("semi") and left + spare * (weapon.magazine or 0) >= 8:
        return "semi", ids
    for mode in legal:
        if ok(mode):
            return mode, ids
    return "single", ids


def _stakes(enc: Encounter, actor: str, target: ActorState, adjacent: int) -> int:
    """``adjacent``: how many foes stand at arm's reach (``len(near(enc, actor, 1))``)."""
    here = pos(enc.state.actors[actor])
    hurt = worst_level(enc.state.actors[actor]) >= 1
    if adjacent >= 2 or (hurt and distance(here, pos(target)) <= 1):
        return 2
    if hurt or distance(here, pos(target)) <= 3:
        return 1
    return 0


def _called(enc: Encounter, actor: str, weapon: Weapon, target: ActorState) -> str | None:
    """ZC-AIM-1 (policy): a head shot at the dead when the exact odds stay at 45 % or better."""
    if not sheet(enc, target.id).undead:
        return None
    code = trait(enc, actor, "heavy_weapons" if weapon.type == "machine_gun" else "firearms")
    est = _estimate(enc, actor, weapon, target)
    return "head" if float(success_probability(code, est + 4)) >= 0.45 else None


def _estimate(enc: Encounter, actor: str, weapon: Weapon, target: ActorState) -> int:
    r = rules(enc)
    metres = distance(pos(enc.state.actors[actor]), pos(target))
    band = range_band(enc, weapon, metres) or "long"
    zone = cover_at(enc, pos(target))
    cover = r.cover_dice.get(zone.level, 0) if zone else 0
    return r.passive_defence + r.range_modifiers[band] + (7 * cover) // 2


def survivor(enc: Encounter, actor: str, *, advance: bool) -> Plan:
    a = enc.state.actors[actor]
    here = pos(a)
    if "grabbed" in a.conditions:
        return Plan(kind="escape", targets=[actor_at(enc, a.conditions["grabbed"])], stakes=2)
    if "prone" in a.conditions:
        return Plan(kind="stand")
    enemies = sorted(foes(enc, actor), key=lambda f: _threat_order(enc, actor, f))
    if not enemies:
        return Plan(kind="hold")
    adjacent = near(enc, actor, 1)
    weapon, need = _firearm(enc, actor)
    if weapon is not None and need == "reload" and not adjacent:
        return Plan(kind="reload", weapon=weapon.name)
    if weapon is not None and need is None:
        long = ranges_of(weapon)[2]
        in_range = [f for f in enemies if distance(here, pos(f)) <= long]
        if in_range:
            target = in_range[0]
            mode, targets = choose_mode(enc, actor, weapon, in_range)
            called = _called(enc, actor, weapon, target)
            if (
                not advance
                and not near(enc, actor, 5)
                and "aiming" not in a.conditions
                and not sheet(enc, target.id).undead
                and distance(here, pos(target)) > ranges_of(weapon)[0]
            ):
                return Plan(kind="aim", targets=[target.id])
            return Plan(
                kind="shoot",
                targets=targets,
                weapon=weapon.name,
                mode=mode,
                called=called,
                partial=bool(adjacent),
                stakes=_stakes(enc, actor, target, len(adjacent)),
            )
        if advance:
            target = enemies[0]
            return Plan(
                kind="move",
                targets=[target.id],
                path=path_toward(
                    here, pos(target), min(sheet(enc, actor).move, 10), stop=long, blocked=occupied(enc, actor)
                ),
            )
        return Plan(kind="hold")
    # hand to hand: a melee weapon or fists
    target = enemies[0]
    melee = _close_weapon(enc, actor)
    if distance(here, pos(target)) <= 1:
        if sheet(enc, target.id).undead and melee is None and len(adjacent) == 1:
            return Plan(kind="manoeuvre", manoeuvre="push", targets=[target.id], stakes=1)
        return Plan(
            kind="strike",
            weapon=melee,
            targets=[target.id],
            partial=len(adjacent) == 1,
            stakes=_stakes(enc, actor, target, len(adjacent)),
        )
    if advance:
        return Plan(
            kind="move",
            targets=[target.id],
            path=path_toward(here, pos(target), min(sheet(enc, actor).move, 10), stop=1, blocked=occupied(enc, actor)),
        )
    return Plan(kind="hold")


def aggressive(enc: Encounter, actor: str) -> Plan:
    return survivor(enc, actor, advance=True)


def cautious(enc: Encounter, actor: str) -> Plan:
    return survivor(enc, actor, advance=False)


def zombie(enc: Encounter, actor: str) -> Plan:
    """Shamble toward the nearest living, grab, bite."""
    a = enc.state.actors[actor]
    here = pos(a)
    if "prone" in a.conditions:
        return Plan(kind="stand")
    if "grabbing" in a.conditions:
        held = actor_at(enc, a.conditions["grabbing"])
        h = enc.state.actors[held]
        if alive(h) and distance(here, pos(h)) <= 1:
            return Plan(kind="bite", targets=[held])
    me = a.side
    living = [x for x in enc.state.actors.values() if x.side != me and alive(x)]
    if not living:
        return Plan(kind="hold")
    target = min(living, key=lambda x: (not x.can_act(), distance(here, pos(x)), x.id))
    if distance(here, pos(target)) <= 1:
        return Plan(kind="manoeuvre", manoeuvre="grab", targets=[target.id])
    path = path_toward(here, pos(target), min(sheet(enc, actor).move, 10), stop=1, blocked=occupied(enc, actor))
    return Plan(kind="move", targets=[target.id], path=path)


def scripted(enc: Encounter, actor: str) -> Plan:
    """The script step of this round (the round's later actions hold)."""
    spec = sheet(enc, actor)
    turn = enc.round - spec.arrives
    if turn >= len(spec.script) or enc.scratch.get("zc_scripted", {}).get(actor) == enc.round:
        return Plan(kind="hold")
    enc.scratch.setdefault("zc_scripted", {})[actor] = enc.round
    s = spec.script[turn]
    here = pos(enc.state.actors[actor])
    targets = [s.target] if s.target else []
    if s.action == "move" and s.to:
        return Plan(
            kind="move", path=path_toward(here, (s.to[0], s.to[1]), min(spec.move, 10), blocked=occupied(enc, actor))
        )
    if s.action in ("grab", "knock_down", "push", "trip", "tackle"):
        return Plan(kind="manoeuvre", manoeuvre=s.action, targets=targets)
    kind = {"fire": "shoot"}.get(s.action, s.action)
    return Plan(kind=kind, targets=targets, weapon=s.weapon, mode=s.mode or "single")


def wants_active_defence(enc: Encounter, defender: str, attacker: str) -> bool:
    """ZC-DEF-1 (policy): the dead never defend; survivors when outnumbered (aggressive: at arm's reach)."""
    spec = sheet(enc, defender)
    if spec.undead or spec.policy in ("zombie", "scripted"):
        return False
    if len(near(enc, defender, 1)) >= 2:
        return True
    if spec.policy == "cautious":
        return len(foes(enc, defender)) > len(friends(enc, defender))
    return False


def wants_extra_action(enc: Encounter, actor: str) -> int:
    """ZC-MULTI-1 (policy): one extra action when three foes are within short range and the gun is full enough."""
    spec = sheet(enc, actor)
    if spec.undead or spec.policy not in ("aggressive", "cautious"):
        return 0
    weapon, need = _firearm(enc, actor)
    a = enc.state.actors[actor]
    if weapon is None or need is not None or a.ammo.get(weapon.name, 0) < 4 or worst_level(a) >= INCAPACITATED:
        return 0
    if trait(enc, actor, "firearms").dice < 4:
        return 0
    return 1 if len(near(enc, actor, ranges_of(weapon)[0])) >= 3 else 0


POLICIES: dict[str, Policy] = {
    "aggressive": aggressive,
    "cautious": cautious,
    "zombie": zombie,
    "scripted": scripted,
    "human": human,
}


def defend_ranged(enc: Encounter, defender: str, attacker: str) -> bool:
    """ZC-DEF-1: the defence choice against a shot (a human is asked, ranged skills only)."""
    if sheet(enc, defender).policy == "human":
        return human_defence(enc, defender, attacker, melee=False)
    return wants_active_defence(enc, defender, attacker)


def defend_melee(enc: Encounter, defender: str, attacker: str) -> bool:
    """ZC-DEF-1: the defence choice against a blow (a human is asked; block and parry count)."""
    if sheet(enc, defender).policy == "human":
        return human_defence(enc, defender, attacker, melee=True)
    return wants_active_defence(enc, defender, attacker)


__all__ = [
    "POLICIES",
    "Plan",
    "choose_mode",
    "defend_melee",
    "defend_ranged",
    "wants_active_defence",
    "wants_extra_action",
]
