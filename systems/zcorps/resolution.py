"""Z-Corps (D6 System) resolution, in the order of the rulebook (seed 000; docs/rules.md).

Each function names its rule ID in the first line of its docstring. The
functions read the live state through the encounter and change it only by
emitting events. ``enc.rules`` is the effective :class:`ZCorpsRules`.

Conditions used (``ActorState.conditions``; actor references are indices
into the scenario's actor list): ``active_defence`` / ``partial_defence``
(value: the defence total), ``aiming`` (dice) and ``aim_target``,
``grabbed`` / ``grabbing`` (the other actor), ``prone``, ``off_balance``
(dice lost on the next Agilité roll), ``extra_actions``, ``hanging_on``
(Incapacitated but acting at -3D), ``unconscious``, ``mortally_wounded``.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

import msgspec
from fracas.core import events as E
from fracas.core.battlefield import STANDS_IN, Cover, Occupied
from fracas.core.dice import DerivedDice
from fracas.core.encounter import Encounter, tie_broken_order
from fracas.core.scenario import CoverZone
from fracas.core.state import ActorState
from fracas.systems.zcorps.dice import CANCELLED, PoolRoll, add_cp, chain_fates, roll_pool
from fracas.systems.zcorps.odds import DCode, parse_code, success_probability
from fracas.systems.zcorps.rules import (
    DEAD,
    FIREARMS,
    INCAPACITATED,
    MORTALLY,
    SEVERELY,
    STUNNED,
    WOUND_LEVELS,
    WOUNDED,
    WOUNDS,
    ZCorpsRules,
)
from fracas.systems.zcorps.sheet import (
    ATTRIBUTES,
    SKILL_ATTRIBUTE,
    Actor,
    Attributes,
    Weapon,
    burst_size,
    parse_damage,
    ranges_of,
)

Cell = tuple[int, int]


class Incoming(NamedTuple):
    """ZC-DEF-1: the attack an active defence would meet, as its attacker declared it (what the defender sees)."""

    weapon: Weapon
    mode: str = "single"
    nth: int = 0  # the nth target of a multi-target mode (0: the first)
    called: str | None = None
    partial: bool = False  # the attacker's own partial defence (ZC-DEF-2: its attack at -1D)
    manoeuvre: str | None = None  # a brawl manoeuvre (ZC-BRAWL-1): no damage


DefendPolicy = Callable[..., bool]
"""ZC-DEF-1: ``(enc, defender, attacker[, incoming])`` -> whether the defender spends an action on an active defence
(``incoming``, the attack as declared, is passed when the caller knows it)."""

FISTS = Weapon(name="fists", type="brawl", damage="PUI")
#: ZC-FIRE-2: the condition suppressive fire leaves; its value is the last round it lasts.
SUPPRESSED = "suppressed"


class Plan(msgspec.Struct, kw_only=True):
    """One declared action (an ActionDeclared event says it in words).

    kind: shoot | strike | manoeuvre | bite | escape | stand | reload | aim | move | hold.
    ``stakes``: 0 routine, 1 high (CP may be spent), 2 critical (Cojones too).
    """

    kind: str
    targets: list[str] = []
    weapon: str | None = None
    mode: str = "single"
    manoeuvre: str | None = None
    called: str | None = None
    partial: bool = False
    stakes: int = 0
    path: list[Cell] = []

    @property
    def target(self) -> str | None:
        return self.targets[0] if self.targets else None

    def text(self) -> str:
        kind = self.kind
        if kind == "move" and not self.partial and not self.stakes:  # most actions of a horde: the last branch below
            path = self.path
            who = " and ".join(self.targets)
            if path:
                cell = path[-1]
                if type(cell) is tuple and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int:
                    return _move_words(len(path), cell[0], cell[1], who)  # a cell of ints: its words kept
            moving = f"move {len(path)} m to {path[-1] if path else None}"
            return f"{moving} toward {who}" if who else moving
        who = " and ".join(self.targets)
        if self.kind == "shoot":
            parts = [f"shoot {who} with {self.weapon} ({self.mode.replace('_', ' ')})"]
            if self.called:
                parts.append(f"aiming for the {self.called}")
        elif self.kind == "strike":
            parts = [f"strike {who} with {self.weapon or 'fists'}"]
        elif self.kind == "manoeuvre":
            parts = [f"{(self.manoeuvre or '').replace('_', ' ')} {who}"]
        elif self.kind == "move":
            dest = self.path[-1] if self.path else None
            parts = [f"move {len(self.path)} m to {dest}" + (f" toward {who}" if who else "")]
        elif self.kind in ("bite", "escape", "aim"):
            parts = [f"{self.kind} {who}"]
        elif self.kind == "reload":
            parts = [f"reload {self.weapon}"]
        elif self.kind == "stand":
            parts = ["stand up"]
        else:
            parts = [self.kind]
        if self.partial:
            parts.append("with a partial defence")
        if self.stakes:
            parts.append("(high stakes)" if self.stakes == 1 else "(critical)")
        return ", ".join(parts)


@lru_cache(maxsize=1 << 16)
def _move_words(metres: int, x: int, y: int, who: str) -> str:
    """:meth:`Plan.text` of a plain move to the cell ``(x, y)`` of ints (a horde declares thousands, to few cells)."""
    moving = f"move {metres} m to ({x}, {y})"
    return f"{moving} toward {who}" if who else moving


@dataclass
class Book:
    """What the clock needs between events and is not state: pending actions and timers."""

    pending: dict[str, list[int]] = field(default_factory=dict)
    stunned_until: dict[str, int] = field(default_factory=dict)
    mortal_since: dict[str, tuple[float, int]] = field(default_factory=dict)
    unconscious_until: dict[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------ helpers


def rules(enc: Encounter) -> ZCorpsRules:
    r: ZCorpsRules = enc.rules
    return r


def book(enc: Encounter) -> Book:
    b: Book | None = enc.scratch.get("zc_book")
    if b is None:  # not setdefault: that would build a Book at every call
        b = enc.scratch["zc_book"] = Book()
    return b


def sheet(enc: Encounter, actor: str) -> Actor:
    a: Actor = enc.actor_specs[actor]
    return a


class Traits(msgspec.Struct, frozen=True, kw_only=True):
    """An actor's sheet read once per encounter: the codes and weapons every action looks up.

    The sheets never change during a fight, so parsing them at each roll
    (and scanning the actor list for an index) would be work thrown away.
    """

    index: int  # the actor's place in the scenario's list (conditions name other actors by it)
    codes: Mapping[str, DCode]  # every attribute, and every skill (its attribute's code when the sheet lacks it)
    resistance: DCode  # ZC-RES-1: Puissance + armour
    resistance_roll: str  # its roll's purpose, "resistance (4D)"
    resistance_source: str  # and what it adds, "Puissance 3D + armour 1D"
    initiative_tie: tuple[int, int, int, int]  # ZC-INIT-1: Agilité then Perception, higher first
    weapons: dict[str, Weapon]  # by name (the first of a name, as the sheet lists them)
    firearms: tuple[Weapon, ...]  # in the sheet's order
    melee: str | None  # the first melee weapon
    undead: bool
    policy: str

    @classmethod
    def read(cls, spec: Actor, index: int) -> Traits:
        codes, resistance, resistance_roll, resistance_source, initiative_tie = sheet_codes(
            spec.attributes, tuple(spec.skills.items()), spec.armour
        )
        weapons: dict[str, Weapon] = {}
        firearms: list[Weapon] = []
        melee: str | None = None
        for w in spec.weapons:
            weapons.setdefault(w.name, w)
            if w.type in FIREARMS:
                firearms.append(w)
            elif melee is None and w.type == "melee":
                melee = w.name
        return cls(
            index=index,
            codes=codes,
            resistance=resistance,
            resistance_roll=resistance_roll,
            resistance_source=resistance_source,
            initiative_tie=initiative_tie,
            weapons=weapons,
            firearms=tuple(firearms),
            melee=melee,
            undead=spec.undead,
            policy=spec.policy,
        )


@lru_cache(maxsize=256)
def sheet_codes(
    attributes: Attributes, skills: tuple[tuple[str, str], ...], armour: str
) -> tuple[Mapping[str, DCode], DCode, str, str, tuple[int, int, int, int]]:
    """What :class:`Traits` reads from a sheet's codes: (every attribute's and skill's code, the
    resistance, its roll's purpose, what it adds, the initiative tie-break key).

    Cached, a pure function of the sheet's texts: every encounter of a batch or of a
    verify reads the same sheets again. The codes are shared, hence read-only.
    """
    codes = {name: parse_code(getattr(attributes, name)) for name in ATTRIBUTES}
    skill_codes = dict(skills)
    for skill, attribute in SKILL_ATTRIBUTE.items():
        codes[skill] = parse_code(skill_codes[skill]) if skill in skill_codes else codes[attribute]
    pui, arm = codes["puissance"], parse_code(armour)
    ag, pe = codes["agilite"], codes["perception"]
    resistance = DCode.of(pui.dice + arm.dice, pui.pips + arm.pips)  # ZC-RES-1: Puissance + armour
    return (
        MappingProxyType(codes),
        resistance,
        f"resistance ({resistance})",
        f"Puissance {pui}" + (f" + armour {arm}" if arm.dice or arm.pips else ""),
        (-ag.dice, -ag.pips, -pe.dice, -pe.pips),  # ZC-INIT-1: Agilité then Perception, higher first
    )


def traits_table(enc: Encounter) -> dict[str, Traits]:
    """Every actor's :class:`Traits`, read at the encounter's first call (for loops over the actors)."""
    table: dict[str, Traits] | None = enc.scratch.get("zc_traits")
    if table is None:
        table = enc.scratch["zc_traits"] = {
            spec.id: Traits.read(spec, i) for i, spec in enumerate(enc.actor_specs.values())
        }
    return table


def traits(enc: Encounter, actor: str) -> Traits:
    """The actor's :class:`Traits` (the table's lookup written out: this runs several times per action)."""
    table: dict[str, Traits] | None = enc.scratch.get("zc_traits")
    if table is None:
        table = traits_table(enc)
    return table[actor]


def opponents(enc: Encounter, side: str) -> list[str]:
    """Every actor of the scenario on another side than ``side`` (present or still to come), in scenario order.

    Sides never change, so each side's list is made once per encounter: a
    policy then looks at the opposing actors only, not at every actor of a
    crowded fight (ten zombies need not scan each other to find the living).
    """
    table: dict[str, list[str]] | None = enc.scratch.get("zc_opponents")
    if table is None:
        table = enc.scratch["zc_opponents"] = {}
    ids = table.get(side)
    if ids is None:
        ids = table[side] = [a.id for a in enc.actor_specs.values() if a.side != side]
    return ids


def index_of(enc: Encounter, actor: str) -> int:
    return traits(enc, actor).index


def actor_at(enc: Encounter, index: int) -> str:
    ids: list[str] | None = enc.scratch.get("zc_ids")
    if ids is None:
        ids = enc.scratch["zc_ids"] = list(enc.actor_specs)
    return ids[index]


def weapon_of(enc: Encounter, actor: str, name: str | None) -> Weapon:
    if name is None:
        return FISTS
    return traits(enc, actor).weapons.get(name, FISTS)


def distance(a: Cell, b: Cell) -> int:
    """Metres between two cells: diagonal steps count one metre."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return dx if dx > dy else dy  # max(|dx|, |dy|), without max()'s call


