"""The encounter log: canonical JSON Lines (or msgpack frames) with a hash chain.

A line is the canonical JSON of an :class:`~fracas.core.events.Entry` with its
hash-chain value ``h`` as the last key. The chained bytes of entry ``i`` are
the line without ``,"h":"..."``, and

    h_i = SHA-256(h_{i-1} || entry bytes),   h_{-1} = 32 zero bytes.

Canonical means: struct fields in declaration order, dict keys sorted, no
whitespace, shortest float form (msgspec ``order="deterministic"``), so equal
logs are equal bytes. The binary form stores the same entries (with the same
``h``) as consecutive msgpack objects; the chain is always computed over the
canonical JSON bytes, so both forms verify the same way.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import stat
from binascii import hexlify
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import msgspec
from fracas.core.events import AnyEvent, Entry
from fracas.core.files import open_exclusive, write_atomic

GENESIS = bytes(32)
_sha256 = hashlib.sha256
_H_KEY = b',"h":"'

_json_encoder = msgspec.json.Encoder(order="deterministic")
_entry_decoder = msgspec.json.Decoder(Entry)
#: What decoding a damaged line or frame raises: msgspec before 0.23 lets a string that is not
#: UTF-8 escape as UnicodeDecodeError instead of a DecodeError.
DECODE_ERRORS = (msgspec.DecodeError, UnicodeDecodeError)
_mp_encoder = msgspec.msgpack.Encoder(order="deterministic")
_mp_decoder = msgspec.msgpack.Decoder(Entry)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a whole log is decoded and folded.

    Events hold no reference cycles, but every list inside them is tracked, so
    the collector would otherwise run many times over objects it cannot free.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class LogError(Exception):
    """A log that cannot be read: names the file, the line and the seq."""


def encode_entry(seq: int, rnd: int, count: int, sec: float, ev: AnyEvent, prev: bytes) -> tuple[bytes, bytes]:
    """Return (line without newline, raw hash) for one entry chained after ``prev``."""
    chained, digest = _chain_entry(seq, rnd, count, sec, ev, prev)
    return b'%s,"h":"%s"}' % (chained[:-1], hexlify(digest)), digest


class _EntryWithoutHash(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """:class:`Entry` without ``h``: its canonical JSON is exactly the bytes the entry's hash covers."""

    seq: int
    round: int
    count: int
    #: a float, or the float's JSON already encoded (msgspec.Raw: LogWriter encodes each clock reading once)
    sec: float | msgspec.Raw
    ev: AnyEvent


assert (*_EntryWithoutHash.__struct_fields__, "h") == Entry.__struct_fields__, "Entry's fields changed"


def _chain_entry(seq: int, rnd: int, count: int, sec: float, ev: AnyEvent, prev: bytes) -> tuple[bytes, bytes]:
    """(the bytes the entry's hash covers, the raw hash) for one entry chained after ``prev``."""
    chained = _json_encoder.encode(_EntryWithoutHash(seq=seq, round=rnd, count=count, sec=sec, ev=ev))
    return chained, _sha256(prev + chained).digest()


def chained_bytes(line: bytes) -> bytes:
    """The bytes a line's hash covers: the line without its ``h`` key."""
    cut = line.rindex(_H_KEY)
    return line[:cut] + b"}"


def canonical_line(entry: Entry) -> bytes:
    """Re-encode a decoded entry canonically (to check a line is canonical)."""
    return _json_encoder.encode(entry)


