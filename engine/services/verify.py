"""``fracas verify``: prove a log untouched, or name its first problem.

Six steps, in order (docs/verify.md):

1. **structure**: every line decodes, is byte for byte its canonical
   encoding (no unknown field, no other spacing, order or escape; a binary
   frame is its entry's canonical msgpack), ``seq`` is gapless from 0, the
   header comes first and the end last (a missing end is an unfinished
   fight), every dice source is a known one;
2. **chain**: every ``h`` is ``SHA-256(h_prev || line without h)``;
3. **header**: the header is authenticated, not trusted: the effective
   rules are the system's defaults with the embedded scenario's overrides,
   ``scenario_sha256`` is the hash of the embedded scenario, the version,
   dice method and clock are known values;
4. **dice**: the revealed seed opens the header's commitment (and the one
   given with ``--commitment``), every roll carries the header's one dice
   source, the die indices run on without a gap, every derived die
   re-derives to its recorded face, and a fork's inherited dice are the
   parent's (entered dice are counted, not re-derivable);
5. **rules**: the scenario and effective rules of the header are run again,
   by the same rule code, on the recorded dice (and the logged human
   decisions); every re-simulated event must equal the logged one, field by
   field: kept dice, totals, difficulty and modifiers, margin, damage,
   boxes, movement and initiative;
6. **state**: every ``StateChecked`` digest equals the digest of a fresh
   fold of the log's events up to it.

A problem names the step, the line, the seq, and expected vs found. Exit
codes: 0 intact, 1 a problem found, 2 unreadable.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.decide import DecisionError, NoLoggedDecision, ReplayChooser
from fracas.core.dice import METHOD, DerivedDice, is_secret_seed
from fracas.core.encounter import TICKS_PER_SECOND, header_commitment
from fracas.core.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, FracasError, UnknownSystem
from fracas.core.files import check_input
from fracas.core.log import DECODE_ERRORS, GENESIS, LogWriter, _msgpack_frame_end, encode_entry, gc_paused
from fracas.core.scenario import content_sha256
from fracas.core.state import State, apply_entry, state_digest
from fracas.core.system import FIRST_EDITION, effective_rules, get_system, header_rules, system_names
from fracas.services.resim import (
    DiceExhausted,
    FaceOutOfRange,
    RecordedDice,
    encounter_from_header,
    scenario_from_header,
)

STEPS = ("structure", "chain", "header", "dice", "rules", "state")
#: The fracas versions whose logs this version knows (a header naming another is a header problem).
KNOWN_VERSIONS = ("0.1.0",)
#: What a format-1 log cannot prove, said by verify for every such log (docs/log-format.md, "Evolution").
FORMAT_1_LACKS = (
    "format 1: the commitment is SHA-256 of the seed alone: it binds neither the scenario nor the rules, "
    "and a short seed can be recovered from it",
    "format 1: scenario_sha256 is the hash of a scenario file the log does not hold: "
    "the embedded scenario is not authenticated",
    "format 1: the header does not say whether the seed was a secret",
)
#: What verify says of a log whose faces are not derived (never the words of a proven log).
FACES_NOT_PROVEN = {
    "entered": "faces entered at the table: the rules are re-checked, the faces cannot be proven",
    "scripted": "faces scripted (a test or a worked example): the rules are re-checked, the faces cannot be proven",
}
FACES_PROVEN = "dice proven: every face re-derived from the revealed seed, which opens the commitment"
NOT_SECRET = (
    "seed reproducible, not secret: not drawn by fracas commit (typed with --seed, kept in the scenario, or "
    "drawn without a published commitment), so whoever knew it knew every die in advance "
    "(a table uses fracas commit, docs/verify.md)"
)
_decoder = msgspec.json.Decoder(E.Entry)
_json_encoder = msgspec.json.Encoder(order="deterministic")
_mp_encoder = msgspec.msgpack.Encoder(order="deterministic")
_plain_json = msgspec.json.Encoder()
_plain_mp = msgspec.msgpack.Encoder()
_mp_decoder = msgspec.msgpack.Decoder(E.Entry)
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


#: The note for ``--parent`` given with a log that is no fork: the parent was not looked at.
NOT_A_FORK = "not used: this log is not a fork (its header names no parent)"


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
    #: what the dice of an intact log prove: "proven", "entered", "scripted" or "none" (no dice); "" when failed
    faces: str = ""
    #: guarantees the log lacks or has (format 1, a seed that is not secret, the commitment given)
    notes: list[str] = []
    #: why the log could be neither proven nor convicted (its rule system is not installed here): exit 2
    unverified: str = ""


class Unreadable(FracasError):
    """Not a log at all (exit 2)."""


class _Loaded(msgspec.Struct, kw_only=True):
    entries: list[E.Entry]
    lines: list[bytes]  # each entry's JSON line (re-encoded from a binary log): its hash covers it without ``h``
    problem: Problem | None = None  # first structural problem met while reading
    frames: list[bytes] | None = None  # a binary log's frames, as in the file


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
        return _load_binary(path, data)
    lines = data.split(b"\n")
    torn_end = lines[-1] != b""
    if not torn_end:
        lines.pop()
    entries: list[E.Entry] = []
    if not torn_end:  # the common case: decode every line in one call
        try:
            entries = _decoder.decode_lines(data)
        except DECODE_ERRORS:
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
        except DECODE_ERRORS as exc:
            if i == 0:
                if len(lines) > 1 and _decodes(lines[1]):
                    raise _DamagedHeader(_damaged(exc)) from None
                raise Unreadable(f"{path}: line 1: not a fracas log entry: {exc}") from None
            if i == last and torn_end and type(entries[-1].ev) is E.EncounterEnded:
                msg = (
                    f"{len(raw)} bytes after the EncounterEnded of line {i}: a finished log has nothing after "
                    "its last line (a torn append after the end)"
                )
            elif i == last and torn_end:
                msg = (
                    f"the last line is torn ({len(raw)} bytes, no newline: {exc}): "
                    "an unfinished fight (a crash mid-append, or a truncated file)"
                )
            else:
                msg = f"the line does not decode: {exc}"
            problem = Problem(step="structure", line=i + 1, seq=len(entries), message=msg)
            break
        entries.append(entry)
    if torn_end and problem is None:
        problem = Problem(
            step="structure",
            line=len(entries),
            seq=len(entries) - 1,
            message="the last line has no newline: every line of a log ends with one LF byte",
        )
    return _Loaded(entries=entries, lines=lines[: len(entries)], problem=problem)


class _DamagedHeader(Exception):
    """Line 1 does not decode, but line 2 is a fracas entry: a damaged log (exit 1), not some other file (exit 2)."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


