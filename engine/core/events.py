"""The closed union of events that make up an encounter log.

Every state change of an encounter is one of these immutable Structs
(docs/design.md). They are system-agnostic: a rule system composes
them, and the projection in :mod:`fracas.core.state` folds them without knowing
which system wrote them. Events that apply a rule carry its ``rule`` ID from
the rule catalogue (``fracas systems``, docs/rules.md).

Schema evolution: new fields get defaults; a breaking change bumps
:data:`FORMAT_VERSION` and ships an upcaster (see docs/log-format.md).
"""

from __future__ import annotations

from typing import Any

import msgspec

FORMAT_VERSION = 2
#: Every log format this version reads and verifies (docs/log-format.md, "Evolution").
FORMATS = (1, 2)
#: The dice sources a log may declare (docs/dice.md); anything else is a structural failure.
DICE_SOURCES = ("derived", "entered", "scripted")


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag=True, gc=False):
    """Base of every event; the tag is the class name."""


class Modifier(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A named modifier to a difficulty, a skill or a pool, with its rule."""

    name: str
    value: int
    rule: str


class MonitorSpec(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A wound monitor's layout: level names and boxes per level."""

    name: str
    levels: list[str]
    boxes: list[int]


class DiceCommitment(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """How the dice of this encounter were produced and the seed commitment (docs/dice.md).

    ``source``: one of :data:`DICE_SOURCES`, and every roll of the log carries
    it. ``commitment`` (format 2): SHA-256 binding the salt, the seed, the
    scenario, the effective rules, the method and the source
    (:func:`fracas.core.dice.commitment_v2`); format 1: SHA-256 of the seed
    alone. ``salt`` and ``secret`` came with format 2: ``secret`` is true when
    the seed was drawn by ``fracas commit`` (256 bits), false for a seed typed
    on the command line or kept in the scenario (reproducible, not secret).
    """

    source: str
    method: str
    commitment: str
    player_seeds: list[str] = []
    salt: str = ""
    secret: bool = False


class ForkOrigin(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Where a what-if encounter branched from its parent log.

    ``parent_log``: the parent's file name, without a directory (format 2);
    format 1 logs hold the path the parent was read from.
    """

    parent_log: str
    parent_sha256: str
    fork_seq: int
    #: index of the first die drawn after the fork point's event (-1: logs written before it was kept)
    fork_die: int = -1


# --------------------------------------------------------------------------
# Encounter frame
# --------------------------------------------------------------------------


class EncounterStarted(Event, frozen=True, kw_only=True):
    """The header: everything a replay needs that is not itself an event."""

    format: int
    fracas_version: str
    system: str
    rules: dict[str, Any]
    scenario: dict[str, Any]
    scenario_name: str
    scenario_sha256: str
    dice: DiceCommitment
    ticks_per_second: int
    round_ticks: int
    round_seconds: int
    parent: ForkOrigin | None = None


class EncounterEnded(Event, frozen=True, kw_only=True):
    """The last event: who won, why, and the revealed dice seed."""

    winner: str | None
    reason: str
    rounds: int
    seed: str
    rule: str = "C-END-1"


class RoundStarted(Event, frozen=True, kw_only=True):
    round: int
    rule: str = "C-CLOCK-1"


class StateChecked(Event, frozen=True, kw_only=True):
    """A digest of the projected state at the end of a round."""

    round: int
    digest: str


class AftermathStarted(Event, frozen=True, kw_only=True):
    """The fight is over; the clock runs on in minutes, hours and days."""

    winner: str | None
    reason: str
    rule: str = "C-CLOCK-1"


# --------------------------------------------------------------------------
# Actors and decisions
# --------------------------------------------------------------------------


class ActorEntered(Event, frozen=True, kw_only=True):
    actor: str
    name: str
    side: str
    x: int
    y: int
    monitors: list[MonitorSpec] = []
    hp: int | None = None
    ammo: dict[str, int] = {}
    spare: dict[str, int] = {}
    weapons: list[str] = []
    resources: dict[str, int] = {}
    policy: str = ""


class InitiativeSet(Event, frozen=True, kw_only=True):
    actor: str
    value: int
    actions: int = 1
    rule: str


class TieBroken(Event, frozen=True, kw_only=True):
    """The resolution order for actors with equal initiative (C-TIE-1)."""

    order: list[str]
    rule: str


class ActionDeclared(Event, frozen=True, kw_only=True):
    """A decision: what an actor intends to do this round or this action."""

    actor: str
    action: str
    text: str
    target: str | None = None
    policy: str = ""
    rule: str


class ActionLost(Event, frozen=True, kw_only=True):
    actor: str
    reason: str
    rule: str


class Moved(Event, frozen=True, kw_only=True):
    """One metre of movement, at one initiative count."""

    actor: str
    x: int
    y: int
    metres: int
    initiative: int
    rule: str


# --------------------------------------------------------------------------
# Dice and tests
# --------------------------------------------------------------------------


class DiceRolled(Event, frozen=True, kw_only=True):
    """Dice drawn from the encounter's dice source, each with its fate.

    ``first`` is the index of the first die in the encounter's dice stream,
    so a third party can re-derive every face (docs/dice.md).
    """

    actor: str
    purpose: str
    rule: str
    sides: int
    faces: list[int]
    fates: list[str]
    first: int
    source: str = "derived"


class SkillTested(Event, frozen=True, kw_only=True):
    """A test of a skill (or attribute) against a difficulty.

    ``modifiers`` add up to ``difficulty - difficulty_base``; ``pool_modifiers``
    changed the dice rolled or kept (wound penalties, extra dice) instead.
    """

    actor: str
    rule: str
    skill: str
    kept: int
    dice_total: int
    modifiers: list[Modifier] = []
    pool_modifiers: list[Modifier] = []
    difficulty: int
    difficulty_base: int
    total: int
    success: bool
    margin: int
    critical: str = ""
    target: str | None = None


class DamageRolled(Event, frozen=True, kw_only=True):
    actor: str
    target: str
    dice_total: int
    bonus: int
    total: int
    kind: str
    rule: str
    modifiers: list[Modifier] = []


class ThresholdComputed(Event, frozen=True, kw_only=True):
    """The wound threshold a hit is compared with, and what built it."""

    actor: str
    value: int
    parts: list[Modifier]
    rule: str


class WoundMarked(Event, frozen=True, kw_only=True):
    actor: str
    monitor: str
    level: int
    level_name: str
    damage: int
    threshold: int
    rule: str


class WoundHealed(Event, frozen=True, kw_only=True):
    """``boxes`` boxes of ``level`` drop to ``to_level`` (-1: cleared)."""

    actor: str
    monitor: str
    level: int
    to_level: int
    boxes: int
    rule: str


class WoundWorsened(Event, frozen=True, kw_only=True):
    """Untreated wounds get worse with time: ``boxes`` of ``level`` become ``to_level``."""

    actor: str
    monitor: str
    level: int
    to_level: int
    boxes: int
    rule: str


class HitPointsChanged(Event, frozen=True, kw_only=True):
    actor: str
    delta: int
    hp: int
    rule: str


class ConditionSet(Event, frozen=True, kw_only=True):
    actor: str
    condition: str
    value: int = 0
    until: float | None = None
    rule: str


class ConditionCleared(Event, frozen=True, kw_only=True):
    actor: str
    condition: str
    rule: str


# --------------------------------------------------------------------------
# Equipment and resources
# --------------------------------------------------------------------------


class AmmoSpent(Event, frozen=True, kw_only=True):
    actor: str
    weapon: str
    rounds: int
    left: int
    rule: str


class Reloaded(Event, frozen=True, kw_only=True):
    actor: str
    weapon: str
    rounds: int
    spare_left: int
    rule: str


class WeaponStateChanged(Event, frozen=True, kw_only=True):
    actor: str
    weapon: str
    state: str
    rule: str


class ResourceSpent(Event, frozen=True, kw_only=True):
    """A limited resource (character points, cojones, luck) was used."""

    actor: str
    resource: str
    amount: int
    left: int
    rule: str


class Noted(Event, frozen=True, kw_only=True):
    """A fact a referee should see that changes no state (a complication)."""

    actor: str
    text: str
    rule: str


# --------------------------------------------------------------------------
# Leaving the fight
# --------------------------------------------------------------------------


class ActorFled(Event, frozen=True, kw_only=True):
    actor: str
    exit: str
    rule: str


class ActorSurrendered(Event, frozen=True, kw_only=True):
    actor: str
    rule: str


class ActorDied(Event, frozen=True, kw_only=True):
    actor: str
    cause: str
    rule: str


AnyEvent = (
    EncounterStarted
    | EncounterEnded
    | RoundStarted
    | StateChecked
    | AftermathStarted
    | ActorEntered
    | InitiativeSet
    | TieBroken
    | ActionDeclared
    | ActionLost
    | Moved
    | DiceRolled
    | SkillTested
    | DamageRolled
    | ThresholdComputed
    | WoundMarked
    | WoundHealed
    | WoundWorsened
    | HitPointsChanged
    | ConditionSet
    | ConditionCleared
    | AmmoSpent
    | Reloaded
    | WeaponStateChanged
    | ResourceSpent
    | Noted
    | ActorFled
    | ActorSurrendered
    | ActorDied
)

EVENT_TYPES: tuple[type[Event], ...] = (
    EncounterStarted,
    EncounterEnded,
    RoundStarted,
    StateChecked,
    AftermathStarted,
    ActorEntered,
    InitiativeSet,
    TieBroken,
    ActionDeclared,
    ActionLost,
    Moved,
    DiceRolled,
    SkillTested,
    DamageRolled,
    ThresholdComputed,
    WoundMarked,
    WoundHealed,
    WoundWorsened,
    HitPointsChanged,
    ConditionSet,
    ConditionCleared,
    AmmoSpent,
    Reloaded,
    WeaponStateChanged,
    ResourceSpent,
    Noted,
    ActorFled,
    ActorSurrendered,
    ActorDied,
)


class Entry(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One line of the log: the envelope around an event.

    ``h`` is the hash-chain value, ``SHA-256(h_prev || canonical bytes of the
    entry without h)``; it is always the last key of a line.
    """

    seq: int
    round: int
    count: int
    sec: float
    ev: AnyEvent
    h: str = ""
