"""``fracas verify``: prove a log untouched, or name its first problem.

Five steps, in order (docs/verify.md):

1. **structure**: every line decodes, ``seq`` is gapless from 0, the header
   comes first and the end last (a missing end is an unfinished fight);
2. **chain**: every ``h`` is ``SHA-256(h_prev || line without h)``;
3. **dice**: the revealed seed matches the header's commitment, the die
   indices run on without a gap, and every derived die re-derives to its
   recorded face (entered dice are counted, not re-derivable);
4. **rules**: the scenario and effective rules of the header are run again,
   by the same rule code, on the recorded dice (and the logged human
   decisions); every re-simulated event must equal the logged one, field by
   field: kept dice, totals, difficulty and modifiers, margin, damage,
   boxes, movement and initiative;
5. **state**: every ``StateChecked`` digest equals the digest of a fresh
   fold of the log's events up to it.

A problem names the step, the line, the seq, and expected vs found. Exit
codes: 0 intact, 1 a problem found, 2 unreadable.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.decide import DecisionError, NoLoggedDecision, ReplayChooser
from fracas.core.dice import METHOD, DerivedDice, commitment_of
from fracas.core.errors import EXIT_CHECK_FAILED, EXIT_OK, FracasError
from fracas.core.log import GENESIS, LogError, LogWriter, TornLine, encode_entry, gc_paused, iter_log
from fracas.core.state import State, apply_entry, state_digest
from fracas.services.resim import DiceExhausted, FaceOutOfRange, RecordedDice, encounter_from_header

STEPS = ("structure", "chain", "dice", "rules", "state")
_decoder = msgspec.json.Decoder(E.Entry)
_H_KEY = b',"h":"'
_H_TAIL = len(_H_KEY) + 64 + 2  # the key, the hex digest, `"}`


class Problem(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The first thing wrong found by one step."""

    step: str
    message: str
    line: int | None = None
    seq: int | None = None
    expected: str | None = None
    found: str | None = None
    rule: str | None = None

    def text(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.seq is not None:
            where.append(f"seq {self.seq}")
        head = f"{', '.join(where)}: " if where else ""
        return f"{head}{self.message}"


class StepResult(msgspec.Struct, kw_only=True, omit_defaults=True):
    name: str
    status: str  # ok | failed | skipped
    detail: str = ""
    problem: Problem | None = None


class Report(msgspec.Struct, kw_only=True):
    log: str
    ok: bool
    exit_code: int
    events: int
    finished: bool
    system: str = ""
    dice: dict[str, int] = {}
    steps: list[StepResult] = []
    problem: Problem | None = None
    seconds: float = 0.0


class Unreadable(FracasError):
    """Not a log at all (exit 2)."""


class _Loaded(msgspec.Struct, kw_only=True):
    entries: list[E.Entry]
    lines: list[bytes]  # each entry's JSON line (re-encoded from a binary log): its hash covers it without ``h``
    problem: Problem | None = None  # first structural problem met while reading


# ---------------------------------------------------------------- reading


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise Unreadable(f"{path}: cannot read log: {exc.strerror or exc}") from None


def _load(path: Path, data: bytes | None = None) -> _Loaded:
    """Decode every line (or frame) and keep the line itself (check_chain cuts out what its hash covers).

    ``data``: the file's bytes, when already read.
    """
    if data is None:
        data = _read(path)
    if not data:
        raise Unreadable(f"{path}: empty file: not a fracas log")
    if data[:1] != b"{":  # as fracas.core.log.is_binary decides, on the bytes already read
        return _load_binary(path)
    lines = data.split(b"\n")
    torn_end = lines[-1] != b""
    if not torn_end:
        lines.pop()
    entries: list[E.Entry] = []
    if not torn_end:  # the common case: decode every line in one call
        try:
            entries = _decoder.decode_lines(data)
        except msgspec.DecodeError:
            entries = []
        if len(entries) == len(lines):
            return _Loaded(entries=entries, lines=lines)
        entries = []
    decode = _decoder.decode
    problem: Problem | None = None
    last = len(lines) - 1
    for i, raw in enumerate(lines):
        try:
            entry = decode(raw)
        except msgspec.DecodeError as exc:
            if i == 0:
                raise Unreadable(f"{path}: line 1: not a fracas log entry: {exc}") from None
            if i == last and torn_end:
                msg = (
                    f"the last line is torn ({len(raw)} bytes, no newline: {exc}): "
                    "an unfinished fight (a crash mid-append, or a truncated file)"
                )
            else:
                msg = f"the line does not decode: {exc}"
            problem = Problem(step="structure", line=i + 1, seq=len(entries), message=msg)
            break
        entries.append(entry)
    return _Loaded(entries=entries, lines=lines[: len(entries)], problem=problem)


def _load_binary(path: Path) -> _Loaded:
    entries: list[E.Entry] = []
    problem: Problem | None = None
    try:
        for item in iter_log(path):
            if isinstance(item, TornLine):
                if item.line == 1:
                    raise Unreadable(f"{path}: not a fracas log (neither JSON Lines nor msgpack frames)")
                problem = Problem(
                    step="structure",
                    line=item.line,
                    seq=len(entries),
                    message=f"the last frame is torn ({item.length} bytes: {item.error}): an unfinished fight",
                )
                break
            entries.append(item)
    except LogError as exc:  # a corrupt frame in the middle
        if not entries:
            raise Unreadable(f"{path}: not a fracas log (neither JSON Lines nor msgpack frames)") from None
        problem = Problem(step="structure", line=len(entries) + 1, seq=len(entries), message=str(exc))
    if not entries:
        raise Unreadable(f"{path}: empty file: not a fracas log")
    lines = [encode_entry(e.seq, e.round, e.count, e.sec, e.ev, GENESIS)[0] for e in entries]
    return _Loaded(entries=entries, lines=lines, problem=problem)


# ------------------------------------------------------------- the steps


def check_structure(loaded: _Loaded) -> Problem | None:
    entries = loaded.entries
    for i, entry in enumerate(entries):
        if entry.seq != i:
            return Problem(
                step="structure",
                line=i + 1,
                seq=entry.seq,
                message=f"seq out of order: expected seq {i}, found seq {entry.seq}",
                expected=str(i),
                found=str(entry.seq),
            )
        kind = type(entry.ev)
        if i == 0 and kind is not E.EncounterStarted:
            return Problem(
                step="structure",
                line=1,
                seq=entry.seq,
                message=f"the first entry must be the EncounterStarted header, found {kind.__name__}",
                expected="EncounterStarted",
                found=kind.__name__,
            )
        if i > 0 and kind is E.EncounterStarted:
            return Problem(
                step="structure",
                line=i + 1,
                seq=entry.seq,
                message="a second EncounterStarted header",
                expected="one header, on line 1",
                found="EncounterStarted",
            )
        if kind is E.EncounterEnded and i != len(entries) - 1:
            return Problem(
                step="structure",
                line=i + 2,
                seq=entries[i + 1].seq,
                message=f"{type(entries[i + 1].ev).__name__} after the EncounterEnded of line {i + 1}",
                expected="nothing after the end",
                found=type(entries[i + 1].ev).__name__,
            )
    if loaded.problem is not None:
        return loaded.problem
    last = entries[-1]
    if type(last.ev) is not E.EncounterEnded:
        n = len(entries)
        return Problem(
            step="structure",
            line=n,
            seq=last.seq,
            message=(
                f"unfinished fight: the log stops after line {n} (seq {last.seq}, {type(last.ev).__name__}) "
                "without an EncounterEnded: truncated, or the fight was interrupted"
            ),
            expected="EncounterEnded",
            found="end of file",
        )
    return None


def check_chain(loaded: _Loaded) -> Problem | None:
    """Every ``h`` is SHA-256 of the previous hash and the line without its ``h`` key (fracas.core.log)."""
    if _chain_intact(loaded):
        return None
    prev = GENESIS
    sha = hashlib.sha256
    for i, (entry, raw) in enumerate(zip(loaded.entries, loaded.lines, strict=True)):
        cut = raw.rfind(_H_KEY)
        digest = sha(prev + raw[:cut] + b"}" if cut >= 0 else prev + raw).digest()
        if digest.hex() != entry.h:
            return Problem(
                step="chain",
                line=i + 1,
                seq=entry.seq,
                message="hash chain broken: this line, or one before it, was changed",
                expected=digest.hex(),
                found=entry.h,
            )
        prev = digest
    return None


def _chain_intact(loaded: _Loaded) -> bool:
    """The common case of :func:`check_chain` at once: every line's digest, then all the ``h`` compared together.

    The same digests as the line-by-line loop, which then only runs to name
    the first broken line. The texts compared put a comma between two
    digests: the digests' text has exactly one comma fewer than there are
    lines (a comma is not a hex digit), so it equals the ``h`` values'
    text only if no ``h`` holds a comma and each ``h`` is its line's digest.

    The writer ends every line with ``,"h":"<64 hex digits>"}``, 72 bytes:
    the hash covers the line without them (and with the closing brace), so
    no search for the key is needed here. A line laid out otherwise gets a
    digest that is not its ``h`` and the line-by-line loop names it.
    """
    prev = GENESIS
    sha = hashlib.sha256
    digests: list[bytes] = []
    keep = digests.append
    for raw in loaded.lines:
        prev = sha(b"%s%s}" % (prev, raw[:-_H_TAIL])).digest()
        keep(prev)
    if len(digests) != len(loaded.entries):
        return False
    return b"".join(digests).hex(",", 32) == ",".join([e.h for e in loaded.entries])


class _DiceCount(msgspec.Struct, kw_only=True):
    counts: dict[str, int] = {}
    checked: int = 0
    unchecked: int = 0

    def detail(self) -> str:
        """The dice step's line: dice by source, and how many were re-derived."""
        parts = [f"{v} {k}" for k, v in sorted(self.counts.items())]
        return f"{', '.join(parts) or 'no'} dice; {self.checked} re-derived from the revealed seed"

    def report(self) -> dict[str, int]:
        """The report's ``dice``: the counts by source, then ``re-derived``."""
        return {**dict(sorted(self.counts.items())), "re-derived": self.checked}


#: The state step's line when the re-simulation already proved every digest.
_STATE_PROVEN = "every digest matched the re-simulation's state"


def check_dice(
    entries: Sequence[E.Entry], head: E.EncounterStarted, parent: Sequence[E.Entry] | None, tally: _DiceCount
) -> Problem | None:
    """Commitment, die indices, and every derived face re-derived from the revealed seed."""
    end = entries[-1].ev if entries and type(entries[-1].ev) is E.EncounterEnded else None
    if head.dice.method != METHOD:
        return Problem(
            step="dice",
            line=1,
            seq=0,
            message=f"unknown dice method {head.dice.method!r}",
            expected=METHOD,
            found=head.dice.method,
        )
    key: DerivedDice | None = None
    if isinstance(end, E.EncounterEnded):
        found = commitment_of(end.seed)
        if found != head.dice.commitment:
            n = len(entries)
            return Problem(
                step="dice",
                line=n,
                seq=entries[-1].seq,
                message=(
                    f"the revealed seed {end.seed!r} does not match the commitment of line 1: "
                    "SHA-256 of the revealed seed differs"
                ),
                expected=head.dice.commitment,
                found=found,
            )
        key = DerivedDice(end.seed, head.dice.player_seeds)
    fork_seq = head.parent.fork_seq if head.parent is not None else -1
    parent_key: DerivedDice | None = None
    parent_faces: list[int] = []
    # Dice drawn before the fork point's event was written are the parent's (ForkOrigin.fork_die);
    # logs written before that field existed: the dice of the events up to the fork seq.
    fork_die = 0
    if head.parent is not None:
        fork_die = head.parent.fork_die
        if fork_die < 0:
            fork_die = sum(len(e.ev.faces) for e in entries if type(e.ev) is E.DiceRolled and e.seq <= fork_seq)
    if parent is not None and parent and type(parent[-1].ev) is E.EncounterEnded:
        phead = parent[0].ev
        pend = parent[-1].ev
        assert isinstance(phead, E.EncounterStarted) and isinstance(pend, E.EncounterEnded)
        if commitment_of(pend.seed) == phead.dice.commitment:
            parent_key = DerivedDice(pend.seed, phead.dice.player_seeds)
        for e in parent:
            if type(e.ev) is E.DiceRolled:
                parent_faces.extend(e.ev.faces)
    if key is not None and _all_rederived(entries, key, fork_die, tally):
        return None
    counts = tally.counts
    counter = 0
    for i, entry in enumerate(entries):
        ev = entry.ev
        if type(ev) is not E.DiceRolled:
            continue
        assert isinstance(ev, E.DiceRolled)
        n = len(ev.faces)
        if (
            key is not None
            and ev.source == "derived"
            and ev.first == counter >= fork_die
            and len(ev.fates) == n
            and ev.sides > 0
            and key.faces(counter, n, ev.sides) == ev.faces
        ):
            # The common case, the whole roll at once: it passes every per-die check below (a
            # derived face is always in 1..sides), which then only runs to name a problem.
            counts["derived"] = counts.get("derived", 0) + n
            tally.checked += n
            counter += n
            continue
        where: dict[str, Any] = {"step": "dice", "line": i + 1, "seq": entry.seq, "rule": ev.rule}
        if ev.first != counter:
            return Problem(
                **where,
                message=f"die index: this roll should start at die {counter} of the stream, it says {ev.first}",
                expected=str(counter),
                found=str(ev.first),
            )
        if len(ev.fates) != n:
            return Problem(
                **where,
                message=f"{n} faces but {len(ev.fates)} fates",
                expected=str(n),
                found=str(len(ev.fates)),
            )
        sides = ev.sides
        for j, face in enumerate(ev.faces):
            if not 1 <= face <= sides:
                return Problem(
                    **where,
                    message=f"die {counter + j}: face {face} is not a face of a d{sides}",
                    expected=f"1..{sides}",
                    found=str(face),
                )
        source = ev.source
        counts[source] = counts.get(source, 0) + n
        for j, face in enumerate(ev.faces):
            k = counter + j
            use_key = key
            if k < fork_die:
                if parent is None:
                    tally.unchecked += 1
                    continue
                if k >= len(parent_faces) or parent_faces[k] != face:
                    return Problem(
                        **where,
                        message=f"die {k} is inherited from the parent log, which has a different face",
                        expected=str(parent_faces[k]) if k < len(parent_faces) else "no such die",
                        found=str(face),
                    )
                use_key = parent_key
            if source != "derived" or use_key is None:
                tally.unchecked += source == "derived"
                continue
            want = use_key.face(k, sides)
            if want != face:
                return Problem(
                    **where,
                    message=(
                        f"die {k} ({ev.actor}, d{sides} for {ev.purpose}): the revealed seed derives face {want}, "
                        f"the log records {face}"
                    ),
                    expected=str(want),
                    found=str(face),
                )
            tally.checked += 1
        counter += n
    return None


def _all_rederived(entries: Sequence[E.Entry], key: DerivedDice, fork_die: int, tally: _DiceCount) -> bool:
    """The common case of :func:`check_dice` at once: every roll derived, in stream order from ``fork_die``.

    True when every roll passes the roll-by-roll fast path of check_dice (the
    same conditions, and the same faces re-derived: die ``k`` depends on ``k``
    and its sides only, so one ``key.faces`` call covers a run of rolls of the
    same die); the dice are then counted as that loop counts them. False:
    nothing is counted, and the roll-by-roll check names the problem.
    """
    rolls: list[E.DiceRolled] = [e.ev for e in entries if type(e.ev) is E.DiceRolled]
    counter = 0
    run_sides = run_start = 0
    run_faces: list[int] = []
    for ev in rolls:
        n = len(ev.faces)
        if ev.source != "derived" or ev.first != counter or counter < fork_die or len(ev.fates) != n or ev.sides <= 0:
            return False
        if ev.sides != run_sides:
            if run_faces and key.faces(run_start, len(run_faces), run_sides) != run_faces:
                return False
            run_sides, run_start, run_faces = ev.sides, counter, []
        run_faces += ev.faces
        counter += n
    if run_faces and key.faces(run_start, len(run_faces), run_sides) != run_faces:
        return False
    if rolls:
        tally.counts["derived"] = tally.counts.get("derived", 0) + counter
        tally.checked += counter
    return True


class _Mismatch(Exception):
    """The first re-simulated event that differs (SimPy re-raises exceptions from their args)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


class _Stop(Exception):
    pass


def _show(value: Any) -> str:
    return msgspec.json.encode(value, order="deterministic").decode()


def _first_difference(exp: tuple[int, int, float, E.Event], found: E.Entry) -> tuple[str, Any, Any] | None:
    """(field, expected, found) of the first field that differs, envelope first."""
    rnd, count, sec, ev = exp
    fev = found.ev
    if type(ev) is not type(fev):
        return ("type", type(ev).__name__, type(fev).__name__)
    a = msgspec.to_builtins(ev)
    b = msgspec.to_builtins(fev)
    if a != b:
        for name in ev.__struct_fields__:
            if a.get(name) != b.get(name):
                return (f"{type(ev).__name__}.{name}", a.get(name), b.get(name))
    for name, x, y in (("round", rnd, found.round), ("count", count, found.count), ("sec", sec, found.sec)):
        if x != y:
            return (name, x, y)
    return None


def check_rules(entries: Sequence[E.Entry], head: E.EncounterStarted, notes: list[str] | None = None) -> Problem | None:
    """Run the header's scenario again on the recorded dice; the first event that differs is the problem.

    An unfinished log is checked as far as it goes: the re-simulation stops
    where the log does, or where it needs a die or a human decision that
    the log had no time to record (a note says so).
    """
    n = len(entries)
    finished = type(entries[-1].ev) is E.EncounterEnded
    end = entries[-1].ev
    seed = end.seed if type(end) is E.EncounterEnded else ""

    def compare(seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if seq >= n:
            raise _Stop
        logged = entries[seq]
        if seq == 0:
            assert isinstance(ev, E.EncounterStarted)
            ev = msgspec.structs.replace(ev, fracas_version=head.fracas_version, dice=head.dice)
        if ev == logged.ev and rnd == logged.round and count == logged.count and sec == logged.sec:
            return
        diff = _first_difference((rnd, count, sec, ev), logged)
        if diff is None:  # equal once tuples and lists are compared as values
            return
        field, want, got = diff
        rule = getattr(ev, "rule", None)
        if field == "type":
            what = _describe(ev)
            message = f"the rules produce {what} here, the log has {got}"
        else:
            message = f"{field}: the rules give {_show(want)}, the log has {_show(got)}"
        if head.fracas_version != _version():
            message += f" (log written by fracas {head.fracas_version}, checked with {_version()})"
        raise _Mismatch(
            Problem(
                step="rules",
                line=seq + 1,
                seq=seq,
                message=message + (f" [{rule}]" if rule else ""),
                expected=_show(want),
                found=_show(got),
                rule=rule,
            )
        )

    dice = RecordedDice.from_entries(entries)
    enc = encounter_from_header(head, seed=seed, dice=dice, chooser=ReplayChooser(entries), listeners=[compare])
    try:
        enc.run()
    except _Stop:
        return None
    except _Mismatch as exc:
        return exc.problem
    except NoLoggedDecision as exc:
        if not finished:
            if notes is not None:
                notes.append(f"checked up to seq {enc.seq - 1}: the log stops before {exc}")
            return None
        seq = min(enc.seq, n - 1)
        return Problem(step="rules", line=seq + 1, seq=seq, message=f"human decision: {exc}")
    except DiceExhausted as exc:
        seq = enc.seq
        if seq >= n:  # the rules roll on past the end of an unfinished log
            return None
        got = type(entries[seq].ev).__name__
        return Problem(
            step="rules",
            line=seq + 1,
            seq=seq,
            message=f"the rules roll {exc.n}d{exc.sides} for {exc.purpose} ({exc.actor}) here, the log has {got} "
            "and no dice left for it",
            expected=f"DiceRolled {exc.n}d{exc.sides}",
            found=got,
        )
    except FaceOutOfRange as exc:
        seq = min(enc.seq, n - 1)
        return Problem(step="rules", line=seq + 1, seq=seq, message=str(exc))
    except DecisionError as exc:
        seq = min(enc.seq, n - 1)
        return Problem(step="rules", line=seq + 1, seq=seq, message=f"human decision: {exc}")
    except Exception as exc:  # the rules could not run on these inputs: report, never crash
        seq = min(enc.seq, n - 1)
        return Problem(
            step="rules",
            line=seq + 1,
            seq=seq,
            message=f"the rules cannot be replayed past this point: {type(exc).__name__}: {exc}",
        )
    if enc.seq < n:
        seq = enc.seq
        return Problem(
            step="rules",
            line=seq + 1,
            seq=seq,
            message=f"the rules end the fight at seq {seq - 1}, the log goes on with {type(entries[seq].ev).__name__}",
            expected="end of log",
            found=type(entries[seq].ev).__name__,
        )
    return None


def _describe(ev: E.Event) -> str:
    name = type(ev).__name__
    if isinstance(ev, E.DiceRolled):
        return f"{name} ({ev.actor} rolls {len(ev.faces)}d{ev.sides} for {ev.purpose})"
    actor = getattr(ev, "actor", None)
    return f"{name} ({actor})" if actor else name


def _version() -> str:
    from fracas.core.version import __version__

    return __version__


def check_state(entries: Sequence[E.Entry]) -> Problem | None:
    """Fold the log's events; every StateChecked digest must match the fold."""
    state = State()
    for i, entry in enumerate(entries):
        try:
            apply_entry(state, entry)
        except Exception as exc:
            return Problem(
                step="state",
                line=i + 1,
                seq=entry.seq,
                message=f"the event cannot be applied to the state: {type(exc).__name__}: {exc}",
            )
        ev = entry.ev
        if type(ev) is E.StateChecked:
            want = state_digest(state)
            if want != ev.digest:
                return Problem(
                    step="state",
                    line=i + 1,
                    seq=entry.seq,
                    message=f"the state digest of round {ev.round} does not match a fresh replay",
                    expected=want,
                    found=ev.digest,
                )
    return None


# ------------------------------------------------------------------ driver


def _parent_entries(path: Path, head: E.EncounterStarted) -> list[E.Entry] | None:
    """The parent log of a fork, when it is where the header says and untouched (sha256)."""
    if head.parent is None:
        return None
    for candidate in (Path(head.parent.parent_log), path.parent / Path(head.parent.parent_log).name):
        try:
            data = candidate.read_bytes()
        except OSError:
            continue
        if hashlib.sha256(data).hexdigest() != head.parent.parent_sha256:
            continue
        try:
            return _load(candidate).entries
        except FracasError:
            return None
    return None


def verify_log(path: Path | str, *, rules: bool = True, reproduce: bool = True) -> Report:
    """Run the five steps on a log; raises :class:`Unreadable` when it is not a log at all.

    An intact log of this version with derived dice is first checked at once
    by :func:`_reproduced`; ``reproduce=False`` runs the steps one by one
    whatever the log (the tests compare both ways).
    """
    with gc_paused():
        return _verify_log(Path(path), rules=rules, reproduce=reproduce)


class _Diverged(Exception):
    """The re-simulation writes a byte the log does not have."""


class _ComparingFile:
    """Where a :class:`LogWriter` writes when the log is reproduced: each write must be the log's next bytes."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def write(self, chunk: bytes) -> int:
        if not self.data.startswith(chunk, self.pos):
            raise _Diverged
        self.pos += len(chunk)
        return len(chunk)

    def flush(self) -> None:
        return None

    def close(self) -> None:
        return None


def _reproduced(path: Path, data: bytes, started: float) -> Report | None:
    """All five steps at once: the header's fight, re-run, writes these very bytes.

    The scenario and effective rules of the header are run again by the same
    rule code, the dice derived from the revealed seed (once it matches the
    commitment), and the log that run writes is compared byte for byte with
    this one as it is written. Equal bytes prove each step: the lines decode
    in order from the header to the end (structure), each ``h`` is the
    writer's own chain (chain), every face is the one the seed derives
    (dice), every event is the one the rules produce (rules), and every
    ``StateChecked`` digest is that of the re-simulated state (state).

    None when the log is not reproduced, or is one this check does not cover
    (a binary log, an unfinished fight, a fork, entered or scripted dice,
    human decisions, another fracas version): the steps then run one by one
    and name the first problem.
    """
    if not data.startswith(b"{") or not data.endswith(b"\n"):
        return None
    try:
        first = _decoder.decode(data[: data.index(b"\n")])
        last = _decoder.decode(data[data.rfind(b"\n", 0, len(data) - 1) + 1 : -1])
    except msgspec.DecodeError:
        return None
    head, end = first.ev, last.ev
    if (
        type(head) is not E.EncounterStarted
        or type(end) is not E.EncounterEnded
        or head.parent is not None
        or head.fracas_version != _version()
        or head.dice.source != "derived"
        or head.dice.method != METHOD
        or commitment_of(end.seed) != head.dice.commitment
    ):
        return None
    copy = _ComparingFile(data)
    try:
        dice = DerivedDice(end.seed, head.dice.player_seeds)
        enc = encounter_from_header(head, seed=end.seed, dice=dice)
        enc.writer = LogWriter(None, fh=copy)  # type: ignore[arg-type]  # file-like: write, flush, close
        enc.run()
    except Exception:  # a difference (_Diverged), or rules that fail on this header: the steps will tell
        return None
    if copy.pos != len(data):
        return None
    n = enc.seq
    tally = _DiceCount(counts={"derived": dice.counter} if dice.counter else {}, checked=dice.counter)
    steps = [
        StepResult(name="structure", status="ok", detail=f"{n} entries"),
        StepResult(name="chain", status="ok"),
        StepResult(name="dice", status="ok", detail=tally.detail()),
        StepResult(name="rules", status="ok", detail=f"re-simulated with {head.system}"),
        StepResult(name="state", status="ok", detail=_STATE_PROVEN),
    ]
    return Report(
        log=str(path),
        ok=True,
        exit_code=EXIT_OK,
        events=n,
        finished=True,
        system=head.system,
        dice=tally.report(),
        steps=steps,
        problem=None,
        seconds=time.perf_counter() - started,
    )


def _verify_log(path: Path, *, rules: bool, reproduce: bool = True) -> Report:
    started = time.perf_counter()
    path = Path(path)
    data = _read(path)
    if rules and reproduce:
        report = _reproduced(path, data, started)
        if report is not None:
            return report
    loaded = _load(path, data)
    entries = loaded.entries
    head = entries[0].ev
    if not isinstance(head, E.EncounterStarted):
        raise Unreadable(f"{path}: line 1: the first entry is not an EncounterStarted header")
    finished = type(entries[-1].ev) is E.EncounterEnded and loaded.problem is None
    steps: list[StepResult] = []

    def record(name: str, problem: Problem | None, detail: str = "", skipped: bool = False) -> None:
        status = "skipped" if skipped else ("failed" if problem is not None else "ok")
        steps.append(StepResult(name=name, status=status, detail=detail, problem=problem))

    record("structure", check_structure(loaded), f"{len(entries)} entries")
    record("chain", check_chain(loaded))
    tally = _DiceCount()
    parent = _parent_entries(path, head)
    dice_problem = check_dice(entries, head, parent, tally)
    detail = tally.detail()
    if tally.unchecked:
        why = "seed not revealed (unfinished fight)" if not finished else "parent log not found"
        detail += f"; {tally.unchecked} not re-derivable: {why}"
    record("dice", dice_problem, detail)
    rules_complete = False
    if rules:
        try:
            notes: list[str] = []
            rules_problem = check_rules(entries, head, notes)
            record("rules", rules_problem, "; ".join([f"re-simulated with {head.system}", *notes]))
            rules_complete = rules_problem is None and not notes
        except FracasError as exc:  # system not installed, scenario no longer loads
            record("rules", Problem(step="rules", line=1, seq=0, message=str(exc)))
    else:
        record("rules", None, "not asked for", skipped=True)
    if rules_complete:
        # Every re-simulated event equals the logged one, StateChecked digests included, and the
        # re-simulated state is the fold of those same events: a second fold would check nothing new.
        record("state", None, _STATE_PROVEN)
    else:
        record("state", check_state(entries))
    found = [(s.problem.line or 0, k, s.problem) for k, s in enumerate(steps) if s.problem is not None]
    problem = min(found, key=lambda t: (t[0], t[1]))[2] if found else None  # the earliest line, then step order
    return Report(
        log=str(path),
        ok=problem is None,
        exit_code=EXIT_OK if problem is None else EXIT_CHECK_FAILED,
        events=len(entries),
        finished=finished,
        system=head.system,
        dice=tally.report(),
        steps=steps,
        problem=problem,
        seconds=time.perf_counter() - started,
    )


def bench_verify(paths: Sequence[Path | str], *, repeat: int = 5) -> dict[str, float]:
    """Events per second of ``verify_log`` over ``paths`` (best of ``repeat``); for tools/bench.py.

    Measured in CPU time of this process (the work done, single-threaded):
    other jobs on the machine slow the wall clock, not this figure.
    """
    events = 0
    best = float("inf")
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        n = 0
        for p in paths:
            report = verify_log(p)
            if not report.ok:
                raise FracasError(f"{p}: does not verify: {report.problem.text() if report.problem else ''}")
            n += report.events
        best = min(best, time.process_time() - t0)
        events = n
    return {"events": float(events), "seconds": best, "events_per_s": events / best if best else 0.0}


def verify_throughput(
    scenarios: Sequence[Path | str], directory: Path, *, min_events: int = 10_000
) -> dict[str, float]:
    """Write logs of ``scenarios`` (seeds 1, 2, ...) until ``min_events`` events, then time ``verify_log`` on them.

    For tools/bench.py: returns events, seconds (CPU time, best of 5) and events/s.
    """
    from fracas.core.scenario import load_scenario
    from fracas.services.run import run_scenario

    loaded = [load_scenario(s) for s in scenarios]
    if not loaded:
        raise FracasError("verify benchmark: no scenario given")
    directory.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    events = 0
    seed = 0
    while events < min_events:
        seed += 1
        for scenario in loaded:
            path = directory / f"{Path(scenario.path).stem}-{seed}.jsonl"
            events += run_scenario(scenario, seed=str(seed), log_path=path).events
            paths.append(path)
    return bench_verify(paths)
