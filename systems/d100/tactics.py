"""d100 tactics: competent decisions by expected value with the exact odds (issue 16, rules edition 5).

d100 has no movement, no range bands, no aiming step and no cover rule
(docs/rules-notes.md): an actor chooses whom to shoot, with which weapon and
mode, what to do about a weapon that is empty, jammed or dropped, and how to
react when it is shot at. Each choice is scored with the exact odds of
:mod:`fracas.systems.d100.odds` and the same modifiers the resolution will
apply (wounds, tetanus, off balance, prone, the further-reaction penalty):

- **the worth of a hit** on a target: in lethal mode (D100-LETHAL-1,
  D100-HP-1) the chance the hit puts it down (a single hit >= max HP, HP left
  <= 2, or a major wound's failed CON x 5) plus :data:`HARM_SHARE` of the
  share of its HP taken, over the exact damage distribution (a critical does
  the maximum), less armour and any parry reduction; in stun mode
  (D100-STUN-1) the chance it is paralysed (CON x (4 - 1D4) failed) plus
  :data:`TETANISED_WORTH` for tetanised; nothing through sealed armour.
- **the worth of a shot**: P(the weapon fires: Panne, then Luck; D100-JAM-1)
  x the worth of a hit over the target's reaction bands (D100-DODGE-1,
  D100-PARRY-1) and the attack bands (D100-ATK-1, D100-CRIT-1). The target's
  reaction is the one :func:`best_reaction` chooses for it (none for a
  ``passive`` target).
- **the shot taken**: the best worth over the candidate targets, the weapons
  ready and loaded and the modes (the style's mode first: ``security`` stuns,
  ``raider`` shoots to kill; the other mode only where the style's does
  nothing, e.g. a stun against sealed armour). No shot worth nothing is
  taken. A jammed, dropped or empty weapon is readied instead when the best
  loaded one is worth less than :data:`BACKUP_SHARE` of it; a prone actor
  shoots from the ground (prone only costs -20 to dodge) and stands up only
  when there is nothing to shoot.
- **the reaction** (D100-REACT-1): the one that prevents the most expected
  harm (the same worth, from the target's side); none when neither prevents
  anything: a parry without a shield prevents nothing against gunfire and
  risks the attacker's +10, and a third reaction at -40 may be worse than
  none.
- **candidate targets**, with no scan of every actor: the actor looks at the
  :data:`LOOKED_AT` foes nearest it (by the crowd index) and weighs the first
  :data:`NEAREST` of them it sees, and the nearest foe of each of the
  :data:`MOST_HURT` worst hurt grades (the crowd grades d100 actors by the HP
  they have lost) when it sees that foe, so focus fire on a foe that can be put
  down reaches across the map. A foe hidden behind walls among many others is
  not searched for beyond that: the work of a decision stays bounded whatever
  the walls hide. Ties: the nearer, then by id.

Policies are deterministic: no randomness, so a replay needs no AI code.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import msgspec
from fracas.core.battlefield import Cell
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.systems.d100 import resolution as R
from fracas.systems.d100.odds import TEST_BANDS, test_bands
from fracas.systems.d100.rules import ALL_DAMAGE, D100Rules
from fracas.systems.d100.sheet import Weapon

#: The share of the target's HP taken that a hit is worth besides the chance it puts the target down.
HARM_SHARE = 0.25
#: What leaving a target tetanised (not paralysed) is worth (-10 to its rolls for a few rounds).
TETANISED_WORTH = 0.15
#: A loaded backup weapon is fired rather than readying a better one when it is worth this share of it.
BACKUP_SHARE = 0.5
#: Candidate targets: an actor looks at this many of the foes nearest it (in sight or not) ...
LOOKED_AT = 16
#: ... weighs at most this many of those it sees ...
NEAREST = 4
#: ... and the nearest foe of each of this many worst hurt grades, when it sees that foe.
MOST_HURT = 4
#: The largest sum of dice whose distribution is counted exactly; a larger damage code counts its mean.
EXACT_PIPS = 400
#: Below this, two worths are the same (float noise).
EPSILON = 1e-9


class Shot(msgspec.Struct, frozen=True):
    """A shot the actor can take, and what it is worth."""

    worth: float
    weapon: str
    mode: str
    target: str


# ------------------------------------------------------------ exact odds


@lru_cache(maxsize=1024)
def attack_odds(effective: int) -> tuple[float, float]:
    """D100-ATK-1, D100-CRIT-1: (P critical success, P plain success) of an attack at this modified skill."""
    bands = test_bands(effective, 0, attack=True)
    return float(bands["critical_success"]), float(bands["success"])


@lru_cache(maxsize=1024)
def reaction_odds(effective: int) -> tuple[float, ...]:
    """D100-CRIT-1: P of each band of :data:`TEST_BANDS` (a dodge, a parry, a CON roll) at this modified skill."""
    bands = test_bands(effective, 0, attack=False)
    return tuple(float(bands[b]) for b in TEST_BANDS)


def success_chance(effective: int) -> float:
    odds = reaction_odds(effective)
    return odds[0] + odds[1]


@lru_cache(maxsize=256)
def damage_distribution(code: str) -> tuple[tuple[tuple[int, float], ...], int, int]:
    """(P of each sum of the dice, the flat bonus, the largest sum) of a damage code such as ``2d6+2``.

    Exact up to :data:`EXACT_PIPS`; a larger code (a scenario may ask for 60d1000) counts its mean sum.
    """
    groups, flat = R.dice_terms(code)
    top = sum(n * sides for n, sides in groups)
    if top > EXACT_PIPS:
        mean = sum(n * (sides + 1) for n, sides in groups) // 2
        return ((mean, 1.0),), flat, top
    dist: dict[int, float] = {0: 1.0}
    for n, sides in groups:
        for _ in range(n):
            step: dict[int, float] = {}
            for total, p in dist.items():
                share = p / sides
                for face in range(1, sides + 1):
                    step[total + face] = step.get(total + face, 0.0) + share
            dist = step
    return tuple(sorted(dist.items())), flat, top


def _loss_worth(loss: int, hp: int, hp_max: int, major_fail: float) -> float:
    """D100-HP-1: the chance a loss of ``loss`` HP puts the target down, plus the share of HP it takes."""
    if loss <= 0:
        return 0.0
    if loss >= hp_max or hp - loss <= 2:  # dead, dying, or unconscious at HP 1-2
        down = 1.0
    elif 2 * loss >= hp_max:  # a major wound: CON x 5 or knocked out
        down = major_fail
    else:
        down = 0.0
    return down + HARM_SHARE * min(loss, max(hp, 0)) / max(hp_max, 1)


@lru_cache(maxsize=8192)
def lethal_worth(
    code: str, stopped: int, hp: int, hp_max: int, major_skill: int, critical_max: bool
) -> tuple[float, float]:
    """D100-LETHAL-1: (worth of a plain hit, worth of a critical hit) when ``stopped`` points are taken off."""
    dist, flat, top = damage_distribution(code)
    major_fail = 1.0 - success_chance(major_skill)
    plain = 0.0
    for total, p in dist:
        plain += p * _loss_worth(total + flat - stopped, hp, hp_max, major_fail)
    critical = _loss_worth(top + flat - stopped, hp, hp_max, major_fail) if critical_max else plain
    return plain, critical


@lru_cache(maxsize=1024)
def paralysis_chance(con: int) -> float:
    """D100-STUN-1: P(a stunned target is paralysed): 1D4 sets CON x (4 - 1D4); x 0, or a failed roll."""
    p = 0.0
    for d4 in range(1, 5):
        multiplier = 4 - d4
        p += 0.25 * (1.0 if multiplier <= 0 else 1.0 - success_chance(con * multiplier))
    return p


# ------------------------------------------------------------ one shot


def rules(enc: Encounter) -> D100Rules:
    return R.rules(enc)


def hit_worth(enc: Encounter, weapon: Weapon, mode: str, target: str, reduction: int) -> tuple[float, float]:
    """(worth of a plain hit, worth of a critical hit) of ``weapon`` in ``mode`` on ``target``."""
    spec = R.sheet(enc, target)
    if mode == "stun":
        if spec.sealed:
            return 0.0, 0.0
        p = paralysis_chance(spec.characteristics.CON)
        worth = p + TETANISED_WORTH * (1.0 - p)
        return worth, worth
    if reduction == ALL_DAMAGE:
        return 0.0, 0.0
    r = rules(enc)
    a = enc.state.actors[target]
    con = spec.characteristics.CON
    return lethal_worth(
        weapon.damage,
        r.armour.get(spec.armour, 0) + reduction,
        a.hp or 0,
        a.hp_max or 0,
        con * r.major_wound_multiplier,
        r.critical_max_damage,
    )


def attack_skill(enc: Encounter, shooter: str, weapon: Weapon) -> int:
    """D100-ATK-1: the shooter's weapon skill with its standing modifiers (wounds, tetanus, off balance)."""
    skill = R.sheet(enc, shooter).skills.get(weapon.skill, 0)
    for m in R.standing_modifiers(enc, shooter, "attack"):
        skill += m.value
    return skill


