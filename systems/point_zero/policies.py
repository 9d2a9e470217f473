"""Point Zéro policies: who acts how. A decision is a :class:`Plan`, logged as an event.

- ``aggressive`` and ``cautious``: styles over one competent core
  (:mod:`fracas.systems.point_zero.tactics`): every option scored by expected
  harm with the exact odds, less the harm the foes can do at the end cell,
  which ``cautious`` weighs more; ``cautious`` also flees through an exit
  when badly hurt or outnumbered. Rules editions 1 and 2 keep fracas 0.1.0's
  policies (``_edition1_*``), so that their logs re-simulate.
- ``scripted``: one step of the scenario's ``script`` per round.

Policies are deterministic: no randomness, so a replay needs no AI code.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from fracas.core.encounter import Encounter
from fracas.core.events import Noted
from fracas.core.state import ActorState
from fracas.systems.point_zero import tactics
from fracas.systems.point_zero.human import human
from fracas.systems.point_zero.resolution import (
    Cell,
    actor_distance,
    cover_at,
    distance,
    free_move,
    pos,
    rules,
    sheet,
    sprint_distance,
    walk,
    worst_level,
)
from fracas.systems.point_zero.sheet import MELEE_SKILLS, Weapon


class Plan(msgspec.Struct, kw_only=True):
    """What an actor declares for the round (PZ-INIT-3)."""

    kind: str  # attack | reload | clear | pickup | aim | sprint | flee | hold | surrender
    target: str | None = None
    weapon: str | None = None
    before: list[Cell] = []
    after: list[Cell] = []
    surpass: int = 0
    exit: str | None = None

    def acts(self) -> bool:
        """False for a move-only round (sprint or flight: initiative = DEP)."""
        return self.kind not in ("sprint", "flee", "hold")

    def text(self, enc: Encounter) -> str:
        parts = []
        if self.before:
            parts.append(f"move {len(self.before)} m to {self.before[-1]}")
        if self.kind == "attack":
            what = f"attack {self.target} with {self.weapon or 'fists'}"
            if self.surpass:
                what += f" (surpassing +{self.surpass}D)"
            parts.append(what)
        elif self.kind in ("sprint", "flee"):
            dest = self.after[-1] if self.after else None
            goal = f" toward exit {self.exit}" if self.exit else ""
            parts.append(f"{self.kind} {len(self.after)} m to {dest}{goal}")
            return ", ".join(parts)
        elif self.kind in ("reload", "clear", "pickup"):
            parts.append(f"{self.kind} {self.weapon}")
        elif self.kind == "aim":
            parts.append(f"aim at {self.target}")
        else:
            parts.append(self.kind)
        if self.after:
            parts.append(f"then move {len(self.after)} m to {self.after[-1]}")
        return ", ".join(parts)


Policy = Callable[[Encounter, str], Plan]

#: The encounter scratch key of this round's declarations so far (PZ-INIT-3).
DECLARED = tactics.DECLARED


def declared(enc: Encounter) -> dict[str, Plan]:
    """PZ-INIT-3: the plans declared so far this round, slowest first (a policy is asked in ascending order
    of initiative, so these are the actors slower than the one deciding)."""
    plans: dict[str, Plan] = enc.scratch.get(DECLARED, {})
    return plans


def enemies(enc: Encounter, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]


def allies(enc: Encounter, actor: str) -> list[ActorState]:
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side == me.side and a.can_act()]


def _usable_ranged(enc: Encounter, actor: str) -> tuple[Weapon | None, str | None]:
    """The first ranged weapon and what it needs first (None: ready to fire)."""
    a = enc.state.actors[actor]
    for w in sheet(enc, actor).weapons:
        if w.skill in MELEE_SKILLS:
            continue
        state = a.weapons.get(w.name, "ready")
        if state == "jammed":
            return w, "clear"
        if state == "dropped":
            return w, "pickup"
        if a.ammo.get(w.name, 0) > 0:
            return w, None
        if a.spare.get(w.name, 0) > 0:
            return w, "reload"
    return None, None


def _melee_weapon(enc: Encounter, actor: str) -> str | None:
    a = enc.state.actors[actor]
    for w in sheet(enc, actor).weapons:
        if w.skill in MELEE_SKILLS and a.weapons.get(w.name) == "ready":
            return w.name
    return None


def _pick_target(enc: Encounter, me: ActorState, reach: int | None, *, seen: bool) -> ActorState | None:
    """The most wounded enemy able to act within ``reach`` metres (None: any distance), then the nearest, then by id.

    ``seen``: only enemies in sight (a shot); otherwise only enemies a walk can reach
    (a blow). Asked of the crowd index (fracas.core.battlefield, ``Crowd.most_hurt_nearest``):
    the worst wound level held by any enemy first, the nearest of that level, the lowest id
    of those as near; the same choice as ranking every enemy by (-worst level, distance, id).
    """
    crowd = enc.crowd
    field = enc.battlefield
    sides = crowd.other_sides(me.side)
    here = (me.x, me.y)
    actors = enc.state.actors
    accept = None
    if seen and field.opaque:

        def accept(fid: str) -> bool:
            f = actors[fid]
            return field.sees(here, (f.x, f.y))

    elif not seen and not field.open:

        def accept(fid: str) -> bool:
            f = actors[fid]
            return field.reaches(here, (f.x, f.y))

    found = crowd.most_hurt_nearest(me.x, me.y, sides, within=reach, accept=accept)
    return None if found is None else actors[found]


def _plan_of(option: tactics.Option) -> Plan:
    return Plan(
        kind=option.kind,
        target=option.target,
        weapon=option.weapon,
        before=list(option.before),
        after=list(option.after),
        surpass=option.surpass,
    )


def aggressive(enc: Encounter, actor: str) -> Plan:
    """The competent core with little weight on the harm foes can do back (systems/point_zero/tactics.py).

    Rules editions 1 and 2 play fracas 0.1.0's policy, so that their logs re-simulate as they were played.
    """
    if rules(enc).edition < tactics.COMPETENT_EDITION:
        return _edition1_aggressive(enc, actor)
    return _plan_of(tactics.choose(enc, actor, tactics.AGGRESSIVE))


def _nearest_cover(enc: Encounter, here: Cell) -> Cell | None:
    """The nearest cell of any cover zone; of equally near cells, the lowest (x, y)."""
    best: tuple[int, Cell] | None = None
    hx, hy = here
    for z in enc.scenario.map.cover:
        if z.w <= 0 or z.h <= 0:  # a zone of no cells (nothing forbids writing one)
            continue
        # d, the zone's distance from ``here``, is the larger of its gaps along x and y. Its cells
        # at that distance are those within d metres of ``here`` on both axes: a rectangle, whose
        # lowest (x, y) is its corner toward (0, 0). No need to measure every cell of the zone.
        gap_x = max(z.x - hx, 0, hx - (z.x + z.w - 1))
        gap_y = max(z.y - hy, 0, hy - (z.y + z.h - 1))
        d = max(gap_x, gap_y)
        cell = (max(z.x, hx - d), max(z.y, hy - d))
        if best is None or (d, cell) < best:
            best = (d, cell)
    return best[1] if best else None


def _flee_or_surrender(enc: Encounter, actor: str) -> Plan:
    here = pos(enc.state.actors[actor])
    exits = enc.scenario.map.exits
    if not exits:
        return Plan(kind="surrender")
    ex = min(exits, key=lambda e: (distance(here, (e.x, e.y)), e.name))
    run = walk(enc, here, (ex.x, ex.y), sprint_distance(enc, actor))
    return Plan(kind="flee", after=run, exit=ex.name)


def cautious(enc: Encounter, actor: str) -> Plan:
    """Flees through an exit when badly hurt or outnumbered two to one; else the competent core,
    weighing the harm foes can do at each cell more than ``aggressive`` does. With no exit it
    fights on, and surrenders only at Critique/Sonné with no attack left worth trying."""
    if rules(enc).edition < tactics.COMPETENT_EDITION:
        return _edition1_cautious(enc, actor)
    a = enc.state.actors[actor]
    crowd = enc.crowd  # the able actors a side, counted without a scan of every actor
    foes = sum(crowd.able_count(side) for side in crowd.other_sides(a.side))
    beaten = worst_level(a) >= 1 or foes >= 2 * max(1, crowd.able_count(a.side))
    if beaten and enc.scenario.map.exits:
        return _flee_or_surrender(enc, actor)
    plan = _plan_of(tactics.choose(enc, actor, tactics.CAUTIOUS))
    if beaten and worst_level(a) >= 2 and plan.kind != "attack":
        return Plan(kind="surrender")  # Critique or Sonné, no way out and nothing left to try (C-END-1)
    return plan


# ------------------------------------------- fracas 0.1.0's policies (rules editions 1 and 2)


def _edition1_aggressive(enc: Encounter, actor: str) -> Plan:
    a = enc.state.actors[actor]
    here = pos(a)
    weapon, need = _usable_ranged(enc, actor)
    if weapon is not None and need is not None:
        return Plan(kind=need, weapon=weapon.name)
    if weapon is not None:
        target = _pick_target(enc, a, weapon.bands.extreme, seen=True)
        if target is not None:
            d = actor_distance(a, target)
            # Close in after shooting, but no nearer than 2 m: each straight step is one metre
            # nearer, so that is the path's first d - 2 steps (none when already that close).
            closer = walk(enc, here, pos(target), min(free_move(enc, actor), d - 2)) if d > 2 else []
            surpass = 1 if d > weapon.bands.short and worst_level(a) < 1 else 0
            return Plan(kind="attack", target=target.id, weapon=weapon.name, after=closer, surpass=surpass)
    target = _pick_target(enc, a, None, seen=False)
    if target is None:
        return Plan(kind="hold")
    # the walk around the walls (the straight distance on open ground); the target was chosen reachable
    d = enc.battlefield.walk_distance(here, pos(target)) or distance(here, pos(target))
    melee = _melee_weapon(enc, actor)
    reach = free_move(enc, actor)
    if d - 1 <= reach:
        before = walk(enc, here, pos(target), d - 1)
        return Plan(kind="attack", target=target.id, weapon=melee, before=before)
    run = walk(enc, here, pos(target), min(sprint_distance(enc, actor), d - 1))
    return Plan(kind="sprint", after=run)


def _edition1_cautious(enc: Encounter, actor: str) -> Plan:
    a = enc.state.actors[actor]
    here = pos(a)
    crowd = enc.crowd
    foes = sum(crowd.able_count(side) for side in crowd.other_sides(a.side))
    if worst_level(a) >= 1 or foes >= 2 * max(1, crowd.able_count(a.side)):
        return _flee_or_surrender(enc, actor)
    weapon, need = _usable_ranged(enc, actor)
    if weapon is None:
        return _edition1_aggressive(enc, actor)
    if need is not None:
        return Plan(kind=need, weapon=weapon.name)
    target = _pick_target(enc, a, weapon.bands.extreme, seen=True)
    in_cover = cover_at(enc, here) is not None
    spot = None if in_cover else _nearest_cover(enc, here)
    if spot is not None:
        d = distance(here, spot)
        reach = free_move(enc, actor)
        if d <= reach and target is not None:
            return Plan(kind="attack", target=target.id, weapon=weapon.name, before=walk(enc, here, spot, d))
        if d > reach:
            return Plan(kind="sprint", after=walk(enc, here, spot, sprint_distance(enc, actor)))
    if target is None:
        return _edition1_aggressive(enc, actor)
    return Plan(kind="attack", target=target.id, weapon=weapon.name)


def scripted(enc: Encounter, actor: str) -> Plan:
    spec = sheet(enc, actor)
    turn = enc.round - spec.arrives
    if turn >= len(spec.script):
        return Plan(kind="hold")
    s = spec.script[turn]
    here = pos(enc.state.actors[actor])
    before = walk(enc, here, (s.before[0], s.before[1]), 10**6) if s.before else []
    start_after = before[-1] if before else here
    after = walk(enc, start_after, (s.after[0], s.after[1]), 10**6) if s.after else []
    kind = {"shoot": "attack", "strike": "attack"}.get(s.action, s.action)
    if rules_edition(enc) >= 3 and kind not in ("sprint", "flee"):
        before, after = _free_move_cap(enc, actor, kind, before, after)
    if kind in ("sprint", "flee"):
        exit_name = None
        goal: Cell | None = (s.to[0], s.to[1]) if s.to else None
        if kind == "flee" and goal is None:
            ex = min(enc.scenario.map.exits, key=lambda e: distance(here, (e.x, e.y)))
            goal, exit_name = (ex.x, ex.y), ex.name
        elif kind == "flee":
            exit_name = next((e.name for e in enc.scenario.map.exits if (e.x, e.y) == goal), None)
        assert goal is not None
        return Plan(kind=kind, after=walk(enc, here, goal, sprint_distance(enc, actor)), exit=exit_name)
    return Plan(kind=kind, target=s.target, weapon=s.weapon, before=before, after=after, surpass=s.surpass)


def rules_edition(enc: Encounter) -> int:
    edition: int = enc.rules.edition
    return edition


def _free_move_cap(
    enc: Encounter, actor: str, kind: str, before: list[Cell], after: list[Cell]
) -> tuple[list[Cell], list[Cell]]:
    """PZ-MOVE-1: a script walks no more than the free move around its action, and not at all while aiming.

    The script is clamped (metres before the action first) and the reason logged.
    """
    if not before and not after:
        return before, after
    if kind == "aim":  # « l'action ne nécessite pas de rester à un emplacement fixe »
        enc.emit(Noted(actor=actor, text="aiming is done standing still: no free move this round", rule="PZ-MOVE-1"))
        return [], []
    cap = free_move(enc, actor)
    if len(before) + len(after) <= cap:
        return before, after
    walked = len(before) + len(after)
    before = before[:cap]
    after = after[: cap - len(before)]
    enc.emit(
        Noted(
            actor=actor,
            text=f"the script walks {walked} m around the action; the free move is {cap} m: it walks {cap} m",
            rule="PZ-MOVE-1",
        )
    )
    return before, after


POLICIES: dict[str, Policy] = {
    "aggressive": aggressive,
    "cautious": cautious,
    "scripted": scripted,
    "human": human,
}
