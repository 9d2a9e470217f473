"""Hypothesis state machine: LogWriter appends, flushes and torn tails against read_log and the hash chain.

Two writers (JSONL and binary) append the same random events. After any step
each file reads back exactly the flushed prefix, the chain recomputed from the
canonical bytes matches every ``h``, and both forms decode to equal entries.
A tear cuts one file inside its last line or frame (a crash mid-append); the
reader must report it as a :class:`TornLine`, never raise.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path
from typing import Any

from fracas.core import events as E
from fracas.core.log import (
    GENESIS,
    LogWriter,
    TornLine,
    canonical_line,
    chained_bytes,
    encode_entry,
    read_log,
    to_binary,
)
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

texts = st.text(max_size=30)
ints = st.integers(-(2**31), 2**31)
small = st.integers(0, 10_000)
secs = st.floats(allow_nan=False, allow_infinity=False)
modifiers = st.builds(E.Modifier, name=texts, value=ints, rule=texts)

events: st.SearchStrategy[Any] = st.one_of(
    st.builds(E.Noted, actor=texts, text=texts, rule=texts),
    st.builds(E.Moved, actor=texts, x=ints, y=ints, metres=small, initiative=ints, rule=texts),
    st.builds(
        E.ConditionSet,
        actor=texts,
        condition=texts,
        value=ints,
        until=st.none() | secs,
        rule=texts,
    ),
    st.builds(
        E.DiceRolled,
        actor=texts,
        purpose=texts,
        rule=texts,
        sides=st.integers(1, 100),
        faces=st.lists(st.integers(1, 100), max_size=6),
        fates=st.lists(st.sampled_from(["kept", "dropped", "exploded", "cancelled"]), max_size=6),
        first=small,
    ),
    st.builds(
        E.SkillTested,
        actor=texts,
        rule=texts,
        skill=texts,
        kept=small,
        dice_total=ints,
        modifiers=st.lists(modifiers, max_size=3),
        difficulty=ints,
        difficulty_base=ints,
        total=ints,
        success=st.booleans(),
        margin=ints,
        target=st.none() | texts,
    ),
    st.builds(E.RoundStarted, round=small),
)


def decode_chain(entries: list[E.Entry]) -> list[str]:
    """The hash chain recomputed from the canonical bytes of each entry (without its h)."""
    prev, out = GENESIS, []
    for entry in entries:
        prev = hashlib.sha256(prev + chained_bytes(canonical_line(entry))).digest()
        out.append(prev.hex())
    return out


class LogMachine(RuleBasedStateMachine):
    """Model: the entries appended, how many are flushed, and which file (if any) was torn where."""

    @initialize()
    def open_writers(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="fracas-logmachine-"))
        self.paths = {"jsonl": self.dir / "f.jsonl", "binary": self.dir / "f.bin"}
        self.writers = {
            "jsonl": LogWriter(self.paths["jsonl"]),
            "binary": LogWriter(self.paths["binary"], binary=True),
        }
        self.appended: list[E.Entry] = []
        self.lines: list[bytes] = []  # the JSONL line of each entry (fracas.core.log.encode_entry)
        self.flushed = 0
        self.torn: dict[str, int] = {}  # form -> bytes left of the cut entry

    @rule(rnd=small, count=small, sec=secs, ev=events)
    @precondition(lambda self: not self.torn)
    def append(self, rnd: int, count: int, sec: float, ev: Any) -> None:
        seq = len(self.appended)
        line, digest = encode_entry(seq, rnd, count, sec, ev, self.writers["jsonl"].prev)
        for writer in self.writers.values():
            writer.append(seq, rnd, count, sec, ev)
            assert writer.prev == digest
        h = digest.hex()
        self.appended.append(E.Entry(seq=seq, round=rnd, count=count, sec=sec, ev=ev, h=h))
        self.lines.append(line)

    @rule()
    @precondition(lambda self: not self.torn)
    def flush(self) -> None:
        for writer in self.writers.values():
            writer.flush()
        self.flushed = len(self.appended)

    @rule(form=st.sampled_from(["jsonl", "binary"]), data=st.data())
    @precondition(lambda self: not self.torn and self.flushed > 0)
    def tear(self, form: str, data: st.DataObject) -> None:
        """Cut the file inside its last flushed line (JSONL: up to the newline) or frame; no append after."""
        for writer in self.writers.values():
            writer.flush()
            writer.close()
        self.flushed = len(self.appended)
        path = self.paths[form]
        size = path.stat().st_size
        last = self.appended[-1]
        length = len(self.lines[-1]) + 1 if form == "jsonl" else len(to_binary([last]))
        keep = data.draw(st.integers(1, length - 1), label="bytes kept of the last entry")
        with open(path, "r+b") as fh:
            fh.truncate(size - length + keep)
        self.torn[form] = keep

    @rule()
    def read_twice(self) -> None:
        """Reading never changes a file (torn or not): two reads agree."""
        for path in self.paths.values():
            assert read_log(path) == read_log(path)

    def expected(self, form: str) -> tuple[list[E.Entry], int | None]:
        """The entries read_log must return from ``form``, and the torn tail's length (None: not torn)."""
        entries = self.appended[: self.flushed]
        keep = self.torn.get(form)
        if keep is None:
            return entries, None
        if form == "jsonl" and keep == len(self.lines[-1]):
            return entries, None  # only the newline was lost: the last line still decodes
        return entries[:-1], keep

    @invariant()
    def each_file_reads_back_the_flushed_prefix(self) -> None:
        for form, path in self.paths.items():
            want, torn_length = self.expected(form)
            got = read_log(path)
            assert got.entries == want, form
            if torn_length is None:
                assert got.torn is None, form
            else:
                assert isinstance(got.torn, TornLine), form
                assert (got.torn.line, got.torn.length) == (len(want) + 1, torn_length), form

    @invariant()
    def the_hash_chain_holds_on_every_line(self) -> None:
        entries = self.appended[: self.flushed]
        assert [e.h for e in entries] == decode_chain(entries)
        raw = self.paths["jsonl"].read_bytes()
        lines = raw.split(b"\n")
        if "jsonl" not in self.torn:
            assert lines[-1] == b""
            assert lines[:-1] == self.lines[: self.flushed]
        whole = [line for line in lines if line]
        if self.expected("jsonl")[1] is not None:
            whole = whole[:-1]  # the torn line
        assert len(whole) == len(self.expected("jsonl")[0])
        prev = GENESIS
        for line, entry in zip(whole, entries, strict=False):
            prev = hashlib.sha256(prev + chained_bytes(line)).digest()
            assert line.endswith(b',"h":"' + prev.hex().encode() + b'"}')
            assert entry.h == prev.hex()
            assert canonical_line(entry) == line

    @invariant()
    def jsonl_and_binary_forms_decode_to_equal_entries(self) -> None:
        text, binary = read_log(self.paths["jsonl"]).entries, read_log(self.paths["binary"]).entries
        common = min(len(text), len(binary))
        assert text[:common] == binary[:common]
        if not self.torn:
            assert self.paths["binary"].read_bytes() == to_binary(text)
            converted = self.dir / "converted.bin"
            converted.write_bytes(to_binary(text))
            assert read_log(converted).entries == text

    def teardown(self) -> None:
        if hasattr(self, "writers"):
            for writer in self.writers.values():
                writer.close()
            shutil.rmtree(self.dir, ignore_errors=True)


# no deadline and no too-slow health check: timing never decides a test's outcome (a loaded machine is slow)
LogMachine.TestCase.settings = settings(
    max_examples=100, stateful_step_count=30, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
test_log_writer_and_reader_agree_through_appends_flushes_and_tears = LogMachine.TestCase