class LogWriter:
    """Appends entries to a JSONL or binary log; flushed by the caller per action."""

    def __init__(self, path: Path | None, *, binary: bool = False, fh: IO[bytes] | None = None) -> None:
        """Write to ``path`` (created), or to the open binary file ``fh``; with neither, keep nothing."""
        self.path = path
        self.binary = binary
        self.prev = GENESIS
        self.bytes_written = 0
        self._fh: IO[bytes] | None = fh
        if path is not None:  # the caller checked --force and the inputs (fracas.core.files)
            self._fh = open_exclusive(path, force=True)
        self._pending: list[bytes] = []
        #: the last clock reading written and its JSON: many events share one (a round's initiatives, a group's
        #: roll-offs, a move's events), and the shortest float form costs more than a look
        self._sec = 0.0
        self._sec_json = msgspec.Raw(b"0.0")

    def _sec_raw(self, sec: float) -> msgspec.Raw:
        """``sec``'s canonical JSON, as the encoder writes it, kept for the next event at the same time."""
        if sec != self._sec or sec == 0.0:  # a zero is encoded each time (0.0 and -0.0 are equal, not alike)
            self._sec = sec
            self._sec_json = msgspec.Raw(_json_encoder.encode(sec))
        return self._sec_json

    @property
    def keeps_nothing(self) -> bool:
        """Whether this writer has no file, nor will have one: each append and flush does nothing."""
        return self._fh is None

    def append(self, seq: int, rnd: int, count: int, sec: float, ev: AnyEvent) -> None:
        if self._fh is None:  # no log kept (batch runs): nothing to encode or chain
            return
        # _chain_entry, written out (this runs for every event), with the clock's JSON kept
        if sec != self._sec or sec == 0.0:  # _sec_raw, written out
            self._sec = sec
            self._sec_json = msgspec.Raw(_json_encoder.encode(sec))
        chained = _json_encoder.encode(_EntryWithoutHash(seq=seq, round=rnd, count=count, sec=self._sec_json, ev=ev))
        self.prev = digest = _sha256(self.prev + chained).digest()
        if self.binary:
            self._pending.append(
                _mp_encoder.encode(Entry(seq=seq, round=rnd, count=count, sec=sec, ev=ev, h=digest.hex()))
            )
        else:
            # the line is the chained bytes with the hash as the last key (module docstring)
            self._pending.append(b'%s,"h":"%s"}\n' % (chained[:-1], hexlify(digest)))

    def append_each(self, seq: int, rnd: int, count: int, sec: float, events: Sequence[AnyEvent]) -> None:
        """:meth:`append` of each event in turn, seq after seq, all at one clock reading (``seq`` is the first's).

        The very lines :meth:`append` writes, with the chain kept in a local between events (a tie roll-off
        group or a round's initiatives are hundreds of events at one tick); tests/unit/test_per_event_path.py
        compares both. A writer that appends otherwise (binary, a subclass's own append) appends each.
        """
        if self.binary or type(self).append is not LogWriter.append:  # a subclass's append is heard, file or not
            for ev in events:
                self.append(seq, rnd, count, sec, ev)
                seq += 1
            return
        if self._fh is None:
            return
        prev = self.prev
        pending = self._pending.append
        encode = _json_encoder.encode
        raw = self._sec_raw(sec)
        for ev in events:
            chained = encode(_EntryWithoutHash(seq=seq, round=rnd, count=count, sec=raw, ev=ev))
            prev = _sha256(prev + chained).digest()
            pending(b'%s,"h":"%s"}\n' % (chained[:-1], hexlify(prev)))
            seq += 1
        self.prev = prev

    def flush(self) -> None:
        """Write what is pending in one system call (a crash loses at most one action)."""
        if self._pending and self._fh is not None:
            data = b"".join(self._pending)
            self._fh.write(data)
            self._fh.flush()
            self.bytes_written += len(data)
        self._pending.clear()

    def close(self) -> None:
        self.flush()
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class TornLine(msgspec.Struct, frozen=True):
    """A last line that does not decode: a crash mid-append."""

    line: int
    length: int
    error: str


class ReadResult(msgspec.Struct):
    entries: list[Entry]
    torn: TornLine | None = None


