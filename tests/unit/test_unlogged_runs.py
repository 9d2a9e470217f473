"""A fight with no log skips the writer for every event (``Encounter.emit``, ``flush``; logs unchanged).

A plain ``LogWriter`` with no file keeps nothing, so ``emit`` does not call its append (nor work out the
count it would be given, when nobody listens either) and ``flush`` does not call its flush. A writer put in
place afterwards (verify's, a re-simulation's) is called again: ``Encounter.writer`` is a property that
works out at each assignment whether the writer keeps anything. Checked here: a fight run with no log
ends in the very state of the same fight logged; a fight made with no log and given a writer with a file
before it runs writes the very log of a fight made with that log; a writer of another type with no file
(a subclass) is called for every event. Broken on purpose (the setter not heard), the second check fails.

An Encounter also keeps fewer than 30 attributes: CPython 3.11 lays out at most 29 of an instance's
attributes in the shared-key form its attribute reads are quickest on; a 30th made every read of every
attribute slower (measured: 1.6 % more instructions a Point Zéro duel, more than this shortcut saves).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from fracas.core import events as E
from fracas.core.bundled import resolve_scenario
from fracas.core.encounter import Encounter
from fracas.core.log import LogWriter
from fracas.core.scenario import load_scenario
from fracas.core.system import get_system
from fracas.services.run import run_scenario

SCENARIOS = ["point_zero/duel", "zcorps/duel", "d100/duel", "point_zero/warehouse"]


class CountingWriter(LogWriter):
    """No file, but an append of its own: it must be called."""

    def __init__(self) -> None:
        super().__init__(None)
        self.appended = 0

    def append(self, seq: int, rnd: int, count: int, sec: float, ev: E.AnyEvent) -> None:
        self.appended += 1  # LogWriter.append_each calls it for each event of a run at one tick too


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_fight_with_no_log_is_the_fight_logged(tmp_path: Path, name: str) -> None:
    loaded = load_scenario(resolve_scenario(name))
    system = get_system(loaded.spec.system)
    for seed in ("1", "2"):
        logged = run_scenario(loaded, seed=seed, log_path=tmp_path / "logged.jsonl")
        unlogged = run_scenario(loaded, seed=seed, log_path=None)
        assert msgspec.json.encode(unlogged.state) == msgspec.json.encode(logged.state)
        assert (unlogged.winner, unlogged.rounds, unlogged.events) == (logged.winner, logged.rounds, logged.events)
        assert (unlogged.log_bytes, unlogged.log) == (0, None)

        enc = Encounter(system, loaded, seed=seed)  # made with no log ...
        enc.writer = LogWriter(tmp_path / "late.jsonl")  # ... given one before it runs
        late = enc.run()
        assert (tmp_path / "late.jsonl").read_bytes() == (tmp_path / "logged.jsonl").read_bytes()
        assert late.log_bytes == logged.log_bytes

        enc = Encounter(system, loaded, seed=seed)
        counting = CountingWriter()
        enc.writer = counting
        counted: Any = enc.run()
        assert counting.appended == counted.events == logged.events


def test_an_encounter_keeps_under_thirty_attributes() -> None:
    loaded = load_scenario(resolve_scenario("point_zero/duel"))
    enc = Encounter(get_system(loaded.spec.system), loaded, seed="1")
    assert len(vars(enc)) < 30, (
        "a 30th attribute leaves CPython's shared-key layout: every attribute read of the per-event path gets slower; "
        "keep it in an existing one (enc.scratch for a system's bookkeeping)"
    )