def pos(a: ActorState) -> Cell:
    return (a.x, a.y)


def path_toward(
    start: Cell, goal: Cell, metres: int, stop: int = 0, blocked: Container[Cell] = frozenset()
) -> list[Cell]:
    """Up to ``metres`` one-metre steps from ``start`` toward ``goal``, stopping ``stop`` metres short.

    Each step goes to the free neighbouring cell nearest the goal (straight
    line first), never into a ``blocked`` cell; the path ends where no free
    step brings the mover closer.
    """
    x, y = start
    gx, gy = goal
    out: list[Cell] = []
    for _ in range(metres):
        d = max(x - gx, gx - x, y - gy, gy - y)  # distance((x, y), goal)
        if d <= stop:
            break
        sx, sy = (gx > x) - (gx < x), (gy > y) - (gy < y)
        for step in (
            (x + sx, y + sy),
            (x + sx, y),
            (x, y + sy),
            (x + sx, y + 1),
            (x + sx, y - 1),
            (x + 1, y + sy),
            (x - 1, y + sy),
        ):
            cx, cy = step
            if (cx != x or cy != y) and step not in blocked and max(cx - gx, gx - cx, cy - gy, gy - cy) < d:
                break
        else:
            break  # no free step brings the mover closer
        x, y = cx, cy
        out.append(step)
    return out


def walk(
    enc: Encounter, start: Cell, goal: Cell, metres: int, stop: int = 0, blocked: Container[Cell] = frozenset()
) -> list[Cell]:
    """:func:`path_toward` around the walls: each step one metre nearer by the shortest walk, never into a
    ``blocked`` cell; ``stop``: end once the goal is that near in a straight line and in sight.

    On a map without walls this is exactly :func:`path_toward` (fracas.core.battlefield, docs/rules-notes.md).
    """
    return enc.battlefield.path_toward(start, goal, metres, stop=stop, blocked=blocked)


def sees(enc: Encounter, a: ActorState, b: ActorState) -> bool:
    """Line of sight between two actors (symmetric; always on a map without full walls)."""
    return enc.battlefield.sees((a.x, a.y), (b.x, b.y))


def cover_against(enc: Encounter, attacker: ActorState, target: ActorState) -> Cover | None:
    """ZC-COVER-1: the best cover ``target`` gets against ``attacker``: the zones it stands in, and the low
    walls and zones the line of fire crosses (fracas.core.battlefield.Battlefield.cover_between)."""
    dice = rules(enc).cover_dice
    return enc.battlefield.cover_between((attacker.x, attacker.y), (target.x, target.y), lambda lvl: dice.get(lvl, 0))


def lost_for_sight(enc: Encounter, actor: str, target: str) -> bool:
    """C-ILLEGAL-1: a shot or a blow needs a line of sight; without one the action is lost (and logged)."""
    a, t = enc.state.actors[actor], enc.state.actors[target]
    wall = enc.battlefield.sight_blocker((a.x, a.y), (t.x, t.y))
    if wall is None:
        return False
    reason = f"no line of sight to {target}: the wall {wall.name!r} is in the way"
    enc.emit(E.ActionLost(actor=actor, reason=reason, rule="C-ILLEGAL-1"))
    return True


def no_step_reason(enc: Encounter, actor: str, plan: Plan) -> str:
    """Why a move found no step: no way around the walls, or others standing in the way."""
    a = enc.state.actors[actor]
    goal = plan.target
    if goal is None or goal not in enc.state.actors:
        return "no free step toward the goal"
    t = enc.state.actors[goal]
    if enc.battlefield.walk_distance((a.x, a.y), (t.x, t.y)) is None:
        return f"no path to {goal}: the walls leave no way there"
    return f"no free step toward {goal}: others stand in the way"


def occupied(enc: Encounter, mover: str) -> Occupied:
    """Cells where another actor stands (the dead lie where they fell and block too): a view of the crowd index."""
    return enc.crowd.blocked_for(mover)


def is_occupied(enc: Encounter, mover: str, cell: Cell) -> bool:
    """Whether another actor stands on ``cell``."""
    return enc.crowd.is_occupied(cell, mover)


def cover_at(enc: Encounter, cell: Cell) -> CoverZone | None:
    """The best cover zone holding ``cell``: worked out once per cell and encounter (the map does not change)."""
    known: dict[Cell, CoverZone | None] | None = enc.scratch.get("zc_cover")
    if known is None:
        known = enc.scratch["zc_cover"] = {}
    if cell in known:
        return known[cell]
    best: CoverZone | None = None
    dice = rules(enc).cover_dice
    for z in enc.scenario.map.cover:
        if z.contains(*cell) and (best is None or dice.get(z.level, 0) > dice.get(best.level, 0)):
            best = z
    known[cell] = best
    return best


def trait(enc: Encounter, actor: str, name: str) -> DCode:
    """A skill's code, or its attribute's when the sheet lacks the skill (an attribute's by its name)."""
    return traits(enc, actor).codes[name]


def with_dice(code: DCode, dice: int) -> DCode:
    """``code`` with ``dice`` more (or fewer) dice, pips unchanged: a pool after its modifiers.

    Without modifiers (the common case) the code itself: no new DCode.
    """
    return DCode(code.dice + dice, code.pips) if dice else code


def worst_level(a: ActorState) -> int:
    return a.monitors[WOUNDS].worst() if WOUNDS in a.monitors else -1


#: The conditions that take an actor out of the fight for good (:func:`alive`).
GONE = frozenset({"dead", "fled", "surrendered"})


def alive(a: ActorState) -> bool:
    return GONE.isdisjoint(a.conditions)


def _modifier_dice(enc: Encounter, actor: str, dice: int, *, name: str, rule: str, sign: int) -> E.Modifier:
    """ZC-COVER-1 / ZC-FIRE-2 / ZC-BRAWL-1: "+ND" to a difficulty: rolled (no Joker, logged) or fixed."""
    r: ZCorpsRules = enc.rules
    purpose, rolled_name, fixed_name = modifier_dice_texts(name, dice, sign)
    if r.modifier_dice == "fixed":
        return E.Modifier(name=fixed_name, value=sign * dice * r.fixed_per_die, rule=rule)
    faces = enc.roll(dice, 6, actor=actor, purpose=purpose, rule=rule)
    return E.Modifier(name=rolled_name, value=sign * sum(faces), rule=rule)


@lru_cache(maxsize=1024)
def modifier_dice_texts(name: str, dice: int, sign: int) -> tuple[str, str, str]:
    """The texts of "+ND" difficulty dice: (the roll's purpose, the rolled modifier's name, the fixed one's).

    Cached: the same few modifiers come back at every shot (a pure function of its arguments).
    """
    signed = f"{'+' if sign > 0 else '-'}{dice}D"
    return f"{name}: difficulty {signed}", f"{name} {signed}", f"{name} {signed} (fixed)"


# ------------------------------------------------------------------ dice


@lru_cache(maxsize=4096)
def roll_purposes(purpose: str, dice: int, pips: int) -> tuple[str, str]:
    """The purposes of a roll's two DiceRolled events: the plain dice (naming the code, unless
    ``purpose`` already does), then the Joker.

    Cached: the same few purposes come back at every action (a pure function of strings and ints).
    """
    text = str(DCode(dice, pips))
    return (purpose if text in purpose else f"{purpose} ({text})"), f"{purpose}: Joker"


def roll_code(enc: Encounter, actor: str, code: DCode, *, purpose: str, rule: str) -> PoolRoll:
    """ZC-DICE-1 / ZC-WILD-1 / ZC-WILD-2: roll a D code and log every die with its fate.

    Two DiceRolled events: the plain dice (a die removed by a Joker 1 is
    ``cancelled``), then the Joker chain (each rerolled 6 ``exploded``).
    """
    dice = enc.dice
    if code.dice == 1 and type(dice) is DerivedDice:
        return _roll_joker_alone(enc, dice, actor, code, purpose)
    start = dice.counter
    roll = roll_pool(enc.drawer(6, actor=actor, purpose=purpose), code, lone_joker_cancels=rules(enc).edition >= 2)
    if code.dice <= 0:  # roll.automatic_failure
        enc.emit(
            E.Noted(actor=actor, text=f"{purpose}: a pool of {code} has no dice: automatic failure", rule="ZC-DICE-1")
        )
        return roll
    plain, joker = roll.plain, roll.joker
    plain_purpose, joker_purpose = roll_purposes(purpose, code.dice, code.pips)
    if plain:
        enc.record(
            actor=actor,
            purpose=plain_purpose,
            rule=rule if roll.cancelled is None else "ZC-WILD-2",
            sides=6,
            faces=plain,
            fates=roll.plain_fates,
            first=start,
        )
    critical_failure = joker[0] == 1  # roll.critical_failure
    lone_cancelled = critical_failure and not plain and roll.cancelled is not None
    enc.record(
        actor=actor,
        purpose=joker_purpose,
        rule="ZC-WILD-2" if critical_failure else "ZC-WILD-1",
        sides=6,
        faces=joker,
        fates=[CANCELLED] if lone_cancelled else chain_fates(joker),
        first=start + len(plain),
    )
    if critical_failure:
        if lone_cancelled:
            what = "cancels itself, the highest die (1D pool)"
        else:
            what = f"cancels the highest die ({roll.cancelled})" if roll.cancelled else "cancels nothing (1D pool)"
        enc.emit(E.Noted(actor=actor, text=f"{purpose}: Joker 1 {what}; possible complication", rule="ZC-WILD-2"))
    return roll


