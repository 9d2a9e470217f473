"""Logs written by earlier versions (tests/data/logs/<version>/) still read, replay and verify.

They are reference data, never rewritten: if a change breaks one of these, the
change needs a format bump and an upcaster (docs/log-format.md), not a new log.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from conftest import DATA
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.core.state import state_to_builtins
from fracas.services.run import replay_log
from fracas.services.verify import verify_log

STORED = sorted((DATA / "logs").glob("v*/*.jsonl"))


@pytest.mark.parametrize("log", STORED, ids=[f"{p.parent.name}/{p.stem}" for p in STORED])
def test_a_stored_log_replays_to_the_state_it_had_when_written(log: Path) -> None:
    expected = json.loads(log.with_suffix(".state.json").read_text(encoding="utf-8"))
    assert {"state": state_to_builtins(replay_log(log).state)} == expected


@pytest.mark.parametrize("log", STORED, ids=[f"{p.parent.name}/{p.stem}" for p in STORED])
def test_a_stored_log_verifies(log: Path) -> None:
    report = verify_log(log)
    assert report.ok, report.problem
    assert report.dice["re-derived"] == report.dice["derived"]  # forks: the parent beside it is found


def test_every_system_has_a_stored_log() -> None:
    systems = {read_log(p).entries[0].ev.system for p in STORED}  # type: ignore[union-attr]
    assert systems == {"point_zero", "zcorps", "d100"}


def test_a_fork_header_without_fork_die_still_decodes_and_counts_the_dice_up_to_the_fork() -> None:
    """ForkOrigin.fork_die came later than the fork: an older header has no such field."""
    origin = msgspec.json.decode(b'{"parent_log":"p.jsonl","parent_sha256":"00","fork_seq":40}', type=E.ForkOrigin)
    assert origin.fork_die == -1


def test_a_fork_log_written_before_fork_die_existed_verifies(tmp_path: Path) -> None:
    """Rewrite the stored fork as the older format (no fork_die), re-chained: verify counts the dice itself."""
    import hashlib

    from fracas.core.log import chained_bytes

    folder = DATA / "logs" / "v0.1.0"
    lines = (folder / "zcorps-duel-fork40.jsonl").read_bytes().splitlines()
    assert b',"fork_die":39' in lines[0]
    lines[0] = lines[0].replace(b',"fork_die":39', b"")
    prev = bytes(32)
    out = []
    for line in lines:
        body = chained_bytes(line)
        prev = hashlib.sha256(prev + body).digest()
        out.append(body[:-1] + b',"h":"' + prev.hex().encode() + b'"}')
    (tmp_path / "zcorps-duel-seed1.jsonl").write_bytes((folder / "zcorps-duel-seed1.jsonl").read_bytes())
    old = tmp_path / "fork.jsonl"
    old.write_bytes(b"\n".join(out) + b"\n")
    report = verify_log(old)
    assert report.ok, report.problem


def test_a_new_log_records_its_rules_edition_and_a_header_without_one_is_edition_1(tmp_path: Path) -> None:
    """Rules editions (docs/rules-notes.md): verify re-simulates a 0.1.0 log with the readings it was played by."""
    from conftest import SCENARIOS
    from fracas.core.system import get_system
    from fracas.services.resim import rules_of_header
    from fracas.services.run import run_scenario

    log = tmp_path / "new.jsonl"
    run_scenario(SCENARIOS / "zcorps" / "duel.toml", seed="1", log_path=log)
    head = read_log(log).entries[0].ev
    assert isinstance(head, E.EncounterStarted) and head.rules["edition"] == 6
    for stored in STORED:
        old = read_log(stored).entries[0].ev
        assert isinstance(old, E.EncounterStarted)
        if old.format > 1:  # written with rules editions (tests/data/logs/v0.1.0-format2)
            assert old.rules["edition"] == 2
            continue
        assert "edition" not in old.rules
        assert rules_of_header(old, get_system(old.system))["edition"] == 1