def reaction_outcomes(enc: Encounter, defender: str, choice: str) -> list[tuple[float, int, int]]:
    """D100-REACT-1, D100-DODGE-1, D100-PARRY-1: (P, attacker's modifier, damage reduction) of each band."""
    if choice == "none":
        return [(1.0, 0, 0)]
    return _band_outcomes(enc, defender, choice, reaction_skill(enc, defender, choice))


def reaction_skill(enc: Encounter, defender: str, choice: str) -> int:
    """D100-REACT-1: the defender's modified skill for a dodge or a parry (its standing modifiers, and the
    further-reaction penalty for each reaction it made this round)."""
    skill = R.sheet(enc, defender).skills.get(choice, 0)
    for m in R.standing_modifiers(enc, defender, choice):
        skill += m.value
    return skill + rules(enc).further_reaction * R.reactions_used(enc, defender)


def _band_outcomes(enc: Encounter, defender: str, choice: str, skill: int) -> list[tuple[float, int, int]]:
    """:func:`reaction_outcomes` of a dodge or a parry at the modified skill ``skill``."""
    r = rules(enc)
    odds = reaction_odds(skill)
    if choice == "dodge":
        return [(p, r.dodge_modifiers.get(band, 0), 0) for band, p in zip(TEST_BANDS, odds, strict=True)]
    obj = R.sheet(enc, defender).parry_object or "improvised"
    base = r.parry_reduction.get(obj, 0) if obj in r.shields else 0
    num, den = r.parry_critical_multiplier
    critical = ALL_DAMAGE if base == ALL_DAMAGE else base * num // den
    return [(odds[0], 0, critical), (odds[1], 0, base), (odds[2], 0, 0), (odds[3], r.parry_fumble_bonus, 0)]


