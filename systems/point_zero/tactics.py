"""Point Zéro tactics: competent decisions by expected value with the exact odds (issue 16).

The ``aggressive`` and ``cautious`` policies are two :class:`Style` values over
one competent core. Each option of the round is scored as

    value = P(hit) x expected harm x P(the initiative lasts the move)
            - threat weight x expected harm the foes can do at the end cell

with the exact odds of :mod:`fracas.systems.point_zero.odds` and the same
difficulty the resolution will compute (range band from the firing cell,
light and cover at the target, target movement, aiming: PZ-DIFF-1..3), so the
options compared are:

- shoot from here, or after a move within the free move (PZ-MOVE-1) toward a
  foe or into a cover zone; strike after closing in (PZ-DIFF-2);
- surpass oneself (PZ-SURP-1) only when the extra die adds at least
  :data:`SURPASS_WORTH` (10 points) of odds and the Shock box it marks does
  not tip the actor into Étourdi;
- aim (PZ-DIFF-3), ready a weapon, sprint toward a foe or to cover, hold:
  worth a discounted share of the next round's best shot.

A shot with no chance is never taken; expected harm grows with the target's
wounds (focus fire on foes that can be put down). Policies are deterministic.

From rules edition 6 (:data:`DECLARATIONS_EDITION`) a decision also reads what
PZ-INIT-3 lets a player know when it declares: its own initiative roll, and
the declarations of every slower actor (:func:`declared_terms`). A foe's
declared path says where it will stand at the actor's count; a declared attack
on the actor is a known harm at each cell it may end on, worth taking cover
from or putting its author down first (the author, slower, resolves after);
putting down a foe a slower ally declared against loses the ally's action
(PZ-INIT-4), so that action's worth counts against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Protocol

import msgspec
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero.odds import at_least
from fracas.systems.point_zero.rules import PHYSICAL, SHOCK
from fracas.systems.point_zero.sheet import MELEE_SKILLS, Weapon

Cell = tuple[int, int]

#: Rules edition 5 (bounded decisions): a decision weighs only the nearest foes (:func:`foes`).
BOUNDED_EDITION = 5
#: How many foes a decision weighs from rules edition 5: the nearest (ties by id). Every foe of a
#: table-sized fight (a fight of eight foes or fewer plays as under edition 4); in a crowd, a cost
#: per decision that does not grow with it (each foe weighed adds a walk toward it and its threat
#: at every firing cell: about 5 ms an actor-round at 8, three times that at 16).
NEAREST_FOES = 8
#: Rules edition 6: the AI reads its initiative and the slower actors' declarations (PZ-INIT-3).
DECLARATIONS_EDITION = 6
#: The encounter scratch keys of the round's declarations (PZ-INIT-3): actor -> plan, in the order
#: declared (slowest first); each actor's initiative (a move-only declaration's is its DEP once
#: declared, PZ-INIT-2); and target -> the actors that declared an attack on it, in that order.
DECLARED = "pz_declared"
INITIATIVE = "pz_initiative"
DECLARED_AGAINST = "pz_declared_against"
#: PZ-SURP-1 (policy): a surpass only when it adds this much to the odds (issue 16).
SURPASS_WORTH = 0.10
#: The share of next round's value counted for an action that only prepares it (aim, reload, move).
NEXT_ROUND = 0.6
#: What readying a weapon (reload, clear a jam, pick it up) is worth beyond next round's shot.
READY_WORTH = 0.1
#: The expected margin of success of a hit, added to the damage (PZ-DMG-1): a rough mean.
MEAN_MARGIN = 2.0
#: The encounter scratch key of the decisions kept for the fight (:func:`choose`): key -> option.
DECISIONS = "pz_decisions"
#: The encounter scratch key of each cell's light and cover modifiers (:func:`_cell_modifiers`): cell -> both.
CELL_MODIFIERS = "pz_cell_modifiers"
#: The encounter scratch key of each cell's nearest cover cells (:func:`_cover_cells`): cell -> cells.
COVER_CELLS = "pz_cover_cells"
#: How many decisions are kept at most (the lot is dropped when full: a long stalemate keeps a few hundred).
KEPT_DECISIONS = 4096
#: The most actors a fight has for its decisions to be kept (:func:`decision_key`).
SAME_DECISION_ACTORS = 16


@dataclass(frozen=True)
class Style:
    """What a style values on top of competence."""

    name: str
    #: how much the harm the foes can do at the end cell counts against an option
    threat_weight: float
    #: a shot below these odds is left for a better option when one is worth more
    min_odds: float
    #: sprinting into cover is an option even with a shot or a blow at hand
    sprints_to_cover: bool
    #: from rules edition 6, how much a declared attack's expected harm on the actor or an ally
    #: counts against harm dealt (PZ-INIT-3: known, so not discounted as ``threat_weight`` is)
    known_harm_weight: float = 0.0


#: The rules edition from which ``aggressive`` and ``cautious`` play by this module (docs/rules-notes.md).
COMPETENT_EDITION = 3
#: The policies that play by this module (their attacks are re-checked at resolution: :func:`at_resolution`).
COMPETENT = ("aggressive", "cautious")

AGGRESSIVE = Style(name="aggressive", threat_weight=0.1, min_odds=0.0, sprints_to_cover=False, known_harm_weight=0.5)
CAUTIOUS = Style(name="cautious", threat_weight=0.3, min_odds=0.05, sprints_to_cover=True, known_harm_weight=1.0)


#: Encodes a decision's inputs (:func:`decision_key`).
_KEY_ENCODER = msgspec.msgpack.Encoder()


class Option(NamedTuple):
    """A scored option: the plan's fields and its value (a named tuple: a decision makes dozens to hundreds, and a
    frozen dataclass sets each field through ``object.__setattr__``)."""

    value: float
    kind: str
    target: str | None = None
    weapon: str | None = None
    before: tuple[Cell, ...] = ()
    after: tuple[Cell, ...] = ()
    surpass: int = 0
    odds: float = 0.0


@lru_cache(maxsize=4096)
def p_success(dice: int, keep: int, difficulty: int) -> float:
    """P(best ``keep`` of ``dice`` d6 >= ``difficulty``) as a float (PZ-TEST-1..3); no dice: only a difficulty <= 0."""
    if dice <= 0:
        return 1.0 if difficulty <= 0 else 0.0
    return float(at_least(dice, keep, difficulty))


@lru_cache(maxsize=1024)
def p_initiative_above(init_dice: int, metres: int) -> float:
    """P(INIT d6 summed > ``metres``): the action survives moving that far first (PZ-MOVE-2)."""
    if metres <= 0:
        return 1.0
    return float(at_least(init_dice, init_dice, metres + 1))


def _memo(enc: Encounter) -> dict[tuple[object, ...], object]:
    """A cache for one decision phase: every policy of a round decides at its start (PZ-INIT-3),
    before anything moves or is hurt (initiative rolls change neither), so a round's
    positions, wounds and weapons are the same for each; a new round starts a fresh cache.
    Only the round-start decisions use it (:func:`at_resolution` does not).
    """
    key = (enc.round, len(enc.state.actors))
    held = enc.scratch.get("pz_tactics")
    if held is None or held[0] != key:
        held = (key, {})
        enc.scratch["pz_tactics"] = held
    memo: dict[tuple[object, ...], object] = held[1]
    return memo


def foes(enc: Encounter, actor: str) -> list[ActorState]:
    """The foes a decision weighs, able to act, in the order of the state (the order ties are broken in).

    Up to rules edition 4 every able foe: the same list for every actor of a side, kept once per
    side for the round's decisions. From edition 5 the :data:`NEAREST_FOES` nearest (by the crowd
    index; ties at the last distance by id), so that a decision's work is bounded whatever the
    crowd: each foe weighed costs a firing cell toward it and its threat at every firing cell.
    Where a side has no more able foes than that (a table-sized fight), the nearest are all of them:
    the side's list, as up to edition 4.
    """
    memo = _memo(enc)
    me = enc.state.actors[actor]
    side = me.side
    everyone = memo.get(("foes", side))
    if everyone is None and (R.rules(enc).edition < BOUNDED_EDITION or _few_foes(enc, side)):
        everyone = memo[("foes", side)] = [a for a in enc.state.actors.values() if a.side != side and a.can_act()]
    if everyone is not None:
        return everyone  # type: ignore[return-value]
    got = memo.get(("foes", actor))
    if got is None:
        got = memo[("foes", actor)] = _nearest_foes(enc, me)
    return got  # type: ignore[return-value]


def _few_foes(enc: Encounter, side: str) -> bool:
    """Whether the other sides have :data:`NEAREST_FOES` able actors or fewer (the crowd's counts: an able actor
    is one that can act, as :meth:`ActorState.can_act` says)."""
    crowd = enc.crowd
    return sum(crowd.able_count(other) for other in crowd.other_sides(side)) <= NEAREST_FOES


def _nearest_foes(enc: Encounter, me: ActorState) -> list[ActorState]:
    crowd = enc.crowd
    picked = crowd.nearest_few(me.x, me.y, crowd.other_sides(me.side), NEAREST_FOES)
    order = _state_order(enc)
    actors = enc.state.actors
    return [actors[fid] for fid in sorted(picked, key=order.__getitem__)]


def _state_order(enc: Encounter) -> dict[str, int]:
    """Each actor's place in the state, once a round (the order the tie-breaks of edition 4 follow)."""
    memo = _memo(enc)
    got = memo.get(("order",))
    if got is None:
        got = memo[("order",)] = {aid: k for k, aid in enumerate(enc.state.actors)}
    return got  # type: ignore[return-value]


