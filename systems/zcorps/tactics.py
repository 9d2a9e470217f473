"""Z-Corps tactics: competent decisions by expected value with the exact odds (issue 16, rules edition 5).

The ``aggressive`` and ``cautious`` survivors are two :class:`Style` values over
one competent core. Each option of an action is scored as

    value = P(hit) x expected harm given a hit - ammunition spent
            - threat weight x the harm the foes can do to the actor where it ends

with the exact odds of :mod:`fracas.systems.zcorps.odds` and every die the
resolution will roll (ZC-ATK-1 .. ZC-FIRE-2): the attack pool after wounds,
extra actions, suppression, aiming and a partial defence; the difficulty's
base (a partial defence above 10 replaces it), the range band from the firing
cell (the machine-gun line), the cover from the line of fire and the light at
the target (rolled dice, or fixed), the firing mode's dice, a called head
shot's die, and the floor of 3 (ZC-DIFF-1). The harm of a hit is exact too:
the margin (as rolled, given the hit) and the damage code with the mode's dice
(never below 1D) against the target's resistance roll, read on the wound
ladder (ZC-WOUND-1), a hit at or below the target's level raising it one
(so a wounded foe is worth more: focus fire). The options:

- shoot from here with each firearm that has rounds, each legal mode, at the
  foes in sight within long range, at the body or the head (a head shot only
  at the style's odds or better, counted with every die);
- move (a whole action, ZC-MOVE-1) into cover or toward a foe, worth a share
  of the shot it gives next (more when the actor still has an action this round);
- aim (ZC-AIM-1), reload (ZC-FIRE-1), strike or push at arm's reach, hold.

No attack at 0 % odds is taken; an extra action (ZC-MULTI-1) only when the
extra shot at -1D is worth more than the die lost on every shot.

Defences (rules edition 6): an active defence (ZC-DEF-1) is taken when the
harm it prevents (the declared attack's expected worth without and with the
defence roll added to the difficulty, and the same for the attacks likely
before the defender's next action) is worth more than the action it spends
(the defender's best option over holding); a partial defence (ZC-DEF-2) is
weighed with each attack (-1D on it against the harm it prevents). The style
weighs the harm to the actor itself (``own_weight``). Policies are
deterministic.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Any, NamedTuple

from fracas.core.battlefield import Battlefield, Crowd, actors_within
from fracas.core.encounter import Encounter
from fracas.core.state import ActorState
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, point_masses, success_probability
from fracas.systems.zcorps.rules import DEAD, FIREARMS, INCAPACITATED, MORTALLY, SEVERELY, STUNNED, WOUNDED
from fracas.systems.zcorps.sheet import Weapon, ranges_of

Cell = tuple[int, int]
#: The wound ladder's bands (ZC-WOUND-1), as the rules give them.
Bands = tuple[int, ...]
#: (P(roll >= need), E[worth gained; roll >= need]) by need, for one attack pool against one wound ladder.
ByNeed = dict[int, tuple[float, float]]

#: The rules edition from which ``aggressive`` and ``cautious`` play by this module (docs/rules-notes.md).
COMPETENT_EDITION = 5
#: The share of the next action's value counted for an action that only prepares it (aim, reload, move).
NEXT_ROUND = 0.6
#: The same when the actor still has an action this round after this one (move, then shoot).
NEXT_ACTION = 0.9
#: How many foes at most a decision weighs (the nearest ones in sight, then the most hurt): the index, not a scan.
MAX_TARGETS = 8
#: A later shot (after a move, an aim, a reload) is estimated on this many of the nearest foes.
QUICK_TARGETS = 3
#: A called shot is not scored when a body shot's odds fall this much under the style's least (ZC-AIM-1): more
#: difficulty dice never raise the odds; the margin covers the rounding of the sums (far below it).
HEAD_SKIP_MARGIN = 1e-9
#: How many cells within a move a decision weighs as cover (the nearest by walk).
MAX_COVER_CELLS = 6
#: How far the threat of the foes is looked for (metres), and how many foes count.
THREAT_RADIUS = 40
MAX_THREATS = 8
#: How many rounds the harm the foes can do at a cell is counted for: where an actor ends, it stays a while.
THREAT_ROUNDS = 2.0
#: The worth of one round of ammunition when the rounds left are fewer than the foes would take (a share of a
#: later shot's worth); less when they are plenty. Each foe still able to act is reckoned to take ROUNDS_PER_FOE.
ROUND_WORTH = 0.15
ROUNDS_PER_FOE = 4
#: ZC-COJ-1 / ZC-CP-1 (policy): an effort is made only when it adds at least this much to the odds.
EFFORT_WORTH = 0.10
#: The rules edition from which active (ZC-DEF-1) and partial (ZC-DEF-2) defences are chosen by the expected harm
#: they prevent against the worth of what they cost (docs/rules-notes.md, "Defences (edition 6)").
DEFENCE_EDITION = 6
#: ZC-BRAWL-1: what a manoeuvre that lands costs its target, which takes no damage: a hold (a grab, a tackle) leads
#: to the bite (the worth the threat of a grab counts); a push, trip or knock-down leaves it off balance or prone
#: (the worth a push counts for the pusher).
MANOEUVRE_HARM = {"grab": 0.5, "tackle": 0.5}
OTHER_MANOEUVRE_HARM = 0.3


@dataclass(frozen=True)
class Style:
    """What a style values on top of competence."""

    name: str
    #: how much the harm the foes can do at the end cell counts against an option
    threat_weight: float
    #: whether it closes in on foes out of its range (a cautious survivor holds its ground or takes cover)
    advances: bool
    #: a called head shot only at these exact odds or better (ZC-AIM-1)
    head_min_odds: float
    #: how much the harm a defence prevents to the actor counts against what the defence costs (edition 6):
    #: a wound of its own as much as a foe's (1), or more (a cautious survivor)
    own_weight: float = 1.0


AGGRESSIVE = Style(name="aggressive", threat_weight=0.35, advances=True, head_min_odds=0.30)
CAUTIOUS = Style(name="cautious", threat_weight=1.0, advances=False, head_min_odds=0.45, own_weight=1.5)
STYLES = {"aggressive": AGGRESSIVE, "cautious": CAUTIOUS}


# ----------------------------------------------------------------- exact odds


@lru_cache(maxsize=16384)
def p_at_least(code: DCode, vs: int) -> float:
    """P(a roll of ``code`` totals at least ``vs``) as a float; 0 for a pool of no dice (ZC-DICE-1).

    Exactly ``success_probability``'s odds, rounded once: one less the exact masses below ``vs``, read from the
    roll's masses kept per code (whole numbers over one denominator; an int division rounds as ``float(Fraction)``
    does)."""
    if code.dice <= 0:
        return 0.0
    masses = _masses(code)
    if vs - 1 > masses.bound:  # beyond the masses kept (never in a fight: a Joker's ten sixes and more)
        return float(success_probability(code, vs))
    below = masses.below[bisect_left(masses.totals, vs)]
    return (masses.denominator - below) / masses.denominator


class _Masses(NamedTuple):
    """A roll's exact masses up to ``bound``: P(total = totals[i]) = counts[i] / denominator, and
    ``below[i]`` the sum of the counts before i (``below[-1]`` all of them)."""

    bound: int
    totals: tuple[int, ...]
    counts: tuple[int, ...]
    below: tuple[int, ...]
    denominator: int


#: How far beyond the plain dice's highest total a roll's masses are kept: the Joker's 15 sixes (6 ** -15).
JOKER_SIXES_KEPT = 15


@lru_cache(maxsize=4096)
def _masses(code: DCode, bound: int | None = None) -> _Masses:
    """The exact masses of ``code``'s roll (ZC-WILD-1/2) up to ``bound`` (by default 15 of the Joker's sixes past
    the plain dice's highest total), kept per code (``odds.point_masses``)."""
    if bound is None:
        bound = code.pips + 6 * code.dice + 6 * JOKER_SIXES_KEPT
    counts, denominator = point_masses(code, bound)
    totals = tuple(t for t in sorted(counts) if counts[t])
    listed = tuple(counts[t] for t in totals)
    return _Masses(bound, totals, listed, (0, *accumulate(listed)), denominator)


#: A roll's distribution is read until less than this is left above (a decision needs no more; the odds stay exact).
PMF_TAIL = 1e-9


@lru_cache(maxsize=4096)
def _roll_pmf(code: DCode) -> tuple[tuple[int, float], ...]:
    """A roll's total and its probability (ZC-WILD-1/2), as floats, up to a tail below :data:`PMF_TAIL`.

    The exact masses of the first totals (``point_masses``, the listing of ``roll_distribution``), each rounded
    once to a float (an int division rounds as ``float(Fraction)`` does), read until the tail is reached; the
    Joker is followed further when the first bound falls short of it."""
    if code.dice <= 0:
        return ()
    masses = _masses(code)
    while True:
        out: list[tuple[int, float]] = []
        left = 1.0
        denominator = masses.denominator
        for t, c in zip(masses.totals, masses.counts, strict=True):
            p = c / denominator
            out.append((t, p))
            left -= p
            if left < PMF_TAIL:
                return tuple(out)
        masses = _masses(code, 2 * masses.bound)  # the tail lies farther than the masses kept


@lru_cache(maxsize=4096)
def _roll_totals(code: DCode) -> tuple[int, ...]:
    """The totals of :func:`_roll_pmf`, in order (to start a reading at a total)."""
    return tuple(t for t, _ in _roll_pmf(code))


@lru_cache(maxsize=1024)
def modifier_pmf(up: int, down: int, per_die: int) -> tuple[tuple[int, float], ...]:
    """The difficulty's rolled dice (ZC-COVER-1, ZC-FIRE-2, ZC-AIM-1): ``up`` d6 added, ``down`` d6 taken away,
    no Joker; ``per_die`` > 0: each die counts that fixed value instead (``modifier_dice = "fixed"``).

    Counted exactly over 6 ** (up + down) outcomes, each probability rounded once to a float."""
    if per_die:
        return (((up - down) * per_die, 1.0),)
    ways: dict[int, int] = {0: 1}
    for sign in [1] * up + [-1] * down:
        nxt: dict[int, int] = {}
        for t, w in ways.items():
            for face in range(1, 7):
                nxt[t + sign * face] = nxt.get(t + sign * face, 0) + w
        ways = nxt
    outcomes = 6 ** (up + down)
    return tuple((t, w / outcomes) for t, w in sorted(ways.items()))


@lru_cache(maxsize=16384)
def p_hit(code: DCode, fixed: int, up: int, down: int, per_die: int, floor: int, bonus: int) -> float:
    """ZC-ATK-1 / ZC-DIFF-1: P(roll + ``bonus`` >= max(``floor``, ``fixed`` + the rolled difficulty dice))."""
    if code.dice <= 0:
        return 0.0
    return sum(p * p_at_least(code, max(floor, fixed + v) - bonus) for v, p in modifier_pmf(up, down, per_die))