def harm(enc: Encounter, shooter: str, weapon: Weapon, mode: str, target: str, choice: str) -> float:
    """The expected worth of the shot's hit on ``target`` when it reacts with ``choice`` (the weapon fires)."""
    outcomes = reaction_outcomes(enc, target, choice)
    return _harm_of(enc, attack_skill(enc, shooter, weapon), weapon, mode, target, outcomes, {})


def _harm_of(
    enc: Encounter,
    skill: int,
    weapon: Weapon,
    mode: str,
    target: str,
    outcomes: list[tuple[float, int, int]],
    worths: dict[int, tuple[float, float]],
) -> float:
    """:func:`harm` at the shooter's modified skill ``skill`` over the reaction's ``outcomes``. ``worths``: the
    worths of a hit of this weapon, mode and target by damage reduction, filled as they are asked."""
    total = 0.0
    for p, modifier, reduction in outcomes:
        if p <= 0.0:
            continue
        worth = worths.get(reduction)
        if worth is None:
            worth = worths[reduction] = hit_worth(enc, weapon, mode, target, reduction)
        plain, critical = worth
        if plain <= 0.0 and critical <= 0.0:
            continue
        p_critical, p_plain = attack_odds(skill + modifier)
        total += p * (p_critical * critical + p_plain * plain)
    return total


def reactions_possible(enc: Encounter, defender: str, order: Sequence[str]) -> list[str]:
    out = []
    for choice in order:
        if choice == "parry" and R.can_parry(enc, defender):
            out.append("parry")
        elif choice == "dodge" and R.can_dodge(enc, defender):
            out.append("dodge")
    return out


#: A defender's possible reactions in the style's order, each with its modified skill (:func:`defence`).
Defence = tuple[tuple[str, int], ...]
#: The key of a shot's weighed reactions (:func:`_reacted`): the shooter's modified skill, the weapon's damage,
#: the mode, the number of the target's sheet parts (:func:`_sheet_number`), its HP and HP max, and its
#: :data:`Defence`.
ReactedKey = tuple[int, str, str, int, int | None, int | None, Defence]
#: The most weighed shots kept for a fight (the memo is emptied when it is full).
KEPT_MOST = 1 << 16


