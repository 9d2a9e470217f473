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
  whether to defend actively (:mod:`fracas.systems.zcorps.human`).

From rules edition 5 ``aggressive`` and ``cautious`` play by the competent core
of :mod:`fracas.systems.zcorps.tactics`; from edition 6 they also take an active
defence (ZC-DEF-1) or a partial one (ZC-DEF-2) by the expected harm it prevents
against what it costs, not by the rules of thumb above.

CP and Cojones follow the plan's ``stakes`` (see resolution.skill_test).
Policies are deterministic: no randomness, so a replay needs no AI code.
"""

from __future__ import annotations

from collections.abc import Callable

from fracas.core.encounter import Encounter
from fracas.core.state import DISABLING, ActorState
from fracas.systems.zcorps import tactics
from fracas.systems.zcorps.human import human, human_defence
from fracas.systems.zcorps.odds import success_probability
from fracas.systems.zcorps.resolution import (
    GONE,
    Incoming,
    Plan,
    actor_at,
    alive,
    cover_against,
    distance,
    index_of,
    mode_legal,
    occupied,
    opponents,
    pos,
    range_band,
    rules,
    sees,
    sheet,
    trait,
    traits,
    traits_table,
    walk,
    worst_level,
)
from fracas.systems.zcorps.rules import INCAPACITATED
from fracas.systems.zcorps.sheet import Weapon, burst_size, ranges_of

Policy = Callable[[Encounter, str], Plan]


def foes(enc: Encounter, actor: str) -> list[ActorState]:
    side = enc.state.actors[actor].side
    return [a for a in enc.state.actors.values() if a.side != side and DISABLING.isdisjoint(a.conditions)]


def friends(enc: Encounter, actor: str) -> list[ActorState]:
    side = enc.state.actors[actor].side
    return [a for a in enc.state.actors.values() if a.side == side and DISABLING.isdisjoint(a.conditions)]


def near(enc: Encounter, actor: str, metres: int) -> list[ActorState]:
    me = enc.state.actors[actor]
    x, y, side = me.x, me.y, me.side
    return [
        f
        for f in enc.state.actors.values()
        if f.side != side and max(f.x - x, x - f.x, f.y - y, y - f.y) <= metres and DISABLING.isdisjoint(f.conditions)
    ]


def _threat_key(enc: Encounter, d: int, fid: str) -> tuple[int, int, str]:
    """A foe's place in threat order: nearest first; among humans the most wounded first; then by id."""
    f = enc.state.actors[fid]
    return d, 0 if traits_table(enc)[fid].undead else -worst_level(f), fid


def _threats_within(enc: Encounter, actor: str, metres: int) -> list[ActorState]:
    """Every foe able to act within ``metres``, in threat order (asked of the crowd index, not of every actor)."""
    me = enc.state.actors[actor]
    crowd = enc.crowd
    found = crowd.within(me.x, me.y, crowd.other_sides(me.side), metres)
    actors = enc.state.actors
    field = enc.battlefield
    if field.opaque:  # only the foes in sight
        found = [(d, fid) for d, fid in found if field.sees((me.x, me.y), (actors[fid].x, actors[fid].y))]
    return [actors[fid] for _, _, fid in sorted(_threat_key(enc, d, fid) for d, fid in found)]


def _first_threat(enc: Encounter, actor: str) -> tuple[int, ActorState] | None:
    """The first foe able to act in threat order, and its distance (None: no foe left).

    Where walls stand, only foes in sight or within reach of a walk count.
    """
    me = enc.state.actors[actor]
    crowd = enc.crowd
    found = crowd.nearest(me.x, me.y, crowd.other_sides(me.side), accept=_seen_or_reached(enc, me))
    if found is None:
        return None
    d, ids = found
    first = min(_threat_key(enc, d, fid) for fid in ids)[2]
    return d, enc.state.actors[first]


def _first_seen(enc: Encounter, actor: str) -> tuple[int, ActorState] | None:
    """The first foe able to act in sight, in threat order, and its distance (None: none in sight)."""
    me = enc.state.actors[actor]
    crowd = enc.crowd
    field, actors, here = enc.battlefield, enc.state.actors, (me.x, me.y)
    found = crowd.nearest(
        me.x, me.y, crowd.other_sides(me.side), accept=lambda fid: field.sees(here, (actors[fid].x, actors[fid].y))
    )
    if found is None:
        return None
    d, ids = found
    return d, actors[min(_threat_key(enc, d, fid) for fid in ids)[2]]