def _taken(enc: Encounter, cell: Cell, actor: str) -> bool:
    """Whether someone other than ``actor`` stands on ``cell``, the dead aside (asked of the crowd index)."""
    ids = enc.crowd.occupants(cell)
    if not ids:
        return False
    actors = enc.state.actors
    return any(i != actor and not actors[i].conditions.get("dead") for i in ids)


def _light_at(enc: Encounter, cell: Cell) -> int:
    """PZ-DIFF-3: the light's modifier at ``cell`` (:func:`_cell_modifiers`)."""
    return _cell_modifiers(enc, cell)[0]


def _cell_modifiers(enc: Encounter, cell: Cell) -> tuple[int, int]:
    """PZ-DIFF-3: the light's modifier at ``cell`` (its cover zone's light, else the map's) and its cover zone's
    (0 outside any), kept for the fight: the zones and the light never change."""
    kept: dict[Cell, tuple[int, int]] | None = enc.scratch.get(CELL_MODIFIERS)
    if kept is None:
        kept = enc.scratch[CELL_MODIFIERS] = {}
    got = kept.get(cell)
    if got is None:
        r = R.rules(enc)
        zone = R.cover_at(enc, cell)
        light = zone.light if zone is not None and zone.light else enc.scenario.map.light
        got = kept[cell] = (r.light_modifiers.get(light, 0), r.cover_modifiers[zone.level] if zone is not None else 0)
    return got


def _movement_modifier(enc: Encounter, target: ActorState) -> int:
    """PZ-DIFF-3: the target's own movement so far this round, as the resolution reads it."""
    r = R.rules(enc)
    free_metres = R.sheet(enc, target.id).attributes.DEP // 3
    if "sprinting" in target.conditions and target.moved >= free_metres * 2:
        return r.sprinting_target
    if target.moved > free_metres:
        return r.moving_target
    return 0