def defence(enc: Encounter, defender: str, order: Sequence[str]) -> Defence:
    """D100-REACT-1: the reactions ``defender`` can make now, in ``order``, each with its modified skill.

    Kept for the fight by all it is made from (:func:`_defence_key`): the defender's conditions (whether it can
    react, its standing modifiers), its cell (a cramped zone) and the reactions it made this round; its sheet
    never changes."""
    kept = _kept_defences(enc)
    key = _defence_key(enc, defender, order)
    got = kept.get(key)
    if got is None:
        if len(kept) >= KEPT_MOST:
            kept.clear()
        got = kept[key] = _defence(enc, defender, order)
    return got


def _kept_defences(enc: Encounter) -> dict[tuple[object, ...], Defence]:
    kept: dict[tuple[object, ...], Defence] | None = enc.scratch.get("d100_tactics_defences")
    if kept is None:
        kept = enc.scratch["d100_tactics_defences"] = {}
    return kept


def _defence_key(enc: Encounter, defender: str, order: Sequence[str]) -> tuple[object, ...]:
    a = enc.state.actors[defender]
    return (defender, tuple(order), tuple(a.conditions), a.x, a.y, R.reactions_used(enc, defender))


def _defence(enc: Encounter, defender: str, order: Sequence[str]) -> Defence:
    """:func:`defence` worked out."""
    return tuple((choice, reaction_skill(enc, defender, choice)) for choice in reactions_possible(enc, defender, order))


def _weigh_reactions(
    enc: Encounter, skill: int, weapon: Weapon, mode: str, target: str, possible: Defence
) -> tuple[str, float]:
    """:func:`best_reaction` and the harm the shot still does through it, from what they are made of."""
    worths: dict[int, tuple[float, float]] = {}
    best, least = "none", _harm_of(enc, skill, weapon, mode, target, [(1.0, 0, 0)], worths)
    for choice, reacting in possible:
        h = _harm_of(enc, skill, weapon, mode, target, _band_outcomes(enc, target, choice, reacting), worths)
        if h < least - EPSILON:
            best, least = choice, h
    return best, least


def _sheet_parts(enc: Encounter, target: str) -> tuple[object, ...]:
    """What a shot's weighed reactions read of the target's sheet besides its HP and defence (:func:`hit_worth`,
    :func:`_band_outcomes`): sealed armour, CON, armour, the object it parries with."""
    spec = R.sheet(enc, target)
    return (spec.sealed, spec.characteristics.CON, spec.armour, spec.parry_object)


def _sheet_number(enc: Encounter, target: str) -> int:
    """The number of ``target``'s sheet parts (:func:`_sheet_parts`) in the fight: targets with the same parts, the
    same HP and the same defence share their weighed shots (a sheet never changes in a fight)."""
    kept: tuple[dict[str, int], dict[tuple[object, ...], int]] | None = enc.scratch.get("d100_tactics_sheets")
    if kept is None:
        kept = enc.scratch["d100_tactics_sheets"] = ({}, {})
    numbers, by_parts = kept
    got = numbers.get(target)
    if got is None:
        got = numbers[target] = by_parts.setdefault(_sheet_parts(enc, target), len(by_parts))
    return got


def _kept(enc: Encounter) -> dict[ReactedKey, tuple[str, float]]:
    """The weighed shots of the fight, by all they are made from (:data:`ReactedKey`)."""
    kept: dict[ReactedKey, tuple[str, float]] | None = enc.scratch.get("d100_tactics_reacted")
    if kept is None:
        kept = enc.scratch["d100_tactics_reacted"] = {}
    return kept


def _reacted(
    enc: Encounter, skill: int, weapon: Weapon, mode: str, target: str, possible: Defence
) -> tuple[str, float]:
    """(the target's best reaction, the harm the shot does through it): weighed once for the fight by all they are
    made from (another shooter as skilled, a later decision before anything changed, read them again)."""
    a = enc.state.actors[target]
    key = (skill, weapon.damage, mode, _sheet_number(enc, target), a.hp, a.hp_max, possible)
    kept = _kept(enc)
    got = kept.get(key)
    if got is None:
        if len(kept) >= KEPT_MOST:
            kept.clear()
        got = kept[key] = _weigh_reactions(enc, skill, weapon, mode, target, possible)
    return got