def _seen_or_reached(enc: Encounter, me: ActorState) -> Callable[[str], bool] | None:
    """A crowd filter: foes ``me`` sees or can walk to (None on a map without walls: every foe)."""
    field = enc.battlefield
    if field.open:
        return None
    actors, here = enc.state.actors, (me.x, me.y)

    def accept(fid: str) -> bool:
        cell = (actors[fid].x, actors[fid].y)
        return field.sees(here, cell) or field.reaches(here, cell)

    return accept


def _reached(enc: Encounter, me: ActorState) -> Callable[[str], bool] | None:
    """A crowd filter: foes ``me`` can walk to (None on a map without walls: every foe)."""
    field = enc.battlefield
    if field.open:
        return None
    actors, here = enc.state.actors, (me.x, me.y)

    def accept(fid: str) -> bool:
        return field.reaches(here, (actors[fid].x, actors[fid].y))

    return accept


def _firearm(enc: Encounter, actor: str) -> tuple[Weapon | None, str | None]:
    """The first firearm with rounds (None need), else one to reload ("reload")."""
    a = enc.state.actors[actor]
    reloadable = None
    for w in traits(enc, actor).firearms:
        if a.ammo.get(w.name, 0) > 0:
            return w, None
        if reloadable is None and a.spare.get(w.name, 0) > 0:
            reloadable = w
    return (reloadable, "reload") if reloadable else (None, None)


def _close_weapon(enc: Encounter, actor: str) -> str | None:
    return traits(enc, actor).melee


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
    first = targets[0]
    ids = [first.id]

    def ok(mode: str, n: int = 1) -> bool:
        return mode in legal and mode_legal(enc, actor, weapon, mode, n) is None

    if weapon.type in ("smg", "assault_rifle", "machine_gun"):
        x, y = a.x, a.y
        short = ranges_of(weapon)[0]
        close = [t for t in targets if max(t.x - x, x - t.x, t.y - y, y - t.y) <= short]
        if len(close) >= 3 and spare > 0 and ok("long_burst"):
            return "long_burst", ids
        second = next((t for t in close if t.id != first.id and distance(pos(t), pos(first)) <= 3), None)
        if second is not None and ok("burst_multi", 2):
            return "burst_multi", [first.id, second.id]
        zone = cover_against(enc, a, first)
        if zone is not None and zone.level == "three_quarters" and ok("suppressive"):
            return "suppressive", ids
        if ok("burst") and left >= 2 * burst_size(weapon, rules(enc).assault_rifle_burst):
            return "burst", ids
        for mode in ("single_auto", "burst", "long_burst"):
            if ok(mode):
                return mode, ids
    zone = cover_against(enc, a, first)
    if zone is not None and zone.level == "three_quarters" and ok("suppressive"):  # ZC-FIRE-2: pin it down
        return "suppressive", ids
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
    if not traits(enc, target.id).undead:
        return None
    code = trait(enc, actor, "heavy_weapons" if weapon.type == "machine_gun" else "firearms")
    est = _estimate(enc, actor, weapon, target)
    return "head" if float(success_probability(code, est + 4)) >= 0.45 else None


def _estimate(enc: Encounter, actor: str, weapon: Weapon, target: ActorState) -> int:
    r = rules(enc)
    metres = distance(pos(enc.state.actors[actor]), pos(target))
    band = range_band(enc, weapon, metres) or "long"
    zone = cover_against(enc, enc.state.actors[actor], target)
    cover = r.cover_dice.get(zone.level, 0) if zone else 0
    return r.passive_defence + r.range_modifiers[band] + (7 * cover) // 2