def shot_difficulty(
    enc: Encounter, actor: str, weapon: Weapon, target: ActorState, cell: Cell, target_cell: Cell | None = None
) -> int | None:
    """PZ-DIFF-1 / PZ-DIFF-3: a shot from ``cell`` at ``target`` (standing at ``target_cell``); None: out of range."""
    tc = target_cell or R.pos(target)
    band = R.range_band(weapon.bands, R.distance(cell, tc))
    if band is None:
        return None
    r = R.rules(enc)
    light, cover = _cell_modifiers(enc, tc)
    difficulty: int = r.range_difficulty[band] + light + cover
    if target_cell is None:
        difficulty += _movement_modifier(enc, target)
    aimed_at = enc.state.actors[actor].conditions.get("aiming")
    if (
        aimed_at is not None
        and aimed_at == list(enc.actor_specs).index(target.id)
        and cell == R.pos(enc.state.actors[actor])
    ):
        difficulty += r.aim_bonus
    return difficulty


def melee_difficulty(enc: Encounter, actor: str, weapon: Weapon, target: ActorState) -> int:
    """PZ-DIFF-2 / PZ-DIFF-3: 10 + the defender's level, light and movement (no cover in melee)."""
    r = R.rules(enc)
    level = R.sheet(enc, target.id).skills.get(weapon.skill, 0)
    return r.melee_base + level + _light_at(enc, R.pos(target)) + _movement_modifier(enc, target)


def expected_harm(enc: Encounter, attacker: str, weapon: Weapon, target: ActorState) -> float:
    """Expected wound levels of a hit (PZ-DMG-1, PZ-SB-1, PZ-MON-3), more for a foe already hurt (focus fire)."""
    memo = _memo(enc)
    key = ("harm", attacker, weapon.name, target.id)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _expected_harm(enc, attacker, weapon, target)
    return got  # type: ignore[return-value]


def _expected_harm(enc: Encounter, attacker: str, weapon: Weapon, target: ActorState) -> float:
    vig = R.sheet(enc, attacker).attributes.VIG
    n, flat = R.dice_of_pu(weapon.pu, vig)
    damage = 3.5 * n + flat + MEAN_MARGIN
    sb = max(1, R.natural_sb(enc, target.id) + R.armour_bonus(enc, target.id, weapon))
    levels = min(4.0, damage / sb)
    worst = R.worst_level(target)
    return levels * (1.0 + 0.5 * (worst + 1))


def _keep(enc: Encounter, actor: str, attribute: str) -> int:
    return R.effective_attribute(enc, actor, attribute)[0]


def ready_ranged(enc: Encounter, actor: str) -> list[Weapon]:
    """Ranged weapons ready to fire with a round in them."""
    a = enc.state.actors[actor]
    return [
        w
        for w in R.sheet(enc, actor).weapons
        if w.skill not in MELEE_SKILLS and a.weapons.get(w.name, "ready") == "ready" and a.ammo.get(w.name, 0) > 0
    ]


def melee_weapon(enc: Encounter, actor: str) -> Weapon:
    """The first ready melee weapon, else fists."""
    a = enc.state.actors[actor]
    for w in R.sheet(enc, actor).weapons:
        if w.skill in MELEE_SKILLS and a.weapons.get(w.name) == "ready":
            return w
    return R.weapon_of(enc, actor, None)


def threat_at(enc: Encounter, actor: str, cell: Cell, sprinting: bool = False) -> float:
    """Expected harm the foes can do this round to ``actor`` standing at ``cell`` (each foe's best attack)."""
    memo = _memo(enc)
    key = ("threat", actor, cell, sprinting)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _threat_at(enc, actor, cell, sprinting)
    return got  # type: ignore[return-value]


def _threat_at(enc: Encounter, actor: str, cell: Cell, sprinting: bool) -> float:
    """:func:`threat_at` worked out: each foe's best attack at ``cell``, from what its attacks owe to the foe and
    the actor alone (:func:`_foe_attacks`); a shot's difficulty as :func:`shot_difficulty` has it (PZ-DIFF-1,
    PZ-DIFF-3: the band, the light and cover at ``cell``, the foe's aim)."""
    r = R.rules(enc)
    total = 0.0
    for f in foes(enc, actor):
        shots, reach, melee = _foe_attacks(enc, actor, f)
        best = 0.0
        d = R.distance((f.x, f.y), cell)
        for w, dice, keep, harm, aim in shots:
            band = R.range_band(w.bands, d)
            if band is None:
                continue
            light, cover = _cell_modifiers(enc, cell)
            diff = r.range_difficulty[band] + light + cover + aim
            if sprinting:
                diff += r.sprinting_target
            best = max(best, p_success(dice, keep, diff) * harm)
        if d - 1 <= reach:
            dice, keep, level, harm = melee
            diff = r.melee_base + level + _light_at(enc, cell)
            best = max(best, p_success(dice, keep, diff) * harm)
        total += best
    return total


def _foe_attacks(
    enc: Encounter, actor: str, foe: ActorState
) -> tuple[list[tuple[Weapon, int, int, float, int]], int, tuple[int, int, int, float]]:
    """What ``foe``'s attacks on ``actor`` owe to the two alone, kept for the round's decisions (:func:`_memo`):
    each ready ranged weapon (its dice, PER kept, expected harm, the aim bonus when it aims at ``actor``), its
    free move, and its blow (dice, ADR kept, ``actor``'s level in the skill, expected harm)."""
    memo = _memo(enc)
    key = ("foe attacks", actor, foe.id)
    got = memo.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    me = enc.state.actors[actor]
    r = R.rules(enc)
    skills = R.sheet(enc, foe.id).skills
    aimed_at = foe.conditions.get("aiming")
    aim = r.aim_bonus if aimed_at is not None and aimed_at == list(enc.actor_specs).index(actor) else 0
    shots = [
        (w, skills.get(w.skill, 0), _keep(enc, foe.id, "PER"), expected_harm(enc, foe.id, w, me), aim)
        for w in ready_ranged(enc, foe.id)
    ]
    w = melee_weapon(enc, foe.id)
    melee = (
        skills.get(w.skill, 0),
        _keep(enc, foe.id, "ADR"),
        R.sheet(enc, actor).skills.get(w.skill, 0),
        expected_harm(enc, foe.id, w, me),
    )
    got = memo[key] = (shots, R.free_move(enc, foe.id), melee)
    return got


