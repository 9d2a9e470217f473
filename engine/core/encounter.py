"""One encounter: the SimPy clock, the event stream, the dice and the log.

The clock (C-CLOCK-1, docs/design.md):

- simulated time is an integer count of ticks, ``TICKS_PER_SECOND`` per
  second; a round spans ``round_seconds * TICKS_PER_SECOND`` ticks;
- initiative count ``c`` of round ``r`` happens at tick
  ``start(r) + (round_ticks - c)``: the higher the initiative, the earlier;
- at one tick, scheduled things run in a documented order, given by their
  SimPy priority: round bookkeeping (``PRIORITY_ROUND``), then movement steps
  (``PRIORITY_MOVE + rank``), then actions (``PRIORITY_ACT + rank``), where
  ``rank`` is the actor's place in the round's tie-broken initiative order;
- an actor's turn sleeps until its count; only movers are woken tick by
  tick, one metre per tick (a turn is a SimPy process, or runs under
  :func:`play_turns` in the same order inside the round's process);
- after the fight the same environment runs on in seconds, minutes, days.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import simpy
import simpy.events
from fracas.core import events as E
from fracas.core.battlefield import CROWD_EVENTS, Battlefield, Crowd
from fracas.core.dice import METHOD, DerivedDice, DiceSource, commitment_of, commitment_v2
from fracas.core.log import LogWriter
from fracas.core.scenario import LoadedScenario, content_sha256
from fracas.core.state import FOLDS, State, state_digest
from fracas.core.system import RuleSystem, effective_rules, header_rules
from fracas.core.version import __version__

TICKS_PER_SECOND = 100
PRIORITY_ROUND = -1
PRIORITY_MOVE = 0
PRIORITY_ACT = 10_000

Listener = Callable[[int, int, int, float, E.Event], None]


class At(simpy.events.Event):
    """An event that fires at an absolute tick with a given priority."""

    def __init__(self, env: simpy.Environment, tick: int, priority: int) -> None:
        delay = tick - int(env.now)
        if delay < 0:
            raise ValueError(f"tick {tick} is in the past (now {env.now})")
        # Event.__init__ inlined, as simpy's own Timeout and Initialize do: one is made per action
        self.env = env
        self.callbacks = []
        self._ok = True
        self._value = None
        # simpy orders equal times by (priority, insertion order); any int is a valid priority
        env.schedule(self, priority, delay)  # type: ignore[arg-type]  # EventPriority is a NewType of int


def nobody_else_waits(env: simpy.Environment) -> bool:
    """Whether SimPy has nothing scheduled: a process's wait until a later tick would then be the next event
    processed, its only effect to move the clock there and wake the process with nothing between, so the
    process may move the clock itself (``env._now = tick``) and go on, without the event (C-CLOCK-1: the
    clock ticks only when something can happen). A fight with other processes (Point Zéro's Shock clocks,
    the aftermath's), or run ``until`` a time, has something scheduled: its waits stay events.
    tests/unit/test_clock_jumps.py runs fights with something always scheduled and compares the logs."""
    return not env._queue


#: A turn run by :func:`play_turns`: a generator that yields ``(tick, priority)`` to sleep until that tick.
Turn = Generator[tuple[int, int], None, None]
#: SimPy's priority for a process's start (``simpy.core.URGENT``): :func:`play_turns` starts its turns so.
_START = 0


def play_turns(env: simpy.Environment, turns: Iterable[Turn]) -> Generator[At, Any, None]:
    """Run ``turns`` in the clock's order, as a SimPy process of each would, inside the calling process.

    A turn yields ``(tick, priority)`` to sleep until ``tick``. Its wake-ups come in SimPy's own
    order: by tick, then priority, then the order the waits were asked in (SimPy's event ids);
    each turn starts as a process does, at once with SimPy's urgent priority, in the order given.
    Nothing else wakes among the turns at a tick (the round's turns are all a round does; what else
    waits, as Point Zéro's Shock clocks, wakes at PRIORITY_ROUND, before every turn at its tick), so
    the calling process sleeps only when the tick changes: one SimPy event per tick, not one per
    wait and per process (a Z-Corps round wakes a thousand actors, and each mover once a metre), and
    none when nothing else is scheduled (:func:`nobody_else_waits`: the clock moves itself).
    The caller goes on at the tick of the last wake-up, as after waiting for a process of each.
    """
    now = int(env.now)
    # (tick, priority, the order asked in, the turn): the turns' starts first, as SimPy's Initialize events
    queue: list[tuple[int, int, int, Turn]] = [(now, _START, i, turn) for i, turn in enumerate(turns)]
    asked = itertools.count(len(queue))
    pop, replace = heapq.heappop, heapq.heapreplace
    while queue:
        # the earliest wake-up stays at the heap's root while its turn runs (nothing else touches the
        # queue meanwhile): its next wait then takes its place in one sift (heapreplace), not a pop and a push
        tick, priority, _, turn = queue[0]
        if tick > now:
            if nobody_else_waits(env):
                env._now = tick  # as the lone event would move it
            else:
                yield At(env, tick, priority)
            now = tick
        wait = next(turn, None)
        if wait is None:
            pop(queue)
        else:
            tick, priority = wait
            if tick < now:
                raise ValueError(f"tick {tick} is in the past (now {now})")
            replace(queue, (tick, priority, next(asked), turn))


class RunResult(msgspec.Struct, kw_only=True):
    winner: str | None
    reason: str
    rounds: int
    events: int
    log: str | None
    state: State
    log_bytes: int = 0


class Encounter:
    """Runs one fight of a scenario under a rule system, writing its log."""

    def __init__(
        self,
        system: RuleSystem,
        scenario: LoadedScenario,
        *,
        seed: str,
        dice: DiceSource | None = None,
        log_path: Path | None = None,
        binary: bool = False,
        player_seeds: Sequence[str] = (),
        parent: E.ForkOrigin | None = None,
        listeners: Sequence[Listener] = (),
        rules: Any = None,
        salt: str = "",
        secret: bool = False,
    ) -> None:
        self.system = system
        self.loaded = scenario
        self.scenario: Any = scenario.spec
        # ``rules``: effective rules already known (a log header's), else the scenario's overrides on the defaults
        # (worked out once per loaded scenario and rule system, with their header form: :func:`kept_rules`)
        self.rules: Any = rules if rules is not None else kept_rules(system, scenario).rules
        self.seed = seed
        #: the commitment's salt and whether the seed is a ``fracas commit`` secret (docs/dice.md)
        self.salt = salt
        self.secret = secret
        self.player_seeds = list(player_seeds)
        self.dice: DiceSource = dice if dice is not None else DerivedDice(seed, player_seeds)
        self.env = simpy.Environment()
        self.state = State()
        self.writer = LogWriter(log_path, binary=binary)
        self.log_path = log_path
        self.parent = parent
        self.listeners = list(listeners)
        self.round_ticks = system.round_seconds * TICKS_PER_SECOND
        self.round = 0
        self.seq = 0
        self.over = False
        self.winner: str | None = None
        self.reason = ""
        self.in_aftermath = False
        self.undrawn_faces = 0
        #: a rule system's own bookkeeping for this encounter (timers, reactions used...),
        #: keyed by a name the system owns; never part of the projected state or the log
        self.scratch: dict[str, Any] = {}
        self.actor_specs = {a.id: a for a in self.scenario.actors}
        #: the map's walls, sight, cover and paths (fracas.core.battlefield), and where the actors are
        self.battlefield = Battlefield(self.scenario.map)
        self.crowd = Crowd(self.state, self.battlefield.width, self.battlefield.height)
        #: a re-simulation's header names only the rules its log's header named (a rules field added
        #: since then takes its default, and is not written): None for a new fight
        self.recorded_rule_keys: frozenset[str] | None = None

    @property
    def writer(self) -> LogWriter:
        """Where the events go (a verify or a re-simulation puts a writer of its own in place)."""
        return self._writer

    @writer.setter
    def writer(self, writer: LogWriter) -> None:
        self._writer = writer
        #: the writer's append for :meth:`emit`, or None when the writer keeps nothing (a plain writer with no
        #: file, as a run with no log has): its append and flush would only return, so :meth:`emit` skips the
        #: call for every event (and the count it would be given) and :meth:`flush` skips the writer's
        self._append: Callable[[int, int, int, float, E.AnyEvent], None] | None = (
            None if type(writer) is LogWriter and writer.keeps_nothing else writer.append
        )

    # ------------------------------------------------------------------ clock

    def round_start(self, rnd: int) -> int:
        return (rnd - 1) * self.round_ticks

    def tick_of(self, count: int, rnd: int | None = None) -> int:
        """The tick at which initiative ``count`` of a round happens."""
        r = self.round if rnd is None else rnd
        return self.round_start(r) + self.round_ticks - count

    def current_count(self) -> int:
        if self.in_aftermath or self.round == 0:
            return 0
        return max(0, self.round_ticks - (int(self.env.now) - self.round_start(self.round)))

    def at_count(self, count: int, priority: int) -> At:
        """Sleep until initiative ``count`` of the current round."""
        return At(self.env, self.tick_of(count), priority)

    def after(self, seconds: int) -> simpy.events.Timeout:
        """Sleep for simulated seconds (the clock after the fight)."""
        return self.env.timeout(seconds * TICKS_PER_SECOND)

    @property
    def now_seconds(self) -> float:
        return int(self.env.now) / TICKS_PER_SECOND

    # ----------------------------------------------------------------- events

    def emit(self, ev: E.Event) -> None:
        """Apply an event to the live state and append it to the log."""
        kind = type(ev)
        if self.undrawn_faces and kind is not E.DiceRolled:
            raise RuntimeError(f"dice drawn but not recorded before {kind.__name__}")
        state = self.state
        fold = FOLDS[kind]
        if fold is not None:  # None: the state ignores this event (a declaration, a note)
            fold(state, ev)
        if kind in CROWD_EVENTS:
            self.crowd.observe(ev)
        now = int(self.env._now)  # Environment.now is a property: a Python call for every event
        sec = now / TICKS_PER_SECOND
        seq = self.seq
        state.seq = seq
        state.sec = sec
        append = self._append  # None: the writer keeps nothing (a run with no log)
        listeners = self.listeners
        if append is not None or listeners:  # the round and count are for the log and the listeners
            rnd = self.round
            count = 0  # before the first round and after the fight
            if rnd and not self.in_aftermath:
                count = rnd * self.round_ticks - now  # current_count(), written out: this runs for every event
                if count < 0:
                    count = 0
            if append is not None:
                append(seq, rnd, count, sec, ev)  # type: ignore[arg-type]
            for listener in listeners:
                listener(seq, rnd, count, sec, ev)
        self.seq = seq + 1

    def emit_each(self, events: Iterable[E.Event]) -> None:
        """:meth:`emit` of each event in turn, with the clock read once: for runs of events at one tick.

        ``events`` may be a generator that does its own bookkeeping between events (the dice
        counter of a roll-off, tests/unit/test_per_event_path.py): what a listener sees is the
        same, and each event is folded, written and heard exactly as :meth:`emit` does it. With no
        listener nobody looks between the events, so each is folded as it comes and the run is
        written at once (:meth:`LogWriter.append_each`): the same state and the same lines, also
        when an event cannot be folded (those before it are written, as :meth:`emit` would have).
        """
        state, crowd, listeners = self.state, self.crowd, self.listeners
        now = int(self.env._now)  # nothing here moves the clock, the round or the aftermath: as emit, once
        sec = now / TICKS_PER_SECOND
        rnd = self.round
        count = 0
        if rnd and not self.in_aftermath:
            count = rnd * self.round_ticks - now
            if count < 0:
                count = 0
        if not listeners:
            folded: list[E.Event] = []
            try:
                for ev in events:
                    kind = type(ev)
                    if self.undrawn_faces and kind is not E.DiceRolled:
                        raise RuntimeError(f"dice drawn but not recorded before {kind.__name__}")
                    fold = FOLDS[kind]
                    if fold is not None:
                        fold(state, ev)
                    if kind in CROWD_EVENTS:
                        crowd.observe(ev)
                    folded.append(ev)
            finally:
                if folded:
                    first = self.seq
                    self.seq = first + len(folded)
                    state.seq = self.seq - 1
                    state.sec = sec
                    self._writer.append_each(first, rnd, count, sec, folded)  # type: ignore[arg-type]
            return
        append = self._writer.append
        for ev in events:
            kind = type(ev)
            if self.undrawn_faces and kind is not E.DiceRolled:
                raise RuntimeError(f"dice drawn but not recorded before {kind.__name__}")
            fold = FOLDS[kind]
            if fold is not None:
                fold(state, ev)
            if kind in CROWD_EVENTS:
                crowd.observe(ev)
            seq = self.seq
            state.seq = seq
            state.sec = sec
            append(seq, rnd, count, sec, ev)  # type: ignore[arg-type]
            for listener in listeners:
                listener(seq, rnd, count, sec, ev)
            self.seq = seq + 1

    def flush(self) -> None:
        if self._append is not None:  # a writer that keeps nothing has nothing pending
            self._writer.flush()

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> tuple[list[int], int]:
        """Draw faces; they must be recorded with :meth:`record` before any other event."""
        first = self.dice.counter
        faces = self.dice.draw(n, sides, actor=actor, purpose=purpose)
        self.undrawn_faces += n
        return faces, first

    def drawer(self, sides: int, *, actor: str, purpose: str) -> Callable[[int], list[int]]:
        """``draw(n)``: the faces of :meth:`draw` (``n`` dice with these sides), for rules that draw as they go.

        The same bookkeeping as :meth:`draw`, one call shorter (a Z-Corps roll draws a die at a time).
        """
        dice = self.dice

        def draw(n: int) -> list[int]:
            faces = dice.draw(n, sides, actor=actor, purpose=purpose)
            self.undrawn_faces += n
            return faces

        return draw

    def record(
        self,
        *,
        actor: str,
        purpose: str,
        rule: str,
        sides: int,
        faces: list[int],
        fates: list[str],
        first: int,
    ) -> E.DiceRolled:
        """Emit the DiceRolled event for faces drawn earlier (C-LOG-1)."""
        self.undrawn_faces -= len(faces)
        ev = E.DiceRolled(
            actor=actor,
            purpose=purpose,
            rule=rule,
            sides=sides,
            faces=faces,
            fates=fates,
            first=first,
            source=self.dice.kind,
        )
        self.emit(ev)
        return ev

    def roll(
        self,
        n: int,
        sides: int,
        *,
        actor: str,
        purpose: str,
        rule: str,
        keep_best: int | None = None,
    ) -> list[int]:
        """Draw and record ``n`` dice; with ``keep_best`` the others are marked dropped.

        The same events as :meth:`draw` then :meth:`record`, without their
        bookkeeping: nothing can come between a draw and its record here.
        """
        dice = self.dice
        first = dice.counter
        if type(dice) is DerivedDice:  # DerivedDice.draw, written out (a roll per test): a subclass's may do more
            faces = dice.faces(first, n, sides)
            dice.counter = first + n
        else:
            faces = dice.draw(n, sides, actor=actor, purpose=purpose)
        if keep_best is not None and keep_best < n:
            # The best faces are kept; among equal faces the earlier die (sorted() is stable, reversed too).
            fates = ["dropped"] * n
            for i in sorted(range(n), key=faces.__getitem__, reverse=True)[:keep_best]:
                fates[i] = "kept"
        else:
            fates = ["kept"] * n
        self.emit(
            E.DiceRolled(
                actor=actor,
                purpose=purpose,
                rule=rule,
                sides=sides,
                faces=faces,
                fates=fates,
                first=first,
                source=dice.kind,
            )
        )
        return faces

    # ------------------------------------------------------------------- end

    def pending_sides(self) -> list[str]:
        """Sides with reinforcements still to arrive (they keep the fight open)."""
        present = self.state.actors
        if len(present) == len(self.actor_specs):
            return []
        sides: dict[str, None] = {}
        for a in self.scenario.actors:
            if a.id not in present:
                sides.setdefault(a.side, None)
        return list(sides)

    def check_end(self) -> bool:
        """C-END-1: the fight is over when at most one side can still act.

        A side whose objective is to escape wins if one of its actors fled
        (docs/rules-notes.md); otherwise the side still able to act wins.
        """
        if self.over:
            return True
        if self.crowd.several_sides_able():  # the common case: reinforcements to come cannot end the fight
            return False
        able = dict.fromkeys(self.state.sides_able())
        for side in self.pending_sides():
            able.setdefault(side, None)
        if len(able) > 1:
            return False
        self.over = True
        escaped = [
            s.id
            for s in self.scenario.sides
            if s.objective == "escape"
            and any(a.side == s.id and "fled" in a.conditions for a in self.state.actors.values())
        ]
        if escaped:
            self.winner = escaped[0]
            self.reason = f"side {self.winner} escaped"
        elif able:
            self.winner = next(iter(able))
            self.reason = f"only side {self.winner} can still fight"
        else:
            self.winner = None
            self.reason = "no side can still fight"
        return True

    # ------------------------------------------------------------------- run

    def header(self) -> E.EncounterStarted:
        """The first event: what a replay needs, bound by the commitment (docs/log-format.md)."""
        # a dice source that replays recorded dice, then draws new ones (a fork), declares the new ones' source
        source = getattr(self.dice, "declared_kind", self.dice.kind)
        kept: KeptRules | None = self.loaded.kept.get((KeptRules, self.system.rules_type))
        if kept is not None and self.rules is kept.rules and self.recorded_rule_keys is None:
            rules, rules_sha256 = kept.header, kept.sha256  # the scenario's own rules: their header form is kept
        else:
            rules = header_rules(self.rules, self.recorded_rule_keys)
            rules_sha256 = content_sha256(rules)
        name = self.scenario.name or Path(self.loaded.path).stem
        scenario_sha256 = self.loaded.raw_sha256  # content_sha256(self.loaded.raw), worked out once per scenario
        commitment = commitment_of_parts(
            E.FORMAT_VERSION,
            salt=self.salt,
            seed=self.seed,
            scenario_sha256=scenario_sha256,
            scenario_name=name,
            rules_sha256=rules_sha256,
            method=METHOD,
            source=source,
        )
        return E.EncounterStarted(
            format=E.FORMAT_VERSION,
            fracas_version=__version__,
            system=self.system.name,
            rules=rules,
            scenario=self.loaded.raw,
            scenario_name=name,
            scenario_sha256=scenario_sha256,
            dice=E.DiceCommitment(
                source=source,
                method=METHOD,
                commitment=commitment,
                player_seeds=self.player_seeds,
                salt=self.salt,
                secret=self.secret,
            ),
            ticks_per_second=TICKS_PER_SECOND,
            round_ticks=self.round_ticks,
            round_seconds=self.system.round_seconds,
            parent=self.parent,
        )

    def _main(self) -> Any:
        self.emit(self.header())
        limit = self.scenario.round_limit
        rounds = 0
        for rnd in range(1, limit + 1):
            start = self.round_start(rnd)
            if int(self.env.now) < start:
                if nobody_else_waits(self.env):
                    self.env._now = start  # as the lone event would move it
                else:
                    yield At(self.env, start, PRIORITY_ROUND)
            self.round = rnd
            rounds = rnd
            self.emit(E.RoundStarted(round=rnd))
            for spec in self.scenario.actors:
                if spec.arrives == rnd and spec.id not in self.state.actors:
                    self.emit(self.system.entered(self, spec))
            if not self.check_end():
                # The round's process body runs inside this process (as a sub-process it would
                # cost two more SimPy events a round, and every system waits for its own turns).
                yield from self.system.play_round(self, rnd)
            self.emit(E.StateChecked(round=rnd, digest=state_digest(self.state)))
            self.flush()
            if self.check_end():
                break
        if not self.over:
            self.over = True
            self.winner = None
            self.reason = f"round limit {limit} reached: a draw"
        self.in_aftermath = True
        self.emit(E.AftermathStarted(winner=self.winner, reason=self.reason))
        yield self.env.process(self.system.aftermath(self))
        self.emit(E.EncounterEnded(winner=self.winner, reason=self.reason, rounds=rounds, seed=self.seed))
        self.flush()

    def run(self) -> RunResult:
        try:
            self.env.process(self._main())
            self.env.run()
        finally:
            self._writer.close()
        return RunResult(
            winner=self.winner,
            reason=self.reason,
            rounds=self.round,
            events=self.seq,
            log=str(self.log_path) if self.log_path else None,
            state=self.state,
            log_bytes=self._writer.bytes_written,
        )


def header_commitment(head: E.EncounterStarted, seed: str) -> str:
    """The commitment a header holds for ``seed`` (docs/dice.md, "The commitment").

    Format 2: :func:`fracas.core.dice.commitment_v2` of the header's salt,
    the seed, the scenario's hash and name, the effective rules' hash, the
    dice method and source. Format 1: SHA-256 of the seed alone.
    """
    return commitment_of_parts(
        head.format,
        salt=head.dice.salt,
        seed=seed,
        scenario_sha256=head.scenario_sha256,
        scenario_name=head.scenario_name,
        rules_sha256=content_sha256(head.rules) if head.format != 1 else "",
        method=head.dice.method,
        source=head.dice.source,
    )


def commitment_of_parts(
    log_format: int,
    *,
    salt: str,
    seed: str,
    scenario_sha256: str,
    scenario_name: str,
    rules_sha256: str,
    method: str,
    source: str,
) -> str:
    """:func:`header_commitment` from the header's parts (``rules_sha256``: :func:`content_sha256` of its rules),
    for a header still to be made."""
    if log_format == 1:
        return commitment_of(seed)
    return commitment_v2(
        salt=salt,
        seed=seed,
        scenario_sha256=scenario_sha256,
        scenario_name=scenario_name,
        rules_sha256=rules_sha256,
        method=method,
        source=source,
    )


class KeptRules(NamedTuple):
    """A scenario's effective rules under a rule system, as each of its fights starts with them."""

    rules: Any
    #: ``header_rules(rules)``: what a header records of them
    header: dict[str, Any]
    #: ``content_sha256(header)``: what the commitment binds
    sha256: str


def kept_rules(system: RuleSystem, scenario: LoadedScenario) -> KeptRules:
    """The scenario's overrides on the system's defaults (:func:`~fracas.core.system.effective_rules`) and their
    header form, worked out at its first fight and kept on the loaded scenario (``LoadedScenario.kept``) for the
    next ones. Every fight shares the one rules object: nothing changes a rules object once made (a fight reads
    them, and a header records them)."""
    key = (KeptRules, system.rules_type)  # Encounter.header looks them up by this key too
    kept: KeptRules | None = scenario.kept.get(key)
    if kept is None:
        rules = effective_rules(system, scenario.spec.rules)
        header = header_rules(rules)
        kept = scenario.kept[key] = KeptRules(rules, header, content_sha256(header))
    return kept


def tie_broken_order(
    enc: Encounter,
    inits: dict[str, int],
    key: Callable[[str], tuple[int, ...]],
    *,
    rule: str,
    sides: int = 6,
    rolloff_rule: str = "C-TIE-1",
    purpose: str = "tie roll-off",
) -> list[str]:
    """C-TIE-1: descending initiative with the system's tie-break ``key``, then roll-offs.

    Actors equal on the whole key roll 1d``sides`` each (higher first), again among
    those still tied. When any initiatives were equal, the order is logged (TieBroken).
    """
    out = sorted(inits, key=key)
    previous = None
    for actor in out:
        here = key(actor)
        if here == previous:  # two actors equal on the whole key: roll-offs, group by group
            ranked, out = out, []
            for _, group in itertools.groupby(ranked, key=key):
                tied = list(group)
                out.extend(_roll_off(enc, tied, sides, rolloff_rule, purpose) if len(tied) > 1 else tied)
            break
        previous = here
    if len(set(inits.values())) < len(inits):
        enc.emit(E.TieBroken(order=out, rule=rule))
    return out


def _one_die_each(enc: Encounter, group: list[str], sides: int, rule: str, purpose: str) -> list[int]:
    """A die for each actor of ``group`` in its order, each recorded as its own event (C-TIE-1, C-LOG-1)."""
    dice = enc.dice
    if type(dice) is not DerivedDice:  # a subclass's draw may do more: a roll each
        return [enc.roll(1, sides, actor=a, purpose=purpose, rule=rule)[0] for a in group]
    # The group's faces derived in one call (a pure function of the die numbers), then recorded one event per
    # actor with the counter moved a die at a time: the very events, and the very counter between them, of
    # enc.roll per actor above (tests/unit/test_per_event_path.py compares both).
    source = dice.kind
    first = dice.counter
    faces = dice.faces(first, len(group), sides)
    if not enc.listeners:  # nobody sees the counter between the events: it moves once
        dice.counter = first + len(faces)
        enc.emit_each(
            [
                E.DiceRolled(
                    actor=a,
                    purpose=purpose,
                    rule=rule,
                    sides=sides,
                    faces=[face],
                    fates=["kept"],
                    first=k,
                    source=source,
                )
                for k, a, face in zip(range(first, first + len(faces)), group, faces, strict=True)
            ]
        )
        return faces

    def rolls() -> Iterator[E.DiceRolled]:
        k = first
        for a, face in zip(group, faces, strict=True):
            dice.counter = k + 1
            yield E.DiceRolled(
                actor=a, purpose=purpose, rule=rule, sides=sides, faces=[face], fates=["kept"], first=k, source=source
            )
            k += 1

    enc.emit_each(rolls())  # one tick: the clock read once for the group
    return faces


def _roll_off(enc: Encounter, group: list[str], sides: int, rule: str, purpose: str) -> list[str]:
    # each rolls in the group's order; those with one face, in the group's order, roll off again
    by_face: dict[int, list[str]] = {}
    for a, face in zip(group, _one_die_each(enc, group, sides, rule, purpose), strict=True):
        same = by_face.get(face)
        if same is None:
            by_face[face] = [a]
        else:
            same.append(a)
    out: list[str] = []
    for face in sorted(by_face, reverse=True):
        same = by_face[face]
        out.extend(_roll_off(enc, same, sides, rule, purpose) if len(same) > 1 else same)
    return out