def _damaged(exc: Exception) -> Problem:
    return Problem(
        step="structure",
        line=1,
        seq=0,
        message=f"the header does not decode ({exc}), and the entries after it are a fracas log's: a damaged log",
    )


def _decodes(raw: bytes, *, binary: bool = False) -> bool:
    """Whether ``raw`` is one fracas log entry."""
    try:
        (_mp_decoder if binary else _decoder).decode(raw)
    except DECODE_ERRORS:
        return False
    return True


#: How an entry with seq 1 begins in msgpack, after its map header: the key "seq", then 1.
_SEQ_1 = b"\xa3seq\x01"


def _second_entry_follows(data: bytes) -> bool:
    """Whether a whole entry with seq 1 starts somewhere after the first byte: then the first frame, whose
    length a damaged byte may have changed (so its end is not where the next frame starts), is a damaged header."""
    k = data.find(_SEQ_1, 1)
    while k > 0:
        end = _msgpack_frame_end(data, k - 1)
        if end is not None and end <= len(data) and _decodes(data[k - 1 : end], binary=True):
            return True
        k = data.find(_SEQ_1, k + 1)
    return False


def _load_binary(path: Path, data: bytes) -> _Loaded:
    """Split the file into msgpack frames (fracas.core.log) and decode each; keep the frames as they are."""
    entries: list[E.Entry] = []
    frames: list[bytes] = []
    problem: Problem | None = None
    pos, size = 0, len(data)
    while pos < size:
        n = len(frames) + 1
        end = _msgpack_frame_end(data, pos)
        if end is None or end > size:
            if n == 1:
                if _second_entry_follows(data):  # a flipped length swallowed the rest: the header is damaged
                    raise _DamagedHeader(_damaged(msgspec.DecodeError("the header frame runs past the file")))
                raise Unreadable(f"{path}: not a fracas log (neither JSON Lines nor msgpack frames)")
            problem = Problem(
                step="structure",
                line=n,
                seq=len(entries),
                message=f"the last frame is torn ({size - pos} bytes: truncated msgpack frame): an unfinished fight",
            )
            break
        frame = data[pos:end]
        try:
            entry = _mp_decoder.decode(frame)
        except DECODE_ERRORS as exc:
            if n == 1:
                after = _msgpack_frame_end(data, end) if end < size else None
                if (after is not None and _decodes(data[end:after], binary=True)) or _second_entry_follows(data):
                    raise _DamagedHeader(_damaged(exc)) from None
                raise Unreadable(f"{path}: not a fracas log (neither JSON Lines nor msgpack frames)") from None
            problem = Problem(step="structure", line=n, seq=len(entries), message=f"frame {n} does not decode: {exc}")
            break
        entries.append(entry)
        frames.append(frame)
        pos = end
    if not entries:
        raise Unreadable(f"{path}: empty file: not a fracas log")
    lines = [encode_entry(e.seq, e.round, e.count, e.sec, e.ev, GENESIS)[0] for e in entries]
    return _Loaded(entries=entries, lines=lines, problem=problem, frames=frames)


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
    known = _known_sources_problem(entries)
    canonical = _canonical_problem(loaded)
    found = [p for p in (known, canonical, loaded.problem) if p is not None]
    if found:
        return min(found, key=lambda p: p.line or 0)
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


