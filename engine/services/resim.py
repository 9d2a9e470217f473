"""Re-simulation: run a logged encounter again from its header, with its recorded dice.

The header records the scenario (as read) and the effective rules, so a log
is enough to run the same rule code again. :class:`RecordedDice` serves the
faces the log recorded, in order; the re-simulated events are then compared
with the logged ones (``fracas verify``, step 4) or written out up to a fork
point (``fracas replay --fork-at``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.decide import Chooser, attach_chooser
from fracas.core.dice import DiceError, DiceSource
from fracas.core.encounter import Encounter, Listener
from fracas.core.errors import FracasError
from fracas.core.log import LogWriter
from fracas.core.scenario import LoadedScenario
from fracas.core.system import FIRST_EDITION, RuleSystem, get_system


class DiceExhausted(DiceError):
    """The rules ask for a die the log does not record."""

    def __init__(self, n: int, sides: int, actor: str, purpose: str, counter: int) -> None:
        self.n = n
        self.sides = sides
        self.actor = actor
        self.purpose = purpose
        self.counter = counter
        super().__init__(n, sides, actor, purpose, counter)  # SimPy re-raises exceptions from their args

    def __str__(self) -> str:
        return (
            f"the rules roll {self.n}d{self.sides} for {self.purpose} ({self.actor}) at die {self.counter}: "
            "the log has no more dice"
        )


class FaceOutOfRange(DiceError):
    """A recorded face that is not a face of the die the rules roll."""


class RecordedDice:
    """Serves recorded faces in order; ``kind`` is the source of the faces last served."""

    def __init__(self, faces: Sequence[int], sources: Sequence[str], *, then: DiceSource | None = None) -> None:
        self.faces = list(faces)
        self.sources = list(sources)
        self.counter = 0
        self.kind = self.sources[0] if self.sources else "derived"
        self.then = then
        #: the source a log header declares for this log's own dice: the new dice's after recorded ones (a fork)
        self.declared_kind = then.kind if then is not None else self.kind

    @classmethod
    def from_entries(cls, entries: Sequence[E.Entry], *, until: int | None = None) -> RecordedDice:
        """The faces of every DiceRolled of ``entries`` (with seq <= ``until``), in log order."""
        if until is not None:
            entries = list(itertools.takewhile(lambda entry: entry.seq <= until, entries))
        rolls = [entry.ev for entry in entries if type(entry.ev) is E.DiceRolled]
        faces = [face for ev in rolls for face in ev.faces]
        sources = [ev.source for ev in rolls for _ in ev.faces]
        return cls(faces, sources)

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        start = self.counter
        if start + n > len(self.faces):
            if self.then is not None and start >= len(self.faces):
                self.then.counter = start
                out = self.then.draw(n, sides, actor=actor, purpose=purpose)
                self.counter = self.then.counter
                self.kind = self.then.kind
                return out
            raise DiceExhausted(n, sides, actor, purpose, start)
        end = start + n
        out = self.faces[start:end]
        for face in out:
            if not 1 <= face <= sides:
                k = start + out.index(face)
                raise FaceOutOfRange(
                    f"die {k}: the rules roll a d{sides} for {purpose} ({actor}), the log records face {face}"
                )
        self.counter = end
        if n:
            self.kind = self.sources[end - 1]
        return out


class NullWriter(LogWriter):
    """A log writer that keeps nothing (the re-simulation is compared, not written)."""

    def __init__(self) -> None:
        super().__init__(None)

    def append(self, seq: int, rnd: int, count: int, sec: float, ev: E.AnyEvent) -> None:
        return None

    def flush(self) -> None:
        return None


def scenario_from_header(head: E.EncounterStarted) -> tuple[RuleSystem, LoadedScenario]:
    """The rule system and the scenario a header records (FracasError if the system is not installed)."""
    system = get_system(head.system)
    try:
        spec = msgspec.convert(head.scenario, system.scenario_type)
    except msgspec.ValidationError as exc:
        raise FracasError(f"the header's scenario no longer loads under {head.system}: {exc}") from None
    # Encounter.header names an unnamed scenario after its file: keep that name.
    loaded = LoadedScenario(
        path=f"{head.scenario_name}.toml", spec=spec, raw=head.scenario, sha256=head.scenario_sha256
    )
    return system, loaded


def rules_of_header(head: E.EncounterStarted, system: RuleSystem) -> dict[str, Any]:
    """The effective rules a header records; a header from before rules editions is edition 1.

    A system whose rules have an ``edition`` field plays the readings of that edition, so a log
    written before a reading changed re-simulates (verify, fork) the way it was played.
    """
    raw = dict(head.rules)
    if "edition" not in raw and any(f.encode_name == "edition" for f in msgspec.structs.fields(system.rules_type)):
        raw["edition"] = FIRST_EDITION
    return raw


def encounter_from_header(
    head: E.EncounterStarted,
    *,
    seed: str,
    dice: DiceSource,
    chooser: Chooser | None = None,
    listeners: Sequence[Listener] = (),
    log_path: Path | None = None,
    binary: bool = False,
    player_seeds: Sequence[str] | None = None,
    parent: E.ForkOrigin | None = None,
    keep_parent: bool = True,
) -> Encounter:
    """An encounter that runs the header's scenario under the header's effective rules."""
    system, loaded = scenario_from_header(head)
    try:
        rules: Any = msgspec.convert(rules_of_header(head, system), system.rules_type)
    except msgspec.ValidationError as exc:
        raise FracasError(f"the header's rules no longer load under {head.system}: {exc}") from None
    enc = Encounter(
        system,
        loaded,
        seed=seed,
        dice=dice,
        log_path=log_path,
        binary=binary,
        player_seeds=head.dice.player_seeds if player_seeds is None else player_seeds,
        parent=parent if parent is not None or not keep_parent else head.parent,
        listeners=listeners,
        rules=rules,
        salt=head.dice.salt,
        secret=head.dice.secret,
    )
    enc.recorded_rule_keys = frozenset(head.rules)  # rules fields added since the log was written stay out
    if log_path is None:
        enc.writer = NullWriter()
    if chooser is not None:
        attach_chooser(enc, chooser)
    return enc