def is_binary(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(1)
    return bool(head) and head != b"{"


def read_log(path: Path) -> ReadResult:
    """Read a whole log; a torn last line is reported, not fatal."""
    entries: list[Entry] = []
    torn: TornLine | None = None
    for item in iter_log(path):
        if isinstance(item, TornLine):
            torn = item
        else:
            entries.append(item)
    return ReadResult(entries=entries, torn=torn)


def iter_log(path: Path, chunk_size: int = 1 << 22, *, entry_type: Any = Entry) -> Iterator[Entry | TornLine]:
    """Stream entries in constant memory; the last item may be a TornLine.

    A line that fails to decode anywhere but at the end is corruption, not a
    torn append, and raises :class:`LogError` naming the line. ``entry_type``
    may be a lighter Struct with the same shape (see fracas.core.state.ProjectionEntry).
    """
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block, /dev/zero never end
            raise LogError(f"{path}: not a regular file: fracas reads only regular files")
        if is_binary(path):
            yield from _iter_binary(path, _decoders(entry_type)[1])
        else:
            yield from _iter_jsonl(path, chunk_size, _decoders(entry_type)[0])
    except OSError as exc:
        raise LogError(f"{path}: cannot read log: {exc.strerror or exc}") from None


_DECODERS: dict[Any, tuple[Any, Any]] = {Entry: (_entry_decoder, _mp_decoder)}


def _decoders(entry_type: Any) -> tuple[Any, Any]:
    if entry_type not in _DECODERS:
        _DECODERS[entry_type] = (msgspec.json.Decoder(entry_type), msgspec.msgpack.Decoder(entry_type))
    return _DECODERS[entry_type]


def _iter_jsonl(path: Path, chunk_size: int, decoder: Any) -> Iterator[Entry | TornLine]:
    line_no = 0
    with open(path, "rb") as fh:
        rest = b""
        while True:
            chunk = fh.read(chunk_size)
            if not chunk:
                break
            data = rest + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            block, rest = data[: cut + 1], data[cut + 1 :]
            try:
                decoded = decoder.decode_lines(block)
            except DECODE_ERRORS:
                decoded = None
            if decoded is not None:
                line_no += len(decoded)
                yield from decoded
                continue
            for raw in block.splitlines():
                line_no += 1
                try:
                    yield decoder.decode(raw)
                except DECODE_ERRORS as exc:
                    raise LogError(f"{path}: line {line_no}: corrupt entry: {exc}") from None
    if rest.strip():
        line_no += 1
        try:
            yield decoder.decode(rest)
        except DECODE_ERRORS as exc:
            yield TornLine(line=line_no, length=len(rest), error=str(exc))


def _iter_binary(path: Path, decoder: Any) -> Iterator[Entry | TornLine]:
    data = path.read_bytes()
    pos = 0
    frame = 0
    size = len(data)
    while pos < size:
        frame += 1
        end = _msgpack_frame_end(data, pos)
        if end is None or end > size:
            yield TornLine(line=frame, length=size - pos, error="truncated msgpack frame")
            return
        try:
            yield decoder.decode(data[pos:end])
        except DECODE_ERRORS as exc:
            if end >= size:
                yield TornLine(line=frame, length=size - pos, error=str(exc))
                return
            raise LogError(f"{path}: frame {frame}: corrupt entry: {exc}") from None
        pos = end


def _msgpack_frame_end(data: bytes, pos: int) -> int | None:
    """End offset of the msgpack object starting at ``pos`` (None when cut short)."""
    stack = 1
    size = len(data)
    while stack:
        if pos >= size:
            return None
        b = data[pos]
        pos += 1
        stack -= 1
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            continue
        if 0x80 <= b <= 0x8F:
            stack += 2 * (b & 0x0F)
        elif 0x90 <= b <= 0x9F:
            stack += b & 0x0F
        elif 0xA0 <= b <= 0xBF:
            pos += b & 0x1F
        elif b in (0xCC, 0xD0):
            pos += 1
        elif b in (0xCD, 0xD1):
            pos += 2
        elif b in (0xCE, 0xD2, 0xCA):
            pos += 4
        elif b in (0xCF, 0xD3, 0xCB):
            pos += 8
        elif b in (0xD9, 0xC4):
            if pos + 1 > size:
                return None
            pos += 1 + data[pos]
        elif b in (0xDA, 0xC5):
            if pos + 2 > size:
                return None
            pos += 2 + int.from_bytes(data[pos : pos + 2], "big")
        elif b in (0xDB, 0xC6):
            if pos + 4 > size:
                return None
            pos += 4 + int.from_bytes(data[pos : pos + 4], "big")
        elif b == 0xDC:
            if pos + 2 > size:
                return None
            stack += int.from_bytes(data[pos : pos + 2], "big")
            pos += 2
        elif b == 0xDD:
            if pos + 4 > size:
                return None
            stack += int.from_bytes(data[pos : pos + 4], "big")
            pos += 4
        elif b == 0xDE:
            if pos + 2 > size:
                return None
            stack += 2 * int.from_bytes(data[pos : pos + 2], "big")
            pos += 2
        elif b == 0xDF:
            if pos + 4 > size:
                return None
            stack += 2 * int.from_bytes(data[pos : pos + 4], "big")
            pos += 4
        else:  # ext types are never written by fracas
            return None
    return pos


def to_binary(entries: list[Entry]) -> bytes:
    """The msgpack-framed form of a list of entries."""
    return b"".join(_mp_encoder.encode(e) for e in entries)


def write_entries(path: Path, entries: list[Entry], *, binary: bool = False) -> None:
    """Write decoded entries back out (e.g. converting between forms), replacing ``path`` atomically."""
    data = to_binary(entries) if binary else b"".join(canonical_line(e) + b"\n" for e in entries)
    write_atomic(path, data, force=True)