def best_reaction(
    enc: Encounter, defender: str, attacker: str, weapon: Weapon, mode: str, order: Sequence[str] = ("dodge", "parry")
) -> str:
    """D100-REACT-1: the reaction that prevents the most expected harm; none when none prevents any.

    ``order``: the style's preference, which only breaks an exact tie between two reactions.
    """
    skill = attack_skill(enc, attacker, weapon)
    got = _kept_defences(enc).get(_defence_key(enc, defender, order))
    possible = got if got is not None else defence(enc, defender, order)
    a = enc.state.actors[defender]
    reacted = _kept(enc).get((skill, weapon.damage, mode, _sheet_number(enc, defender), a.hp, a.hp_max, possible))
    if reacted is None:
        reacted = _reacted(enc, skill, weapon, mode, defender, possible)
    return reacted[0]


def fire_chance(enc: Encounter, shooter: str, weapon: Weapon) -> float:
    """D100-JAM-1: P(the weapon fires): Panne roll below the value, else a Luck roll."""
    return _fire_chance(weapon.panne, enc.state.actors[shooter].resources.get("luck", 0))


@lru_cache(maxsize=1024)
def _fire_chance(panne_value: int, luck: int) -> float:
    """:func:`fire_chance` of a weapon of this Panne value in the hands of a shooter of this Luck."""
    panne = min(max(panne_value - 1, 0), 100) / 100
    return panne + (1.0 - panne) * success_chance(luck)


#: The reactions a shooter weighs for its target, in this order (the target's style only breaks exact ties).
EXPECTED_ORDER = ("dodge", "parry")


def expected_defence(enc: Encounter, target: str) -> Defence:
    """The reactions a shooter expects of ``target``: none from a ``passive`` target, else those it can make."""
    if R.sheet(enc, target).policy == "passive":
        return ()
    return defence(enc, target, EXPECTED_ORDER)


def expected_reaction(enc: Encounter, target: str, shooter: str, weapon: Weapon, mode: str) -> str:
    """The reaction a shooter expects: none from a ``passive`` target, else the competent one."""
    skill = attack_skill(enc, shooter, weapon)
    return _reacted(enc, skill, weapon, mode, target, expected_defence(enc, target))[0]


def shot_worth(enc: Encounter, shooter: str, weapon: Weapon, mode: str, target: str) -> float:
    """P(the weapon fires) x the harm the hit does through the reaction the shooter expects."""
    skill = attack_skill(enc, shooter, weapon)
    harmed = _reacted(enc, skill, weapon, mode, target, expected_defence(enc, target))[1]
    return fire_chance(enc, shooter, weapon) * harmed


# ------------------------------------------------------------ targets


def candidates(enc: Encounter, actor: str) -> list[ActorState]:
    """The foes worth weighing, in id order: of the :data:`LOOKED_AT` foes nearest the actor (in sight or
    not) and the nearest of each of the :data:`MOST_HURT` worst hurt grades, those it sees; at most
    :data:`NEAREST` of the nearest. Bounded work: a few crowd searches and sight lines, whatever the crowd
    and whatever walls hide (no scan of every actor). When the foes are few (the crowd's
    :meth:`~fracas.core.battlefield.Crowd.all_near`), one list of them all by (distance, id) answers both
    questions: its first :data:`LOOKED_AT`, and the first of each grade."""
    me = enc.state.actors[actor]
    here = (me.x, me.y)
    field = enc.battlefield
    actors = enc.state.actors
    crowd = enc.crowd
    sides = crowd.other_sides(me.side)
    near = _all_near(enc, actor, me, sides)

    def sees(fid: str) -> bool:
        return not field.opaque or field.sees(here, R.pos(actors[fid]))

    if field.opaque:
        looked = crowd.nearest_few(me.x, me.y, sides, LOOKED_AT) if near is None else [f for _, f in near[:LOOKED_AT]]
        chosen: list[str] = []
        for fid in looked:
            if sees(fid):
                chosen.append(fid)
                if len(chosen) == NEAREST:
                    break
    elif near is not None:  # an open map: every foe in sight, the nearest of the few
        chosen = [fid for _, fid in near[:NEAREST]]
    else:  # an open map: every foe in sight
        chosen = crowd.nearest_few(me.x, me.y, sides, LOOKED_AT)[:NEAREST]
    if near is None:
        for grade in crowd.grades(sides)[:MOST_HURT]:  # the crowd grades d100 actors by HP lost
            if grade < 0:
                break
            found = crowd.nearest(me.x, me.y, sides, grades=(grade,))
            if found is not None:
                fid = found[1][0]
                if fid not in chosen and sees(fid):
                    chosen.append(fid)
    else:
        firsts = _first_of_each_grade(near, crowd.placed)
        for grade in sorted(firsts, reverse=True)[:MOST_HURT]:  # the grades held, worst first
            if grade < 0:
                break
            fid = firsts[grade]
            if fid not in chosen and sees(fid):
                chosen.append(fid)
    return [actors[fid] for fid in sorted(chosen)]