def _cover_cells(enc: Encounter, here: Cell) -> tuple[Cell, ...]:
    """The nearest cell of each cover zone (the lowest (x, y) of equally near cells), kept per cell for the fight
    (the zones never move)."""
    kept: dict[Cell, tuple[Cell, ...]] | None = enc.scratch.get(COVER_CELLS)
    if kept is None:
        kept = enc.scratch[COVER_CELLS] = {}
    got = kept.get(here)
    if got is None:
        got = kept[here] = tuple(_nearest_cover_cells(enc, here))
    return got


def _nearest_cover_cells(enc: Encounter, here: Cell) -> list[Cell]:
    """:func:`_cover_cells` worked out."""
    out = []
    hx, hy = here
    for z in enc.scenario.map.cover:
        if z.w <= 0 or z.h <= 0:
            continue
        x = min(max(hx, z.x), z.x + z.w - 1)
        y = min(max(hy, z.y), z.y + z.h - 1)
        out.append((x, y))
    return out


def firing_cells(enc: Encounter, actor: str) -> list[tuple[Cell, tuple[Cell, ...]]]:
    """Here, and the cells a free move reaches straight toward each foe and into each cover zone."""
    a = enc.state.actors[actor]
    here = R.pos(a)
    reach = R.free_move(enc, actor)
    out: list[tuple[Cell, tuple[Cell, ...]]] = [(here, ())]
    seen = {here}
    goals = [R.pos(f) for f in foes(enc, actor)]
    goals += _cover_cells(enc, here)
    # on open ground a walk of ``reach`` metres toward a goal is the straight walk, which depends
    # only on the goal's offset clamped to ``reach`` metres: a goal whose clamped offset came
    # before adds no cell (its path is one already walked)
    walked: set[Cell] | None = set() if enc.battlefield.open else None
    hx, hy = here
    for goal in goals:
        if walked is not None:
            offset = (min(max(goal[0] - hx, -reach), reach), min(max(goal[1] - hy, -reach), reach))
            if offset in walked:
                continue
            walked.add(offset)
        path = R.walk(enc, here, goal, reach)
        for k in range(1, len(path) + 1):
            cell = path[k - 1]
            if cell in seen or _taken(enc, cell, actor):
                continue
            seen.add(cell)
            out.append((cell, tuple(path[:k])))
    return out


def _surpass_options(enc: Encounter, actor: str, dice: int, keep: int, difficulty: int) -> list[tuple[int, float]]:
    """(extra dice, odds): none, and each surpass that adds >= 10 points per die without tipping into Étourdi."""
    a = enc.state.actors[actor]
    base = p_success(dice, keep, difficulty)
    out = [(0, base)]
    if R.worst_level(a) >= 2:  # Critique/Sonné: no surpassing oneself (PZ-SURP-1)
        return out
    room = R.rules(enc).monitor_boxes[0] - a.monitors[SHOCK].marked[0]
    prev = base
    for extra in range(1, min(R.rules(enc).surpass_max, room) + 1):
        p = p_success(dice + extra, keep, difficulty)
        if p - prev < SURPASS_WORTH:
            break
        out.append((extra, p))
        prev = p
    return out


# ------------------------------------------ what the declarations tell (rules edition 6, PZ-INIT-3)


class Declared(Protocol):
    """A declared plan as this module reads it (:class:`fracas.systems.point_zero.policies.Plan`)."""

    kind: str
    target: str | None
    weapon: str | None
    before: list[Cell]
    after: list[Cell]
    surpass: int
    exit: str | None

    def acts(self) -> bool: ...


class Known(NamedTuple):
    """What PZ-INIT-3 tells an actor as it declares: its initiative, every initiative rolled, and the
    plans of the actors slower than it (declared first)."""

    init: int
    inits: dict[str, int]
    plans: dict[str, Declared]
    against: dict[str, list[str]]


def known(enc: Encounter, actor: str) -> Known | None:
    """From rules edition 6, what the actor knows of this round as it declares; None before (or outside a round)."""
    if R.rules(enc).edition < DECLARATIONS_EDITION:
        return None
    inits: dict[str, int] | None = enc.scratch.get(INITIATIVE)
    if inits is None or actor not in inits:
        return None
    return Known(inits[actor], inits, enc.scratch.get(DECLARED, {}), enc.scratch.get(DECLARED_AGAINST, {}))


def survives(k: Known | None, init_dice: int, metres: int) -> float:
    """PZ-MOVE-2: whether the action survives ``metres`` walked first: known from edition 6 (the roll is made
    before declaring, PZ-INIT-3: at least 1 left), else the odds of the INIT dice."""
    if k is None:
        return p_initiative_above(init_dice, metres)
    return 1.0 if metres < k.init else 0.0


def action_count(k: Known, aid: str) -> int | None:
    """The count at which a declared action resolves: the initiative less the metres walked first (PZ-MOVE-2)."""
    plan = k.plans.get(aid)
    init = k.inits.get(aid)
    if plan is None or init is None or not plan.acts():
        return None
    return init - len(plan.before)


def where_at(here: Cell, path: Sequence[Cell], start: int, count: int) -> tuple[Cell, int]:
    """Where a walker of ``path`` from initiative ``start`` (a metre a count, PZ-MOVE-2) stands as ``count``
    resolves, and the metres walked by then (a step at that count comes first: moves before actions)."""
    metres = min(len(path), max(0, start - count))
    return (path[metres - 1] if metres else here), metres


