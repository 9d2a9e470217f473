"""Projections: the encounter state as a fold of its events.

``apply(state, event)`` is the only code that changes a :class:`State`; it
reads nothing but its two arguments and has no side effects outside the
state it is given, so ``replay(entries)`` rebuilds exactly the state a live
run ends with. It mutates and returns the state (copying a whole state per
event would cost more than the rules themselves); use :func:`copy_state` to
keep a snapshot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any, Union

import msgspec
from fracas.core import events as E

#: Conditions that stop an actor from acting (C-END-1).
DISABLING = frozenset({"dead", "fled", "surrendered", "unconscious", "incapacitated", "paralysed", "absent"})


class Monitor(msgspec.Struct, kw_only=True):
    """One wound monitor: boxes per level and how many are marked."""

    name: str
    levels: list[str]
    boxes: list[int]
    marked: list[int]

    def worst(self) -> int:
        """Index of the highest level with a marked box, or -1."""
        marked = self.marked
        if not any(marked):  # the common case: an unhurt monitor
            return -1
        i = len(marked) - 1
        while not marked[i]:
            i -= 1
        return i

    def render(self) -> str:
        """Box by box, as on a character sheet: ``Légère [x][ ][ ]``."""
        parts = []
        for name, cap, marked in zip(self.levels, self.boxes, self.marked, strict=True):
            boxes = "".join("[x]" if i < marked else "[ ]" for i in range(max(cap, marked)))
            parts.append(f"{name} {boxes}")
        return "  ".join(parts)


class ActorState(msgspec.Struct, kw_only=True):
    id: str
    name: str
    side: str
    x: int
    y: int
    initiative: int = 0
    actions: int = 0
    moved: int = 0
    monitors: dict[str, Monitor] = {}
    hp: int | None = None
    hp_max: int | None = None
    conditions: dict[str, int] = {}
    ammo: dict[str, int] = {}
    spare: dict[str, int] = {}
    weapons: dict[str, str] = {}
    resources: dict[str, int] = {}
    damage_dealt: int = 0
    damage_taken: int = 0

    def can_act(self) -> bool:
        return DISABLING.isdisjoint(self.conditions)

    def status(self) -> str:
        for c in ("dead", "fled", "surrendered", "unconscious", "paralysed", "incapacitated"):
            if c in self.conditions:
                return c
        return "active"


class State(msgspec.Struct, kw_only=True):
    system: str = ""
    round: int = 0
    seq: int = -1
    sec: float = 0.0
    actors: dict[str, ActorState] = {}
    winner: str | None = None
    reason: str = ""
    ended: bool = False
    rolls: int = 0

    def several_sides_able(self) -> bool:
        """Whether actors of two sides or more can still act (:meth:`sides_able` without the full scan)."""
        first: str | None = None
        for a in self.actors.values():
            if DISABLING.isdisjoint(a.conditions):
                if first is None:
                    first = a.side
                elif a.side != first:
                    return True
        return False

    def sides_able(self) -> list[str]:
        """Sides that still have an actor able to act, in a stable order."""
        seen: dict[str, None] = {}
        for a in self.actors.values():
            if a.can_act():
                seen.setdefault(a.side, None)
        return list(seen)


def _started(s: State, ev: Any) -> None:
    s.system = ev.system


def _ended(s: State, ev: Any) -> None:
    s.ended = True
    s.winner = ev.winner
    s.reason = ev.reason


def _aftermath(s: State, ev: Any) -> None:
    s.winner = ev.winner
    s.reason = ev.reason


def _round(s: State, ev: Any) -> None:
    s.round = ev.round
    for a in s.actors.values():
        a.moved = 0
        a.initiative = 0
        a.actions = 0


def _entered(s: State, ev: Any) -> None:
    s.actors[ev.actor] = ActorState(
        id=ev.actor,
        name=ev.name,
        side=ev.side,
        x=ev.x,
        y=ev.y,
        monitors={
            m.name: Monitor(name=m.name, levels=list(m.levels), boxes=list(m.boxes), marked=[0] * len(m.boxes))
            for m in ev.monitors
        },
        hp=ev.hp,
        hp_max=ev.hp,
        ammo=dict(ev.ammo),
        spare=dict(ev.spare),
        weapons={w: "ready" for w in ev.weapons},
        resources=dict(ev.resources),
    )


def _initiative(s: State, ev: Any) -> None:
    a = s.actors[ev.actor]
    a.initiative = ev.value
    a.actions = ev.actions


def _moved(s: State, ev: Any) -> None:
    a = s.actors[ev.actor]
    a.x = ev.x
    a.y = ev.y
    a.moved = ev.metres
    a.initiative = ev.initiative


def _dice(s: State, ev: Any) -> None:
    s.rolls += 1


def _damage(s: State, ev: Any) -> None:
    s.actors[ev.actor].damage_dealt += ev.total
    s.actors[ev.target].damage_taken += ev.total


def _wound(s: State, ev: Any) -> None:
    s.actors[ev.actor].monitors[ev.monitor].marked[ev.level] += 1


def _healed(s: State, ev: Any) -> None:
    m = s.actors[ev.actor].monitors[ev.monitor]
    m.marked[ev.level] -= ev.boxes
    if ev.to_level >= 0:
        m.marked[ev.to_level] += ev.boxes


def _hp(s: State, ev: Any) -> None:
    s.actors[ev.actor].hp = ev.hp


def _cond_set(s: State, ev: Any) -> None:
    s.actors[ev.actor].conditions[ev.condition] = ev.value


def _cond_clear(s: State, ev: Any) -> None:
    s.actors[ev.actor].conditions.pop(ev.condition, None)


def _ammo(s: State, ev: Any) -> None:
    s.actors[ev.actor].ammo[ev.weapon] = ev.left


def _reload(s: State, ev: Any) -> None:
    a = s.actors[ev.actor]
    a.ammo[ev.weapon] = ev.rounds
    a.spare[ev.weapon] = ev.spare_left


def _weapon(s: State, ev: Any) -> None:
    s.actors[ev.actor].weapons[ev.weapon] = ev.state


def _resource(s: State, ev: Any) -> None:
    s.actors[ev.actor].resources[ev.resource] = ev.left


def _lost(s: State, ev: Any) -> None:
    """Leaving the fight: fled, surrendered or dead."""
    key = {"ActorFled": "fled", "ActorSurrendered": "surrendered", "ActorDied": "dead"}
    s.actors[ev.actor].conditions[key[type(ev).__name__]] = 0


def _ignore(s: State, ev: Any) -> None:
    return None


_HANDLERS: dict[type[Any], Callable[[State, Any], None]] = {
    E.EncounterStarted: _started,
    E.EncounterEnded: _ended,
    E.AftermathStarted: _aftermath,
    E.RoundStarted: _round,
    E.StateChecked: _ignore,
    E.ActorEntered: _entered,
    E.InitiativeSet: _initiative,
    E.TieBroken: _ignore,
    E.ActionDeclared: _ignore,
    E.ActionLost: _ignore,
    E.Moved: _moved,
    E.DiceRolled: _dice,
    E.SkillTested: _ignore,
    E.DamageRolled: _damage,
    E.ThresholdComputed: _ignore,
    E.WoundMarked: _wound,
    E.WoundHealed: _healed,
    E.WoundWorsened: _healed,
    E.HitPointsChanged: _hp,
    E.ConditionSet: _cond_set,
    E.ConditionCleared: _cond_clear,
    E.AmmoSpent: _ammo,
    E.Reloaded: _reload,
    E.WeaponStateChanged: _weapon,
    E.ResourceSpent: _resource,
    E.Noted: _ignore,
    E.ActorFled: _lost,
    E.ActorSurrendered: _lost,
    E.ActorDied: _lost,
}
assert set(_HANDLERS) == set(E.EVENT_TYPES), "every event type needs a projection handler"

#: Events whose projection reads none of their fields. Replay decodes them as empty
#: Structs with the same tag (msgspec skips their fields), which doubles replay speed.
_FIELDLESS = (
    E.DiceRolled,
    E.SkillTested,
    E.ActionDeclared,
    E.ActionLost,
    E.TieBroken,
    E.ThresholdComputed,
    E.StateChecked,
    E.Noted,
)


def _projection_types() -> tuple[Any, Any]:
    members: list[type[Any]] = []
    for cls in E.EVENT_TYPES:
        if cls in _FIELDLESS:
            skim = msgspec.defstruct(
                f"{cls.__name__}Skim", [], bases=(E.Event,), tag=cls.__name__, frozen=True, kw_only=True, gc=False
            )
            _HANDLERS[skim] = _HANDLERS[cls]
            members.append(skim)
        else:
            members.append(cls)
    union: Any = Union[tuple(members)]  # noqa: UP007 - built at run time from the event list
    entry = msgspec.defstruct(
        "ProjectionEntry",
        [("seq", int), ("round", int), ("count", int), ("sec", float), ("ev", union), ("h", str, "")],
        kw_only=True,
        frozen=True,
        gc=False,
    )
    return union, entry


ProjectionEvent, ProjectionEntry = _projection_types()
#: Handler per event type, skimmed types included (for tight replay loops).
PROJECTION_HANDLERS: dict[type[Any], Callable[[State, Any], None]] = _HANDLERS
#: :data:`PROJECTION_HANDLERS` with None for the events the state ignores (a live fight's emit skips the call).
FOLDS: dict[type[Any], Callable[[State, Any], None] | None] = {
    kind: None if handler is _ignore else handler for kind, handler in _HANDLERS.items()
}


def apply(state: State, event: E.Event) -> State:
    """Fold one event into the state (the only way state changes)."""
    _HANDLERS[type(event)](state, event)
    return state


def apply_entry(state: State, entry: E.Entry) -> State:
    """Fold one log entry: the event plus the envelope's clock."""
    state.seq = entry.seq
    state.sec = entry.sec
    _HANDLERS[type(entry.ev)](state, entry.ev)
    return state


