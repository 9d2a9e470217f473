"""``fracas verify``: exit 0 intact, 1 a problem (named by line and seq), 2 unreadable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "mira.jsonl"
    run_scenario(MIRA, seed="7", log_path=path)
    return path


def test_an_intact_log_exits_0_with_every_step_ok(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[1:7]] == ["structure", "chain", "header", "dice", "rules", "state"]
    assert all(line.split()[1] == "ok" for line in out[1:7])
    assert out[-1].startswith("intact: ")


def test_a_rechained_edited_face_exits_1_naming_line_seq_expected_and_found(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fracas.core.log import GENESIS, encode_entry, read_log

    entries = read_log(log).entries
    lines, prev = [], GENESIS
    for e in entries:
        ev = e.ev
        if e.seq == 4:  # Mira's first initiative die
            import msgspec

            ev = msgspec.structs.replace(ev, faces=[6, *ev.faces[1:]])  # type: ignore[attr-defined]
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, ev, prev)
        lines.append(line)
    log.write_bytes(b"\n".join(lines) + b"\n")
    assert main(["verify", str(log), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    want = {
        "step": "dice",
        "line": 5,
        "seq": 4,
        "message": "die 0 (mira, d6 for initiative): the revealed seed derives face 3, the log records 6",
        "expected": "3",
        "found": "6",
        "rule": "PZ-INIT-1",
    }
    assert report["problem"] == want


def test_a_file_that_is_not_a_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"fracas: error: {path}: not a fracas log (neither JSON Lines nor msgpack frames)\n"


def test_a_json_file_that_is_not_a_log_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"a": 1}\n')
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"fracas: error: {path}: line 1: not a fracas log entry: Object missing required field `seq`\n"


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nope.jsonl")]) == 2
    missing = tmp_path / "nope.jsonl"
    assert capsys.readouterr().err == f"fracas: error: {missing}: cannot read log: No such file or directory\n"


def test_a_log_whose_header_line_is_damaged_exits_1_not_2(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Line 1 no longer decodes but line 2 is a fracas entry: a damaged log, a problem found (not 'not a log')."""
    data = log.read_bytes()
    damaged = log.with_name("damaged.jsonl")
    damaged.write_bytes(data.replace(b'"format":', b'"formbt":', 1))
    assert main(["verify", str(damaged)]) == 1
    assert "PROBLEM (structure): line 1, seq 0: the header does not decode" in capsys.readouterr().out


def test_a_mistyped_commitment_is_the_argument_s_fault_not_the_log_s(
    log: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in --commitment exits 2 naming the argument; it used to read as the log's failure (exit 1)."""
    for typo in ("zz", "abc", "g" * 64, "a" * 63):
        assert main(["verify", str(log), "--commitment", typo]) == 2
        err = capsys.readouterr().err.splitlines()
        assert err == [f"fracas: error: --commitment {typo}: expected the 64 hexadecimal digits fracas commit printed"]


def test_a_commitment_typed_in_capitals_is_the_same_commitment(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from fracas.core.log import read_log

    commitment = read_log(log).entries[0].ev.dice.commitment
    assert main(["verify", str(log), "--commitment", commitment.upper()]) == 0
    assert f"played from the commitment given: {commitment}" in capsys.readouterr().out


def test_a_parent_given_for_a_log_that_is_no_fork_is_said_unused(
    log: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fracas.services.verify import verify_log

    other = tmp_path / "other.jsonl"
    run_scenario(MIRA, seed="8", log_path=other)
    said = f"--parent {other}: not used: this log is not a fork (its header names no parent)"
    assert main(["verify", str(log), "--parent", str(other)]) == 0
    assert said in capsys.readouterr().out
    for reproduce in (True, False):  # the log re-run at once, and the six steps one by one
        report = verify_log(log, parent=other, reproduce=reproduce)
        assert report.ok and said in report.notes
