"""``verify`` first tries to reproduce an intact log byte for byte; the step-by-step checks decide otherwise.

The reproduction (``fracas.services.verify._reproduced``) must give exactly the report
of the five steps run one by one on every log it accepts, must be the path an
untouched log of this version takes, and must decline (None) every log it
does not prove: a tampered one (the steps then name the problem), a fork, a
cut log, bytes after the end.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from fracas.core import events as E
from fracas.core.log import GENESIS, encode_entry, read_log
from fracas.services.run import run_scenario
from fracas.services.verify import _ComparingFile, _Diverged, _reproduced, verify_log

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = sorted(ROOT.glob("scenarios/*/*.expected.jsonl"))
STORED = sorted((ROOT / "tests" / "data" / "logs").glob("*/*.jsonl"))


def as_compared(report: Any) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(report)
    out.pop("seconds")
    return out


def reproduced(path: Path) -> bool:
    return _reproduced(path, path.read_bytes(), 0.0, None) is not None


@pytest.mark.parametrize("path", EXPECTED + STORED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_reproduction_reports_exactly_what_the_five_steps_report(path: Path) -> None:
    assert as_compared(verify_log(path)) == as_compared(verify_log(path, reproduce=False))


@pytest.mark.parametrize("path", EXPECTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_an_untouched_log_of_this_version_is_proved_by_reproducing_it(path: Path) -> None:
    assert reproduced(path)


def test_a_fork_is_left_to_the_steps_which_check_its_inherited_dice() -> None:
    fork = ROOT / "tests" / "data" / "logs" / "v0.1.0" / "zcorps-duel-fork40.jsonl"
    assert read_log(fork).entries[0].ev.parent is not None  # type: ignore[union-attr]
    assert not reproduced(fork)
    assert verify_log(fork).ok


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "duel.jsonl"
    run_scenario(ROOT / "scenarios" / "zcorps" / "duel.toml", seed="4", log_path=path)
    return path


def test_a_rechained_edited_face_is_declined_and_named_by_the_dice_step(log: Path, tmp_path: Path) -> None:
    entries = read_log(log).entries
    i = next(k for k, e in enumerate(entries) if isinstance(e.ev, E.DiceRolled))
    roll = entries[i].ev
    assert isinstance(roll, E.DiceRolled)
    faces = [roll.faces[0] % 6 + 1, *roll.faces[1:]]
    entries[i] = msgspec.structs.replace(entries[i], ev=msgspec.structs.replace(roll, faces=faces))
    lines, prev = [], GENESIS
    for e in entries:
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, e.ev, prev)
        lines.append(line)
    forged = tmp_path / "forged.jsonl"
    forged.write_bytes(b"\n".join(lines) + b"\n")
    assert not reproduced(forged)
    report = verify_log(forged)
    assert report.problem is not None and (report.problem.step, report.problem.line) == ("dice", i + 1)


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data[: len(data) // 2],  # cut mid-line
        lambda data: data[: data.rfind(b"\n", 0, len(data) - 1) + 1],  # the end line removed
        lambda data: data + data[: data.index(b"\n") + 1],  # a line after the end
        lambda data: data.replace(b'"round":1,', b'"round":1 ,', 1),  # not canonical
    ],
    ids=["cut", "no end", "after the end", "a space"],
)
def test_a_changed_log_is_declined_and_the_steps_find_the_problem(change: Any, log: Path, tmp_path: Path) -> None:
    path = tmp_path / "changed.jsonl"
    path.write_bytes(change(log.read_bytes()))
    assert not reproduced(path)
    assert not verify_log(path).ok


def test_the_comparing_file_stops_at_the_first_byte_the_log_does_not_have() -> None:
    copy = _ComparingFile(b"abcdef")
    copy.write(b"abc")
    with pytest.raises(_Diverged):
        copy.write(b"dex")
    assert copy.pos == 3