def _known_sources_problem(entries: Sequence[E.Entry]) -> Problem | None:
    """Every dice source, the header's and each roll's, is one of :data:`fracas.core.events.DICE_SOURCES`."""
    head = entries[0].ev
    if isinstance(head, E.EncounterStarted):
        if head.format not in E.FORMATS:
            return Problem(
                step="structure",
                line=1,
                seq=0,
                message=f"unknown log format {head.format}: this fracas reads formats {', '.join(map(str, E.FORMATS))}",
                expected=" or ".join(map(str, E.FORMATS)),
                found=str(head.format),
            )
        if head.dice.source not in E.DICE_SOURCES:
            return Problem(
                step="structure",
                line=1,
                seq=0,
                message=f"dice.source: unknown dice source {head.dice.source!r}",
                expected=" | ".join(E.DICE_SOURCES),
                found=head.dice.source,
            )
    for i, entry in enumerate(entries):
        ev = entry.ev
        if type(ev) is E.DiceRolled and ev.source not in E.DICE_SOURCES:
            return Problem(
                step="structure",
                line=i + 1,
                seq=entry.seq,
                message=f"DiceRolled.source: unknown dice source {ev.source!r}",
                expected=" | ".join(E.DICE_SOURCES),
                found=ev.source,
                rule=ev.rule,
            )
    return None


def _format1_header(entry: E.Entry) -> dict[str, Any]:
    """A format-1 header entry as format 1 wrote it: without the fields format 2 added to the header."""
    out: dict[str, Any] = msgspec.to_builtins(entry, order="deterministic")
    ev = out["ev"]
    dice = ev["dice"]
    if dice.get("salt") == "" and dice.get("secret") is False:
        del dice["salt"], dice["secret"]
    if isinstance(ev.get("parent"), dict) and ev["parent"].get("fork_die") == -1:
        del ev["parent"]["fork_die"]  # logs written before ForkOrigin.fork_die (it defaults to -1)
    return out


def _canonical_problem(loaded: _Loaded) -> Problem | None:
    """Every line (or frame) is byte for byte the canonical encoding of the entry it decodes to.

    A decoder ignores what it does not know and accepts any spacing, key
    order or escape; re-encoding the decoded entry and comparing bytes
    refuses all of them, so the chain covers nothing that no check reads.
    """
    entries = loaded.entries
    if not entries:
        return None
    head = entries[0].ev
    old_header = isinstance(head, E.EncounterStarted) and head.format == 1
    frames = loaded.frames
    if frames is None:
        encode = _json_encoder.encode
        for i, (entry, raw) in enumerate(zip(entries, loaded.lines, strict=False)):
            want = _plain_json.encode(_format1_header(entry)) if i == 0 and old_header else encode(entry)
            if raw != want:
                return _not_canonical(i, entry, raw, want, "line")
        return None
    encode = _mp_encoder.encode
    for i, (entry, frame) in enumerate(zip(entries, frames, strict=False)):
        want = _plain_mp.encode(_format1_header(entry)) if i == 0 and old_header else encode(entry)
        if frame != want:
            return _not_canonical(i, entry, frame, want, "frame")
    return None


def _not_canonical(i: int, entry: E.Entry, raw: bytes, want: bytes, what: str) -> Problem:
    """Name what is not canonical: an unknown field when there is one, else the first byte that differs."""
    unknown = _unknown_field(raw, what == "frame")
    if unknown is not None:
        message = f"unknown field {unknown}: no check reads it, the log format has no such field"
        return Problem(step="structure", line=i + 1, seq=entry.seq, message=message, found=unknown)
    at = next((k for k, (a, b) in enumerate(zip(raw, want, strict=False)) if a != b), min(len(raw), len(want)))
    message = (
        f"the {what} is not in canonical form (docs/log-format.md: no spaces or CR, keys in order, "
        f"no needless escapes): it differs from the canonical encoding at byte {at}"
    )
    return Problem(
        step="structure",
        line=i + 1,
        seq=entry.seq,
        message=message,
        expected=repr(want[max(0, at - 20) : at + 20])[1:],
        found=repr(raw[max(0, at - 20) : at + 20])[1:],
    )