def declared_cell(enc: Encounter, k: Known, who: ActorState, count: int) -> tuple[Cell, int, bool]:
    """Where ``who`` stands as ``count`` resolves, by its declared path (its own cell if it has not declared),
    the metres walked, and whether it is gone by then (fled through its exit, C-END-1)."""
    plan = k.plans.get(who.id)
    here = R.pos(who)
    if plan is None:
        return here, 0, False
    init = k.inits.get(who.id, 0)
    if plan.acts():
        cell, metres = where_at(here, plan.before, init, count)
        return cell, metres, False
    cell, metres = where_at(here, plan.after, init, count)
    gone = False
    if plan.kind == "flee" and plan.exit is not None and metres and metres == len(plan.after):
        gone = any(e.name == plan.exit and (e.x, e.y) == cell for e in enc.scenario.map.exits)
    return cell, metres, gone


def moving_modifier(enc: Encounter, who: ActorState, metres: int, sprinting: bool) -> int:
    """PZ-DIFF-3: ``who``'s movement after ``metres`` more this round, as the resolution reads it."""
    r = R.rules(enc)
    free_metres = R.sheet(enc, who.id).attributes.DEP // 3
    moved = who.moved + metres
    if sprinting and moved >= free_metres * 2:
        return r.sprinting_target
    if moved > free_metres:
        return r.moving_target
    return 0


def declared_harm(
    enc: Encounter, k: Known, author: str, victim: str, cell: Cell, metres: int, sprinting: bool
) -> float:
    """The expected harm of ``author``'s declared attack on ``victim``, who stands at ``cell`` having walked
    ``metres`` when it resolves: the exact odds from the author's firing cell (PZ-DIFF-1..3) x expected harm."""
    p, w = declared_odds(enc, k, author, victim, cell, metres, sprinting)
    return p * expected_harm(enc, author, w, enc.state.actors[victim]) if p else 0.0


def declared_odds(
    enc: Encounter, k: Known, author: str, victim: str, cell: Cell, metres: int, sprinting: bool
) -> tuple[float, Weapon]:
    """The exact odds of ``author``'s declared attack on ``victim`` (see :func:`declared_harm`), and its weapon.

    Kept for the round's decisions (:func:`_memo`): a plan once declared stays as it is, and nothing
    moves or is hurt before the last declaration.
    """
    memo = _memo(enc)
    key = ("declared", author, victim, cell, metres, sprinting)
    got = memo.get(key)
    if got is None:
        got = memo[key] = _declared_odds(enc, k, author, victim, cell, metres, sprinting)
    return got  # type: ignore[return-value]


def _declared_odds(
    enc: Encounter, k: Known, author: str, victim: str, cell: Cell, metres: int, sprinting: bool
) -> tuple[float, Weapon]:
    plan = k.plans[author]
    st = enc.state.actors
    a, v = st[author], st[victim]
    w = R.weapon_of(enc, author, plan.weapon)
    fcell = plan.before[-1] if plan.before else R.pos(a)
    dice = R.sheet(enc, author).skills.get(w.skill, 0) + plan.surpass
    if w.skill in MELEE_SKILLS:
        if R.distance(fcell, cell) > 1:
            return 0.0, w  # out of reach at its count: the blow is lost (PZ-INIT-4)
        level = R.sheet(enc, victim).skills.get(w.skill, 0)
        diff = R.rules(enc).melee_base + level + _light_at(enc, cell) + moving_modifier(enc, v, metres, sprinting)
        keep = _keep(enc, author, "ADR")
    else:
        if w.name != "fists" and (a.weapons.get(w.name, "ready") != "ready" or a.ammo.get(w.name, 0) <= 0):
            return 0.0, w
        found = shot_difficulty(enc, author, w, v, fcell, target_cell=cell)
        if found is None:
            return 0.0, w
        diff = found + moving_modifier(enc, v, metres, sprinting)
        keep = _keep(enc, author, "PER")
    return p_success(dice, keep, diff), w


def p_outlives_declared(enc: Encounter, k: Known, actor: str, target: ActorState) -> float:
    """P(``target`` is still up after the attacks the actor's slower allies declared on it this round):
    each one's exact odds x P(its hit puts it down), as if each met it unhurt (the product of the misses)."""
    me = enc.state.actors[actor]
    against = k.against.get(target.id, ())
    memo = _memo(enc)
    # the actor has not declared yet, so it is not among them: the same for every actor of its side
    key = ("outlives", me.side, target.id, len(against))
    got = memo.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    out = 1.0
    for ally in against:
        if ally == actor or enc.state.actors[ally].side != me.side or action_count(k, ally) is None:
            continue
        cell, metres, _ = declared_cell(enc, k, target, action_count(k, ally) or 0)
        p, w = declared_odds(enc, k, ally, target.id, cell, metres, False)
        out *= 1.0 - p * p_down(enc, ally, w, target)
    memo[key] = out
    return out


@lru_cache(maxsize=64)
def _sum_ways(n: int) -> tuple[tuple[int, int], ...]:
    """(total, ways) of ``n`` d6 summed, out of 6**n."""
    ways = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}
        for total, w in ways.items():
            for face in range(1, 7):
                nxt[total + face] = nxt.get(total + face, 0) + w
        ways = nxt
    return tuple(sorted(ways.items()))


def p_down(enc: Encounter, attacker: str, weapon: Weapon, target: ActorState) -> float:
    """P(a hit leaves ``target`` unable to act: Inconscient, Fatale or dead; PZ-DMG-1, PZ-MON-2..5): the PU
    dice exact, the margin :data:`MEAN_MARGIN`, no save (as :func:`expected_harm` reads a hit)."""
    memo = _memo(enc)
    key = ("down", attacker, weapon.name, target.id)
    got = memo.get(key)
    if got is None:
        vig = R.sheet(enc, attacker).attributes.VIG
        n, flat = R.dice_of_pu(weapon.pu, vig)
        sb = max(1, R.natural_sb(enc, target.id) + R.armour_bonus(enc, target.id, weapon))
        down = sum(
            w for total, w in _sum_ways(n) if _puts_down(enc, target, weapon, total + flat + int(MEAN_MARGIN), sb)
        )
        got = memo[key] = down / 6**n
    return got  # type: ignore[return-value]