def survivor(enc: Encounter, actor: str, *, advance: bool) -> Plan:
    a = enc.state.actors[actor]
    here = pos(a)
    if "grabbed" in a.conditions:
        return Plan(kind="escape", targets=[actor_at(enc, a.conditions["grabbed"])], stakes=2)
    if "prone" in a.conditions:
        return Plan(kind="stand")
    first = _first_threat(enc, actor)
    if first is None:
        return Plan(kind="hold")
    nearest, target = first
    crowd = enc.crowd
    # foes at arm's reach (len(near(enc, actor, 1)))
    adjacent = len(crowd.within(a.x, a.y, crowd.other_sides(a.side), 1)) if nearest <= 1 else 0
    weapon, need = _firearm(enc, actor)
    if weapon is not None and need == "reload" and not adjacent:
        return Plan(kind="reload", weapon=weapon.name)
    if weapon is not None and need is None:
        short, _, long = ranges_of(weapon)
        # the first foe in sight (behind a full wall, the first threat may be out of sight)
        shot = first if sees(enc, a, target) else _first_seen(enc, actor)
        if shot is not None and shot[0] <= long:
            seen_at, aimed = shot
            # the foes in range in threat order: the mode looks at the first and at those within short range
            in_range = _threats_within(enc, actor, short) if seen_at <= short else [aimed]
            mode, targets = choose_mode(enc, actor, weapon, in_range)
            called = _called(enc, actor, weapon, aimed)
            if (
                not advance
                and nearest > 5  # no foe within 5 m
                and "aiming" not in a.conditions
                and not traits(enc, aimed.id).undead
                and seen_at > short
            ):
                return Plan(kind="aim", targets=[aimed.id])
            return Plan(
                kind="shoot",
                targets=targets,
                weapon=weapon.name,
                mode=mode,
                called=called,
                partial=bool(adjacent),
                stakes=_stakes(enc, actor, aimed, adjacent),
            )
        if advance:
            return Plan(
                kind="move",
                targets=[target.id],
                path=walk(
                    enc, here, pos(target), min(sheet(enc, actor).move, 10), stop=long, blocked=occupied(enc, actor)
                ),
            )
        return Plan(kind="hold")
    # hand to hand: a melee weapon or fists
    melee = _close_weapon(enc, actor)
    if nearest <= 1:
        if traits(enc, target.id).undead and melee is None and adjacent == 1:
            return Plan(kind="manoeuvre", manoeuvre="push", targets=[target.id], stakes=1)
        return Plan(
            kind="strike",
            weapon=melee,
            targets=[target.id],
            partial=adjacent == 1,
            stakes=_stakes(enc, actor, target, adjacent),
        )
    if advance:
        return Plan(
            kind="move",
            targets=[target.id],
            path=walk(enc, here, pos(target), min(sheet(enc, actor).move, 10), stop=1, blocked=occupied(enc, actor)),
        )
    return Plan(kind="hold")


def competent(enc: Encounter, actor: str, style: tactics.Style) -> Plan:
    """Rules edition 5: the best option by expected value with the exact odds (systems/zcorps/tactics.py)."""
    a = enc.state.actors[actor]
    if "grabbed" in a.conditions:
        return Plan(kind="escape", targets=[actor_at(enc, a.conditions["grabbed"])], stakes=2)
    if "prone" in a.conditions:
        return Plan(kind="stand")
    o = tactics.choose(enc, actor, style)
    targets = list(o.targets)
    if o.kind in ("shoot", "strike", "manoeuvre"):
        crowd = enc.crowd
        adjacent = len(crowd.within(a.x, a.y, crowd.other_sides(a.side), 1))
        stakes = tactics.stakes(enc, actor, o)
        # ZC-DEF-2: edition 6 weighs the partial defence with each attack (tactics.py); before, arm's reach decides
        if o.kind == "shoot":
            return Plan(
                kind="shoot",
                targets=targets,
                weapon=o.weapon,
                mode=o.mode,
                called=o.called,
                partial=bool(adjacent) if o.partial is None else o.partial,
                stakes=stakes,
            )
        if o.kind == "strike":
            partial = adjacent == 1 if o.partial is None else o.partial
            return Plan(kind="strike", weapon=o.weapon, targets=targets, partial=partial, stakes=stakes)
        return Plan(kind="manoeuvre", manoeuvre=o.manoeuvre, targets=targets, stakes=max(stakes, 1))
    if o.kind == "move":
        return Plan(kind="move", targets=targets, path=list(o.path))
    if o.kind == "reload":
        return Plan(kind="reload", weapon=o.weapon)
    if o.kind == "aim":
        return Plan(kind="aim", targets=targets)
    return Plan(kind="hold")


def aggressive(enc: Encounter, actor: str) -> Plan:
    """Closes in and shoots; from rules edition 5 the competent core with little weight on the harm foes can do."""
    if rules(enc).edition >= tactics.COMPETENT_EDITION:
        return competent(enc, actor, tactics.AGGRESSIVE)
    return survivor(enc, actor, advance=True)