def _roll_joker_alone(enc: Encounter, dice: DerivedDice, actor: str, code: DCode, purpose: str) -> PoolRoll:
    """:func:`roll_code` of a 1D pool (a zombie's initiative: a thousand a round), written out for derived dice.

    The pool is its Joker alone (ZC-WILD-1), so there are no plain dice and one DiceRolled event; the very
    roll, events and dice counter of the general path (tests/unit/test_per_event_path.py compares both).
    """
    first = dice.counter
    joker = dice.faces(first, 1, 6)
    while joker[-1] == 6:  # ZC-WILD-1: a 6 is added and rolled again
        joker.append(dice.faces(first + len(joker), 1, 6)[0])
    dice.counter = first + len(joker)
    total = sum(joker)
    # ZC-WILD-2: a first 1 cancels the highest die, here the Joker itself (rules edition 2 on; edition 1 kept it)
    lone_cancelled = joker[0] == 1 and rules(enc).edition >= 2
    if lone_cancelled:
        total -= 1
    enc.emit(
        E.DiceRolled(
            actor=actor,
            purpose=roll_purposes(purpose, 1, code.pips)[1],
            rule="ZC-WILD-2" if joker[0] == 1 else "ZC-WILD-1",
            sides=6,
            faces=joker,
            fates=[CANCELLED] if lone_cancelled else chain_fates(joker),
            first=first,
            source=dice.kind,
        )
    )
    if joker[0] == 1:
        what = "cancels itself, the highest die (1D pool)" if lone_cancelled else "cancels nothing (1D pool)"
        enc.emit(E.Noted(actor=actor, text=f"{purpose}: Joker 1 {what}; possible complication", rule="ZC-WILD-2"))
    return PoolRoll(code, [], [], joker, cancelled=1 if lone_cancelled else None, dice_total=total)


def spend_cp(enc: Encounter, actor: str, roll: PoolRoll, n: int, *, purpose: str) -> None:
    """ZC-CP-1: buy n CP dice (max 3) after the roll, before the outcome is judged."""
    r = rules(enc)
    left = enc.state.actors[actor].resources.get("cp", 0)
    enc.emit(E.ResourceSpent(actor=actor, resource="cp", amount=n, left=left - n, rule="ZC-CP-1"))
    start = enc.dice.counter
    before_plain, before_jokers = len(roll.cp_plain), len(roll.cp_jokers)
    add_cp(enc.drawer(6, actor=actor, purpose=purpose), roll, n, all_wild=r.all_cp_wild)
    new_plain = roll.cp_plain[before_plain:]
    at = start
    if new_plain:
        enc.record(
            actor=actor,
            purpose=f"{purpose}: {len(new_plain)} CP dice",
            rule="ZC-CP-1",
            sides=6,
            faces=new_plain,
            fates=["kept"] * len(new_plain),
            first=at,
        )
        at += len(new_plain)
    for chain in roll.cp_jokers[before_jokers:]:
        enc.record(
            actor=actor,
            purpose=f"{purpose}: CP Joker (its 1 is plain)",
            rule="ZC-CP-1",
            sides=6,
            faces=chain,
            fates=chain_fates(chain),
            first=at,
        )
        at += len(chain)


#: ZC-COJ-1 (policy, rules edition 5): Cojones only when they add at least this much to the odds of the test.
COJONES_WORTH = 0.10


def cojones_doubling_worth(rolled: DCode, vs: int, plain_odds: float) -> bool:
    """ZC-COJ-1 (policy, edition 5): double the pool only when that adds 10 points of odds or more, and more
    than keeping the Cojones for a reroll of a failed roll would (which adds (1 - p) x p)."""
    if rolled.dice <= 0:
        return False
    twice = float(success_probability(DCode.of(2 * rolled.dice, 2 * rolled.pips), vs))
    gain = twice - plain_odds
    return gain >= COJONES_WORTH and gain >= (1 - plain_odds) * plain_odds


def cp_wanted(enc: Encounter, actor: str, shortfall: int, stakes: int) -> int:
    """ZC-CP-1 (policy): with stakes, buy CP when short by at most 3 per die; none otherwise."""
    left = enc.state.actors[actor].resources.get("cp", 0)
    if stakes < 1 or left <= 0 or shortfall <= 0:
        return 0
    need = (shortfall + 2) // 3
    return need if need <= min(rules(enc).max_cp, left) else 0


def asks_human(enc: Encounter, actor: str) -> bool:
    """ZC-CP-1 (edition 4 on): a human actor is asked about CP and Cojones at each of its rolls."""
    return rules(enc).edition >= 4 and traits(enc, actor).policy == "human"


def human_cp(enc: Encounter, actor: str, roll: PoolRoll, *, purpose: str, stands: str) -> int:
    """ZC-CP-1: ask the human how many CP dice to buy for ``roll`` (after it, before judging); buy them."""
    from fracas.systems.zcorps.human import offer_cp

    if roll.automatic_failure:
        return 0
    n = offer_cp(enc, actor, purpose, str(roll.total), stands)
    if n:
        spend_cp(enc, actor, roll, n, purpose=purpose)
    return n


def skill_test(
    enc: Encounter,
    actor: str,
    *,
    skill: str,
    code: DCode,
    pool_mods: Sequence[tuple[str, int, str]],
    base: int,
    modifiers: Sequence[E.Modifier],
    purpose: str,
    rule: str,
    target: str | None = None,
    stakes: int = 0,
    bonus: int = 0,
    combat: bool = True,
) -> tuple[E.SkillTested, PoolRoll]:
    """ZC-DICE-1..ZC-COJ-1 and ZC-DIFF-1: a test against a difficulty, with CP and Cojones.

    ``pool_mods``: (name, dice, rule) added to the code's dice (penalties,
    aiming). Cojones (policy: critical stakes only): double the pool rolled
    (after its modifiers; edition 1: the sheet's code) before the roll when
    the exact odds are below one half, else reroll a failed
    test; never with CP (ZC-COJ-1); from edition 5 only for 10 points of odds
    (:func:`cojones_doubling_worth`, :data:`COJONES_WORTH`). CP: see :func:`cp_wanted`.
    """
    r = rules(enc)
    mods = list(modifiers)
    difficulty = base + sum([m.value for m in mods])
    if combat and difficulty < r.min_difficulty:
        mods.append(
            E.Modifier(name=f"never below {r.min_difficulty}", value=r.min_difficulty - difficulty, rule="ZC-DIFF-1")
        )
        difficulty = r.min_difficulty
    extra = 0
    pool_text = ""  # the pool modifiers, as the label names them
    for name, dice, _ in pool_mods:
        if dice:
            extra += dice
            pool_text += f" {dice:+d}D {name}"
    label = f"{skill} {code}{pool_text}"
    rolled = with_dice(code, extra)
    a = enc.state.actors[actor]
    doubled = False
    as_written = r.edition >= 2
    human = asks_human(enc, actor)
    if human:
        stakes = 0  # ZC-CP-1 / ZC-COJ-1: the human is asked at the roll instead (below)
    plain_odds = float(success_probability(DCode(max(rolled.dice, 0), rolled.pips), difficulty - bonus))
    if (
        stakes >= 2
        and a.resources.get("cojones", 0) > 0
        and (rolled.dice > 0 or not as_written)  # nothing rolled: doubling nothing helps nothing
        and plain_odds < 0.5
        and (r.edition < 5 or cojones_doubling_worth(rolled, difficulty - bonus, plain_odds))
    ):
        enc.emit(
            E.ResourceSpent(actor=actor, resource="cojones", amount=1, left=a.resources["cojones"] - 1, rule="ZC-COJ-1")
        )
        if as_written:
            # ZC-COJ-1: « doubler son pool de D lancé »: the pool rolled, after every pool modifier
            twice = DCode.of(2 * rolled.dice, 2 * rolled.pips)
            label = f"{skill} {code}{pool_text} doubled by Cojones = {twice}"
            rolled = twice
        else:  # edition 1: the sheet's code doubled, then the pool modifiers
            twice = DCode.of(2 * code.dice, 2 * code.pips)
            label = f"{skill} {code} doubled by Cojones = {twice}{pool_text}"
            rolled = with_dice(twice, extra)
        doubled = True
    needs = f"needs {difficulty - bonus} or more (difficulty {difficulty})"
    if human and rolled.dice > 0:
        from fracas.systems.zcorps.human import offer_cojones_double

        twice = DCode.of(2 * rolled.dice, 2 * rolled.pips)
        if offer_cojones_double(enc, actor, purpose, str(rolled), str(twice), needs):
            left = enc.state.actors[actor].resources["cojones"]
            enc.emit(E.ResourceSpent(actor=actor, resource="cojones", amount=1, left=left - 1, rule="ZC-COJ-1"))
            label = f"{skill} {code}{pool_text} doubled by Cojones = {twice}"
            rolled, doubled = twice, True
    for attempt in range(2):
        roll = roll_code(enc, actor, rolled, purpose=purpose, rule=rule)
        total = roll.total + bonus
        failed_outright = rolled.dice <= 0  # roll.automatic_failure
        if not attempt and not doubled and not failed_outright and stakes >= 1:  # else cp_wanted is 0
            n = cp_wanted(enc, actor, difficulty - total, stakes)
            if n:
                spend_cp(enc, actor, roll, n, purpose=purpose)
                total = roll.total + bonus
        if (
            human
            and not attempt
            and not doubled
            and not failed_outright
            and human_cp(enc, actor, roll, purpose=purpose, stands=needs)
        ):
            total = roll.total + bonus
        success = not failed_outright and total >= difficulty
        first_joker = roll.joker[0] if roll.joker else 0
        critical = "failure" if first_joker == 1 else "success" if first_joker == 6 else ""
        ev = E.SkillTested(
            actor=actor,
            rule=rule,
            skill=label + (" (Cojones reroll)" if attempt else ""),
            kept=roll.code.dice + len(roll.cp_plain) + len(roll.cp_jokers),
            dice_total=roll.dice_total,
            modifiers=mods + ([E.Modifier(name="attack bonus", value=-bonus, rule="ZC-RANGE-1")] if bonus else []),
            difficulty=difficulty,
            difficulty_base=base,
            total=total,
            success=success,
            margin=total - difficulty,
            critical=critical,
            target=target,
        )
        enc.emit(ev)
        a = enc.state.actors[actor]
        spent_cp = bool(roll.cp_plain or roll.cp_jokers)
        if human and not (success or attempt or doubled or spent_cp or failed_outright):
            from fracas.systems.zcorps.human import offer_cojones_reroll

            if offer_cojones_reroll(enc, actor, purpose, f"{total}, failed: {needs}"):
                left = enc.state.actors[actor].resources["cojones"]
                enc.emit(E.ResourceSpent(actor=actor, resource="cojones", amount=1, left=left - 1, rule="ZC-COJ-1"))
                continue
        if success or attempt or doubled or spent_cp or stakes < 2 or a.resources.get("cojones", 0) <= 0:
            return ev, roll
        if r.edition >= 5 and plain_odds < COJONES_WORTH:  # ZC-COJ-1 (policy): a reroll adding under 10 points
            return ev, roll
        enc.emit(
            E.ResourceSpent(actor=actor, resource="cojones", amount=1, left=a.resources["cojones"] - 1, rule="ZC-COJ-1")
        )
    raise AssertionError("unreachable")  # pragma: no cover