def _unknown_field(raw: bytes, binary: bool) -> str | None:
    """``envelope.KEY`` or ``EventType.KEY`` of the first key a line has and its struct does not."""
    try:
        obj = msgspec.msgpack.decode(raw) if binary else json.loads(raw)
    except (ValueError, msgspec.DecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    for key in obj:
        if key not in E.Entry.__struct_fields__:
            return f"envelope.{key}"
    ev = obj.get("ev")
    kind = _EVENT_BY_TAG.get(ev.get("type", "")) if isinstance(ev, dict) else None
    if kind is None or not isinstance(ev, dict):
        return None
    return _unknown_in(ev, kind, kind.__name__, skip=("type",))


def _unknown_in(obj: dict[str, Any], kind: Any, where: str, skip: tuple[str, ...] = ()) -> str | None:
    fields = kind.__struct_fields__
    for key, value in obj.items():
        if key in skip:
            continue
        if key not in fields:
            return f"{where}.{key}"
        sub = _STRUCT_FIELDS.get((kind, key))
        if sub is not None and isinstance(value, dict):
            found = _unknown_in(value, sub, f"{where}.{key}")
            if found:
                return found
        if sub is not None and isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    found = _unknown_in(item, sub, f"{where}.{key}[]")
                    if found:
                        return found
    return None


_EVENT_BY_TAG: dict[str, Any] = {t.__name__: t for t in E.EVENT_TYPES}
#: struct-typed fields of events (their own unknown keys are named too)
_STRUCT_FIELDS: dict[tuple[Any, str], Any] = {
    (E.EncounterStarted, "dice"): E.DiceCommitment,
    (E.EncounterStarted, "parent"): E.ForkOrigin,
    (E.ActorEntered, "monitors"): E.MonitorSpec,
    (E.SkillTested, "modifiers"): E.Modifier,
    (E.SkillTested, "pool_modifiers"): E.Modifier,
    (E.DamageRolled, "modifiers"): E.Modifier,
    (E.ThresholdComputed, "parts"): E.Modifier,
}


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


def check_header(head: E.EncounterStarted) -> Problem | None:
    """The header is authenticated, not trusted: every field a check can recompute, recomputed.

    The effective rules are the system's defaults with the embedded
    scenario's ``[rules]`` overrides; ``scenario_sha256`` is the SHA-256 of the
    embedded scenario's canonical JSON (format 2); a named scenario's
    ``scenario_name`` is its name; the fracas version, the dice method and
    the clock are known values. What cannot be recomputed from the log (the
    seed, the salt, an unnamed scenario's name) is bound by the commitment.
    """

    def wrong(field: str, expected: Any, found: Any, why: str = "") -> Problem:
        exp, got = _show(expected), _show(found)
        message = f"header field {field}: {why or f'expected {exp}, the header has {got}'}"
        return Problem(step="header", line=1, seq=0, message=message, expected=exp, found=got)

    from fracas.core.version import __version__

    versions = (*KNOWN_VERSIONS, __version__)
    if head.fracas_version not in versions:
        return wrong("fracas_version", " | ".join(versions), head.fracas_version, "not a fracas version")
    if head.dice.method != METHOD:
        return wrong("dice.method", METHOD, head.dice.method, "unknown dice method")
    try:
        system, loaded = scenario_from_header(head)
    except FracasError as exc:
        return Problem(step="header", line=1, seq=0, message=f"header field scenario: {exc}")
    if head.ticks_per_second != TICKS_PER_SECOND:
        return wrong("ticks_per_second", TICKS_PER_SECOND, head.ticks_per_second)
    if head.round_seconds != system.round_seconds:
        return wrong("round_seconds", system.round_seconds, head.round_seconds)
    if head.round_ticks != system.round_seconds * TICKS_PER_SECOND:
        return wrong("round_ticks", system.round_seconds * TICKS_PER_SECOND, head.round_ticks)
    rules_problem = _rules_problem(head)
    if rules_problem is not None:
        return rules_problem
    name = loaded.spec.name
    if name and head.scenario_name != name:
        return wrong("scenario_name", name, head.scenario_name, f"the embedded scenario is named {name!r}")
    if head.format >= 2:
        digest = content_sha256(head.scenario)
        if head.scenario_sha256 != digest:
            return wrong(
                "scenario_sha256",
                digest,
                head.scenario_sha256,
                "not the SHA-256 of the embedded scenario's canonical JSON",
            )
        if head.parent is not None and ("/" in head.parent.parent_log or "\\" in head.parent.parent_log):
            return wrong("parent.parent_log", "a file name", head.parent.parent_log, "a path, not the parent's name")
        if head.dice.secret and not is_secret_seed("0" * 64, head.dice.salt):
            return wrong("dice.salt", "32 hex digits", head.dice.salt, "a secret seed's commitment has a 128-bit salt")
    return None


def _rules_problem(head: E.EncounterStarted) -> Problem | None:
    """The header's rules are the system's defaults with the embedded scenario's ``[rules]`` overrides."""
    overrides = head.scenario.get("rules", {}) if isinstance(head.scenario, dict) else {}
    # format 1 came before rules editions: a header without an edition played edition 1; a header of an
    # older edition than this version's default played that edition (docs/rules-notes.md, "Rules editions")
    named = head.rules.get("edition")
    edition = named if type(named) is int else FIRST_EDITION if head.format == 1 and named is None else None
    try:
        want, older = _expected_rules(head.system, _json_encoder.encode(overrides), edition)
    except FracasError as exc:
        return Problem(step="header", line=1, seq=0, message=f"header field system: {exc}")
    except (msgspec.ValidationError, msgspec.DecodeError, TypeError) as exc:
        return Problem(step="header", line=1, seq=0, message=f"header field scenario.rules: {exc}")
    if older:  # rules fields added since that edition take their defaults, and its header does not name them
        want = {k: v for k, v in want.items() if k in head.rules}
    if want == head.rules:
        return None
    for key in sorted(set(want) | set(head.rules)):
        if want.get(key, "absent") != head.rules.get(key, "absent"):
            exp, got = _show(want.get(key, "absent")), _show(head.rules.get(key, "absent"))
            return Problem(
                step="header",
                line=1,
                seq=0,
                message=(
                    f"header field rules.{key}: the effective rules must be the system's defaults with the "
                    f"embedded scenario's overrides: expected {exp}, the header has {got}"
                ),
                expected=exp,
                found=got,
            )
    return None


@functools.lru_cache(maxsize=64)
def _expected_rules(system_name: str, overrides: bytes, edition: int | None) -> tuple[dict[str, Any], bool]:
    """The header rules of a system's defaults with these overrides, and whether ``edition`` (the one the
    header played) is older than the default (cached: a batch of logs shares them)."""
    system = get_system(system_name)
    raw = msgspec.json.decode(overrides)
    if not isinstance(raw, dict):
        raise TypeError(f"[rules] must be a table, found {type(raw).__name__}")
    current = msgspec.to_builtins(system.rules_type()).get("edition")
    older = type(current) is int and edition is not None and FIRST_EDITION <= edition < current
    if older:
        raw.setdefault("edition", edition)
    return header_rules(effective_rules(system, raw)), older


def _notes(head: E.EncounterStarted, commitment: str | None, parent: Path | None = None) -> list[str]:
    """What the report says the log proves beyond intact, or lacks; and a ``parent`` given to no fork."""
    unused = [] if parent is None or head.parent is not None else [f"--parent {parent}: {NOT_A_FORK}"]
    if head.format == 1:
        return [*FORMAT_1_LACKS, *unused]
    notes: list[str] = unused
    if head.dice.secret:
        notes.append("seed: a 256-bit secret drawn by fracas commit, bound by the commitment before play")
    elif head.dice.source == "derived":
        notes.append(NOT_SECRET)
    if commitment is not None:
        notes.append(f"played from the commitment given: {commitment}")
    return notes


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


def expected_commitment(head: E.EncounterStarted, seed: str) -> str:
    """The commitment a header must hold for a revealed seed (format 2: bound to scenario, rules, method, source)."""
    return header_commitment(head, seed)


def fork_die_of(head: E.EncounterStarted, entries: Sequence[E.Entry]) -> int:
    """How many of a fork's dice are its parent's (logs written before ForkOrigin.fork_die: those up to fork_seq)."""
    if head.parent is None:
        return 0
    if head.parent.fork_die >= 0:
        return head.parent.fork_die
    fork_seq = head.parent.fork_seq
    return sum(len(e.ev.faces) for e in entries if type(e.ev) is E.DiceRolled and e.seq <= fork_seq)


def check_dice(
    entries: Sequence[E.Entry],
    head: E.EncounterStarted,
    parent: Sequence[E.Entry] | None,
    tally: _DiceCount,
    *,
    parent_missing: str = "the parent log is not given",
    commitment: str | None = None,
) -> Problem | None:
    """Commitment, one dice source, die indices, every derived face re-derived, inherited dice proven."""
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
    if commitment is not None and commitment.strip().lower() != head.dice.commitment:
        return Problem(
            step="dice",
            line=1,
            seq=0,
            message="the log was not played from the commitment given: its header commits to another",
            expected=commitment.strip().lower(),
            found=head.dice.commitment,
        )
    key: DerivedDice | None = None
    # A seed that does not open the commitment is named at the last line unless a roll before it is wrong.
    late: Problem | None = None
    if isinstance(end, E.EncounterEnded):
        found = expected_commitment(head, end.seed)
        n = len(entries)
        if found != head.dice.commitment:
            what = (
                "SHA-256 of the revealed seed differs"
                if head.format == 1
                else "the commitment of the salt, the revealed seed, the scenario, the rules, the dice method and "
                "source differs"
            )
            late = Problem(
                step="dice",
                line=n,
                seq=entries[-1].seq,
                message=f"the revealed seed {end.seed!r} does not open the commitment of line 1: {what}",
                expected=head.dice.commitment,
                found=found,
            )
        elif head.dice.secret and not is_secret_seed(end.seed, head.dice.salt):
            late = Problem(
                step="dice",
                line=n,
                seq=entries[-1].seq,
                message="the header says the seed is a fracas commit secret; the revealed seed is not 256 bits",
                expected="64 hex digits",
                found=end.seed,
            )
        else:
            key = DerivedDice(end.seed, head.dice.player_seeds)
    parent_key: DerivedDice | None = None
    parent_faces: list[int] = []
    parent_source = head.dice.source
    # Dice drawn before the fork point's event was written are the parent's (ForkOrigin.fork_die).
    fork_die = fork_die_of(head, entries)
    if head.parent is not None and fork_die > 0 and not parent:
        inherited = sum(
            min(len(e.ev.faces), max(0, fork_die - e.ev.first)) for e in entries if type(e.ev) is E.DiceRolled
        )
        return Problem(
            step="dice",
            line=1,
            seq=0,
            message=f"cannot prove {inherited} inherited dice: {parent_missing}",
            expected=f"the parent log {head.parent.parent_log} (SHA-256 {head.parent.parent_sha256})",
            found="no such parent",
        )
    if parent:
        phead = parent[0].ev
        pend = parent[-1].ev
        assert isinstance(phead, E.EncounterStarted) and isinstance(pend, E.EncounterEnded)
        parent_source = phead.dice.source
        if phead.dice.source == "derived":
            parent_key = DerivedDice(pend.seed, phead.dice.player_seeds)
        for e in parent:
            if type(e.ev) is E.DiceRolled:
                parent_faces.extend(e.ev.faces)
    if key is not None and head.dice.source == "derived" and _all_rederived(entries, key, fork_die, tally):
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
            and ev.source == "derived" == head.dice.source
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
        declared = head.dice.source if counter + n > fork_die else parent_source
        if source != declared:
            return Problem(
                **where,
                message=(
                    f"a roll labelled {source!r} in a log whose header declares {declared!r} dice: "
                    "one log, one dice source"
                ),
                expected=declared,
                found=source,
            )
        counts[source] = counts.get(source, 0) + n
        for j, face in enumerate(ev.faces):
            k = counter + j
            use_key = key
            if k < fork_die:
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
    return late


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
        if seq == 0:  # the header step authenticates the header; its envelope is compared here
            ev = logged.ev
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
        if not finished and all(type(e.ev) is E.DiceRolled for e in entries[seq:]):
            return None  # cut between the DiceRolled events of one draw (a Z-Corps roll: plain dice, then Joker)
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


class _Parent(msgspec.Struct, kw_only=True):
    """A fork's parent log, found and proven, or why not."""

    entries: list[E.Entry] | None = None
    missing: str = ""  # why the inherited dice cannot be proven
    problem: Problem | None = None  # the fork disagrees with a proven parent


def find_parent(path: Path, head: E.EncounterStarted, given: Path | None = None) -> _Parent:
    """The parent of a fork (docs/log-format.md, "Forks"), proven, or why the inherited dice cannot be.

    The parent is ``given`` (``--parent PATH``), else the file named
    ``parent.parent_log`` in the fork's folder (format 1 logs: first the path
    the header names). It must have the header's SHA-256 and verify itself;
    the fork must have its scenario, rules and events up to ``fork_seq``, and
    ``fork_die`` must be the number of dice it had drawn by then.
    """
    origin = head.parent
    assert origin is not None
    name = Path(origin.parent_log.replace("\\", "/")).name
    candidates = [given] if given is not None else [path.parent / name]
    if given is None and head.format == 1:
        candidates.insert(0, Path(origin.parent_log))
    tried: list[str] = []
    for candidate in candidates:
        try:  # a regular file only: the header's name is the log's word (a FIFO there would block, a NUL crash)
            data = check_input(candidate, "parent log").read_bytes()
        except FracasError as exc:  # missing, not a regular file, not a file name at all
            tried.append(str(exc))
            continue
        except OSError as exc:  # there, but unreadable
            tried.append(f"{candidate}: {exc.strerror or exc}")
            continue
        if hashlib.sha256(data).hexdigest() != origin.parent_sha256:
            tried.append(f"{candidate} is not the parent (its SHA-256 is not the header's parent_sha256)")
            continue
        report = _verify_log(candidate, rules=True)
        if not report.ok:
            why = report.problem.text() if report.problem else "it does not verify"
            return _Parent(missing=f"the parent log {candidate} does not verify ({why})")
        entries = _load(candidate, data).entries
        problem = _fork_agrees(head, entries)
        return _Parent(entries=entries, problem=problem)
    hint = "" if given is not None else " (give it with --parent PATH)"
    return _Parent(missing=f"{'; '.join(tried)}{hint}")


def _fork_agrees(head: E.EncounterStarted, parent: list[E.Entry]) -> Problem | None:
    """The fork's header has its parent's fight, and fork_die is the parent's dice count at fork_seq."""
    from fracas.services.fork import dice_before

    phead = parent[0].ev
    assert isinstance(phead, E.EncounterStarted) and head.parent is not None
    for field in ("system", "rules", "scenario", "scenario_name", "round_seconds", "ticks_per_second"):
        if getattr(head, field) != getattr(phead, field):
            return Problem(
                step="dice",
                line=1,
                seq=0,
                message=f"header field {field}: a fork plays its parent's fight; the parent's {field} differs",
            )
    fork_seq = head.parent.fork_seq
    if not 0 < fork_seq <= parent[-1].seq:
        return Problem(step="dice", line=1, seq=0, message=f"fork_seq {fork_seq} is not a seq of the parent log")
    try:
        want = dice_before(phead, parent, fork_seq)
    except FracasError as exc:
        return Problem(step="dice", line=1, seq=0, message=f"the parent log does not replay to fork_seq: {exc}")
    if head.parent.fork_die >= 0 and head.parent.fork_die != want:
        return Problem(
            step="dice",
            line=1,
            seq=0,
            message=f"fork_die: the parent had drawn {want} dice when it wrote seq {fork_seq}",
            expected=str(want),
            found=str(head.parent.fork_die),
        )
    return None


def _fork_events_problem(entries: Sequence[E.Entry], parent: Sequence[E.Entry], fork_seq: int) -> Problem | None:
    """Up to the fork point, a fork's events are its parent's, envelope included."""
    for i in range(1, min(fork_seq + 1, len(entries), len(parent))):
        a, b = entries[i], parent[i]
        if (a.seq, a.round, a.count, a.sec, a.ev) != (b.seq, b.round, b.count, b.sec, b.ev):
            return Problem(
                step="dice",
                line=i + 1,
                seq=a.seq,
                message=f"up to fork_seq {fork_seq} a fork's events are its parent's; the parent has another here",
                expected=_show(b.ev),
                found=_show(a.ev),
            )
    return None


def verify_log(
    path: Path | str,
    *,
    rules: bool = True,
    reproduce: bool = True,
    commitment: str | None = None,
    parent: Path | str | None = None,
) -> Report:
    """Run the six steps on a log; raises :class:`Unreadable` when it is not a log at all.

    An intact log of this version with derived dice is first checked at once
    by :func:`_reproduced`; ``reproduce=False`` runs the steps one by one
    whatever the log (the tests compare both ways). ``commitment``: the
    commitment published before play, which the header must hold;
    ``parent``: a fork's parent log, when it is not beside the fork.
    """
    with gc_paused():
        return _verify_log(
            Path(path),
            rules=rules,
            reproduce=reproduce,
            commitment=commitment,
            parent=Path(parent) if parent is not None else None,
        )


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


class _BatchWriter(LogWriter):
    """The writer of a reproduction: the lines an action flushes are compared a batch of actions at a time.

    The same bytes reach the comparing file in the same order, in fewer writes (a horde flushes twelve
    thousand actions); a difference is still found, a few actions later at most, and the whole log is
    compared: the run's end closes the writer, which writes what is left.
    """

    BATCH = 4096  # lines

    def flush(self) -> None:
        if len(self._pending) >= self.BATCH:
            super().flush()

    def close(self) -> None:
        super().flush()
        super().close()


def _reproduced(
    path: Path, data: bytes, started: float, commitment: str | None, parent: Path | None = None
) -> Report | None:
    """All six steps at once: the header's fight, re-run, writes these very bytes.

    The header is authenticated first (:func:`check_header`). The scenario
    and effective rules of the header are run again by the same rule code,
    the dice derived from the revealed seed, and the log that run writes
    (its header's commitment recomputed from the seed, the salt, the
    scenario and the rules) is compared byte for byte with this one as it
    is written. Equal bytes prove each step: the lines decode in order from
    the header to the end and are canonical (structure), each ``h`` is the
    writer's own chain (chain), the seed opens the commitment and every face
    and every roll's source is the one the seed derives (dice), every event
    is the one the rules produce (rules), and every ``StateChecked`` digest
    is that of the re-simulated state (state).

    None when the log is not reproduced, or is one this check does not cover
    (a binary log, an unfinished fight, a fork, entered or scripted dice,
    human decisions, another fracas version or format): the steps then run
    one by one and name the first problem.
    """
    if not data.startswith(b"{") or not data.endswith(b"\n"):
        return None
    try:
        first = _decoder.decode(data[: data.index(b"\n")])
        last = _decoder.decode(data[data.rfind(b"\n", 0, len(data) - 1) + 1 : -1])
    except DECODE_ERRORS:
        return None
    head, end = first.ev, last.ev
    if (
        type(head) is not E.EncounterStarted
        or type(end) is not E.EncounterEnded
        or head.format != E.FORMAT_VERSION
        or head.parent is not None
        or head.fracas_version != _version()
        or head.dice.source != "derived"
        or head.dice.method != METHOD
        or (commitment is not None and commitment.strip().lower() != head.dice.commitment)
        or (head.dice.secret and not is_secret_seed(end.seed, head.dice.salt))
        # the reproduced header recomputes every other header field; the rules it copies are checked here
        or _rules_problem(head) is not None
    ):
        return None
    copy = _ComparingFile(data)
    try:
        dice = DerivedDice(end.seed, head.dice.player_seeds)
        enc = encounter_from_header(head, seed=end.seed, dice=dice)
        enc.writer = _BatchWriter(None, fh=copy)  # type: ignore[arg-type]  # file-like: write, flush, close
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
        StepResult(name="header", status="ok", detail=_HEADER_OK),
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
        faces=_faces(tally),
        notes=_notes(head, commitment, parent),
    )