def _all_near(enc: Encounter, actor: str, me: ActorState, sides: list[str]) -> list[tuple[int, str]] | None:
    """The crowd's :meth:`~fracas.core.battlefield.Crowd.all_near` about ``actor``'s foes, kept for the actor while
    it stands on the same cell and the able foes (the crowd's id -> cell dicts of ``sides``) are the same: a fight
    without moves asks it again and again of the same few foes."""
    kept: dict[str, tuple[int, int, list[dict[str, Cell] | None], list[tuple[int, str]] | None]] | None = (
        enc.scratch.get("d100_tactics_near")
    )
    if kept is None:
        kept = enc.scratch["d100_tactics_near"] = {}
    able = enc.crowd.able
    got = kept.get(actor)
    if got is not None and got[0] == me.x and got[1] == me.y:
        seen = got[2]
        if len(seen) == len(sides):
            if len(sides) == 1:  # one other side (the commonest): one comparison
                if able.get(sides[0]) == seen[0]:
                    return got[3]
            elif all(able.get(side) == members for side, members in zip(sides, seen, strict=True)):
                return got[3]
    near = enc.crowd.all_near(me.x, me.y, sides)
    kept[actor] = (me.x, me.y, [None if (m := able.get(side)) is None else dict(m) for side in sides], near)
    return near


def _first_of_each_grade(near: list[tuple[int, str]], placed: dict[str, tuple[str, int, Cell]]) -> dict[int, str]:
    """The nearest foe of each grade held (ties by id): the first of that grade in ``near`` (every able foe, sorted
    by (distance, id)); the crowd's ``placed`` holds each able actor's grade."""
    firsts: dict[int, str] = {}
    for _, fid in near:
        grade = placed[fid][1]
        if grade not in firsts:
            firsts[grade] = fid
    return firsts


def modes_in_order(weapon: Weapon, preferred: str) -> list[str]:
    """The style's mode first when the weapon has it, then the weapon's other modes."""
    modes = weapon.modes
    if len(modes) == 1:
        return [modes[0]]
    first = preferred if preferred in modes else modes[0]
    return [first, *(m for m in modes if m != first)]


def best_shot(
    enc: Encounter, actor: str, weapons: Sequence[Weapon], preferred: str, foes: Sequence[ActorState]
) -> Shot | None:
    """The shot worth the most (the style's mode unless it does nothing); None when none is worth anything.

    Each :func:`shot_worth`, with what depends on the shooter and weapon alone read once a weapon and what
    depends on the foe alone (its defence) once a foe."""
    me = enc.state.actors[actor]
    x, y = me.x, me.y
    best: tuple[float, int, int, str] | None = None
    found: tuple[Weapon, str] | None = None
    specs = enc.actor_specs
    kept_defences = _kept_defences(enc)
    defences: list[tuple[ActorState, Defence, int]] = []
    for foe in foes:  # expected_defence(enc, foe.id), written out
        fid = foe.id
        if specs[fid].policy == "passive":
            possible: Defence = ()
        else:
            key = _defence_key(enc, fid, EXPECTED_ORDER)
            got = kept_defences.get(key)
            possible = got if got is not None else defence(enc, fid, EXPECTED_ORDER)
        defences.append((foe, possible, _sheet_number(enc, fid)))
    kept = _kept(enc)
    for index, weapon in enumerate(weapons):
        skill = attack_skill(enc, actor, weapon)
        fire = fire_chance(enc, actor, weapon)
        modes = modes_in_order(weapon, preferred)
        damage = weapon.damage
        for foe, possible, number in defences:
            fid = foe.id
            for mode in modes:
                # _reacted(enc, skill, weapon, mode, fid, possible), its kept answer read here when there is one
                reacted = kept.get((skill, damage, mode, number, foe.hp, foe.hp_max, possible))
                if reacted is None:
                    reacted = _reacted(enc, skill, weapon, mode, fid, possible)
                worth = fire * reacted[1]
                if worth > EPSILON:
                    break
            else:
                continue
            key = (-worth, max(abs(foe.x - x), abs(foe.y - y)), index, foe.id)  # R.distance
            if best is None or key < best:
                best, found = key, (weapon, mode)
    if best is None or found is None:
        return None
    return Shot(worth=-best[0], weapon=found[0].name, mode=found[1], target=best[3])