class Shot(NamedTuple):
    """What an attack's dice are: the pool, the difficulty's parts, the damage and the target's ladder."""

    code: DCode  # the attack pool after its dice modifiers
    fixed: int  # base difficulty + range (and every fixed modifier)
    up: int  # difficulty dice added (cover, light, called shot, later targets of a multi mode)
    down: int  # difficulty dice taken away (the firing mode)
    bonus: int  # the machine gun's attack bonus (ZC-RANGE-1 option)
    damage: DCode  # the damage code after the mode's dice
    flat: int  # damage points added (a called shot's)
    resistance: DCode
    level: int  # the target's worst wound level (-1 unhurt)
    undead: bool


#: The worth of a wound level to the side that inflicts it: how far it takes the foe out of the fight.
HUMAN_WORTH = {-1: 0.0, STUNNED: 0.1, WOUNDED: 0.25, SEVERELY: 0.45, INCAPACITATED: 0.85, MORTALLY: 1.0, DEAD: 1.0}
#: The dead feel no pain (no wound penalty): only what stops them counts, and a step toward it.
UNDEAD_WORTH = {-1: 0.0, STUNNED: 0.1, WOUNDED: 0.15, SEVERELY: 0.3, INCAPACITATED: 0.9, MORTALLY: 1.0, DEAD: 1.0}


@lru_cache(maxsize=4096)
def _excess_cdf(damage: DCode, resistance: DCode) -> tuple[int, tuple[float, ...]]:
    """(lowest value, P(damage dice - resistance <= lowest + i) for each i): the two rolls' difference."""
    dmg, res = _roll_pmf(DCode(damage.dice, 0)), _roll_pmf(resistance)
    if not dmg:
        dmg = ((0, 1.0),)
    if not res:
        res = ((0, 1.0),)
    # each difference's mass summed in the order of the damage totals (one resistance total per damage total)
    low = dmg[0][0] - res[-1][0]
    diff = [0.0] * (dmg[-1][0] - res[0][0] - low + 1)
    for d, pd in dmg:
        at = d - low
        for r, pr in res:
            diff[at - r] += pd * pr
    return low, tuple(accumulate(diff))


def _cdf(table: tuple[int, tuple[float, ...]], v: int) -> float:
    low, cum = table
    i = v - low
    if i < 0:
        return 0.0
    return cum[i] if i < len(cum) else 1.0


@lru_cache(maxsize=4096)
def harm_table(damage: DCode, resistance: DCode, level: int, undead: bool, bands: tuple[int, ...]) -> tuple[float, ...]:
    """E[worth gained] of a hit whose damage roll gets ``added`` points (pips, margin, called shot), for each
    ``added`` from 0 (the last entry holds for any more): the ladder of ZC-WOUND-1, where a hit at or below
    the target's level raises it one and the dead are stopped at Mortally Wounded."""
    table = _excess_cdf(damage, resistance)
    worth = UNDEAD_WORTH if undead else HUMAN_WORTH
    top = MORTALLY if undead else DEAD
    now = worth[min(level, top)]

    def after(lv: int) -> float:
        new = lv if lv > level else level + 1
        return worth[min(new, top)] - now

    # <=0 nothing, <=3 Stunned, <=8 Wounded, <=12 Incapacitated, <=15 Mortally Wounded
    e1, e2, e3, e4 = bands[0], bands[1], bands[2], bands[3]
    g1, g2, g3, g4 = (after(lv) for lv in (STUNNED, WOUNDED, INCAPACITATED, MORTALLY))
    dead = after(DEAD)
    out: list[float] = []
    added = 0
    while True:
        # the difference's distribution at each edge, read once (the sum below is summed in the ladder's order)
        c0, c1, c2, c3, c4 = (_cdf(table, e - added) for e in (0, e1, e2, e3, e4))
        total = 0.0
        total += (c1 - c0) * g1
        total += (c2 - c1) * g2
        total += (c3 - c2) * g3
        total += (c4 - c3) * g4
        total += (1.0 - c4) * dead
        out.append(total)
        if c0 <= 0.0 and c4 <= 0.0:
            return tuple(out)  # every roll kills from here on
        added += 1