def _puts_down(enc: Encounter, target: ActorState, weapon: Weapon, damage: int, sb: int) -> bool:
    """Whether ``damage`` against ``sb`` takes ``target`` to Inconscient/Fatale or death (PZ-MON-2..4)."""
    r = R.rules(enc)
    marked = {m: list(target.monitors[m].marked) for m in (PHYSICAL, SHOCK)}
    for monitor in R.MONITORS_HIT[weapon.damage]:
        if damage < sb:
            if monitor != PHYSICAL:
                continue
            monitor, level = SHOCK, 0
        else:
            multiple = damage // sb
            if multiple >= r.lethal_multiple and monitor == PHYSICAL:
                return True
            level = min(multiple, 4) - 1
        boxes = target.monitors[monitor].boxes
        row = marked[monitor]
        while level < len(row) and row[level] >= boxes[level]:
            level += 1
        if level >= len(row):
            return True  # past Fatale: death; past Inconscient: stays Inconscient
        row[level] += 1
    return any(any(row[3:]) for row in marked.values())


def declared_terms(
    enc: Encounter,
    actor: str,
    style: Style,
    k: Known,
    *,
    path: Sequence[Cell] = (),
    start: int,
    sprinting: bool = False,
    target: str | None = None,
    weapon: Weapon | None = None,
    hit: float = 0.0,
) -> float:
    """What the slower actors' declarations add to an option (rules edition 6, PZ-INIT-3).

    - every foe's declared attack on the actor costs its expected harm where the actor will stand at
      that foe's count (``path`` walked a metre a count from initiative ``start``): cover and distance
      count against a known shot;
    - an attack on ``target`` (``hit``: its odds, ``weapon``) that resolves before ``target``'s own
      declared attack puts it down before it acts with P(hit) x P(down): that share of the harm it
      declared against the actor or an ally is prevented;
    - the same share of each slower ally's declared attack on ``target`` that would resolve after
      this one is lost (PZ-INIT-4: an action impossible at resolution is lost, no new target), so it
      counts against: a foe of equal worth nobody declared against is the better target.
    The harm the actor or an ally would take counts ``style.known_harm_weight``; harm dealt counts 1.
    """
    st = enc.state.actors
    me = st[actor]
    here = R.pos(me)
    attackers = k.against.get(actor, ())
    mine = start - len(path) if target is not None else None
    worth = 0.0
    kill = 0.0
    if target is not None and mine is not None and weapon is not None and hit > 0.0:
        worth = _down_worth(enc, actor, style, k, target, mine)
        if worth or target in attackers:  # P(down) only where it counts
            kill = hit * p_down(enc, actor, weapon, st[target])
    value = 0.0
    for author in attackers:
        if st[author].side == me.side:
            continue
        count = action_count(k, author)
        if count is None:
            continue
        cell, metres = where_at(here, path, start, count)
        harm = declared_harm(enc, k, author, actor, cell, metres, sprinting)
        if author == target and mine is not None and mine >= count:
            harm *= 1.0 - kill
        value -= style.known_harm_weight * harm
    return value + kill * worth


def _down_worth(enc: Encounter, actor: str, style: Style, k: Known, target: str, mine: int) -> float:
    """What putting ``target`` down at count ``mine`` is worth beyond the hit (:func:`declared_terms`): the
    harm it declared on an ally, prevented, less the slower allies' declared attacks on it, lost."""
    memo = _memo(enc)
    key = ("down worth", actor, style.name, target, mine)
    got = memo.get(key)
    if got is not None:
        return got  # type: ignore[return-value]
    st = enc.state.actors
    me = st[actor]
    value = 0.0
    plan = k.plans.get(target)
    count = action_count(k, target)
    if plan is not None and plan.kind == "attack" and plan.target is not None and count is not None and mine >= count:
        victim = st.get(plan.target)
        if victim is not None and victim.side == me.side and victim.id != actor:
            cell, metres, _ = declared_cell(enc, k, victim, count)
            value += style.known_harm_weight * declared_harm(enc, k, target, victim.id, cell, metres, False)
    for ally in k.against.get(target, ()):
        if ally == actor or st[ally].side != me.side:
            continue
        count = action_count(k, ally)
        if count is None or count > mine:
            continue  # it resolves first: nothing of it is lost
        cell, metres, _ = declared_cell(enc, k, st[target], count)
        value -= declared_harm(enc, k, ally, target, cell, metres, False)
    memo[key] = value
    return value