#: What readying a weapon is, by its state (D100-ATK-2, D100-JAM-1, D100-TURN-1).
READYING = {R.WEAPON_DROPPED: "pickup", R.JAMMED: "clear", R.SERIOUSLY_JAMMED: "unjam"}


def readying(enc: Encounter, actor: str, weapon: Weapon) -> str | None:
    """The action that would make ``weapon`` shoot again, or None (it is ready and loaded, or beyond help)."""
    a = enc.state.actors[actor]
    state = a.weapons.get(weapon.name, R.READY)
    if state in READYING:
        return READYING[state]
    if state == R.READY and a.ammo.get(weapon.name, 0) <= 0 and a.spare.get(weapon.name, 0) > 0:
        return "reload"
    return None


class Choice(msgspec.Struct, frozen=True):
    """What the competent core chooses: a kind of plan, and its weapon, target and mode."""

    kind: str  # shoot | reload | clear | unjam | pickup | stand | nothing
    weapon: str | None = None
    target: str | None = None
    mode: str = "lethal"


def choose(enc: Encounter, actor: str, weapons: Sequence[Weapon], preferred: str) -> Choice:
    """D100-TURN-1: the competent choice of ``actor`` on its turn (see the module docstring)."""
    a = enc.state.actors[actor]
    loaded = [w for w in weapons if a.weapons.get(w.name, R.READY) == R.READY and a.ammo.get(w.name, 0) > 0]
    fixable = [(w, kind) for w in weapons if (kind := readying(enc, actor, w)) is not None]
    foes = candidates(enc, actor) if loaded else []  # with nothing loaded there is no shot to weigh them for
    shot = best_shot(enc, actor, loaded, preferred, foes) if foes else None
    if fixable:
        weapon, kind = fixable[0]
        if shot is None:
            return Choice(kind=kind, weapon=weapon.name)
        if kind != "unjam":  # a serious jam takes 1D6 rounds of work: the loaded weapon shoots meanwhile
            potential = best_shot(enc, actor, [weapon], preferred, foes)
            if potential is not None and shot.worth < BACKUP_SHARE * potential.worth:
                return Choice(kind=kind, weapon=weapon.name)
    if shot is not None:
        return Choice(kind="shoot", weapon=shot.weapon, target=shot.target, mode=shot.mode)
    if R.IS_PRONE in a.conditions:
        return Choice(kind="stand")
    return Choice(kind="nothing")


def choose_reaction(
    enc: Encounter, defender: str, attacker: str, weapon: str | None, mode: str | None, order: Sequence[str]
) -> str:
    """D100-REACT-1: the competent reaction to ``attacker``'s declared shot (its weapon and mode)."""
    gun = R.weapon_of(enc, attacker, weapon) if weapon is not None else None
    if gun is None:
        gun = next(iter(R.sheet(enc, attacker).weapons), None)
    if gun is None:
        return "none"
    shot_mode = mode if mode is not None and mode in gun.modes else gun.modes[0]
    return best_reaction(enc, defender, attacker, gun, shot_mode, order)


__all__ = [
    "BACKUP_SHARE",
    "HARM_SHARE",
    "LOOKED_AT",
    "MOST_HURT",
    "NEAREST",
    "TETANISED_WORTH",
    "Choice",
    "Shot",
    "attack_odds",
    "best_reaction",
    "best_shot",
    "candidates",
    "choose",
    "choose_reaction",
    "damage_distribution",
    "harm",
    "lethal_worth",
    "paralysis_chance",
    "reaction_outcomes",
    "shot_worth",
]