# ------------------------------------------------------- initiative, actions


def wound_penalty(enc: Encounter, actor: str) -> list[tuple[str, int, str]]:
    """ZC-WOUND-1: the worst wound penalty (Stunned/Wounded -1D, Severely -2D, Incapacitated -3D); undead none."""
    m = enc.state.actors[actor].monitors[WOUNDS]
    if not any(m.marked) or traits(enc, actor).undead:  # unhurt (the common case: m.worst() < 0), or dead
        return []
    pens = rules(enc).wound_penalties
    worst = 0
    for level in (STUNNED, WOUNDED, SEVERELY, INCAPACITATED):
        if m.marked[level]:
            worst = max(worst, pens[level])
    if not worst:
        return []
    return [(WOUND_LEVELS[max(lv for lv in range(4) if m.marked[lv])].lower(), -worst, "ZC-WOUND-1")]


def pool_penalties(enc: Encounter, actor: str, *, agility: bool, skill_roll: bool = True) -> list[tuple[str, int, str]]:
    """ZC-WOUND-1, ZC-MULTI-1, ZC-BRAWL-1: the dice lost by a roll of this actor."""
    out = wound_penalty(enc, actor)
    a = enc.state.actors[actor]
    extra = a.conditions.get("extra_actions", 0)
    if skill_roll and extra:
        out.append((f"{extra} extra action(s)", -extra * rules(enc).multi_action_dice, "ZC-MULTI-1"))
    if skill_roll and SUPPRESSED in a.conditions:
        out.append((SUPPRESSED, -rules(enc).suppressed_dice, "ZC-FIRE-2"))
    if agility and a.conditions.get("off_balance"):
        out.append(("off balance", -a.conditions["off_balance"], "ZC-BRAWL-1"))
        enc.emit(E.ConditionCleared(actor=actor, condition="off_balance", rule="ZC-BRAWL-1"))
    return out