def attack_options(enc: Encounter, actor: str, style: Style) -> list[Option]:
    """Every attack worth scoring this round: shots from each firing cell, blows after closing in.

    From rules edition 6 (:func:`known`): the actor's initiative is known, so is whether a move leaves
    it time to act; a foe that declared a path is aimed at where it will stand at the actor's count
    (gone if it fled by then); and the declarations add :func:`declared_terms`.
    """
    a = enc.state.actors[actor]
    spec = R.sheet(enc, actor)
    init_dice = spec.attributes.INIT
    k = known(enc, actor)
    out: list[Option] = []
    targets = foes(enc, actor)
    weapons = ready_ranged(enc, actor)
    threats: dict[Cell, float] = {}

    def threat(cell: Cell) -> float:
        if cell not in threats:
            threats[cell] = threat_at(enc, actor, cell)
        return threats[cell]

    def foe_then(t: ActorState, metres: int) -> tuple[Cell | None, int, bool]:
        """A declared foe's cell and movement modifier at the actor's count after ``metres``; None: as it stands."""
        if k is None or t.id not in k.plans:
            return None, 0, False
        cell, walked, gone = declared_cell(enc, k, t, k.init - metres)
        plan = k.plans[t.id]
        return cell, moving_modifier(enc, t, walked, plan.kind in ("sprint", "flee")), gone

    def known_terms(path: tuple[Cell, ...], t: ActorState, w: Weapon, hit: float) -> float:
        if k is None:
            return 0.0
        return declared_terms(enc, actor, style, k, path=path, start=k.init, target=t.id, weapon=w, hit=hit)

    if weapons:
        keep = _keep(enc, actor, "PER")
        for cell, path in firing_cells(enc, actor):
            survive = survives(k, init_dice, len(path))
            if k is not None and not survive:
                continue  # edition 6: the move would use up the initiative known (PZ-MOVE-2)
            for w in weapons:
                dice = spec.skills.get(w.skill, 0)
                for t in targets:
                    then, moving, gone = foe_then(t, len(path))
                    if gone:
                        continue
                    diff = shot_difficulty(enc, actor, w, t, cell, target_cell=then)
                    if diff is None:
                        continue
                    diff += moving
                    harm = expected_harm(enc, actor, w, t)
                    for extra, p in _surpass_options(enc, actor, dice, keep, diff):
                        if p <= 0.0:
                            continue
                        value = p * harm * survive - style.threat_weight * threat(cell) - 0.01 * extra
                        value += known_terms(path, t, w, p * survive)
                        out.append(Option(value, "attack", t.id, w.name, before=path, surpass=extra, odds=p * survive))
    here = R.pos(a)
    reach = R.free_move(enc, actor)
    mw = melee_weapon(enc, actor)
    keep_adr = _keep(enc, actor, "ADR")
    dice = spec.skills.get(mw.skill, 0)
    for t in targets:
        d = R.distance(here, R.pos(t))
        if d - 1 > reach:
            continue
        path = tuple(R.walk(enc, here, R.pos(t), d - 1))
        cell = path[-1] if path else here
        survive = survives(k, init_dice, len(path))
        if k is not None and not survive:
            continue
        then, moving, gone = foe_then(t, len(path))
        if gone or (then is not None and R.distance(cell, then) > 1):
            continue  # it will have walked out of reach: the blow would be lost (PZ-INIT-4)
        diff = melee_difficulty(enc, actor, mw, t) + moving
        harm = expected_harm(enc, actor, mw, t)
        for extra, p in _surpass_options(enc, actor, dice, keep_adr, diff):
            if p <= 0.0:
                continue
            value = p * harm * survive - style.threat_weight * threat(cell) - 0.01 * extra
            value += known_terms(path, t, mw, p * survive)
            weapon = None if mw.name == "fists" else mw.name
            out.append(Option(value, "attack", t.id, weapon, before=path, surpass=extra, odds=p * survive))
    return out


def best_shot_from(
    enc: Encounter, actor: str, cell: Cell, weapons: list[Weapon], *, aimed_at: str | None = None
) -> float:
    """The best P(hit) x harm from ``cell`` next round with ``weapons`` (as if ready), foes where they stand.

    From rules edition 6, each foe's worth is its odds of outliving the attacks the actor's slower allies
    declared on it this round (:func:`p_outlives_declared`): no aiming at a foe an ally is about to put down.
    """
    spec = R.sheet(enc, actor)
    k = known(enc, actor)
    keep = _keep(enc, actor, "PER")
    r = R.rules(enc)
    best = 0.0
    for w in weapons:
        for t in foes(enc, actor):
            diff = shot_difficulty(enc, actor, w, t, cell)
            if diff is None:
                continue
            if aimed_at == t.id:
                diff += r.aim_bonus
            p = p_success(spec.skills.get(w.skill, 0), keep, diff)
            if k is not None and t.id in k.against:
                p *= p_outlives_declared(enc, k, actor, t)
            best = max(best, p * expected_harm(enc, actor, w, t))
    return best


def preparing_options(enc: Encounter, actor: str, style: Style, attacks: list[Option]) -> list[Option]:
    """Options that pay next round: aim, ready a weapon, sprint toward a foe or to cover, hold.

    ``attacks``: this round's attack options. Sprinting to cover is for a cautious style,
    or a shooter with no shot this round; an aggressive fighter otherwise closes in. From rules
    edition 6 each also weighs the attacks declared on the actor where it will stand (:func:`declared_terms`).
    """
    a = enc.state.actors[actor]
    here = R.pos(a)
    spec = R.sheet(enc, actor)
    out: list[Option] = []
    k = known(enc, actor)
    stay = style.threat_weight * threat_at(enc, actor, here)
    if k is not None:  # standing here all round (a hold, an aim, a reload): the declared attacks where it stands
        stay -= declared_terms(enc, actor, style, k, start=k.init)
    out.append(Option(-stay, "hold"))
    weapons = ready_ranged(enc, actor)
    if weapons:
        current = best_shot_from(enc, actor, here, weapons)
        for t in foes(enc, actor):
            aimed = a.conditions.get("aiming") == list(enc.actor_specs).index(t.id)
            if aimed:
                continue
            gain = best_shot_from(enc, actor, here, weapons, aimed_at=t.id)
            if gain > current:
                out.append(Option(NEXT_ROUND * gain - stay, "aim", t.id))
    for w in spec.weapons:
        if w.skill in MELEE_SKILLS:
            continue
        state = a.weapons.get(w.name, "ready")
        kind = {"jammed": "clear", "dropped": "pickup"}.get(state)
        if kind is None and a.ammo.get(w.name, 0) <= 0 and a.spare.get(w.name, 0) > 0:
            kind = "reload"
        if kind is not None:
            # a loaded weapon is worth something even when no foe is exposed right now
            gain = NEXT_ROUND * best_shot_from(enc, actor, here, [w]) + READY_WORTH
            out.append(Option(gain - stay, kind, weapon=w.name))
    # sprint (PZ-MOVE-3): toward each foe (no nearer than 2 m) and into each cover zone
    run = R.sprint_distance(enc, actor)
    # a sprint readies nothing: a shooter whose weapons need readying gains no shot from it
    needs_readying = any(w.skill not in MELEE_SKILLS for w in spec.weapons) and not weapons
    usable = weapons
    goals: list[tuple[Cell, int]] = [(R.pos(f), 2) for f in foes(enc, actor)]
    if style.sprints_to_cover or (weapons and not any(o.kind == "attack" for o in attacks)):
        goals += [(c, 0) for c in _cover_cells(enc, here)]
    for goal, stop in goals:
        toward_foe = stop > 0
        d = R.distance(here, goal)
        path = tuple(R.walk(enc, here, goal, min(run, max(0, d - stop))))
        if not path:
            continue
        end = path[-1]
        if usable:
            later = best_shot_from(enc, actor, end, usable)
        elif needs_readying and any(o.kind in ("reload", "clear", "pickup") for o in out):
            later = 0.0
        else:  # hand to hand: next round's blow when the sprint ends within a free move of a foe
            mw = melee_weapon(enc, actor)
            later = max(
                (
                    p_success(
                        spec.skills.get(mw.skill, 0), _keep(enc, actor, "ADR"), melee_difficulty(enc, actor, mw, f)
                    )
                    * expected_harm(enc, actor, mw, f)
                    for f in foes(enc, actor)
                    if R.distance(end, R.pos(f)) - 1 <= R.free_move(enc, actor)
                ),
                default=0.0,
            )
            if toward_foe:  # closing in is worth something
                later = max(later, 0.1 / (1 + R.distance(end, goal)))
        # the sprint itself is hard to hit (+5), but next round the actor stands there: count that
        value = NEXT_ROUND * later - style.threat_weight * threat_at(enc, actor, end)
        if k is not None:  # PZ-INIT-2: a move-only round starts at DEP, a metre a count (PZ-MOVE-3)
            value += declared_terms(enc, actor, style, k, path=path, start=spec.attributes.DEP, sprinting=True)
        out.append(Option(value, "sprint", after=path))
    return out