_HEADER_OK = "rules, scenario hash, version, dice method and clock recomputed"


def _damaged_report(path: Path, problem: Problem, started: float) -> Report:
    """The report of a log whose header does not decode: the structure step fails, the others have nothing to check."""
    steps = [StepResult(name="structure", status="failed", problem=problem)]
    steps += [StepResult(name=name, status="skipped", detail="no header to check against") for name in STEPS[1:]]
    return Report(
        log=str(path),
        ok=False,
        exit_code=EXIT_CHECK_FAILED,
        events=0,
        finished=False,
        steps=steps,
        problem=problem,
        seconds=time.perf_counter() - started,
    )


def _missing_system(name: str) -> str:
    """Why the log's rule system cannot be loaded here, or "" when it can."""
    try:
        get_system(name)
    except UnknownSystem:
        installed = ", ".join(system_names()) or "none"
        return (
            f"the rule system {name!r} is not installed here (installed: {installed}): install the package"
            " that provides it, then verify again to check the header and re-simulate the rules"
        )
    return ""


def _faces(tally: _DiceCount) -> str:
    """What an intact log's dice prove: the weakest source among its dice."""
    counts = tally.counts
    for source in ("entered", "scripted"):
        if counts.get(source):
            return source
    if counts.get("derived"):
        return "proven" if tally.checked == counts["derived"] else "derived, not all re-derived"
    return "none"