def roll_initiative(enc: Encounter, actor: str) -> int:
    """ZC-INIT-1: an Agilité roll (Joker explodes); one action per full 10, at least one."""
    r = rules(enc)
    code = traits(enc, actor).codes["agilite"]
    pens = pool_penalties(enc, actor, agility=True, skill_roll=False)
    rolled = with_dice(code, sum(d for _, d, _ in pens)) if pens else code
    roll = roll_code(enc, actor, rolled, purpose="initiative (Agilité)", rule="ZC-INIT-1")
    short = r.points_per_action - roll.total % r.points_per_action
    if asks_human(enc, actor):
        actions = max(1, roll.total // r.points_per_action)
        stands = f"{actions} action{'s' if actions > 1 else ''}, {short} short of one more"
        human_cp(enc, actor, roll, purpose="initiative (Agilité)", stands=stands)
    elif r.edition >= 4 and rolled.dice > 0 and short <= 3 and enc.state.actors[actor].resources.get("cp", 0) > 0:
        spend_cp(enc, actor, roll, 1, purpose="initiative (Agilité)")  # ZC-CP-1 (policy): one die for one more action
    return set_initiative(enc, actor, roll.total)


def set_initiative(enc: Encounter, actor: str, total: int) -> int:
    """ZC-INIT-1: the initiative a roll ``total`` gives (at least 1, below the round's ticks) and one action per full
    ``points_per_action``, at least one; logged (InitiativeSet)."""
    value = max(1, min(total, enc.round_ticks - 1))
    actions = max(1, value // rules(enc).points_per_action)
    enc.emit(E.InitiativeSet(actor=actor, value=value, actions=actions, rule="ZC-INIT-1"))
    return value


def roll_initiatives(enc: Encounter, actors: Sequence[str]) -> dict[str, int]:
    """ZC-INIT-1: :func:`roll_initiative` of each actor in turn, the commonest roll without its general steps.

    A horde's thousand zombies roll 1D Agilité each round: the Joker alone, with no wound penalty, no
    lost balance, no CP to spend and nobody to ask. With derived dice such a roll goes straight to
    :func:`roll_code`'s lone Joker; the very events and dice counter of :func:`roll_initiative`
    (tests/unit/test_per_event_path.py compares both). Any other roll is :func:`roll_initiative`'s.
    With no listener (nobody looks between the events) the lone Jokers' rolls are written out here
    and a run of them emitted at once (:meth:`Encounter.emit_each`), before any other roll: their
    events (the Joker, a Joker 1's note, the initiative) change nothing the next actor's checks read.
    """
    dice = enc.dice
    if type(dice) is not DerivedDice:
        return {aid: roll_initiative(enc, aid) for aid in actors}
    r = rules(enc)
    table = traits_table(enc)
    states = enc.state.actors
    asks = r.edition >= 4  # ZC-CP-1: a human is asked; a roll short by 3 or less buys a CP die
    run: list[E.Event] | None = None if enc.listeners else []  # the lone Jokers' events not yet emitted
    purpose = "initiative (Agilité)"
    cancels = r.edition >= 2  # ZC-WILD-2: a lone Joker's 1 cancels itself (edition 1 kept it)
    noted = f"{purpose}: Joker 1 {'cancels itself, the highest die' if cancels else 'cancels nothing'} (1D pool)"
    noted += "; possible complication"
    per_action, top, faces, source = r.points_per_action, enc.round_ticks - 1, dice.faces, dice.kind
    # d6 faces derived ahead, a block at a time: die k's face is a pure function of k (whoever draws it), so
    # a lone Joker reads die k from the block and the counter moves as a draw of it would move it
    block: list[int] = []
    block_first = 0
    inits: dict[str, int] = {}
    for left, aid in enumerate(actors, -len(actors)):
        t = table[aid]
        code = t.codes["agilite"]
        a = states[aid]
        if (
            code.dice != 1
            or a.conditions.get("off_balance")  # ZC-BRAWL-1
            or (asks and (t.policy == "human" or a.resources.get("cp", 0) > 0))
            or (not t.undead and any(a.monitors[WOUNDS].marked))  # ZC-WOUND-1 (wound_penalty)
        ):
            if run:
                enc.emit_each(run)
                run = []
            inits[aid] = roll_initiative(enc, aid)
            continue
        if run is None:
            roll = _roll_joker_alone(enc, dice, aid, code, purpose)
            inits[aid] = set_initiative(enc, aid, roll.dice_total + code.pips)  # roll.total of a pool with dice
            continue
        # _roll_joker_alone and set_initiative, written out
        first = k = dice.counter
        if not 0 <= k - block_first < len(block):  # at most a die for each actor left, unless Jokers explode
            block, block_first = faces(k, -left, 6), k
        joker = [block[k - block_first]]
        while joker[-1] == 6:  # ZC-WILD-1: a 6 is added and rolled again
            k += 1
            if k - block_first >= len(block):
                block, block_first = faces(k, -left, 6), k
            joker.append(block[k - block_first])
        dice.counter = k + 1
        total = sum(joker) + code.pips
        if joker[0] == 1:
            if cancels:
                total -= 1
                fates = [CANCELLED]
            else:
                fates = chain_fates(joker)
            rule = "ZC-WILD-2"
        else:
            fates = chain_fates(joker)
            rule = "ZC-WILD-1"
        run.append(
            E.DiceRolled(
                actor=aid,
                purpose=roll_purposes(purpose, 1, code.pips)[1],
                rule=rule,
                sides=6,
                faces=joker,
                fates=fates,
                first=first,
                source=source,
            )
        )
        if joker[0] == 1:
            run.append(E.Noted(actor=aid, text=noted, rule="ZC-WILD-2"))
        value = total if total < top else top  # set_initiative's max(1, min(total, top)), written out
        if value < 1:
            value = 1
        run.append(E.InitiativeSet(actor=aid, value=value, actions=max(1, value // per_action), rule="ZC-INIT-1"))
        inits[aid] = value
    if run:
        enc.emit_each(run)
    return inits


def resolution_order(enc: Encounter, inits: dict[str, int]) -> list[str]:
    """ZC-INIT-1 / C-TIE-1: descending initiative; ties by Agilité, then Perception, then 1d6 roll-offs."""

    if len(set(inits.values())) == len(inits):
        # no two initiatives equal (the common case): nothing to break, nothing logged; the
        # order tie_broken_order gives, without building every tie-break key
        return sorted(inits, key=inits.__getitem__, reverse=True)
    table = traits_table(enc)
    # each key built once (tie_broken_order asks for it twice: to sort and to group)
    keys = {aid: (-init, *table[aid].initiative_tie) for aid, init in inits.items()}
    return tie_broken_order(enc, inits, keys.__getitem__, rule="ZC-INIT-1")


def action_counts(enc: Encounter, actor: str, value: int, extra: int) -> list[int]:
    """ZC-INIT-1 / ZC-MULTI-1: act at total, total-10, ...; extra actions follow, 10 apart (at least count 1)."""
    per_action = rules(enc).points_per_action
    granted = max(1, value // per_action)
    if granted + extra == 1:  # one action (most of a horde): the list below, without building it in a loop
        counts = [value if value > 1 else 1]
    else:
        counts = [max(1, value - per_action * i) for i in range(granted + extra)]
    if extra:
        enc.emit(E.ConditionSet(actor=actor, condition="extra_actions", value=extra, rule="ZC-MULTI-1"))
    book(enc).pending[actor] = counts
    return counts


def action_begins(enc: Encounter, actor: str) -> None:
    """ZC-DEF-1 / ZC-DEF-2: a defence lasts until the defender's next action."""
    a = enc.state.actors[actor]
    for cond, rule in (("active_defence", "ZC-DEF-1"), ("partial_defence", "ZC-DEF-2")):
        if cond in a.conditions:
            enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule=rule))


# ------------------------------------------------------------ attack, defence


def active_defence(
    enc: Encounter,
    defender: str,
    attacker: str,
    *,
    melee: bool,
    defend: DefendPolicy,
    incoming: Incoming | None = None,
) -> None:
    """ZC-DEF-1: when attacked, spend a remaining action; the defence roll adds to the difficulty.

    Dodge against anything; against a melee attack the better of Dodge,
    Brawl and Melee (block, parry). It lasts until the defender's next
    action or the end of the round; the action spent is its last pending one.
    """
    d = enc.state.actors[defender]
    pending = book(enc).pending.get(defender, [])
    if not pending or not d.can_act() or "active_defence" in d.conditions or "grabbed" in d.conditions:
        return
    if not (defend(enc, defender, attacker) if incoming is None else defend(enc, defender, attacker, incoming)):
        return
    pending.pop()
    skills = ("dodge", "brawl", "melee") if melee else ("dodge",)
    codes = traits(enc, defender).codes
    skill = max(skills, key=lambda s: (codes[s].dice, codes[s].pips))
    enc.emit(
        E.ActionDeclared(
            actor=defender,
            action="active_defence",
            text=f"active defence ({skill}) against {attacker}, spending an action",
            target=attacker,
            policy=sheet(enc, defender).policy,
            rule="ZC-DEF-1",
        )
    )
    code = codes[skill]
    pens = pool_penalties(enc, defender, agility=True)
    roll = roll_code(
        enc,
        defender,
        with_dice(code, sum(x for _, x, _ in pens)),
        purpose=f"active defence ({skill})",
        rule="ZC-DEF-1",
    )
    if asks_human(enc, defender):
        stands = "the total is added to the difficulty to hit you"
        human_cp(enc, defender, roll, purpose=f"active defence ({skill})", stands=stands)
    enc.emit(E.ConditionSet(actor=defender, condition="active_defence", value=roll.total, rule="ZC-DEF-1"))


def partial_defence(enc: Encounter, actor: str) -> None:
    """ZC-DEF-2: on its own action, a defence roll at -1D; it counts only above 10, replacing the base 10."""
    r = rules(enc)
    code = trait(enc, actor, "dodge")
    pens = [*pool_penalties(enc, actor, agility=True), ("partial defence", -r.partial_defence_dice, "ZC-DEF-2")]
    roll = roll_code(
        enc,
        actor,
        with_dice(code, sum(x for _, x, _ in pens)),
        purpose="partial defence (dodge -1D)",
        rule="ZC-DEF-2",
    )
    if asks_human(enc, actor):
        stands = f"counts only above {r.partial_defence_floor}"
        human_cp(enc, actor, roll, purpose="partial defence (dodge -1D)", stands=stands)
    if roll.total > r.partial_defence_floor:
        enc.emit(E.ConditionSet(actor=actor, condition="partial_defence", value=roll.total, rule="ZC-DEF-2"))
    else:
        enc.emit(
            E.Noted(
                actor=actor,
                text=f"partial defence {roll.total} is not above {r.partial_defence_floor}: it changes nothing",
                rule="ZC-DEF-2",
            )
        )


def base_difficulty(enc: Encounter, target: str) -> tuple[int, list[E.Modifier]]:
    """ZC-ATK-1, ZC-DEF-2, ZC-DEF-1: passive 10, or the partial defence above 10; plus an active defence."""
    t = enc.state.actors[target]
    base = rules(enc).passive_defence
    mods: list[E.Modifier] = []
    if t.conditions.get("partial_defence", 0) > base:
        mods.append(
            E.Modifier(
                name="partial defence replaces 10", value=t.conditions["partial_defence"] - base, rule="ZC-DEF-2"
            )
        )
    if "active_defence" in t.conditions:
        mods.append(E.Modifier(name="active defence", value=t.conditions["active_defence"], rule="ZC-DEF-1"))
    return base, mods


#: A range band in words (a log text names it so).
BAND_WORDS = {"point_blank": "point blank", "short": "short", "medium": "medium", "long": "long"}


def range_band(enc: Encounter, weapon: Weapon, metres: int) -> str | None:
    """ZC-RANGE-1: point blank (0-3 m), short, medium, long; None beyond long range."""
    if metres <= rules(enc).point_blank_m:
        return "point_blank"
    short, medium, long = ranges_of(weapon)
    if metres <= short:
        return "short"
    if metres <= medium:
        return "medium"
    return "long" if metres <= long else None


@lru_cache(maxsize=1024)
def range_words(metres: int, band: str) -> str:
    """ZC-RANGE-1: "range 6 m: short" (cached: every shot of a fight names one of a few ranges)."""
    return f"range {metres} m: {BAND_WORDS[band]}"


def range_modifier(enc: Encounter, weapon: Weapon, band: str, metres: int) -> tuple[E.Modifier, int]:
    """ZC-RANGE-1: the range modifier, or the machine-gun line (a difficulty, or an attack bonus)."""
    r = rules(enc)
    name = range_words(metres, band)
    if weapon.type == "machine_gun":
        value = r.machine_gun_modifiers[band]
        if r.machine_gun_reading == "attack_bonus":
            return E.Modifier(name=f"{name} (machine gun, to the attack)", value=0, rule="ZC-RANGE-1"), -value
        return E.Modifier(name=f"{name} (machine gun)", value=value, rule="ZC-RANGE-1"), 0
    return E.Modifier(name=name, value=r.range_modifiers[band], rule="ZC-RANGE-1"), 0


#: The light levels that add a difficulty die (ZC-COVER-1).
POOR_LIGHT = ("poor", "gloom", "dark")


def cover_modifiers(enc: Encounter, attacker: str, target: str) -> list[E.Modifier]:
    """ZC-COVER-1: +1D poor light or 25 % hidden, +2D 50 %, +4D 75 %; dice rolled, no Joker."""
    r = rules(enc)
    t = enc.state.actors[target]
    zone = cover_at(enc, (t.x, t.y))
    field = enc.battlefield
    light = zone.light if zone is not None and zone.light else enc.scenario.map.light
    if zone is None and light not in POOR_LIGHT and field.open and not field.zones:  # open ground, good light
        return []
    out: list[E.Modifier] = []
    if light in POOR_LIGHT:
        out.append(_modifier_dice(enc, attacker, r.poor_light_dice, name=f"{light} light", rule="ZC-COVER-1", sign=1))
    cover = cover_against(enc, enc.state.actors[attacker], t)
    if cover is not None and r.cover_dice.get(cover.level, 0):
        out.append(
            _modifier_dice(
                enc,
                attacker,
                r.cover_dice[cover.level],
                name=cover_name(cover),
                rule="ZC-COVER-1",
                sign=1,
            )
        )
    return out


def cover_name(cover: Cover) -> str:
    """How a cover modifier is named: the zone the target stands in by its name; other cover with why it counts."""
    if cover.kind == "zone" and cover.why == STANDS_IN:
        return f"{cover.level.replace('_', ' ')} cover ({cover.name})"
    what = "low wall" if cover.kind == "wall" else "cover zone"
    return f"{cover.level.replace('_', ' ')} cover ({cover.name}, a {what}: {cover.why})"


def aim_bonus(enc: Encounter, attacker: str, target: str) -> list[tuple[str, int, str]]:
    """ZC-AIM-1: +1D per round spent aiming at this target, at most +3D; spent by the shot."""
    a = enc.state.actors[attacker]
    if "aiming" not in a.conditions:
        return []
    dice = a.conditions["aiming"] if a.conditions.get("aim_target") == index_of(enc, target) else 0
    enc.emit(E.ConditionCleared(actor=attacker, condition="aiming", rule="ZC-AIM-1"))
    enc.emit(E.ConditionCleared(actor=attacker, condition="aim_target", rule="ZC-AIM-1"))
    return [("aimed", dice, "ZC-AIM-1")] if dice else []


def aim(enc: Encounter, actor: str, target: str) -> None:
    """ZC-AIM-1: one more aiming die at this target (at most 3)."""
    r = rules(enc)
    a = enc.state.actors[actor]
    same = a.conditions.get("aim_target") == index_of(enc, target)
    dice = min(r.aim_max_dice, (a.conditions.get("aiming", 0) if same else 0) + r.aim_dice)
    enc.emit(E.ConditionSet(actor=actor, condition="aim_target", value=index_of(enc, target), rule="ZC-AIM-1"))
    enc.emit(E.ConditionSet(actor=actor, condition="aiming", value=dice, rule="ZC-AIM-1"))


def called_shot(enc: Encounter, attacker: str, called: str | None) -> tuple[list[E.Modifier], int]:
    """ZC-AIM-1: a called shot adds difficulty dice and damage points (head +1D / +12)."""
    if not called:
        return [], 0
    dice, damage = rules(enc).called_shots[called]
    return [_modifier_dice(enc, attacker, dice, name=f"called shot: {called}", rule="ZC-AIM-1", sign=1)], damage


# ------------------------------------------------------------------ firearms


def rounds_needed(enc: Encounter, actor: str, weapon: Weapon, mode: str, targets: int) -> int:
    """ZC-FIRE-1: rounds a mode spends: semi-auto 2, a burst (SMG 1/5 of the magazine), a long burst all."""
    r = rules(enc)
    left = enc.state.actors[actor].ammo.get(weapon.name, 0)
    if mode in ("single", "single_auto"):
        return 1
    if mode in ("semi", "semi_multi"):
        return r.semi_auto_max_rounds if mode == "semi" else min(targets, r.semi_auto_max_rounds)
    if mode == "suppressive":
        return (
            r.semi_auto_max_rounds if weapon.type in ("handgun", "rifle") else burst_size(weapon, r.assault_rifle_burst)
        )
    if mode in ("burst", "burst_multi"):
        return burst_size(weapon, r.assault_rifle_burst)
    return max(left, 1)  # long burst: the whole magazine


def mode_legal(enc: Encounter, actor: str, weapon: Weapon, mode: str, targets: int) -> str | None:
    """ZC-FIRE-1 / C-ILLEGAL-1: why a mode cannot be fired now (None: it can)."""
    r = rules(enc)
    automatic_barrage = mode == "suppressive" and weapon.type in ("smg", "assault_rifle")
    if mode not in r.legal_modes.get(weapon.type, []) or (
        automatic_barrage and r.edition >= 3 and not r.suppressive_automatic  # « Tir de barrage (semi-automatique) »
    ):
        return f"{weapon.name} ({weapon.type}) cannot fire {mode.replace('_', ' ')}"
    if mode in ("semi_multi", "burst_multi") and targets < 2:
        return f"{mode.replace('_', ' ')} needs several targets"
    if mode in ("semi_multi",) and targets > r.semi_auto_max_rounds:
        return f"semi-auto fires at most {r.semi_auto_max_rounds} rounds"
    left = enc.state.actors[actor].ammo.get(weapon.name, 0)
    need = rounds_needed(enc, actor, weapon, mode, targets)
    if left < need or left <= 0:
        return f"{weapon.name} has {left} round(s), {mode.replace('_', ' ')} needs {need}"
    return None


def mode_modifiers(enc: Encounter, attacker: str, mode: str, nth: int, rounds: int) -> tuple[list[E.Modifier], int]:
    """ZC-FIRE-2: the mode's difficulty dice (rolled) and damage dice, for the nth target (0 first)."""
    r = rules(enc)
    diff, dmg = r.firing_modes[mode]
    if mode == "semi":
        diff, dmg = diff * (rounds - 1), dmg * (rounds - 1)
    elif mode in ("semi_multi", "burst_multi"):
        diff = diff * nth
    if not diff:
        return [], dmg
    sign = 1 if diff > 0 else -1
    return [_modifier_dice(enc, attacker, abs(diff), name=mode.replace("_", " "), rule="ZC-FIRE-2", sign=sign)], dmg


def shoot(enc: Encounter, actor: str, plan: Plan, defend: DefendPolicy) -> None:
    """ZC-FIRE-1, ZC-FIRE-2, ZC-RANGE-1, ZC-COVER-1, ZC-AIM-1, ZC-ATK-1, ZC-DEF-1/2: fire one mode at its targets."""
    actors = enc.state.actors
    a = actors[actor]
    me = traits(enc, actor)
    weapon = FISTS if plan.weapon is None else me.weapons.get(plan.weapon, FISTS)  # weapon_of
    targets = [t for t in plan.targets if t in actors and alive(actors[t])]
    if not targets:
        enc.emit(E.ActionLost(actor=actor, reason="no target left", rule="C-ILLEGAL-1"))
        return
    if not enc.battlefield.open:
        seen = [t for t in targets if sees(enc, a, actors[t])]
        if not seen:
            lost_for_sight(enc, actor, targets[0])
            return
        targets = seen
    why = mode_legal(enc, actor, weapon, plan.mode, len(targets))
    if why is not None:
        enc.emit(E.ActionLost(actor=actor, reason=why, rule="ZC-FIRE-1"))
        return
    rounds = rounds_needed(enc, actor, weapon, plan.mode, len(targets))
    enc.emit(
        E.AmmoSpent(actor=actor, weapon=weapon.name, rounds=rounds, left=a.ammo[weapon.name] - rounds, rule="ZC-FIRE-1")
    )
    if plan.partial:
        partial_defence(enc, actor)
    # the same for every target of the action
    skill = "heavy_weapons" if weapon.type == "machine_gun" else "firearms"
    code = me.codes[skill]
    shot_at = f"{weapon.name} {plan.mode.replace('_', ' ')} at "  # the test's purpose names the target after
    for nth, target in enumerate(targets):
        t = actors[target]
        if not alive(t):
            continue
        a = actors[actor]
        metres = distance((a.x, a.y), (t.x, t.y))
        band = range_band(enc, weapon, metres)
        if band is None:
            enc.emit(
                E.Noted(
                    actor=actor,
                    text=f"{target} is {metres} m away, beyond {weapon.name}'s long range: the shot is wasted",
                    rule="ZC-RANGE-1",
                )
            )
            continue
        incoming = Incoming(weapon, plan.mode, nth, plan.called, plan.partial)
        active_defence(enc, target, actor, melee=False, defend=defend, incoming=incoming)
        base, mods = base_difficulty(enc, target)
        rmod, bonus = range_modifier(enc, weapon, band, metres)
        mods.append(rmod)
        mods += cover_modifiers(enc, actor, target)
        mmods, dmg_dice = mode_modifiers(enc, actor, plan.mode, nth, rounds)
        mods += mmods
        cmods, called_damage = called_shot(enc, actor, plan.called)
        mods += cmods
        pool = pool_penalties(enc, actor, agility=False) + aim_bonus(enc, actor, target)
        if plan.partial:
            pool.append(("partial defence", -rules(enc).partial_defence_dice, "ZC-DEF-2"))
        ev, _ = skill_test(
            enc,
            actor,
            skill=skill,
            code=code,
            pool_mods=pool,
            base=base,
            modifiers=mods,
            purpose=shot_at + target,
            rule="ZC-ATK-1",
            target=target,
            stakes=plan.stakes,
            bonus=bonus,
        )
        if ev.success:
            damage(enc, actor, target, weapon, ev.margin, dmg_dice, called_damage, plan.called, plan.stakes)
        if plan.mode == "suppressive" and rules(enc).edition >= 3:
            suppress(enc, target)
        enc.check_end()


def suppress(enc: Encounter, target: str) -> None:
    """ZC-FIRE-2: a barrage keeps the target's head down, hit or miss: -1D on its skill rolls, this round and next."""
    t = enc.state.actors[target]
    if alive(t) and t.can_act():
        enc.emit(E.ConditionSet(actor=target, condition=SUPPRESSED, value=enc.round + 1, rule="ZC-FIRE-2"))


def reload(enc: Encounter, actor: str, weapon_name: str | None) -> None:
    """ZC-FIRE-1: reloading takes an action and a spare magazine."""
    w = weapon_of(enc, actor, weapon_name)
    spare = enc.state.actors[actor].spare.get(w.name, 0)
    if spare <= 0 or not w.magazine:
        enc.emit(E.ActionLost(actor=actor, reason=f"no spare magazine for {w.name}", rule="C-ILLEGAL-1"))
        return
    enc.emit(E.Reloaded(actor=actor, weapon=w.name, rounds=w.magazine, spare_left=spare - 1, rule="ZC-FIRE-1"))


# ------------------------------------------------------------ brawl, melee


def strike(enc: Encounter, actor: str, plan: Plan, defend: DefendPolicy) -> None:
    """ZC-BRAWL-1 / ZC-ATK-1: a blow or a manoeuvre at reach (1 m)."""
    r = rules(enc)
    target = plan.target
    if target is None or target not in enc.state.actors or not alive(enc.state.actors[target]):
        enc.emit(E.ActionLost(actor=actor, reason="no target left", rule="C-ILLEGAL-1"))
        return
    a, t = enc.state.actors[actor], enc.state.actors[target]
    if distance(pos(a), pos(t)) > 1:
        enc.emit(E.ActionLost(actor=actor, reason=f"{target} is out of reach", rule="C-ILLEGAL-1"))
        return
    if lost_for_sight(enc, actor, target):
        return
    weapon = weapon_of(enc, actor, plan.weapon) if plan.kind == "strike" else FISTS
    skill = "melee" if weapon.type == "melee" else "brawl"
    if plan.partial:
        partial_defence(enc, actor)
    move = plan.manoeuvre if plan.kind == "manoeuvre" else None
    incoming = Incoming(weapon, partial=plan.partial, manoeuvre=move)
    active_defence(enc, target, actor, melee=True, defend=defend, incoming=incoming)
    base, mods = base_difficulty(enc, target)
    if move is not None:
        mods.append(
            _modifier_dice(enc, actor, r.manoeuvres[move], name=move.replace("_", " "), rule="ZC-BRAWL-1", sign=1)
        )
    pool = pool_penalties(enc, actor, agility=True)
    if plan.partial:
        pool.append(("partial defence", -r.partial_defence_dice, "ZC-DEF-2"))
    ev, _ = skill_test(
        enc,
        actor,
        skill=skill,
        code=trait(enc, actor, skill),
        pool_mods=pool,
        base=base,
        modifiers=mods,
        purpose=f"{move.replace('_', ' ') if move else weapon.name} on {target}",
        rule="ZC-BRAWL-1" if move else "ZC-ATK-1",
        target=target,
        stakes=plan.stakes,
    )
    if not ev.success:
        return
    if move is None:
        damage(enc, actor, target, weapon, ev.margin, 0, 0, None, plan.stakes)
    else:
        manoeuvre_effect(enc, actor, target, move)
    enc.check_end()


def manoeuvre_effect(enc: Encounter, actor: str, target: str, move: str) -> None:
    """ZC-BRAWL-1: no damage; knock-down/trip: prone and -2D; push: 1 m back and -2D; grab/tackle: held."""
    r = rules(enc)
    if move in ("grab", "tackle"):
        enc.emit(E.ConditionSet(actor=target, condition="grabbed", value=index_of(enc, actor), rule="ZC-BRAWL-1"))
        enc.emit(E.ConditionSet(actor=actor, condition="grabbing", value=index_of(enc, target), rule="ZC-BRAWL-1"))
        if move == "tackle":
            enc.emit(E.ConditionSet(actor=target, condition="prone", rule="ZC-BRAWL-1"))
        return
    enc.emit(E.ConditionSet(actor=target, condition="off_balance", value=r.off_balance_dice, rule="ZC-BRAWL-1"))
    if move in ("knock_down", "trip"):
        enc.emit(E.ConditionSet(actor=target, condition="prone", rule="ZC-BRAWL-1"))
    elif move == "push":
        a, t = enc.state.actors[actor], enc.state.actors[target]
        dx, dy = (t.x > a.x) - (t.x < a.x), (t.y > a.y) - (t.y < a.y)
        m = enc.scenario.map
        x, y = min(max(t.x + dx, 0), m.width - 1), min(max(t.y + dy, 0), m.height - 1)
        if not enc.battlefield.can_step((t.x, t.y), (x, y)):
            return  # pushed against a wall: off balance, not moved
        enc.emit(E.Moved(actor=target, x=x, y=y, metres=t.moved + 1, initiative=enc.current_count(), rule="ZC-BRAWL-1"))


def bite(enc: Encounter, actor: str, target: str | None) -> None:
    """ZC-BRAWL-1: in later rounds a grabber deals Strength Damage only (Puissance dice, no pips, halved up)."""
    a = enc.state.actors[actor]
    if target is None or a.conditions.get("grabbing") != index_of(enc, target) or target not in enc.state.actors:
        enc.emit(E.ActionLost(actor=actor, reason="holds nobody", rule="C-ILLEGAL-1"))
        return
    t = enc.state.actors[target]
    if not alive(t) or t.conditions.get("grabbed") != index_of(enc, actor):
        enc.emit(E.ActionLost(actor=actor, reason=f"{target} is no longer held", rule="C-ILLEGAL-1"))
        return
    pui = trait(enc, actor, "puissance")
    code = DCode((pui.dice + 1) // 2, 0)
    roll = roll_code(enc, actor, code, purpose=f"Strength Damage on {target} ({code})", rule="ZC-BRAWL-1")
    if asks_human(enc, actor):
        human_cp(enc, actor, roll, purpose=f"Strength Damage on {target} ({code})", stands="damage against resistance")
    total = roll.total
    enc.emit(
        E.DamageRolled(
            actor=actor,
            target=target,
            dice_total=roll.dice_total,
            bonus=0,
            total=total,
            kind="physical",
            rule="ZC-BRAWL-1",
            modifiers=[E.Modifier(name=f"Strength Damage {code}", value=0, rule="ZC-BRAWL-1")],
        )
    )
    if sheet(enc, actor).undead:
        enc.emit(
            E.Noted(actor=target, text="bitten by the dead: infection is a possible complication", rule="ZC-BRAWL-1")
        )
    resist(enc, target, total, stakes=1)
    enc.check_end()


def escape(enc: Encounter, actor: str) -> None:
    """ZC-BRAWL-1: a held actor may only try to escape: opposed Puissance, costing its action."""
    a = enc.state.actors[actor]
    if "grabbed" not in a.conditions:
        enc.emit(E.ActionLost(actor=actor, reason="is not held", rule="C-ILLEGAL-1"))
        return
    holder = actor_at(enc, a.conditions["grabbed"])
    mine = trait(enc, actor, "puissance")
    theirs = trait(enc, holder, "puissance")
    pens = pool_penalties(enc, actor, agility=False)
    r1 = roll_code(
        enc,
        actor,
        DCode(mine.dice + sum(x for _, x, _ in pens), mine.pips),
        purpose=f"escape from {holder} (Puissance)",
        rule="ZC-BRAWL-1",
    )
    if asks_human(enc, actor):
        human_cp(enc, actor, r1, purpose=f"escape from {holder} (Puissance)", stands="must beat the holder's Puissance")
    r2 = roll_code(
        enc,
        holder,
        DCode(theirs.dice + sum(x for _, x, _ in wound_penalty(enc, holder)), theirs.pips),
        purpose=f"hold {actor} (Puissance)",
        rule="ZC-BRAWL-1",
    )
    if asks_human(enc, holder):
        human_cp(enc, holder, r2, purpose=f"hold {actor} (Puissance)", stands=f"{actor} rolled {r1.total} to escape")
    ok = r1.total > r2.total
    enc.emit(
        E.SkillTested(
            actor=actor,
            rule="ZC-BRAWL-1",
            skill=f"escape (Puissance {mine})",
            kept=mine.dice,
            dice_total=r1.dice_total,
            difficulty=r2.total + 1,
            difficulty_base=r2.total + 1,
            total=r1.total,
            success=ok,
            margin=r1.total - r2.total - 1,
            target=holder,
        )
    )
    if ok:
        release(enc, actor)


def release(enc: Encounter, held: str) -> None:
    """ZC-BRAWL-1: the hold ends (escape, or the holder is down)."""
    a = enc.state.actors[held]
    if "grabbed" in a.conditions:
        holder = actor_at(enc, a.conditions["grabbed"])
        enc.emit(E.ConditionCleared(actor=held, condition="grabbed", rule="ZC-BRAWL-1"))
        if enc.state.actors[holder].conditions.get("grabbing") == index_of(enc, held):
            enc.emit(E.ConditionCleared(actor=holder, condition="grabbing", rule="ZC-BRAWL-1"))


def stand_up(enc: Encounter, actor: str) -> None:
    """ZC-BRAWL-1: standing up after a knock-down or a trip costs an action."""
    enc.emit(E.ConditionCleared(actor=actor, condition="prone", rule="ZC-BRAWL-1"))


# ------------------------------------------------------- damage and wounds


@lru_cache(maxsize=1024)
def damage_code(
    weapon: str, damage: str, puissance: DCode, mode_dice: int, min_dice: int
) -> tuple[DCode, str, tuple[E.Modifier, ...]]:
    """ZC-DMG-1 / ZC-FIRE-2: the damage code of a weapon after its firing mode's dice (never below
    ``min_dice``), its text, and the modifiers that say how it was built.

    Cached: every hit of a weapon builds the same code and names (a pure function of its
    arguments; a Modifier is frozen, so the events may share them).
    """
    base = parse_damage(damage, puissance)
    dice = max(min_dice, base.dice + mode_dice)
    code = base if dice == base.dice else DCode(dice, base.pips)
    code_text = str(code)
    mods: tuple[E.Modifier, ...] = (E.Modifier(name=f"{weapon} {base}", value=0, rule="ZC-DMG-1"),)
    if mode_dice:
        mods += (E.Modifier(name=f"firing mode {mode_dice:+d}D -> {code_text}", value=0, rule="ZC-FIRE-2"),)
    return code, code_text, mods


def damage(
    enc: Encounter,
    actor: str,
    target: str,
    weapon: Weapon,
    margin: int,
    mode_dice: int,
    called_damage: int,
    called: str | None,
    stakes: int,
) -> None:
    """ZC-DMG-1 / ZC-FIRE-2: weapon code + mode dice (never below 1D) + the margin (option: margin // 5)."""
    r: ZCorpsRules = enc.rules
    code, code_text, weapon_mods = damage_code(
        weapon.name, weapon.damage, traits(enc, actor).codes["puissance"], mode_dice, r.min_damage_dice
    )
    mods = list(weapon_mods)
    if r.margin_damage == "full":
        added = margin
        mods.append(E.Modifier(name="margin of success", value=added, rule="ZC-DMG-1"))
    else:
        added = margin // 5
        mods.append(E.Modifier(name="margin of success / 5", value=added, rule="ZC-DMG-1"))
    if called_damage:
        mods.append(E.Modifier(name=f"called shot: {called}", value=called_damage, rule="ZC-AIM-1"))
    purpose = f"{weapon.name} damage on {target} ({code_text})"
    roll = roll_code(enc, actor, code, purpose=purpose, rule="ZC-DMG-1")
    if r.edition >= 4 and stakes >= 2 and enc.state.actors[actor].resources.get("cp", 0) > 0:
        spend_cp(enc, actor, roll, 1, purpose=purpose)  # ZC-CP-1 (policy): one CP die on critical stakes
    bonus = code.pips + added + called_damage
    if asks_human(enc, actor):
        stands = f"damage {roll.dice_total + bonus} with the bonus, against {target}'s resistance"
        human_cp(enc, actor, roll, purpose=purpose, stands=stands)
    dice_total = roll.dice_total
    total = max(0, dice_total + bonus)
    enc.emit(
        E.DamageRolled(
            actor=actor,
            target=target,
            dice_total=dice_total,
            bonus=bonus,
            total=total,
            kind="physical",
            rule="ZC-DMG-1",
            modifiers=mods,
        )
    )
    resist(enc, target, total, stakes=stakes)


def resist(enc: Encounter, target: str, total: int, *, stakes: int) -> None:
    """ZC-RES-1: resistance = Puissance + armour (no wound penalty); CP may be bought after the roll."""
    t = traits(enc, target)
    if asks_human(enc, target):
        resist_asked(enc, target, total)
        return
    roll = roll_code(enc, target, t.resistance, purpose=t.resistance_roll, rule="ZC-RES-1")
    # policy: buy CP when the hit would otherwise incapacitate or worse
    bands = rules(enc).wound_bands
    resistance = roll.total
    spent = 0
    if total - resistance > bands[1]:
        spent = cp_wanted(enc, target, total - resistance - bands[1], max(stakes, 1))
        if spent:
            spend_cp(enc, target, roll, spent, purpose=t.resistance_roll)
            resistance = roll.total
    a = enc.state.actors[target]
    if rules(enc).edition >= 4 and not spent and total - resistance > bands[2] and a.resources.get("cojones", 0) > 0:
        # ZC-RES-1 / ZC-COJ-1 (policy): a mortal hit or worse: the Cojones reroll, the new roll replaces the old
        enc.emit(
            E.ResourceSpent(
                actor=target, resource="cojones", amount=1, left=a.resources["cojones"] - 1, rule="ZC-COJ-1"
            )
        )
        roll = roll_code(enc, target, t.resistance, purpose=t.resistance_roll + " (Cojones reroll)", rule="ZC-RES-1")
        resistance = roll.total
    parts = [E.Modifier(name=f"resistance roll ({t.resistance_source})", value=resistance, rule="ZC-RES-1")]
    enc.emit(E.ThresholdComputed(actor=target, value=resistance, parts=parts, rule="ZC-RES-1"))
    wound(enc, target, total, resistance)


def resist_asked(enc: Encounter, target: str, total: int) -> None:
    """ZC-RES-1 for a human (edition 4 on): Cojones to double the pool before the roll, CP after it, else a
    Cojones reroll of a roll that leaves a wound (ZC-CP-1, ZC-COJ-1: one or the other, never both)."""
    from fracas.systems.zcorps.human import offer_cojones_double, offer_cojones_reroll

    t = traits(enc, target)
    code, purpose, doubled = t.resistance, t.resistance_roll, False

    def spend_cojones() -> None:
        left = enc.state.actors[target].resources["cojones"]
        enc.emit(E.ResourceSpent(actor=target, resource="cojones", amount=1, left=left - 1, rule="ZC-COJ-1"))

    twice = DCode.of(2 * code.dice, 2 * code.pips)
    if code.dice > 0 and offer_cojones_double(enc, target, purpose, str(code), str(twice), f"against {total} damage"):
        spend_cojones()
        # the purpose ends with the code rolled, as every Z-Corps roll's does (the narration reads it)
        code, purpose, doubled = twice, f"{purpose.rsplit(' (', 1)[0]} doubled by Cojones ({twice})", True
    roll = roll_code(enc, target, code, purpose=purpose, rule="ZC-RES-1")

    def stands(resistance: int) -> str:
        excess = total - resistance
        return f"against {total} damage: " + (
            "no wound" if excess <= 0 else f"{excess} over, {WOUND_LEVELS[level_for(enc, excess)]}"
        )

    spent = 0 if doubled else human_cp(enc, target, roll, purpose=purpose, stands=stands(roll.total))
    if (
        not doubled
        and not spent
        and total - roll.total > 0
        and offer_cojones_reroll(enc, target, purpose, stands(roll.total))
    ):
        spend_cojones()
        roll = roll_code(enc, target, code, purpose=purpose + " (Cojones reroll)", rule="ZC-RES-1")
    resistance = roll.total
    parts = [E.Modifier(name=f"resistance roll ({t.resistance_source})", value=resistance, rule="ZC-RES-1")]
    enc.emit(E.ThresholdComputed(actor=target, value=resistance, parts=parts, rule="ZC-RES-1"))
    wound(enc, target, total, resistance)


def level_for(enc: Encounter, excess: int) -> int:
    """ZC-WOUND-1: damage - resistance -> level.

    1-3 Stunned, 4-8 Wounded, 9-12 Incapacitated, 13-15 Mortally Wounded, 16+ Dead.
    """
    b = rules(enc).wound_bands
    if excess <= b[0]:
        return STUNNED
    if excess <= b[1]:
        return WOUNDED
    if excess <= b[2]:
        return INCAPACITATED
    if excess <= b[3]:
        return MORTALLY
    return DEAD


def wound(enc: Encounter, target: str, damage_total: int, resistance: int) -> None:
    """ZC-WOUND-1: mark the ladder; a hit at or below the current level still raises it one level."""
    a = enc.state.actors[target]
    excess = damage_total - resistance
    if excess <= 0 or "dead" in a.conditions:
        if excess <= 0:
            enc.emit(
                E.Noted(
                    actor=target, text=f"shrugs off {damage_total} damage (resistance {resistance})", rule="ZC-WOUND-1"
                )
            )
        return
    level = level_for(enc, excess)
    current = worst_level(a)
    if level <= current:
        level = current + 1
    level = min(level, DEAD)
    enc.emit(
        E.WoundMarked(
            actor=target,
            monitor=WOUNDS,
            level=level,
            level_name=WOUND_LEVELS[level],
            damage=damage_total,
            threshold=resistance,
            rule="ZC-WOUND-1",
        )
    )
    wound_effects(enc, target, level)


def wound_effects(enc: Encounter, actor: str, level: int) -> None:
    """ZC-WOUND-1: Stunned lasts this round and next; Incapacitated: stamina vs 15; Mortally: unconscious; Dead."""
    r = rules(enc)
    s = sheet(enc, actor)
    if level == STUNNED:
        book(enc).stunned_until[actor] = enc.round + 1
        return
    if level < INCAPACITATED:
        return
    for cond in ("grabbing", "grabbed"):
        if cond in enc.state.actors[actor].conditions:
            other = actor_at(enc, enc.state.actors[actor].conditions[cond])
            release(enc, actor if cond == "grabbed" else other)
    if level >= DEAD or (s.undead and level >= MORTALLY):
        cause = "destroyed" if s.undead else "killed outright (16+ over resistance)"
        enc.emit(E.ActorDied(actor=actor, cause=cause, rule="ZC-WOUND-1"))
        return
    if level == MORTALLY:
        for cond in ("hanging_on", "incapacitated"):
            if cond in enc.state.actors[actor].conditions:
                enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule="ZC-WOUND-1"))
        if "unconscious" not in enc.state.actors[actor].conditions:
            enc.emit(E.ConditionSet(actor=actor, condition="unconscious", rule="ZC-WOUND-1"))
        enc.emit(E.ConditionSet(actor=actor, condition="mortally_wounded", value=enc.round, rule="ZC-WOUND-1"))
        book(enc).mortal_since[actor] = (enc.now_seconds, enc.round)
        return
    if s.undead:
        enc.emit(E.ConditionSet(actor=actor, condition="incapacitated", rule="ZC-WOUND-1"))
        return
    code = trait(enc, actor, "stamina")
    purpose = f"stamina vs {r.stamina_difficulty} (Incapacitated)"
    roll = roll_code(enc, actor, code, purpose=purpose, rule="ZC-WOUND-1")
    if asks_human(enc, actor):
        human_cp(enc, actor, roll, purpose=purpose, stands=f"needs {r.stamina_difficulty} or more")
    elif r.edition >= 4 and code.dice > 0:  # ZC-CP-1: CP on every roll; policy: as a test with high stakes
        n = cp_wanted(enc, actor, r.stamina_difficulty - roll.total, 1)
        if n:
            spend_cp(enc, actor, roll, n, purpose=purpose)
    ok = roll.total >= r.stamina_difficulty
    enc.emit(
        E.SkillTested(
            actor=actor,
            rule="ZC-WOUND-1",
            skill=f"stamina {code}",
            kept=code.dice + len(roll.cp_plain) + len(roll.cp_jokers),
            dice_total=roll.dice_total,
            difficulty=r.stamina_difficulty,
            difficulty_base=r.stamina_difficulty,
            total=roll.total,
            success=ok,
            margin=roll.total - r.stamina_difficulty,
        )
    )
    if ok:
        enc.emit(
            E.ConditionSet(
                actor=actor, condition="hanging_on", value=r.wound_penalties[INCAPACITATED], rule="ZC-WOUND-1"
            )
        )
        return
    faces = enc.roll(
        r.unconscious_dice, 6, actor=actor, purpose=f"minutes unconscious ({r.unconscious_dice}D)", rule="ZC-WOUND-1"
    )
    until = enc.now_seconds + 60 * sum(faces)
    book(enc).unconscious_until[actor] = until
    enc.emit(E.ConditionSet(actor=actor, condition="unconscious", value=sum(faces), until=until, rule="ZC-WOUND-1"))


#: The conditions that end with the round (end_of_round).
_ROUND_CONDITIONS = frozenset({"active_defence", "partial_defence", "extra_actions"})


def end_of_round(enc: Encounter, rnd: int) -> None:
    """ZC-DEF-1/2, ZC-MULTI-1, ZC-FIRE-2, ZC-WOUND-1: defences and extra actions end; suppression and Stunned fade;
    mortal rolls."""
    b = book(enc)
    b.pending.clear()
    for aid, a in enc.state.actors.items():
        if not _ROUND_CONDITIONS.isdisjoint(a.conditions):  # most actors hold none: one test, not three
            for cond, rule in (
                ("active_defence", "ZC-DEF-1"),
                ("partial_defence", "ZC-DEF-2"),
                ("extra_actions", "ZC-MULTI-1"),
            ):
                if cond in a.conditions:
                    enc.emit(E.ConditionCleared(actor=aid, condition=cond, rule=rule))
        if a.conditions.get(SUPPRESSED, 10**9) <= rnd:
            enc.emit(E.ConditionCleared(actor=aid, condition=SUPPRESSED, rule="ZC-FIRE-2"))
        if b.stunned_until.get(aid, 10**9) <= rnd:
            del b.stunned_until[aid]
            if a.monitors[WOUNDS].marked[STUNNED] and "dead" not in a.conditions:
                enc.emit(
                    E.WoundHealed(actor=aid, monitor=WOUNDS, level=STUNNED, to_level=-1, boxes=1, rule="ZC-WOUND-1")
                )
    for aid in list(b.mortal_since):
        mortal_roll(enc, aid)


def mortal_roll(enc: Encounter, actor: str) -> bool:
    """ZC-WOUND-1: each round a Mortally Wounded actor rolls Puissance; below the time spent so, it dies.

    The time is counted in whole minutes (option ``mortal_unit = "rounds"``:
    rounds). Returns True when the actor died.
    """
    b = book(enc)
    a = enc.state.actors[actor]
    if "dead" in a.conditions or "mortally_wounded" not in a.conditions:
        b.mortal_since.pop(actor, None)
        return False
    since_sec, since_round = b.mortal_since[actor]
    if rules(enc).mortal_unit == "rounds":
        spent = (
            enc.round - since_round
            if not enc.in_aftermath
            else int((enc.now_seconds - since_sec) // enc.system.round_seconds)
        )
        unit = "rounds"
    else:
        spent = int((enc.now_seconds - since_sec) // 60)
        unit = "minutes"
    code = trait(enc, actor, "puissance")
    roll = roll_code(enc, actor, code, purpose=f"mortal wound: Puissance vs {spent} {unit} spent", rule="ZC-WOUND-1")
    if roll.total < spent:
        enc.emit(
            E.ActorDied(
                actor=actor, cause=f"mortal wound: Puissance {roll.total} below {spent} {unit}", rule="ZC-WOUND-1"
            )
        )
        b.mortal_since.pop(actor, None)
        return True
    return False


# -------------------------------------------------- the clock after the fight


def medicine_test(enc: Encounter, patient: str, medic: str | None, code: DCode) -> bool:
    """ZC-HEAL-1: Medicine vs Stunned 10, Wounded 15, Incapacitated 20, Mortally Wounded 30; a success heals a level."""
    r = rules(enc)
    level = worst_level(enc.state.actors[patient])
    if level < 0 or level >= DEAD:
        return False
    who = medic or "medic"
    diff = r.medicine_difficulty[level]
    roll = roll_code(enc, who, code, purpose=f"Medicine on {patient} ({WOUND_LEVELS[level]})", rule="ZC-HEAL-1")
    ok = not roll.automatic_failure and roll.total >= diff
    enc.emit(
        E.SkillTested(
            actor=who,
            rule="ZC-HEAL-1",
            skill=f"medicine {code}",
            kept=code.dice,
            dice_total=roll.dice_total,
            difficulty=diff,
            difficulty_base=diff,
            total=roll.total,
            success=ok,
            margin=roll.total - diff,
            target=patient,
        )
    )
    if ok:
        heal_level(enc, patient, "ZC-HEAL-1")
    return ok


def heal_level(enc: Encounter, actor: str, rule: str) -> None:
    """ZC-HEAL-1: the worst level drops one (Wounded heals outright); conditions follow."""
    a = enc.state.actors[actor]
    m = a.monitors[WOUNDS]
    level = m.worst()
    if level < 0:
        return
    to = level - 1 if level > WOUNDED else -1
    if to >= 0 and m.marked[to] >= m.boxes[to]:
        to = -1
    enc.emit(E.WoundHealed(actor=actor, monitor=WOUNDS, level=level, to_level=to, boxes=1, rule=rule))
    if level == MORTALLY:
        book(enc).mortal_since.pop(actor, None)
        enc.emit(E.ConditionCleared(actor=actor, condition="mortally_wounded", rule=rule))
    if level == INCAPACITATED:
        for cond in ("hanging_on", "unconscious", "incapacitated"):
            if cond in enc.state.actors[actor].conditions:
                enc.emit(E.ConditionCleared(actor=actor, condition=cond, rule=rule))


def natural_healing_roll(enc: Encounter, actor: str) -> bool:
    """ZC-HEAL-1: after the rest, Puissance vs 6 (Wounded) or 8 (Incapacitated, Mortally Wounded)."""
    level = worst_level(enc.state.actors[actor])
    days, diff = rules(enc).natural_healing[level - 1]
    code = trait(enc, actor, "puissance")
    roll = roll_code(
        enc, actor, code, purpose=f"natural healing after {days} days ({WOUND_LEVELS[level]})", rule="ZC-HEAL-1"
    )
    ok = roll.total >= diff
    enc.emit(
        E.SkillTested(
            actor=actor,
            rule="ZC-HEAL-1",
            skill=f"natural healing (Puissance {code})",
            kept=code.dice,
            dice_total=roll.dice_total,
            difficulty=diff,
            difficulty_base=diff,
            total=roll.total,
            success=ok,
            margin=roll.total - diff,
        )
    )
    if ok:
        heal_level(enc, actor, "ZC-HEAL-1")
    return ok


def medic_code(enc: Encounter, spec: Any) -> tuple[str | None, DCode | None]:
    """Who treats in the aftermath and with what Medicine code (a sheet's, or the scenario's dice)."""
    if spec.care == "none":
        return None, None
    medic = spec.medic
    if medic in enc.actor_specs:
        m = enc.state.actors.get(medic)
        if m is None or not m.can_act():
            return None, None
        return medic, trait(enc, medic, "medicine")
    return medic, DCode(spec.medicine, 0) if spec.medicine else None