def replay(entries: Iterable[E.Entry], *, until: int | None = None) -> State:
    """Rebuild the state from log entries (up to and including seq ``until``)."""
    state = State()
    handlers = _HANDLERS
    for entry in entries:
        if until is not None and entry.seq > until:
            break
        state.seq = entry.seq
        state.sec = entry.sec
        handlers[type(entry.ev)](state, entry.ev)
    return state


def copy_state(state: State) -> State:
    return msgspec.convert(msgspec.to_builtins(state), State)


_digest_encoder = msgspec.json.Encoder(order="deterministic")


def state_digest(state: State) -> str:
    """SHA-256 of the canonical encoding of the actors' state (StateChecked)."""
    return hashlib.sha256(_digest_encoder.encode(state.actors)).hexdigest()


def actor_to_builtins(a: ActorState) -> dict[str, Any]:
    """One actor's sheet in the JSON shape of :func:`state_to_builtins`."""
    return {
        "name": a.name,
        "side": a.side,
        "status": a.status(),
        "position": [a.x, a.y],
        "initiative": a.initiative,
        "monitors": {
            m.name: {lvl: [m.marked[i], m.boxes[i]] for i, lvl in enumerate(m.levels)} for m in a.monitors.values()
        },
        "hp": a.hp,
        "hp_max": a.hp_max,
        "conditions": dict(sorted(a.conditions.items())),
        "ammo": dict(a.ammo),
        "spare": dict(a.spare),
        "weapons": dict(a.weapons),
        "resources": dict(a.resources),
        "damage_dealt": a.damage_dealt,
        "damage_taken": a.damage_taken,
    }


def state_to_builtins(state: State) -> dict[str, Any]:
    """The JSON shape shared by ``run --json`` and ``replay --json``."""
    out: dict[str, Any] = {
        "system": state.system,
        "round": state.round,
        "seq": state.seq,
        "sec": state.sec,
        "ended": state.ended,
        "winner": state.winner,
        "reason": state.reason,
        "actors": {},
    }
    for aid, a in state.actors.items():
        out["actors"][aid] = actor_to_builtins(a)
    return out