def _from_need(code: DCode, need: int, head: int, full_margin: bool, harm: tuple[float, ...]) -> tuple[float, float]:
    """(P(roll >= need), E[worth gained; roll >= need]) with the margin feeding the damage (ZC-DMG-1)."""
    last = len(harm) - 1
    hit = value = 0.0
    pmf = _roll_pmf(code)
    # the totals below the need add nothing: start at the first that meets it
    for t, pt in pmf[bisect_left(_roll_totals(code), need) :]:
        margin = t - need
        hit += pt
        added = head + (margin if full_margin else margin // 5)
        value += pt * harm[added if added < last else last]
    return hit, value


@lru_cache(maxsize=65536)
def _by_need(
    code: DCode, head: int, full_margin: bool, damage: DCode, resistance: DCode, level: int, undead: bool, bands: Bands
) -> ByNeed:
    """:func:`_from_need`'s answers for one attack pool against one wound ladder (the harm table of ``damage``,
    ``resistance``, ``level``, ``undead`` and ``bands``), by need, filled as they are asked: kept for the fight's
    process like the tables (a pure function of these), and asked once per attack, not once per difficulty."""
    return {}


def _answers(shot: Shot, full_margin: bool, bands: Bands) -> Callable[[int], tuple[float, float]]:
    """``answer(need)``: :func:`_from_need` for ``shot`` at ``need``, read from the answers kept by :func:`_by_need`
    (worked out and kept the first time a need is asked)."""
    harm = harm_table(shot.damage, shot.resistance, shot.level, shot.undead, bands)
    head = max(0, shot.damage.pips + shot.flat)
    known = _by_need(shot.code, head, full_margin, shot.damage, shot.resistance, shot.level, shot.undead, bands)
    code = shot.code

    def answer(need: int) -> tuple[float, float]:
        got = known.get(need)
        if got is None:
            got = known[need] = _from_need(code, need, head, full_margin, harm)
        return got

    return answer


@lru_cache(maxsize=65536)
def shot_value(shot: Shot, per_die: int, floor: int, full_margin: bool, bands: Bands) -> tuple[float, float]:
    """(P(hit), E[worth gained]) of one attack: each roll total against each difficulty, the margin feeding
    the damage (ZC-DMG-1: all of it, or a fifth)."""
    if shot.code.dice <= 0:
        return 0.0, 0.0
    answer = _answers(shot, full_margin, bands)
    hit = value = 0.0
    for v, pv in modifier_pmf(shot.up, shot.down, per_die):
        h, w = answer(max(floor, shot.fixed + v) - shot.bonus)
        hit += pv * h
        value += pv * w
    return hit, value


class Guard(NamedTuple):
    """A defence roll the attacks on its roller meet: an active defence (ZC-DEF-1) adds its total to the difficulty;
    a partial one (ZC-DEF-2, ``partial``) replaces the base (``base``) when its total is above ``floor``."""

    code: DCode  # the defence pool after its dice modifiers
    partial: bool
    base: int
    floor: int


@lru_cache(maxsize=1024)
def guard_pmf(guard: Guard) -> tuple[tuple[int, float], ...]:
    """What a defence roll adds to the difficulty, and its probability (a pool of no dice adds nothing)."""
    if guard.code.dice <= 0:
        return ((0, 1.0),)
    out: dict[int, float] = {}
    for t, p in _roll_pmf(guard.code):
        added = t if not guard.partial else (t - guard.base if t > max(guard.floor, guard.base) else 0)
        out[added] = out.get(added, 0.0) + p
    return tuple(sorted(out.items()))


@lru_cache(maxsize=65536)
def guarded_value(
    shot: Shot, per_die: int, floor: int, full_margin: bool, bands: tuple[int, ...], guard: Guard
) -> tuple[float, float]:
    """(P(hit), E[worth gained]) of one attack on a target that defends with ``guard`` (ZC-DEF-1 / ZC-DEF-2): each
    difficulty die and each defence total, as :func:`shot_value` counts them without the defence."""
    if shot.code.dice <= 0:
        return 0.0, 0.0
    answer = _answers(shot, full_margin, bands)
    needs: dict[int, float] = {}
    for v, pv in modifier_pmf(shot.up, shot.down, per_die):
        for g, pg in guard_pmf(guard):
            need = max(floor, shot.fixed + v + g) - shot.bonus
            needs[need] = needs.get(need, 0.0) + pv * pg
    hit = value = 0.0
    for need, pn in needs.items():
        h, w = answer(need)
        hit += pn * h
        value += pn * w
    return hit, value


# ----------------------------------------------------------------- the options


class Option(NamedTuple):
    """A scored option: what the plan says, and its value (a named tuple: a decision makes hundreds)."""

    value: float
    kind: str
    targets: tuple[str, ...] = ()
    weapon: str | None = None
    mode: str = "single"
    called: str | None = None
    path: tuple[Cell, ...] = ()
    manoeuvre: str | None = None
    odds: float = 0.0  # the first target's exact odds (attacks)
    harm: float = 0.0  # E[worth gained] of the attack (all targets)
    partial: bool | None = None  # ZC-DEF-2 with the attack (edition 6); None: as edition 5 chose it (arm's reach)


#: An :class:`Option` made from all its fields in order, without the named tuple's ``__new__`` (a Python function
#: a call costs; a decision lists hundreds of shots): the same tuple.
_new_option = tuple.__new__


@dataclass
class Context:
    """What one decision reads once: the actor, its foes in reach of the index, the rules' numbers."""

    enc: Encounter
    actor: str
    me: ActorState
    style: Style
    foes: list[ActorState]  # the foes able to act that count, nearest first
    per_die: int
    floor: int
    full_margin: bool
    bands: tuple[int, ...]
    threats: dict[Cell, float] = field(default_factory=dict)
    threat_by: dict[tuple[str, Cell], float] = field(default_factory=dict)
    #: shots and option lists already worked out in this decision (the same shot comes back for each option)
    shots: dict[tuple[object, ...], Shot | None] = field(default_factory=dict)
    lists: dict[tuple[object, ...], list[Option]] = field(default_factory=dict)
    #: (P(hit), E[worth gained]) of those shots, by the same key (None: beyond long range)
    values: dict[tuple[object, ...], tuple[float, float] | None] = field(default_factory=dict)
    #: the parts of a shot that depend on the target and the firing cell only, and on the mode and pool only, each
    #: with its number in the fight's :class:`_Parts` (None: beyond long range)
    aimed: dict[tuple[object, ...], tuple[_TargetPart, int] | None] = field(default_factory=dict)
    fired: dict[tuple[object, ...], tuple[_ModePart, int]] = field(default_factory=dict)
    #: what each mode's rounds cost, by weapon, mode and number of targets (None: not fired at so many)
    costs: dict[tuple[str, str, int], float | None] = field(default_factory=dict)
    #: what each foe's attacks owe to the foe alone (its pool, its reach, its blow)
    foe_odds: dict[str, _FoeOdds] = field(default_factory=dict)


def context(enc: Encounter, actor: str, style: Style) -> Context:
    """A fresh decision's context for ``actor`` playing ``style``."""
    r = R.rules(enc)
    return Context(
        enc=enc,
        actor=actor,
        me=enc.state.actors[actor],
        style=style,
        foes=_foes(enc, actor),
        per_die=r.fixed_per_die if r.modifier_dice == "fixed" else 0,
        floor=r.min_difficulty,
        full_margin=r.margin_damage == "full",
        bands=tuple(r.wound_bands),
    )


def _light_dice(enc: Encounter, cell: Cell) -> int:
    """ZC-COVER-1: +1D in poor light at the target's cell (its zone's light, else the map's); kept per cell."""
    known: dict[Cell, int] | None = enc.scratch.get("zc_tactics_light")
    if known is None:
        known = enc.scratch["zc_tactics_light"] = {}
    got = known.get(cell)
    if got is None:
        zone = R.cover_at(enc, cell)
        light = zone.light if zone is not None and zone.light else enc.scenario.map.light
        got = known[cell] = R.rules(enc).poor_light_dice if light in R.POOR_LIGHT else 0
    return got


def _cover_dice(enc: Encounter, shooter: Cell, target: Cell) -> int:
    """ZC-COVER-1: the cover dice the target gets against a shot from ``shooter`` (the line of fire); kept per
    pair of cells (the map does not change during a fight)."""
    known: dict[tuple[Cell, Cell], int] | None = enc.scratch.get("zc_tactics_cover")
    if known is None:
        known = enc.scratch["zc_tactics_cover"] = {}
    key = (shooter, target)
    got = known.get(key)
    if got is None:
        field_ = enc.battlefield
        if field_.open and not field_.zones:
            got = 0
        else:
            boxes: list[CoverBox] | None = enc.scratch.get("zc_tactics_cover_boxes")
            if boxes is None:
                boxes = enc.scratch["zc_tactics_cover_boxes"] = _cover_boxes_of(field_)
            got = _line_cover_dice(field_, _covering(enc), R.rules(enc).cover_dice, shooter, target, boxes)
        if len(known) > 200_000:
            known.clear()
        known[key] = got
    return got


def _covering(enc: Encounter) -> dict[Cell, object]:
    """:func:`_covering_of` the encounter's battlefield, kept per encounter (walls and zones never move)."""
    got: dict[Cell, object] | None = enc.scratch.get("zc_tactics_covering")
    if got is None:
        got = enc.scratch["zc_tactics_covering"] = _covering_of(enc.battlefield)
    return got


#: A rectangle of cells that may give cover (x0, y0, x1, y1, the first cell to the last), and its cover zone (None:
#: a low wall's).
CoverBox = tuple[int, int, int, int, object]


def _cover_boxes_of(field_: Battlefield) -> list[CoverBox]:
    """The rectangles that hold every cell that may give cover on a line of fire: each cover zone's, each low wall's
    (a full wall's cells give none)."""
    boxes: list[CoverBox] = [(z.x, z.y, z.x + z.w - 1, z.y + z.h - 1, z) for z in field_.zones]
    boxes += [(w.x, w.y, w.x + w.w - 1, w.y + w.h - 1, None) for w in field_.walls if w.height == "low"]
    return boxes


#: How far past a rectangle's cells :func:`_misses` still counts a segment as meeting it (far above the floats'
#: rounding, so a segment said to miss does miss).
BOX_SLACK = 0.01


def _misses(a: Cell, b: Cell, box: CoverBox) -> bool:
    """Whether the segment from ``a``'s centre to ``b``'s stays :data:`BOX_SLACK` away from the cells of ``box`` (each
    cell a square of side 1 round its centre): then the line between them (Battlefield.line) holds none of them, a cell
    it lists being one whose square the segment meets. Clipped axis by axis (Liang-Barsky)."""
    x0, y0, x1, y1, _ = box
    t0, t1 = 0.0, 1.0
    for p, d, lo, hi in ((a[0], b[0] - a[0], x0, x1), (a[1], b[1] - a[1], y0, y1)):
        low, high = lo - 0.5 - BOX_SLACK, hi + 0.5 + BOX_SLACK
        if d == 0:
            if p < low or p > high:
                return True
            continue
        ta, tb = (low - p) / d, (high - p) / d
        if ta > tb:
            ta, tb = tb, ta
        if ta > t0:
            t0 = ta
        if tb < t1:
            t1 = tb
        if t0 > t1:
            return True
    return False


def _covering_of(field_: Battlefield) -> dict[Cell, object]:
    """Each cell that may give cover on a line of fire (Battlefield.cover_between's ``cell_cover``): a wall's cell, its
    wall; else a cell of cover zones, those zones in the map's order (a tuple)."""
    zones: dict[Cell, list[object]] = {}
    for z in field_.zones:
        for cx in range(z.x, z.x + z.w):
            for cy in range(z.y, z.y + z.h):
                zones.setdefault((cx, cy), []).append(z)
    got: dict[Cell, object] = {c: tuple(held) for c, held in zones.items()}
    got.update(field_.wall_at)  # a wall's cell gives the wall's cover, whatever zone holds it
    return got


def _line_cover_dice(
    field_: Battlefield,
    covering: dict[Cell, object],
    dice: dict[str, int],
    shooter: Cell,
    target: Cell,
    boxes: list[CoverBox] | None = None,
) -> int:
    """ZC-COVER-1: the cover dice of ``field_.cover_between(shooter, target, rank)``'s cover ranked by its dice
    (``rank``: ``dice.get(level, 0)``): the most dice of its candidates (the zones holding the target, and each entry
    of the line whose cells both give cover, at the lesser of the two), 0 when there is none. The line's cells that
    give no cover (``covering``: :func:`_covering_of` the battlefield) are passed over without a look at the walls and
    zones; and no line is walked when the segment misses every rectangle of ``boxes`` (:func:`_cover_boxes_of` the
    battlefield, when given) but the shooter's own zones', whose cells give no cover unless another zone's or a low
    wall's."""
    best: int | None = None
    tx, ty = target
    zones = field_.zones
    for z in zones:
        if z.x <= tx < z.x + z.w and z.y <= ty < z.y + z.h:
            r = dice.get(z.level, 0)
            if best is None or r > best:
                best = r
    sx, sy = shooter
    shooter_zones = [z for z in zones if z.x <= sx < z.x + z.w and z.y <= sy < z.y + z.h]
    if boxes is not None and all(
        (box[4] is not None and box[4] in shooter_zones) or _misses(shooter, target, box) for box in boxes
    ):
        return 0 if best is None else best

    def rank(c: Cell, held: object) -> int | None:
        if abs(c[0] - sx) <= 1 and abs(c[1] - sy) <= 1:
            return None  # within a metre of the shooter
        if isinstance(held, tuple):  # cover zones (not the shooter's)
            found: int | None = None
            for z in held:
                if z not in shooter_zones:
                    r = dice.get(z.level, 0)
                    if found is None or r > found:
                        found = r
            return found
        wall: Any = held
        return dice.get(wall.cover, 0) if wall.height == "low" else None

    for left, right in field_.line(shooter, target):
        held = covering.get(left)
        if held is None:
            continue
        if right == left:
            one = two = rank(left, held)
        else:
            other = covering.get(right)
            if other is None:
                continue
            one, two = rank(left, held), rank(right, other)
        if one is None or two is None:
            continue
        r = one if one <= two else two
        if best is None or r > best:
            best = r
    return 0 if best is None else best


def _most_cover_dice(enc: Encounter) -> int:
    """ZC-COVER-1: the most cover dice a target can get on this map: the cover a line of fire finds is a cover zone's
    or a low wall's (Battlefield.cover_between), so the best of their levels; kept per encounter (walls never move)."""
    got: int | None = enc.scratch.get("zc_tactics_most_cover")
    if got is None:
        dice = R.rules(enc).cover_dice
        field_ = enc.battlefield
        levels = [z.level for z in field_.zones] + [w.cover for w in field_.walls if w.height == "low"]
        got = enc.scratch["zc_tactics_most_cover"] = max((dice.get(lv, 0) for lv in levels), default=0)
    return got


def pool_dice(enc: Encounter, actor: str, *, partial: bool = False) -> int:
    """The dice an actor's skill roll gains or loses now (ZC-WOUND-1, ZC-MULTI-1, ZC-FIRE-2, ZC-DEF-2),
    read without emitting anything (resolution.pool_penalties clears an off balance as it reads it)."""
    r = R.rules(enc)
    a = enc.state.actors[actor]
    dice = sum(d for _, d, _ in R.wound_penalty(enc, actor))
    dice -= a.conditions.get("extra_actions", 0) * r.multi_action_dice
    if R.SUPPRESSED in a.conditions:
        dice -= r.suppressed_dice
    if partial:
        dice -= r.partial_defence_dice
    return dice


def _base_difficulty(enc: Encounter, target: ActorState) -> int:
    """ZC-ATK-1 / ZC-DEF-2: 10, or the target's partial defence above 10; from edition 6 plus the active defence it
    already holds (ZC-DEF-1: rolled against another attack, it stands until the target's next action). An active
    defence still to come is not known."""
    r = R.rules(enc)
    base = max(r.passive_defence, target.conditions.get("partial_defence", 0))
    if r.edition >= DEFENCE_EDITION:
        base += target.conditions.get("active_defence", 0)
    return base


def _mode_dice(enc: Encounter, mode: str, nth: int) -> tuple[int, int]:
    """ZC-FIRE-2: (difficulty dice, damage dice) of a mode for the nth target (0 first), as mode_modifiers."""
    r = R.rules(enc)
    diff, dmg = r.firing_modes[mode]
    if mode == "semi":
        extra = r.semi_auto_max_rounds - 1
        diff, dmg = diff * extra, dmg * extra
    elif mode in ("semi_multi", "burst_multi"):
        diff = diff * nth
    return diff, dmg


def attack_shot(
    ctx: Context,
    weapon: Weapon,
    target: ActorState,
    cell: Cell,
    mode: str,
    nth: int,
    called: str | None,
    pool: int,
) -> Shot | None:
    """The dice of a shot from ``cell`` at ``target`` (None: beyond long range); kept for the decision."""
    key = (weapon.name, target.id, cell, mode, nth, called, pool)
    if key in ctx.shots:
        return ctx.shots[key]
    got = ctx.shots[key] = _attack_shot(ctx, weapon, target, cell, mode, nth, called, pool)
    return got


class _TargetPart(NamedTuple):
    """What a shot's dice owe to its target and the firing cell (range, cover, light, the target's ladder)."""

    fixed: int
    up: int
    bonus: int
    resistance: DCode
    level: int
    undead: bool


class _ModePart(NamedTuple):
    """What a shot's dice owe to the firing mode, the called shot and the pool (the attack code, the damage)."""

    code: DCode
    up: int
    down: int
    damage: DCode
    flat: int


def _attack_shot(
    ctx: Context,
    weapon: Weapon,
    target: ActorState,
    cell: Cell,
    mode: str,
    nth: int,
    called: str | None,
    pool: int,
) -> Shot | None:
    aimed = _aimed(ctx, weapon, target, cell)
    if aimed is None:
        return None
    return _shot_of(aimed[0], _fired(ctx, weapon, mode, nth, called, pool)[0])


def _shot_of(aimed: _TargetPart, fired: _ModePart) -> Shot:
    return Shot(
        code=fired.code,
        fixed=aimed.fixed,
        up=aimed.up + fired.up,
        down=fired.down,
        bonus=aimed.bonus,
        damage=fired.damage,
        flat=fired.flat,
        resistance=aimed.resistance,
        level=aimed.level,
        undead=aimed.undead,
    )


class _Parts:
    """A fight's shot parts and their odds, kept across its decisions (a decision's :class:`Context` lives for one).

    A part's key holds everything it is made from: the sheets, the map and the rules never change during a fight;
    the target's cell, wound level and defence, the shooter's cell and pool are in the key. Each part is numbered by
    what it holds (two parts that hold the same numbers share one number: :meth:`number`), and a shot's (P(hit),
    E[worth gained]) is kept by its two parts' numbers: a pure function of the shot's dice, asked again each time a
    target is weighed with the same dice in a later decision (a horde's dead at one range band, cover and wound level
    share them, wherever they stand)."""

    __slots__ = ("aimed", "fired", "numbers", "values")

    def __init__(self) -> None:
        self.aimed: dict[tuple[object, ...], tuple[_TargetPart, int] | None] = {}
        self.fired: dict[tuple[object, ...], tuple[_ModePart, int]] = {}
        self.values: dict[tuple[int, int], tuple[float, float]] = {}
        self.numbers: dict[tuple[object, ...], int] = {}

    def number(self, part: tuple[object, ...]) -> int:
        """The number of a part that holds these values (a target part and a mode part never hold as many)."""
        got = self.numbers.get(part)
        if got is None:
            got = self.numbers[part] = len(self.numbers)
        return got


#: How many shots' odds a fight keeps at most (the list is started again past it; a horde keeps a few thousand).
MAX_KEPT_SHOTS = 200_000


def _parts(enc: Encounter) -> _Parts:
    got: _Parts | None = enc.scratch.get("zc_tactics_parts")
    if got is None:
        got = enc.scratch["zc_tactics_parts"] = _Parts()
    return got


def _number(enc: Encounter, part: tuple[object, ...]) -> int:
    """A shot part's number in the fight: one per distinct content (:meth:`_Parts.number`)."""
    return _parts(enc).number(part)


def _own_weapon(enc: Encounter, actor: str, weapon: Weapon) -> bool:
    """Whether ``weapon`` is the actor's weapon of that name (a fight's parts are kept by the weapon's name)."""
    return R.traits(enc, actor).weapons.get(weapon.name) is weapon


def _aimed(ctx: Context, weapon: Weapon, target: ActorState, cell: Cell) -> tuple[_TargetPart, int] | None:
    """The shot's target part from ``cell`` and its number (None: beyond long range); kept for the decision and,
    by what it is made from, for the fight."""
    at = (weapon.name, target.id, cell)
    known = ctx.aimed.get(at)
    if known is not None or at in ctx.aimed:  # None: beyond long range (asked again only then)
        return known
    enc = ctx.enc
    kept = _parts(enc).aimed
    key = _aimed_key(ctx, weapon, target, cell)
    got = kept.get(key)
    if got is None and key not in kept:
        part = _target_part(ctx, weapon, target, cell)
        if _own_weapon(enc, ctx.actor, weapon):
            got = kept[key] = None if part is None else (part, _number(enc, part))
        else:
            got = None if part is None else (part, -1)  # a weapon not on the sheet: numbered apart
    ctx.aimed[at] = got
    return got


def _aimed_key(ctx: Context, weapon: Weapon, target: ActorState, cell: Cell) -> tuple[object, ...]:
    """What a target part is made from (:func:`_target_part`) beyond the sheets, the map and the rules: the shooter and
    its weapon, the firing cell, the target's cell, its worst wound level and the defences it holds (ZC-DEF-1/2)."""
    conditions = target.conditions
    return (
        ctx.actor,
        weapon.name,
        target.id,
        cell,
        target.x,
        target.y,
        R.worst_level(target),
        conditions.get("partial_defence", 0),
        conditions.get("active_defence", 0),
    )


def _fired(ctx: Context, weapon: Weapon, mode: str, nth: int, called: str | None, pool: int) -> tuple[_ModePart, int]:
    """The shot's mode part and its number; kept for the decision and for the fight."""
    how = (weapon.name, mode, nth, called, pool)
    fired = ctx.fired.get(how)
    if fired is None:
        enc = ctx.enc
        kept = _parts(enc)
        key = (ctx.actor, *how)
        fired = kept.fired.get(key)
        if fired is None:
            part = _mode_part(ctx, weapon, mode, nth, called, pool)
            fired = (part, _number(enc, part))
            if _own_weapon(enc, ctx.actor, weapon):
                kept.fired[key] = fired
            else:
                fired = (fired[0], -1)  # a weapon not on the sheet: numbered apart
        ctx.fired[how] = fired
    return fired


def _target_part(ctx: Context, weapon: Weapon, target: ActorState, cell: Cell) -> _TargetPart | None:
    """ZC-RANGE-1, ZC-COVER-1: the range band's difficulty (or the machine-gun line's bonus), the base (a defence
    the target holds), the cover from ``cell`` and the light at the target (None: beyond long range)."""
    enc = ctx.enc
    r = R.rules(enc)
    tcell = (target.x, target.y)
    metres = R.distance(cell, tcell)
    band = R.range_band(enc, weapon, metres)
    if band is None:
        return None
    bonus = 0
    fixed = _base_difficulty(enc, target)
    if weapon.type == "machine_gun":
        if r.machine_gun_reading == "attack_bonus":
            bonus = -r.machine_gun_modifiers[band]
        else:
            fixed += r.machine_gun_modifiers[band]
    else:
        fixed += r.range_modifiers[band]
    up = _light_dice(enc, tcell) + _cover_dice(enc, cell, tcell)
    t = R.traits(enc, target.id)
    return _TargetPart(fixed, up, bonus, t.resistance, R.worst_level(target), t.undead)


def _mode_part(ctx: Context, weapon: Weapon, mode: str, nth: int, called: str | None, pool: int) -> _ModePart:
    """ZC-FIRE-2, ZC-AIM-1: the mode's difficulty and damage dice for the nth target, a called shot's die and
    damage, the attack pool (ZC-ATK-1) and the damage code (ZC-DMG-1)."""
    enc = ctx.enc
    r = R.rules(enc)
    up = down = 0
    diff_dice, dmg_dice = _mode_dice(enc, mode, nth)
    if diff_dice > 0:
        up += diff_dice
    else:
        down -= diff_dice
    flat = 0
    if called:
        head_dice, head_damage = r.called_shots[called]
        up += head_dice
        flat = head_damage
    me = R.traits(enc, ctx.actor)
    skill = "heavy_weapons" if weapon.type == "machine_gun" else "firearms"
    code = R.with_dice(me.codes[skill], pool)
    damage, _, _ = R.damage_code(weapon.name, weapon.damage, me.codes["puissance"], dmg_dice, r.min_damage_dice)
    return _ModePart(code, up, down, damage, flat)


def evaluate(ctx: Context, shot: Shot) -> tuple[float, float]:
    return shot_value(shot, ctx.per_die, ctx.floor, ctx.full_margin, ctx.bands)


def guarded(ctx: Context, shot: Shot, guard: Guard) -> tuple[float, float]:
    return guarded_value(shot, ctx.per_die, ctx.floor, ctx.full_margin, ctx.bands, guard)


def _aim_dice(enc: Encounter, actor: str, target: str) -> int:
    a = enc.state.actors[actor]
    if a.conditions.get("aim_target") == R.index_of(enc, target):
        dice: int = a.conditions.get("aiming", 0)
        return dice
    return 0


def _ammo_worth(enc: Encounter, actor: str, weapon: Weapon) -> float:
    """The worth of one round of ``weapon``: a share of a later shot's worth, as dear as the rounds left (in the
    magazine and the spares) fall short of what the foes still able to act would take (:data:`ROUNDS_PER_FOE`)."""
    a = enc.state.actors[actor]
    left = a.ammo.get(weapon.name, 0) + a.spare.get(weapon.name, 0) * (weapon.magazine or 0)
    crowd = enc.crowd
    need = ROUNDS_PER_FOE * sum(crowd.able_count(side) for side in crowd.other_sides(a.side))
    scarcity = min(1.0, max(need / max(left, 1), 0.05))
    return ROUND_WORTH * scarcity


def _modes(enc: Encounter, actor: str, weapon: Weapon) -> list[str]:
    return list(R.rules(enc).legal_modes.get(weapon.type, []))


def shot_options(
    ctx: Context,
    cell: Cell,
    *,
    here: bool,
    partial: bool,
    weapons: Sequence[Weapon],
    pool_offset: int = 0,
    quick: bool = False,
) -> list[Option]:
    """Every shot from ``cell`` worth scoring: each firearm, legal mode, target (and a second one), body or head.

    ``pool_offset``: dice more (or fewer) than the actor's pool holds now (an extra action still to declare).
    ``quick``: a later shot's estimate: one target per shot, the nearest :data:`QUICK_TARGETS` foes.
    The list is kept for the decision (the caller must not change it).
    """
    key = (cell, here, partial, tuple(w.name for w in weapons), pool_offset, quick)
    got = ctx.lists.get(key)
    if got is None:
        got = ctx.lists[key] = _shot_options(ctx, cell, here, partial, weapons, pool_offset, quick)
    return got


def _shot_options(
    ctx: Context,
    cell: Cell,
    here: bool,
    partial: bool,
    weapons: Sequence[Weapon],
    pool_offset: int,
    quick: bool,
) -> list[Option]:
    enc, actor = ctx.enc, ctx.actor
    out: list[Option] = []
    base_pool = pool_dice(enc, actor, partial=partial) + pool_offset
    field_ = enc.battlefield
    in_sight = [f for f in ctx.foes if field_.sees(cell, (f.x, f.y))]
    called_shots = R.rules(enc).called_shots
    calls: tuple[str | None, ...] = (None, "head") if "head" in called_shots else (None,)
    head_min = ctx.style.head_min_odds
    # a called shot's odds are no better than the body shot's when it adds difficulty dice (never fewer)
    head_skip = "head" in called_shots and called_shots["head"][0] >= 0
    kept, costs = _parts(enc).values, ctx.costs
    cx, cy = cell
    for weapon in weapons:
        wname = weapon.name
        long = ranges_of(weapon)[2]
        # within long range (R.distance(cell, (f.x, f.y)) <= long: each of its two differences at most that)
        targets = [f for f in in_sight if abs(f.x - cx) <= long and abs(f.y - cy) <= long]
        if not targets:
            continue
        if quick:
            targets = targets[:QUICK_TARGETS]
        # the first target's pool: an aim at it counts from here
        pools = {t.id: base_pool + (_aim_dice(enc, actor, t.id) if here else 0) for t in targets}
        aims: list[tuple[_TargetPart, int] | None] | None = None  # each target's part, once for the weapon's modes
        aim_of: dict[str, tuple[_TargetPart, int] | None] | None = None  # the same by target (two-target modes)
        near_of: dict[str, list[ActorState | None]] = {}  # the second targets of each first one (two-target modes)
        for mode in _modes(enc, actor, weapon):
            multi = mode in ("semi_multi", "burst_multi")
            if multi and quick:
                continue
            if aims is None:
                aims = [_aimed(ctx, weapon, t, cell) for t in targets]
            if not multi:
                out += _single_shots(ctx, weapon, mode, cell, targets, aims, pools, calls, head_skip)
                continue
            if aim_of is None:
                aim_of = {t.id: aimed for t, aimed in zip(targets, aims, strict=True)}
                # each target's first two others within 3 metres (R.distance <= 3), in the targets' order
                near_of = {}
                for first in targets:
                    fid, fx, fy = first.id, first.x, first.y
                    found: list[ActorState | None] = []
                    for f in targets:
                        if f.id != fid and abs(f.x - fx) <= 3 and abs(f.y - fy) <= 3:
                            found.append(f)
                            if len(found) == 2:
                                break
                    near_of[fid] = found
            #: each target's mode part by (nth, call, pool), and the fight's odds by the two parts' numbers
            fired_by: dict[tuple[int, str | None, int], tuple[_ModePart, int]] = {}
            for first in targets:
                seconds = near_of[first.id]
                if not seconds:
                    continue
                for second in seconds:
                    group = (first,) if second is None else (first, second)
                    n = len(group)
                    cost = costs.get((wname, mode, n), _NOT_FIRED)
                    if cost is _NOT_FIRED:
                        cost = _rounds_cost(ctx, weapon, mode, n)
                    if cost is None:
                        continue
                    #: the odds of each target's body shot: a called shot adds a die to the difficulty, so its odds
                    #: are no better; under the style's odds less a margin for rounding, it is not worth scoring
                    body_odds: list[float] = []
                    for called in calls:
                        if (
                            called
                            and head_skip
                            and (len(body_odds) < n or min(body_odds) < head_min - HEAD_SKIP_MARGIN)
                        ):
                            continue
                        total_harm = 0.0
                        first_odds = 0.0
                        ok = True
                        for nth, t in enumerate(group):
                            # _attack_value's lookup written out (a decision asks it thousands of times)
                            pool = pools[t.id] if nth == 0 else base_pool
                            aimed = aim_of[t.id]
                            if aimed is None:  # beyond long range
                                ok = False
                                break
                            fired = fired_by.get((nth, called, pool))
                            if fired is None:
                                fired = fired_by[(nth, called, pool)] = _fired(ctx, weapon, mode, nth, called, pool)
                            got = kept.get((aimed[1], fired[1]))
                            if got is None:
                                got = _pair_value(ctx, aimed, fired)
                            p, harm = got
                            if not called:
                                body_odds.append(p)
                            elif p < head_min:
                                ok = False
                                break
                            if nth == 0:
                                first_odds = p
                            total_harm += harm
                        if not ok or first_odds <= 0.0:
                            continue
                        value = total_harm - cost
                        if mode == "suppressive":
                            value += 0.15 * sum(_threat_of(ctx, t, (ctx.me.x, ctx.me.y)) for t in group)
                        ids = (first.id,) if second is None else (first.id, second.id)
                        # every field in order (a named tuple's keywords cost a call's worth each)
                        fields = (value, "shoot", ids, wname, mode, called, (), None, first_odds, total_harm, None)
                        out.append(_new_option(Option, fields))
    return out


def _single_shots(
    ctx: Context,
    weapon: Weapon,
    mode: str,
    cell: Cell,
    targets: list[ActorState],
    aims: list[tuple[_TargetPart, int] | None],
    pools: dict[str, int],
    calls: tuple[str | None, ...],
    head_skip: bool,
) -> list[Option]:
    """:func:`_shot_options`' options of a mode fired at one target, in the same order and with the same floats as
    its loop over groups of targets gives them for a group of one (a decision scores hundreds). ``aims``: each
    target's part from ``cell`` (:func:`_aimed`); a shot's odds are read from the fight's by the two parts' numbers
    (:func:`_attack_value`'s, written out)."""
    out: list[Option] = []
    wname = weapon.name
    cost = ctx.costs.get((wname, mode, 1), _NOT_FIRED)
    if cost is _NOT_FIRED:
        cost = _rounds_cost(ctx, weapon, mode, 1)
    if cost is None:
        return out
    kept = _parts(ctx.enc).values
    #: by pool: each call and its mode part (the pool is the same for most targets)
    fired_by: dict[int, list[tuple[str | None, tuple[_ModePart, int]]]] = {}
    head_min = ctx.style.head_min_odds
    #: a called shot's odds are no better than the body shot's: under the style's odds less a margin, not scored
    head_low = head_min - HEAD_SKIP_MARGIN
    suppressive = mode == "suppressive"
    for first, aimed in zip(targets, aims, strict=True):
        if aimed is None:
            continue  # beyond long range
        fid = first.id
        pool = pools[fid]
        fireds = fired_by.get(pool)
        if fireds is None:
            fireds = fired_by[pool] = [(called, _fired(ctx, weapon, mode, 0, called, pool)) for called in calls]
        number = aimed[1]
        body = -1.0  # the body shot's odds (none yet)
        for called, fired in fireds:
            if called and head_skip and body < head_low:
                continue
            got = kept.get((number, fired[1]))
            if got is None:
                got = _pair_value(ctx, aimed, fired)
            p, harm = got
            if not called:
                body = p
            elif p < head_min:
                continue
            if p <= 0.0:
                continue
            total_harm = 0.0 + harm  # summed over the group's targets, from 0.0
            value = total_harm - cost
            if suppressive:
                # a group of one's sum (0 + a threat, never -0.0: each is a max from 0.0)
                value += 0.15 * _threat_of(ctx, first, (ctx.me.x, ctx.me.y))
            fields = (value, "shoot", (fid,), wname, mode, called, (), None, p, total_harm, None)
            out.append(_new_option(Option, fields))
    return out


#: Not known yet in :attr:`Context.costs` (None there: the mode cannot be fired at so many).
_NOT_FIRED = -1.0


def _rounds_cost(ctx: Context, weapon: Weapon, mode: str, n: int) -> float | None:
    """What the rounds of ``mode`` at ``n`` targets cost (None: it cannot be fired at so many, ZC-FIRE-1); kept for
    the decision (the rounds left do not change in one)."""
    enc, actor = ctx.enc, ctx.actor
    cost = None
    if R.mode_legal(enc, actor, weapon, mode, n) is None:
        cost = R.rounds_needed(enc, actor, weapon, mode, n) * _ammo_worth(enc, actor, weapon)
        if mode == "long_burst":
            cost += 0.05  # the magazine is empty after it: a reload to come
    ctx.costs[(weapon.name, mode, n)] = cost
    return cost


def attack_value(
    ctx: Context,
    weapon: Weapon,
    target: ActorState,
    cell: Cell,
    mode: str,
    nth: int,
    called: str | None,
    pool: int,
) -> tuple[float, float] | None:
    """(P(hit), E[worth gained]) of :func:`attack_shot`'s shot (None: beyond long range); kept for the decision, and
    by its parts' numbers for the fight."""
    key = (weapon.name, target.id, cell, mode, nth, called, pool)
    got = ctx.values.get(key)
    if got is None and key not in ctx.values:  # None: beyond long range
        got = ctx.values[key] = _attack_value(ctx, weapon, target, cell, mode, nth, called, pool)
    return got


def _attack_value(
    ctx: Context,
    weapon: Weapon,
    target: ActorState,
    cell: Cell,
    mode: str,
    nth: int,
    called: str | None,
    pool: int,
) -> tuple[float, float] | None:
    aimed = _aimed(ctx, weapon, target, cell)
    if aimed is None:
        return None
    return _pair_value(ctx, aimed, fired=_fired(ctx, weapon, mode, nth, called, pool))


def _pair_value(ctx: Context, aimed: tuple[_TargetPart, int], fired: tuple[_ModePart, int]) -> tuple[float, float]:
    """(P(hit), E[worth gained]) of the shot of two numbered parts, kept for the fight by their numbers (a part of a
    weapon not on the sheet, numbered -1, is not kept)."""
    if aimed[1] < 0 or fired[1] < 0:
        return evaluate(ctx, _shot_of(aimed[0], fired[0]))
    values = _parts(ctx.enc).values
    pair = (aimed[1], fired[1])
    got = values.get(pair)
    if got is None:
        if len(values) > MAX_KEPT_SHOTS:
            values.clear()
        got = values[pair] = evaluate(ctx, _shot_of(aimed[0], fired[0]))
    return got


def _threat_of(ctx: Context, foe: ActorState, cell: Cell) -> float:
    """E[worth lost] this round to ``foe``'s best attack on the actor standing at ``cell`` (one action)."""
    key = (foe.id, cell)
    got = ctx.threat_by.get(key)
    if got is None:
        got = ctx.threat_by[key] = _foe_threat(ctx, foe, cell)
    return got


class _FoeOdds(NamedTuple):
    """What a foe's attacks on the actor owe to the foe alone, read once per decision (nothing moves in one)."""

    traits: R.Traits
    pool: int  # its attack pool's dice modifiers now (pool_dice)
    reach: int  # how far it walks to a blow: a move and a step
    blow: float  # its blow's worth when the actor does not defend
    code: DCode  # its blow's pool
    vs: int  # its blow's difficulty before a defence
    weight: float  # what a blow that lands is worth (a grab and the bite, or a blow)


def _foe_odds(ctx: Context, foe: ActorState) -> _FoeOdds:
    got = ctx.foe_odds.get(foe.id)
    if got is None:
        enc = ctx.enc
        ft = R.traits(enc, foe.id)
        pool = pool_dice(enc, foe.id)
        skill = "melee" if ft.melee else "brawl"
        code, vs = R.with_dice(ft.codes[skill], pool), R.rules(enc).passive_defence + (0 if ft.melee else 7)
        p = sum(pg * p_at_least(code, vs + g) for g, pg in ((0, 1.0),))
        weight = 0.5 if ft.undead else 0.35
        blow = p * weight
        got = ctx.foe_odds[foe.id] = _FoeOdds(ft, pool, R.sheet(enc, foe.id).move + 1, blow, code, vs, weight)
    return got


@lru_cache(maxsize=4096)
def _guarded_blow(code: DCode, vs: int, weight: float, guard: Guard) -> float:
    """A blow's worth (``weight`` when it lands) against a defender who rolls ``guard`` (ZC-DEF-1 / ZC-DEF-2): a pure
    function of the dice, kept for the process like the odds it sums."""
    p = sum(pg * p_at_least(code, vs + g) for g, pg in guard_pmf(guard))
    return p * weight


def _foe_threat(ctx: Context, foe: ActorState, cell: Cell, guard: Guard | None = None) -> float:
    """``foe``'s best attack on the actor at ``cell``; ``guard``: the actor defends (ZC-DEF-1 / ZC-DEF-2)."""
    enc = ctx.enc
    fcell = (foe.x, foe.y)
    metres = R.distance(fcell, cell)
    odds = _foe_odds(ctx, foe)
    ft = odds.traits
    pool = odds.pool
    best = 0.0
    if ft.firearms and enc.battlefield.sees(fcell, cell):  # the dead carry no gun: no line to look at
        me = R.traits(enc, ctx.actor)
        level = R.worst_level(ctx.me)
        for w in ft.firearms:
            if foe.ammo.get(w.name, 0) <= 0 and foe.spare.get(w.name, 0) <= 0:
                continue
            band = R.range_band(enc, w, metres)
            if band is None:
                continue
            r = R.rules(enc)
            skill = "heavy_weapons" if w.type == "machine_gun" else "firearms"
            fixed = r.passive_defence + (
                r.machine_gun_modifiers[band] if w.type == "machine_gun" else r.range_modifiers[band]
            )
            up = _light_dice(enc, cell) + _cover_dice(enc, fcell, cell)
            damage, _, _ = R.damage_code(w.name, w.damage, ft.codes["puissance"], 0, r.min_damage_dice)
            shot = Shot(
                code=R.with_dice(ft.codes[skill], pool),
                fixed=fixed,
                up=up,
                down=0,
                bonus=0,
                damage=damage,
                flat=0,
                resistance=me.resistance,
                level=level,
                undead=me.undead,
            )
            worth = evaluate(ctx, shot)[1] if guard is None else guarded(ctx, shot, guard)[1]
            best = max(best, worth)
            break  # the first firearm with rounds, as a survivor fires it
    # hand to hand: within a move and a step (the dead grab, then bite), walking round the walls
    if _walk_within(enc, fcell, cell, odds.reach):
        blow = odds.blow if guard is None else _guarded_blow(odds.code, odds.vs, odds.weight, guard)
        best = max(best, blow)
    return best


def threat_at(ctx: Context, cell: Cell) -> float:
    """The harm the foes can do this round to the actor standing at ``cell`` (each foe's best attack)."""
    got = ctx.threats.get(cell)
    if got is None:
        got = ctx.threats[cell] = sum(_threat_of(ctx, f, cell) for f in ctx.foes[:MAX_THREATS])
    return got


def _foes(enc: Encounter, actor: str) -> list[ActorState]:
    """The foes able to act that a decision weighs: the nearest within the threat radius (in sight or within
    reach of a walk), and the most hurt of those; from the crowd index, never a scan of every actor."""
    me = enc.state.actors[actor]
    crowd = enc.crowd
    others = crowd.other_sides(me.side)
    actors = enc.state.actors
    found = _nearest_within(crowd, me.x, me.y, others, THREAT_RADIUS, FOES_LOOKED_AT)
    if not found:
        near = crowd.nearest(me.x, me.y, others)
        found = [(near[0], fid) for fid in near[1]] if near is not None else []
    field_ = enc.battlefield
    here = (me.x, me.y)
    picked: list[ActorState] = []
    hurt: list[tuple[int, int, str]] = []
    for d, fid in found[:FOES_LOOKED_AT]:
        f = actors[fid]
        full = len(picked) >= MAX_TARGETS
        level = R.worst_level(f) if full else -1
        if full and level < 0:
            continue  # past the nearest only the hurt count (asked before sight, which costs more)
        # in sight, or within reach of a walk (the regions of free cells: walk_distance(...) is not None)
        if not field_.open and not field_.sees(here, (f.x, f.y)) and not field_.reaches(here, (f.x, f.y)):
            continue
        if full:
            hurt.append((-level, d, fid))
        else:
            picked.append(f)
    picked += [actors[fid] for _, _, fid in sorted(hurt)[:2]]
    return picked


#: How many of the nearest foes :func:`_foes` looks at (the nearest in sight or reach, then the most hurt of them).
FOES_LOOKED_AT = 4 * MAX_TARGETS
#: The radii :func:`_nearest_within` asks the crowd first (a horde packs dozens of the dead within a few metres).
NEAR_RADII = (8, 16, 24)


#: Up to this many able foes, :func:`_nearest_within` looks at each (a 40-zombie horde) instead of at the buckets.
SCAN_ABLE = 128


def _nearest_within(crowd: Crowd, x: int, y: int, sides: list[str], metres: int, count: int) -> list[tuple[int, str]]:
    """The first ``count`` entries (at least) of ``crowd.within(x, y, sides, metres)``, which is sorted by distance
    then id: among a few able foes (:data:`SCAN_ABLE`), each of them looked at once (the same entries, sorted);
    among more, asked first within a smaller radius, whose list is the same prefix (every entry within the smaller
    radius comes before every one beyond it) and is enough once it holds ``count`` entries."""
    able = crowd.able
    members = [m for side in sides if (m := able.get(side))]
    if sum(len(m) for m in members) <= SCAN_ABLE:
        return actors_within(members, x, y, metres)
    for r in NEAR_RADII:
        if r >= metres:
            break
        found = crowd.within(x, y, sides, r)
        if len(found) >= count:
            return found
    return crowd.within(x, y, sides, metres)


def _cover_candidates(enc: Encounter, here: Cell, reach: int) -> list[tuple[int, Cell]]:
    """The cells :func:`_cover_cells` looks at from ``here``, with their straight-line distance, nearest first: the
    nearest cell of each cover zone, the free cells beside each low wall, within ``reach`` metres; kept per cell and
    reach for the fight (the map never changes; who stands there is asked apart)."""
    known: dict[tuple[Cell, int], list[tuple[int, Cell]]] | None = enc.scratch.get("zc_tactics_cover_cells")
    if known is None:
        known = enc.scratch["zc_tactics_cover_cells"] = {}
    got = known.get((here, reach))
    if got is not None:
        return got
    field_ = enc.battlefield
    hx, hy = here
    cells: list[Cell] = []
    for z in enc.scenario.map.cover:
        x = min(max(hx, z.x), z.x + z.w - 1)
        y = min(max(hy, z.y), z.y + z.h - 1)
        cells.append((x, y))
    for w in field_.walls:
        if w.height != "low":
            continue
        for cx in range(w.x - 1, w.x + w.w + 1):
            for cy in range(w.y - 1, w.y + w.h + 1):
                if R.distance(here, (cx, cy)) <= reach and field_.walkable((cx, cy)):
                    cells.append((cx, cy))
    # the candidates nearest first in a straight line, which no walk beats: once MAX_COVER_CELLS are found, a cell
    # farther in a straight line than the last of them is by walk cannot be among the nearest by walk
    got = sorted(
        {(R.distance(here, c), c) for c in cells if c != here and R.distance(here, c) <= reach and field_.walkable(c)}
    )
    if len(known) > 4096:
        known.clear()  # a memory bound (a survivor stands on a few cells in a fight)
    known[(here, reach)] = got
    return got


def _cover_cells(enc: Encounter, actor: str, reach: int, foe: Cell) -> list[tuple[Cell, int]]:
    """Cells within a walk of ``reach`` metres where the actor would have better cover against the foe at ``foe``
    than here: the nearest cell of each cover zone, the free cells beside each low wall; with their walk distance."""
    me = enc.state.actors[actor]
    here = (me.x, me.y)
    now = _cover_dice(enc, foe, here)
    if now >= _most_cover_dice(enc):
        return []  # no cell of the map gives more
    field_ = enc.battlefield
    near = _cover_candidates(enc, here, reach)
    out: list[tuple[int, Cell]] = []
    for straight, c in near:
        if len(out) >= MAX_COVER_CELLS:
            out.sort()
            if out[MAX_COVER_CELLS - 1][0] < straight:
                break
        if R.is_occupied(enc, actor, c) or _cover_dice(enc, foe, c) <= now:
            continue
        # the straight line when no wall stands in the rectangle between (_walk_within); else, a walk being as long
        # both ways (a step is allowed both ways between free cells), the search from here, one for every cell (and
        # the one the dead walking to the actor keep), not one search from each cell
        d = straight if not _wall_in_box(field_, c, here) else field_.walk_distance(c, here)
        if d is not None and d <= reach:
            out.append((d, c))
    out.sort()
    return [(c, d) for d, c in out[:MAX_COVER_CELLS]]


def _best_shot_from(ctx: Context, cell: Cell, weapons: Sequence[Weapon], *, aim_at: str | None = None) -> float:
    """The best value of a plain shot from ``cell`` at the next action (the best mode, body or head)."""
    options = shot_options(ctx, cell, here=False, partial=False, weapons=weapons, quick=True)
    best = max((o.value for o in options), default=0.0)
    if aim_at is not None:
        r = R.rules(ctx.enc)
        t = ctx.enc.state.actors[aim_at]
        weapons_of = R.traits(ctx.enc, ctx.actor).weapons
        aim = min(r.aim_max_dice, _aim_dice(ctx.enc, ctx.actor, aim_at) + r.aim_dice)
        pool = pool_dice(ctx.enc, ctx.actor) + aim  # nothing moves in a decision
        for o in options:
            if o.targets[0] == aim_at and len(o.targets) == 1:
                w = weapons_of[o.weapon or ""]
                # attack_shot's shot, its worth read by its parts' numbers (evaluate's, kept for the fight)
                aimed = _aimed(ctx, w, t, cell)
                if aimed is not None:
                    worth = _pair_value(ctx, aimed, _fired(ctx, w, o.mode, 0, o.called, pool))[1]
                    best = max(best, worth - (o.harm - o.value))
    return best


def _loaded(enc: Encounter, actor: str) -> list[Weapon]:
    a = enc.state.actors[actor]
    return [w for w in R.traits(enc, actor).firearms if a.ammo.get(w.name, 0) > 0]


def _more_to_come(enc: Encounter, actor: str) -> bool:
    """Whether the actor has another action this round after this one (pending counts left)."""
    return bool(R.book(enc).pending.get(actor))


#: A later option is chosen over the one held only when worth more by this (a tie goes to the first listed).
TIE_MARGIN = 1e-12


def choose(enc: Encounter, actor: str, style: Style) -> Option:
    """The best option by value; ties go to the first listed (shots, then blows, then the rest)."""
    return _choose(enc, actor, style)[0]


def _choose(enc: Encounter, actor: str, style: Style, ctx: Context | None = None) -> tuple[Option, float]:
    """The best option, and what staying where the actor stands costs (the value of holding is less that); ``ctx``:
    the actor's context already made in this state (for this style), else a fresh one."""
    me = enc.state.actors[actor]
    here = (me.x, me.y)
    r = R.rules(enc)
    ctx = context(enc, actor, style) if ctx is None else ctx
    if not ctx.foes:
        return Option(0.0, "hold"), 0.0
    crowd = enc.crowd
    adjacent = [enc.state.actors[fid] for _, fid in crowd.within(me.x, me.y, crowd.other_sides(me.side), 1)]
    stay = style.threat_weight * THREAT_ROUNDS * threat_at(ctx, here)
    loaded = _loaded(enc, actor)
    options: list[Option] = []
    # the shots from here, each worth its value less what staying costs: only the one the scan below would hold
    # after them is listed (the first of the best, a later one only when worth more by 1e-12; the scan goes on from
    # it as it would from the last shot)
    shot: Option | None = None
    shot_worth = 0.0
    shot_partial: bool | None = None
    if r.edition >= DEFENCE_EDITION:
        # ZC-DEF-2 (edition 6): each attack with and without a partial defence, which is worth the harm it prevents
        # until the actor's next action (at -1D on the attack); none when it prevents nothing
        gain = style.own_weight * partial_prevents(ctx)
        for partial in (False, True) if gain > 0.0 else (False,):
            added = gain if partial else 0.0
            for o in shot_options(ctx, here, here=True, partial=partial, weapons=loaded):
                value = o.value - stay + added
                if shot is None or value > shot_worth + TIE_MARGIN:
                    shot, shot_worth, shot_partial = o, value, partial
        if shot is not None:
            o = shot
            options.append(
                Option(
                    shot_worth,
                    o.kind,
                    o.targets,
                    o.weapon,
                    o.mode,
                    o.called,
                    odds=o.odds,
                    harm=o.harm,
                    partial=shot_partial,
                )
            )
        for partial in (False, True) if gain > 0.0 else (False,):
            options += _close_options(ctx, adjacent, stay - (gain if partial else 0.0), partial=partial)
    else:
        # shoot from here (a partial defence when something stands at arm's reach, ZC-DEF-2)
        for o in shot_options(ctx, here, here=True, partial=bool(adjacent), weapons=loaded):
            value = o.value - stay
            if shot is None or value > shot_worth + TIE_MARGIN:
                shot, shot_worth = o, value
        if shot is not None:
            o = shot
            options.append(Option(shot_worth, o.kind, o.targets, o.weapon, o.mode, o.called, odds=o.odds, harm=o.harm))
        # strike or push at arm's reach (ZC-BRAWL-1)
        options += _close_options(ctx, adjacent, stay)
    nxt = NEXT_ACTION if _more_to_come(enc, actor) else NEXT_ROUND
    # reload (ZC-FIRE-1): a weapon with no round left and a spare magazine
    for w in R.traits(enc, actor).firearms:
        if me.ammo.get(w.name, 0) <= 0 and me.spare.get(w.name, 0) > 0 and w.magazine:
            later = _best_shot_from(ctx, here, [w])
            options.append(Option(nxt * later + 0.02 - stay, "reload", weapon=w.name))
            break
    if loaded:
        # aim (ZC-AIM-1) at a foe in sight: the next shot gains a die; worth what that die adds to it
        plain = _best_shot_from(ctx, here, loaded)
        for f in ctx.foes[:3]:
            if _aim_dice(enc, actor, f.id) < r.aim_max_dice and not adjacent and enc.battlefield.sees(here, (f.x, f.y)):
                later = _best_shot_from(ctx, here, loaded, aim_at=f.id)
                if later > plain:
                    options.append(Option(nxt * (later - plain) - stay, "aim", (f.id,)))
    # move (ZC-MOVE-1): into cover, or toward a foe (an aggressive survivor closes in; anyone when out of range)
    if not adjacent:
        options += _move_options(ctx, loaded, nxt, _best_value(options))
    options.append(Option(-stay, "hold"))
    best = options[0]
    for o in options[1:]:
        if o.value > best.value + TIE_MARGIN:
            best = o
    return best, stay


def _close_options(
    ctx: Context, adjacent: list[ActorState], stay: float, *, partial: bool | None = None
) -> list[Option]:
    """Strike or push at arm's reach; ``partial``: with a partial defence (ZC-DEF-2, edition 6) or not; None: as
    edition 5 chose it (one foe at arm's reach), the options' ``partial`` left None."""
    enc, actor = ctx.enc, ctx.actor
    out: list[Option] = []
    if not adjacent:
        return out
    r = R.rules(enc)
    me = R.traits(enc, actor)
    melee = me.weapons.get(me.melee) if me.melee else None
    weapon = melee or R.FISTS
    skill = "melee" if weapon.type == "melee" else "brawl"
    pool = pool_dice(enc, actor, partial=len(adjacent) == 1 if partial is None else partial)
    here = (ctx.me.x, ctx.me.y)
    for t in adjacent:
        if not enc.battlefield.sees(here, (t.x, t.y)):
            continue
        tt = R.traits(enc, t.id)
        damage, _, _ = R.damage_code(weapon.name, weapon.damage, me.codes["puissance"], 0, r.min_damage_dice)
        shot = Shot(
            code=R.with_dice(me.codes[skill], pool),
            fixed=_base_difficulty(enc, t),
            up=0,
            down=0,
            bonus=0,
            damage=damage,
            flat=0,
            resistance=tt.resistance,
            level=R.worst_level(t),
            undead=tt.undead,
        )
        p, harm = evaluate(ctx, shot)
        if p > 0.0:
            out.append(Option(harm - stay, "strike", (t.id,), me.melee, odds=p, harm=harm, partial=partial))
        if tt.undead and melee is None:
            # ZC-BRAWL-1: a push at +2D: off balance and a metre back, a breath for the one held or hemmed in
            push = p_hit(
                R.with_dice(me.codes["brawl"], pool),
                _base_difficulty(enc, t),
                r.manoeuvres["push"],
                0,
                ctx.per_die,
                ctx.floor,
                0,
            )
            if push > 0.0 and not partial:  # a manoeuvre is never declared with a partial defence
                out.append(Option(0.3 * push - stay, "manoeuvre", (t.id,), manoeuvre="push", odds=push))
    return out


def _best_value(options: list[Option]) -> float | None:
    """The value of the option :func:`_choose` would hold after ``options`` (None: no option yet): the first of the
    best, a later one only when it is worth more by 1e-12."""
    if not options:
        return None
    best = options[0].value
    for o in options:
        if o.value > best + TIE_MARGIN:
            best = o.value
    return best


#: The most a later shot can be worth (:func:`_best_shot_from`): a hit's worth is at most a whole foe (1), a barrage
#: adds at most 0.15 of a foe's best attack (at most 1), and a step toward a foe less; the rounds' cost only takes off.
LATER_MOST = 1.2
#: How much under the option held a move's bound must fall for it not to be scored (the floats' rounding is far less).
MOVE_SKIP_MARGIN = 1e-9


def _move_options(ctx: Context, loaded: list[Weapon], nxt: float, held: float | None = None) -> list[Option]:
    """Moves into cover or toward a foe. ``held``: the value of the option held so far (:func:`_best_value`); a move
    that could not be worth more even with the best later shot there is (:data:`LATER_MOST`) is not scored, and not
    listed: the option it would lose to is chosen either way (a later option is chosen only when worth more than
    the one held, which only grows)."""
    enc, actor = ctx.enc, ctx.actor
    me = ctx.me
    here = (me.x, me.y)
    reach = min(R.sheet(enc, actor).move, 10)
    blocked = R.occupied(enc, actor)
    weapons = loaded or [w for w in R.traits(enc, actor).firearms if me.spare.get(w.name, 0) > 0 and w.magazine]
    out: list[Option] = []
    nearest = ctx.foes[0]
    goals: list[tuple[Cell, str | None, int]] = [
        (c, None, 0) for c, _ in _cover_cells(enc, actor, reach, (nearest.x, nearest.y))
    ]
    in_range = bool(weapons) and any(
        R.distance(here, (f.x, f.y)) <= ranges_of(w)[2] and enc.battlefield.sees(here, (f.x, f.y))
        for w in weapons
        for f in ctx.foes
    )
    if ctx.style.advances or (weapons and not in_range):  # no round left: a cautious survivor keeps its place
        for f in ctx.foes[:3]:
            stop = 1 if not weapons else min(ranges_of(w)[0] for w in weapons)
            goals.append(((f.x, f.y), f.id, stop))
    seen: set[Cell] = set()
    field_ = enc.battlefield
    for goal, fid, stop in goals:
        if _in_stop(field_, here, goal, stop):
            continue  # path_toward's walk ends before its first step (no search from the foe's cell needed)
        path = tuple(field_.path_toward(here, goal, reach, stop=stop, blocked=blocked))
        if not path or path[-1] in seen:
            continue
        end = path[-1]
        seen.add(end)
        # exposed on the way (a metre per count, ZC-MOVE-1) this round, then where it ends
        mid = path[(len(path) - 1) // 2]
        exposure = threat_at(ctx, mid) + (THREAT_ROUNDS - 1) * threat_at(ctx, end)
        if held is not None and nxt * LATER_MOST - ctx.style.threat_weight * exposure + MOVE_SKIP_MARGIN < held:
            continue  # not worth the option held even with the best shot there is: no shot from there scored
        if weapons:
            later = _best_shot_from(ctx, end, weapons)
        else:  # hand to hand: a blow next action when the move ends beside a foe
            later = 0.1 / (1 + min(R.distance(end, (f.x, f.y)) for f in ctx.foes))
        if fid is not None and ctx.style.advances and later <= 0.0:
            later = 0.05 / (1 + R.distance(end, goal))  # closing in is worth something
        value = nxt * later - ctx.style.threat_weight * exposure
        out.append(Option(value, "move", (fid,) if fid else (), path=path))
    return out


def _in_stop(field_: Battlefield, here: Cell, goal: Cell, stop: int) -> bool:
    """Whether ``path_toward(here, goal, ..., stop=stop)`` ends where it starts on a map with walls: the goal within
    ``stop`` metres in a straight line and in sight (its first check, before any step)."""
    return (
        stop > 0
        and not field_.open
        and abs(here[0] - goal[0]) <= stop
        and abs(here[1] - goal[1]) <= stop
        and field_.sees(here, goal)
    )


def _walk_within(enc: Encounter, a: Cell, b: Cell, metres: int) -> bool:
    """``walk_distance(a, b)`` is not None and at most ``metres``: the straight line when no wall stands in the
    rectangle the two cells span (a walk of that length stays inside it, and none is shorter), else a search from
    ``b`` no farther than ``metres`` (Battlefield.walk_within)."""
    if R.distance(a, b) > metres:
        return False  # no walk is shorter than the straight line
    field_ = enc.battlefield
    return field_.open or not _wall_in_box(field_, a, b) or field_.walk_within(a, b, metres)


#: Past this many walls a map's rectangle test is not tried (:func:`_wall_in_box`): the search answers alone.
BOX_WALLS = 16


def _wall_in_box(field_: Battlefield, a: Cell, b: Cell) -> bool:
    """Whether a wall may stand in the rectangle ``a`` and ``b`` (both on the map) span: a wall rectangle meets it
    (on a map of more than :data:`BOX_WALLS` walls, always True)."""
    walls = field_.walls
    if len(walls) > BOX_WALLS:
        return True
    x0, x1 = (a[0], b[0]) if a[0] <= b[0] else (b[0], a[0])
    y0, y1 = (a[1], b[1]) if a[1] <= b[1] else (b[1], a[1])
    return any(w.x <= x1 and x0 < w.x + w.w and w.y <= y1 and y0 < w.y + w.h for w in walls)


def stakes(enc: Encounter, actor: str, option: Option) -> int:
    """ZC-CP-1 / ZC-COJ-1 (policy): 2 (critical: Cojones too) when two foes stand at arm's reach or the actor,
    hurt, fights at arm's reach; 1 (CP) when hurt, close, or the attack can put the target down; else 0."""
    me = enc.state.actors[actor]
    crowd = enc.crowd
    adjacent = len(crowd.within(me.x, me.y, crowd.other_sides(me.side), 1))
    hurt = R.worst_level(me) >= 1
    target = enc.state.actors[option.targets[0]] if option.targets else None
    close = target is not None and R.distance((me.x, me.y), (target.x, target.y)) <= 1
    if adjacent >= 2 or (hurt and close):
        return 2
    if hurt or (target is not None and R.distance((me.x, me.y), (target.x, target.y)) <= 3):
        return 1
    if option.odds > 0 and option.harm / option.odds >= 0.5:  # a hit would likely put it down
        return 1
    return 0


def extra_action_worth(enc: Encounter, actor: str) -> bool:
    """ZC-MULTI-1 (policy): one extra action when (granted + 1) shots at -1D are worth more than the granted
    shots at full dice (the best shot from here), and the weapon holds the rounds for them."""
    a = enc.state.actors[actor]
    r = R.rules(enc)
    style = STYLES.get(R.traits(enc, actor).policy, CAUTIOUS)
    loaded = _loaded(enc, actor)
    if not loaded:
        return False
    ctx = context(enc, actor, style)
    granted = max(1, a.initiative // r.points_per_action)
    here = (a.x, a.y)
    now = shot_options(ctx, here, here=False, partial=False, weapons=loaded, quick=True)
    if not now:
        return False
    best_now = max(o.value for o in now)
    if best_now <= 0.0:
        return False
    # only the weapons that hold the rounds for every shot (a weapon's options depend on no other weapon)
    full = [w for w in loaded if a.ammo.get(w.name, 0) >= 2 * (granted + 1)]
    fewer = -r.multi_action_dice
    less = shot_options(ctx, here, here=False, partial=False, weapons=full, pool_offset=fewer, quick=True)
    best_less = max((o.value for o in less), default=0.0)
    return (granted + 1) * best_less > granted * best_now * 1.05


# ----------------------------------------------------------------- defences (edition 6)


def defence_guard(enc: Encounter, actor: str, *, melee: bool, partial: bool) -> Guard:
    """The defence roll ``actor`` would make now: ZC-DEF-1, Dodge (against a blow the best of Dodge, Brawl and Melee:
    block, parry); ZC-DEF-2, Dodge at -1D; with the pool penalties the resolution applies (an off balance too)."""
    r = R.rules(enc)
    codes = R.traits(enc, actor).codes
    skills = ("dodge", "brawl", "melee") if melee and not partial else ("dodge",)
    skill = max(skills, key=lambda s: (codes[s].dice, codes[s].pips))
    dice = pool_dice(enc, actor, partial=partial) - enc.state.actors[actor].conditions.get("off_balance", 0)
    return Guard(R.with_dice(codes[skill], dice), partial, r.passive_defence, r.partial_defence_floor)


def _window(enc: Encounter, actor: str, *, spend_last: bool) -> int:
    """The count of ``actor``'s next action (0: none this round): a defence lasts until then or the round's end
    (ZC-DEF-1 / ZC-DEF-2). ``spend_last``: its last pending action is spent on the defence."""
    mine = R.book(enc).pending.get(actor, [])
    left = mine[:-1] if spend_last else mine
    return left[0] if left else 0


def _later_attacks(ctx: Context, until: int) -> list[tuple[ActorState, int]]:
    """The foes likely to attack the actor before its next action (count ``until``, 0: the round's end), and how
    many of their actions fall before it: those at arm's reach, and those whose nearest foe it is (the dead walk to
    the nearest; a survivor's threat is counted as aimed at it when it is the nearest)."""
    enc = ctx.enc
    pending = R.book(enc).pending
    crowd = enc.crowd
    me = ctx.me
    out: list[tuple[ActorState, int]] = []
    for f in ctx.foes[:MAX_THREATS]:
        k = sum(1 for c in pending.get(f.id, ()) if c > until)
        if not k:
            continue
        d = R.distance((f.x, f.y), (me.x, me.y))
        if d > 1:
            nearest = crowd.nearest(f.x, f.y, crowd.other_sides(f.side))
            if nearest is None or nearest[0] < d:
                continue
        out.append((f, k))
    return out


def partial_prevents(ctx: Context) -> float:
    """ZC-DEF-2 (policy, edition 6): the harm a partial defence rolled now prevents, from the attacks likely to come
    before the actor's next action (the rest of the round at most)."""
    later = _later_attacks(ctx, _window(ctx.enc, ctx.actor, spend_last=False))
    if not later:
        return 0.0
    guard = defence_guard(ctx.enc, ctx.actor, melee=False, partial=True)
    if guard.code.dice <= 0:
        return 0.0
    here = (ctx.me.x, ctx.me.y)
    return sum(k * (_threat_of(ctx, f, here) - _foe_threat(ctx, f, here, guard)) for f, k in later)


def incoming_shot(ctx: Context, attacker: str, incoming: R.Incoming) -> Shot | None:
    """The dice of the attack ``attacker`` declared on the actor (ZC-ATK-1 .. ZC-FIRE-2, ZC-BRAWL-1), as
    :func:`attack_shot` counts a shot (None: beyond long range)."""
    enc = ctx.enc
    att = enc.state.actors[attacker]
    me = ctx.me
    actx = Context(
        enc=enc,
        actor=attacker,
        me=att,
        style=ctx.style,
        foes=[],
        per_die=ctx.per_die,
        floor=ctx.floor,
        full_margin=ctx.full_margin,
        bands=ctx.bands,
    )
    pool = pool_dice(enc, attacker, partial=incoming.partial)
    weapon = incoming.weapon
    if weapon.type in FIREARMS:
        pool += _aim_dice(enc, attacker, ctx.actor)
        return _attack_shot(actx, weapon, me, (att.x, att.y), incoming.mode, incoming.nth, incoming.called, pool)
    r = R.rules(enc)
    at = R.traits(enc, attacker)
    skill = "melee" if weapon.type == "melee" else "brawl"
    damage, _, _ = R.damage_code(weapon.name, weapon.damage, at.codes["puissance"], 0, r.min_damage_dice)
    mt = R.traits(enc, ctx.actor)
    return Shot(
        code=R.with_dice(at.codes[skill], pool - att.conditions.get("off_balance", 0)),
        fixed=_base_difficulty(enc, me),
        up=r.manoeuvres.get(incoming.manoeuvre, 0) if incoming.manoeuvre else 0,
        down=0,
        bonus=0,
        damage=damage,
        flat=0,
        resistance=mt.resistance,
        level=R.worst_level(me),
        undead=mt.undead,
    )


def action_worth(enc: Encounter, actor: str, style: Style, ctx: Context | None = None) -> float:
    """What one action of ``actor`` is worth now: its best option's value over holding (never below 0); ``ctx``: the
    decision's context already made in this state (:func:`wants_defence`), else a fresh one."""
    best, stay = _choose(enc, actor, style, ctx)
    return max(0.0, best.value + stay)


class DefenceRead(NamedTuple):
    """An active defence weighed (ZC-DEF-1, edition 6): the harm it prevents (weighted by the style) and its cost."""

    prevented: float
    cost: float


def weigh_defence(
    enc: Encounter, defender: str, attacker: str, incoming: R.Incoming, style: Style, *, melee: bool
) -> DefenceRead:
    """ZC-DEF-1 (policy, edition 6): the expected harm an active defence prevents, from the attack declared (its
    exact odds and harm without and with the defence roll added to the difficulty) and from the attacks likely to
    come before the defender's next action, weighted by the style; against the worth of the action it spends."""
    ctx = context(enc, defender, style)  # one context for both halves: nothing moves between them
    prevented = harm_prevented(enc, defender, attacker, incoming, style, melee=melee, ctx=ctx)
    return DefenceRead(prevented, action_worth(enc, defender, style, ctx) if prevented > 0.0 else 0.0)


def harm_prevented(
    enc: Encounter,
    defender: str,
    attacker: str,
    incoming: R.Incoming,
    style: Style,
    *,
    melee: bool,
    ctx: Context | None = None,
) -> float:
    """The first half of :func:`weigh_defence`: the expected harm prevented, weighted by the style (``ctx``: the
    defender's context already made in this state, else a fresh one)."""
    ctx = context(enc, defender, style) if ctx is None else ctx
    guard = defence_guard(enc, defender, melee=melee, partial=False)
    if guard.code.dice <= 0:
        return 0.0
    prevented = 0.0
    shot = incoming_shot(ctx, attacker, incoming)
    if shot is not None:
        (p0, w0), (p1, w1) = evaluate(ctx, shot), guarded(ctx, shot, guard)
        if incoming.manoeuvre:
            prevented += (p0 - p1) * MANOEUVRE_HARM.get(incoming.manoeuvre, OTHER_MANOEUVRE_HARM)
        else:
            prevented += w0 - w1
    here = (ctx.me.x, ctx.me.y)
    for f, k in _later_attacks(ctx, _window(enc, defender, spend_last=True)):
        prevented += k * (_threat_of(ctx, f, here) - _foe_threat(ctx, f, here, guard))
    return style.own_weight * prevented


def wants_defence(
    enc: Encounter, defender: str, attacker: str, incoming: R.Incoming, style: Style, *, melee: bool
) -> bool:
    """ZC-DEF-1 (policy, edition 6): defend when the harm prevented is worth more than the action spent."""
    ctx = context(enc, defender, style)  # one context for both halves: nothing moves between them
    prevented = harm_prevented(enc, defender, attacker, incoming, style, melee=melee, ctx=ctx)
    return prevented > 1e-9 and prevented > action_worth(enc, defender, style, ctx) + 1e-9