def cautious(enc: Encounter, actor: str) -> Plan:
    """Holds its ground; from rules edition 5 the competent core weighing the harm foes can do (cover first)."""
    if rules(enc).edition >= tactics.COMPETENT_EDITION:
        return competent(enc, actor, tactics.CAUTIOUS)
    return survivor(enc, actor, advance=False)


def zombie(enc: Encounter, actor: str) -> Plan:
    """Shamble toward the nearest living, grab, bite."""
    a = enc.state.actors[actor]
    here = (a.x, a.y)
    if "prone" in a.conditions:
        return Plan(kind="stand")
    if "grabbing" in a.conditions:
        held = actor_at(enc, a.conditions["grabbing"])
        h = enc.state.actors[held]
        # edition 5: only a hold that still is one (another's grab, then an escape from it, leaves this one
        # holding nobody: ZC-BRAWL-1's bite would be lost round after round)
        still = rules(enc).edition < SPREAD_EDITION or h.conditions.get("grabbed") == index_of(enc, actor)
        if alive(h) and distance(here, pos(h)) <= 1 and still:
            return Plan(kind="bite", targets=[held])
    # the nearest living foe, those still able to act first (then by id): the crowd index knows the able ones
    actors, x, y = enc.state.actors, a.x, a.y
    crowd = enc.crowd
    spreads = enc.rules.edition >= SPREAD_EDITION  # rules(enc)
    others = crowd.other_sides(a.side)
    # a few able foes (a horde's handful of survivors): each one's distance, nearest first (then by id), read once
    near = crowd.all_near(x, y, others) if spreads else None
    if near is not None:
        first = _first_reached_unheld(enc, a, near)
        found = None if first is None else (first[0], [first[1]])
        if found is None and _first_reached(enc, a, near) is not None:
            return Plan(kind="hold")  # every foe it can reach is in another's hold: a second grab would free it
    else:
        accept = _reached_unheld(enc, a) if spreads else _reached(enc, a)
        found = crowd.nearest(x, y, others, accept=accept)
        if found is None and spreads and crowd.nearest(x, y, others, accept=_reached(enc, a)):
            return Plan(kind="hold")  # every foe it can reach is in another's hold: a second grab would free it
    if found is not None:
        d, ids = found
        target = actors[ids[0]]
        if d <= 1:
            return Plan(kind="manoeuvre", manoeuvre="grab", targets=[target.id])
        metres = enc.actor_specs[actor].move  # min(sheet(enc, actor).move, 10)
        if metres > 10:
            metres = 10
        goal = (target.x, target.y)
        # walk(): the battlefield's path around the walls, never onto a cell another stands on (occupied())
        path = enc.battlefield.path_toward(here, goal, metres, stop=1, blocked=crowd.blocked_for(actor))
        if (
            spreads
            and len(path) < metres
            and distance(path[-1] if path else here, goal) > 1
            and (near is None or near[0][0] <= SPREAD_WALK + 1)  # (sorted: none nearer than the first, none to go to)
        ):
            # the way to the nearest is blocked short of it: round to a free side of a survivor
            spread = _to_a_free_side(enc, a, metres, near)
            if spread is not None:
                return spread
        return Plan(kind="move", targets=[target.id], path=path)
    # none able to act: the nearest of the living that cannot (one pass over the opponents)
    best: tuple[bool, int, str] | None = None
    target = a
    for fid in opponents(enc, a.side):
        f = actors.get(fid)
        if f is None or not GONE.isdisjoint(f.conditions):  # not yet come, or not alive()
            continue
        key = (not DISABLING.isdisjoint(f.conditions), max(f.x - x, x - f.x, f.y - y, y - f.y), f.id)
        if best is None or key < best:
            best, target = key, f
    if best is None:
        return Plan(kind="hold")
    if best[1] <= 1:
        return Plan(kind="manoeuvre", manoeuvre="grab", targets=[target.id])
    path = walk(enc, here, pos(target), min(sheet(enc, actor).move, 10), stop=1, blocked=occupied(enc, actor))
    return Plan(kind="move", targets=[target.id], path=path)