def _verify_log(
    path: Path, *, rules: bool, reproduce: bool = True, commitment: str | None = None, parent: Path | None = None
) -> Report:
    started = time.perf_counter()
    path = Path(path)
    data = _read(path)
    if rules and reproduce:
        report = _reproduced(path, data, started, commitment, parent)
        if report is not None:
            return report
    try:
        loaded = _load(path, data)
    except _DamagedHeader as damaged:
        return _damaged_report(path, damaged.problem, started)
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
    missing = _missing_system(head.system)
    if missing:  # not evidence against the log: the steps that need the system's code are not run
        record("header", None, "needs the rule system", skipped=True)
    else:
        header_problem = check_header(head)
        record("header", header_problem, "" if header_problem else _HEADER_OK)
    tally = _DiceCount()
    found_parent = _Parent()
    if head.parent is not None:
        found_parent = find_parent(path, head, parent)
    dice_problem = check_dice(
        entries, head, found_parent.entries, tally, parent_missing=found_parent.missing, commitment=commitment
    )
    if dice_problem is None and found_parent.problem is not None:
        dice_problem = found_parent.problem
    if dice_problem is None and found_parent.entries and head.parent is not None:
        dice_problem = _fork_events_problem(entries, found_parent.entries, head.parent.fork_seq)
    detail = tally.detail()
    if tally.unchecked:
        detail += f"; {tally.unchecked} not re-derivable: seed not revealed (unfinished fight)"
    record("dice", dice_problem, detail)
    rules_complete = False
    if missing:
        record("rules", None, "needs the rule system", skipped=True)
    elif rules:
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
        ok=problem is None and not missing,
        exit_code=EXIT_CHECK_FAILED if problem else EXIT_BAD_INPUT if missing else EXIT_OK,
        events=len(entries),
        finished=finished,
        system=head.system,
        dice=tally.report(),
        steps=steps,
        problem=problem,
        seconds=time.perf_counter() - started,
        faces=_faces(tally) if problem is None and not missing else "",
        notes=_notes(head, commitment if problem is None else None, parent),
        unverified=missing if problem is None else "",
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