def choose(enc: Encounter, actor: str, style: Style) -> Option:
    """The best option by value; ties go to the first listed (attacks first, then as listed).

    Asked again with all it reads the same (:func:`decision_key`), it answers as it did.
    """
    key = decision_key(enc, actor, style)
    if key is None:
        return _choose(enc, actor, style)
    kept: dict[bytes, Option] | None = enc.scratch.get(DECISIONS)
    if kept is None or len(kept) >= KEPT_DECISIONS:
        kept = enc.scratch[DECISIONS] = {}
    got = kept.get(key)
    if got is None:
        got = kept[key] = _choose(enc, actor, style)
    return got


def decision_key(enc: Encounter, actor: str, style: Style) -> bytes | None:
    """Everything a decision reads that may change during a fight, as bytes; None in a fight of more than
    :data:`SAME_DECISION_ACTORS` actors (where a decision's inputs seldom come back and the key costs a
    look at every actor), or when a declaration is of a type msgspec does not encode.

    A decision (:func:`_choose`) reads the actors' states (where they stand, their wounds, conditions, weapons
    and ammunition), the round's initiatives, declarations and who declared against whom (:func:`known`),
    and what never changes in a fight (its rules, map and sheets). In a stalemate (two brawlers who cannot
    hurt each other, ``tests/data/pz_endless.toml``) the same inputs come back round after round: one
    decision each, answered again. Every field of every actor's state counts, read or not (a field that
    changes and is not read only costs a decision worked out again).
    """
    actors = enc.state.actors
    if len(actors) > SAME_DECISION_ACTORS:
        return None
    scratch = enc.scratch
    try:
        return _KEY_ENCODER.encode(
            (
                actor,
                style,
                list(actors.values()),
                scratch.get(INITIATIVE),
                scratch.get(DECLARED),
                scratch.get(DECLARED_AGAINST),
            )
        )
    except TypeError:  # a plan msgspec cannot encode (a plug-in policy's own plan type): nothing kept
        return None


def _choose(enc: Encounter, actor: str, style: Style) -> Option:
    """:func:`choose` worked out."""
    options = attack_options(enc, actor, style)
    floor = style.min_odds
    worthy = [o for o in options if o.odds >= floor] or options
    candidates = worthy + preparing_options(enc, actor, style, options)
    best = candidates[0]
    for o in candidates[1:]:
        if o.value > best.value + 1e-12:
            best = o
    return best


def at_resolution(enc: Encounter, actor: str, target: str, weapon_name: str | None, surpass: int) -> int | None:
    """PZ-INIT-4 (policy): the attack re-checked at the actor's count, as a player sees it then.

    Returns the surpass to use (the declared one, less any die that no longer adds
    :data:`SURPASS_WORTH`), or None to hold fire: the shot or blow cannot succeed any
    more (the target sprinted, moved out of the band, into cover). The checks the
    resolution makes itself (range, reach, ammunition) are left to it.
    """
    st = enc.state.actors
    a, t = st[actor], st.get(target)
    if t is None:
        return surpass
    weapon = R.weapon_of(enc, actor, weapon_name)
    spec = R.sheet(enc, actor)
    if weapon.skill in MELEE_SKILLS:
        if R.actor_distance(a, t) > 1:
            return surpass
        base, mods = R.melee_difficulty(enc, actor, target, weapon)
        keep = _keep(enc, actor, "ADR")
    else:
        found = R.ranged_difficulty(enc, actor, target, weapon)
        if found is None:
            return surpass
        base, mods = found
        keep = _keep(enc, actor, "PER")
    difficulty = base + sum(m.value for m in mods)
    dice = spec.skills.get(weapon.skill, 0)
    allowed = 0
    for extra, _ in _surpass_options(enc, actor, dice, keep, difficulty):
        allowed = extra
    use = min(surpass, allowed)
    if p_success(dice + use, keep, difficulty) <= 0.0:
        return None
    return use