#: ZC-MOVE-1 (policy, rules edition 5): the dead spread round the living (docs/rules-notes.md).
SPREAD_EDITION = 5
#: ZC-MOVE-1 (policy, edition 5): how far a walk the dead look for a free side of a living foe, in metres.
SPREAD_WALK = 15


def _held_by_another(enc: Encounter, foe: ActorState, me: str) -> bool:
    """ZC-BRAWL-1: whether ``foe`` is in the hold of someone other than ``me`` (a hold that still is one)."""
    holder_index = foe.conditions.get("grabbed")
    if holder_index is None:
        return False
    holder = actor_at(enc, holder_index)
    if holder == me:
        return False
    h = enc.state.actors.get(holder)
    return h is not None and h.conditions.get("grabbing") == index_of(enc, foe.id)


def _reached_unheld(enc: Encounter, me: ActorState) -> Callable[[str], bool]:
    """A crowd filter (edition 5): foes ``me`` can walk to that no other holds.

    ZC-BRAWL-1 keeps one holder a victim: a second grab would take the hold from the first, who
    could then not bite (the dead would take turns grabbing and never bite). The dead leave a
    held survivor to its holder and go for another.
    """
    reached = enc.battlefield.reaches_from((me.x, me.y))  # (_reached, with me's region read once)
    actors, me_id = enc.state.actors, me.id

    def accept(fid: str) -> bool:
        foe = actors[fid]
        if "grabbed" in foe.conditions and _held_by_another(enc, foe, me_id):
            return False
        return reached((foe.x, foe.y))

    return accept


def _first_reached_unheld(enc: Encounter, me: ActorState, foes: list[tuple[int, str]]) -> tuple[int, str] | None:
    """:func:`_reached_unheld`'s first foe of ``foes`` (sorted by distance, then id): the nearest a crowd query with
    that filter finds, of its ids the first (each foe asked in turn until one passes, and no more)."""
    reached = enc.battlefield.reaches_from((me.x, me.y))
    actors, me_id = enc.state.actors, me.id
    for d, fid in foes:
        foe = actors[fid]
        if "grabbed" in foe.conditions and _held_by_another(enc, foe, me_id):
            continue
        if reached((foe.x, foe.y)):
            return d, fid
    return None


def _first_reached(enc: Encounter, me: ActorState, foes: list[tuple[int, str]]) -> tuple[int, str] | None:
    """:func:`_reached`'s first foe of ``foes`` (sorted by distance, then id), held or not."""
    reached = enc.battlefield.reaches_from((me.x, me.y))
    actors = enc.state.actors
    for d, fid in foes:
        foe = actors[fid]
        if reached((foe.x, foe.y)):
            return d, fid
    return None


def _to_a_free_side(
    enc: Encounter, a: ActorState, metres: int, foes: list[tuple[int, str]] | None = None
) -> Plan | None:
    """ZC-MOVE-1 (policy, edition 5): ``metres`` steps of the shortest walk to a free cell at arm's reach of a
    foe able to act, around the walls and the others standing there, when one is within a walk of
    :data:`SPREAD_WALK` metres (None: none is). Asked when the walk toward the nearest foe stops short.

    The dead do not queue behind the one at the gap: they spread along the barricade and go round
    to its other end and to the other survivors. Of equally short walks, the nearest foe first
    (then by id): :meth:`fracas.core.battlefield.Battlefield.walk_to_reach`.

    ``foes``: every able foe as (distance, id), sorted (:meth:`fracas.core.battlefield.Crowd.all_near`), when
    the decision has them already.
    """
    crowd = enc.crowd
    actors = enc.state.actors
    if foes is None:
        foes = crowd.within(a.x, a.y, crowd.other_sides(a.side), SPREAD_WALK + 1)
    near = []
    for d, fid in foes:
        if d > SPREAD_WALK + 1:
            break  # sorted: the rest are farther
        if "grabbed" not in actors[fid].conditions or not _held_by_another(enc, actors[fid], a.id):
            near.append((d, fid))
    if not near:
        return None
    cells = [(actors[fid].x, actors[fid].y) for _, fid in near]
    found = enc.battlefield.walk_to_reach((a.x, a.y), cells, SPREAD_WALK, blocked=occupied(enc, a.id))
    if found is None:
        return None
    path, k = found
    return Plan(kind="move", targets=[near[k][1]], path=path[:metres])


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
            kind="move", path=walk(enc, here, (s.to[0], s.to[1]), min(spec.move, 10), blocked=occupied(enc, actor))
        )
    if s.action in ("grab", "knock_down", "push", "trip", "tackle"):
        return Plan(kind="manoeuvre", manoeuvre=s.action, targets=targets)
    kind = {"fire": "shoot"}.get(s.action, s.action)
    return Plan(kind=kind, targets=targets, weapon=s.weapon, mode=s.mode or "single")


def wants_active_defence(enc: Encounter, defender: str, attacker: str) -> bool:
    """ZC-DEF-1 (policy): the dead never defend; survivors when outnumbered (aggressive: at arm's reach)."""
    t = traits(enc, defender)
    if t.undead or t.policy in ("zombie", "scripted"):
        return False
    # foes at arm's reach, foes and friends able to act (the defender among its friends): the crowd's counts
    me = enc.state.actors[defender]
    crowd = enc.crowd
    others = crowd.other_sides(me.side)
    adjacent = len(crowd.within(me.x, me.y, others, 1))
    able_foes = sum(crowd.able_count(side) for side in others)
    able_friends = crowd.able_count(me.side)
    if adjacent >= 2:
        return True
    if t.policy == "cautious":
        return able_foes > able_friends
    return False


def _may_want_extra(enc: Encounter) -> frozenset[str]:
    """The actors who may ever want an extra action (ZC-MULTI-1): the living who play a survivor's policy (the sheets
    and policies never change during a fight)."""
    table = traits_table(enc)
    return frozenset(aid for aid, t in table.items() if not t.undead and t.policy in ("aggressive", "cautious"))


def wants_extra_action(enc: Encounter, actor: str) -> int:
    """ZC-MULTI-1 (policy): one extra action when three foes are within short range and the gun is full enough."""
    # asked of every actor at each round's start: the dead of a horde answered by one look-up
    wanting: frozenset[str] | None = enc.scratch.get("zc_may_want_extra")
    if wanting is None:
        wanting = enc.scratch["zc_may_want_extra"] = _may_want_extra(enc)
    if actor not in wanting:
        return 0
    t = traits(enc, actor)
    weapon, need = _firearm(enc, actor)
    a = enc.state.actors[actor]
    if weapon is None or need is not None or a.ammo.get(weapon.name, 0) < 4 or worst_level(a) >= INCAPACITATED:
        return 0
    if rules(enc).edition >= tactics.COMPETENT_EDITION:
        return 1 if tactics.extra_action_worth(enc, actor) else 0
    if t.codes["firearms"].dice < 4:
        return 0
    # three foes within short range (len(near(...)) >= 3), asked of the crowd index
    crowd = enc.crowd
    close = crowd.within(a.x, a.y, crowd.other_sides(a.side), ranges_of(weapon)[0])
    return 1 if len(close) >= 3 else 0


POLICIES: dict[str, Policy] = {
    "aggressive": aggressive,
    "cautious": cautious,
    "zombie": zombie,
    "scripted": scripted,
    "human": human,
}


def defend_ranged(enc: Encounter, defender: str, attacker: str, incoming: Incoming | None = None) -> bool:
    """ZC-DEF-1: the defence choice against a shot (a human is asked, ranged skills only)."""
    if traits(enc, defender).policy == "human":
        return human_defence(enc, defender, attacker, melee=False)
    return _defends(enc, defender, attacker, incoming, melee=False)


def defend_melee(enc: Encounter, defender: str, attacker: str, incoming: Incoming | None = None) -> bool:
    """ZC-DEF-1: the defence choice against a blow (a human is asked; block and parry count)."""
    if traits(enc, defender).policy == "human":
        return human_defence(enc, defender, attacker, melee=True)
    return _defends(enc, defender, attacker, incoming, melee=True)


def _defends(enc: Encounter, defender: str, attacker: str, incoming: Incoming | None, *, melee: bool) -> bool:
    """ZC-DEF-1 (policy): from rules edition 6 a competent survivor defends when the harm the defence prevents is
    worth more than the action it spends (systems/zcorps/tactics.py); before, and for other policies, the old rule."""
    style = tactics.STYLES.get(traits(enc, defender).policy)
    if style is not None and incoming is not None and rules(enc).edition >= tactics.DEFENCE_EDITION:
        return tactics.wants_defence(enc, defender, attacker, incoming, style, melee=melee)
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
