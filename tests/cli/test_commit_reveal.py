"""The commit-reveal protocol a table follows (docs/verify.md), end to end, and the words verify uses.

commit (a fresh secret, never over an existing file) -> players' seeds ->
run --seed-file -> verify --commitment. A commitment binds the scenario and
its rules: the same secret played on another scenario fails against it.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.dice import DerivedDice, EnteredDice
from fracas.core.log import GENESIS, encode_entry, read_log
from fracas.services.run import run_scenario
from fracas.services.verify import FACES_NOT_PROVEN, FACES_PROVEN, NOT_SECRET, verify_log

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "point_zero" / "duel.toml"
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


def commit(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, scenario: Path = DUEL) -> tuple[str, Path]:
    seed_file = tmp_path / name
    assert main(["commit", str(scenario), "--seed-out", str(seed_file), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    return out["commitment"], seed_file


def test_the_protocol_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commitment, seed_file = commit(tmp_path, capsys, "gm.seed")
    secret = json.loads(seed_file.read_text())["secret"]
    assert len(secret) == 64 and commitment not in seed_file.name
    assert secret not in commitment
    log = tmp_path / "fight.jsonl"
    args = ["run", str(DUEL), "--seed-file", str(seed_file), "--player-seed", "alice", "--player-seed", "bob"]
    assert main([*args, "--log", str(log), "--quiet"]) == 0
    capsys.readouterr()
    head = read_log(log).entries[0].ev
    assert isinstance(head, E.EncounterStarted)
    assert head.dice.commitment == commitment and head.dice.secret and head.dice.player_seeds == ["alice", "bob"]
    assert main(["verify", str(log), "--commitment", commitment]) == 0
    out = capsys.readouterr().out
    assert "256-bit secret" in out and f"played from the commitment given: {commitment}" in out
    assert FACES_PROVEN in out and NOT_SECRET not in out
    # the narration says the seed was secret until the end (and the end reveals it)
    assert main(["replay", str(log), "--narrate", "--no-color"]) == 0
    told = capsys.readouterr().out
    assert "dice derived from a secret seed (fracas commit), revealed at the end" in told
    assert f"seed revealed: {secret}" in told and "not secret" not in told
    other, _ = commit(tmp_path, capsys, "other.seed")
    assert main(["verify", str(log), "--commitment", other]) == 1
    assert "PROBLEM (dice): line 1, seq 0: the log was not played from the commitment given" in capsys.readouterr().out


def test_two_commits_of_one_scenario_differ_and_a_seed_file_is_never_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, seed_file = commit(tmp_path, capsys, "a.seed")
    second, _ = commit(tmp_path, capsys, "b.seed")
    assert first != second
    before = seed_file.read_bytes()
    assert main(["commit", str(DUEL), "--seed-out", str(seed_file)]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert seed_file.read_bytes() == before


def test_a_commitment_does_not_fit_another_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commitment, seed_file = commit(tmp_path, capsys, "gm.seed")
    record = json.loads(seed_file.read_text())
    # fracas run refuses the seed file for another scenario...
    assert main(["run", str(MIRA), "--seed-file", str(seed_file), "--log", str(tmp_path / "x.jsonl")]) == 2
    assert "committed for another scenario" in capsys.readouterr().err
    # ...and a fight played from the same secret on it anyway does not verify against the commitment
    log = tmp_path / "mira.jsonl"
    run_scenario(MIRA, seed=record["secret"], salt=record["salt"], secret=True, log_path=log)
    assert verify_log(log).ok
    report = verify_log(log, commitment=commitment)
    assert report.exit_code == 1 and report.problem is not None and report.problem.step == "dice"


def test_a_typed_seed_is_marked_reproducible_not_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "typed.jsonl"
    assert main(["run", str(DUEL), "--seed", "7", "--log", str(log), "--quiet"]) == 0
    capsys.readouterr()
    head = read_log(log).entries[0].ev
    assert isinstance(head, E.EncounterStarted) and not head.dice.secret and head.dice.salt == ""
    assert main(["verify", str(log)]) == 0
    assert f"note: {NOT_SECRET}" in capsys.readouterr().out
    # the narration does not call a typed seed hidden
    assert main(["replay", str(log), "--narrate", "--no-color"]) == 0
    told = capsys.readouterr().out
    assert "dice derived from a seed that is not secret, shown at the end" in told and "hidden" not in told
    assert "seed revealed: 7" in told


def reseal(entries: list[E.Entry], path: Path) -> Path:
    prev, out = GENESIS, []
    for e in entries:
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, e.ev, prev)
        out.append(line + b"\n")
    path.write_bytes(b"".join(out))
    return path


def test_a_header_claiming_a_secret_for_a_short_seed_fails(tmp_path: Path) -> None:
    """A forger who flips ``secret`` (and re-computes the commitment, knowing the seed) is still caught."""
    from fracas.core.encounter import header_commitment

    log = tmp_path / "typed.jsonl"
    run_scenario(DUEL, seed="7", log_path=log)
    entries = read_log(log).entries
    head = entries[0].ev
    assert isinstance(head, E.EncounterStarted)
    dice = msgspec.structs.replace(head.dice, secret=True, salt="ab" * 16)
    forged = msgspec.structs.replace(head, dice=dice)
    forged = msgspec.structs.replace(
        forged, dice=msgspec.structs.replace(dice, commitment=header_commitment(forged, "7"))
    )
    entries[0] = msgspec.structs.replace(entries[0], ev=forged)
    report = verify_log(reseal(entries, tmp_path / "forged.jsonl"))
    assert report.exit_code == 1 and report.problem is not None
    assert (report.problem.step, report.problem.line) == ("dice", len(entries))
    assert "not 256 bits" in report.problem.message


def test_a_log_of_entered_dice_verifies_with_other_words_than_a_proven_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = DerivedDice("the table's dice")

    def ask(n: int, sides: int, actor: str, purpose: str) -> list[int]:
        return table.draw(n, sides, actor=actor, purpose=purpose)

    log = tmp_path / "table.jsonl"
    run_scenario(DUEL, seed="5", dice=EnteredDice(ask), log_path=log)
    head = read_log(log).entries[0].ev
    assert isinstance(head, E.EncounterStarted) and head.dice.source == "entered"
    assert main(["verify", str(log)]) == 0
    out = capsys.readouterr().out
    assert FACES_NOT_PROVEN["entered"] in out
    assert FACES_PROVEN not in out and "dice proven" not in out
    assert verify_log(log).faces == "entered"


def test_the_viewer_badge_has_three_states(tmp_path: Path) -> None:
    """proven / entered, rules checked / failed: render's badge follows verify."""
    from fracas.services.render import verification

    table = DerivedDice("the table's dice")
    entered = tmp_path / "table.jsonl"
    run_scenario(
        DUEL, seed="5", dice=EnteredDice(lambda n, s, a, p: table.draw(n, s, actor=a, purpose=p)), log_path=entered
    )
    proven = tmp_path / "proven.jsonl"
    run_scenario(DUEL, seed="5", log_path=proven)
    entries = read_log(proven).entries
    roll = next(i for i, e in enumerate(entries) if isinstance(e.ev, E.DiceRolled))
    entries[roll] = msgspec.structs.replace(
        entries[roll], ev=msgspec.structs.replace(entries[roll].ev, source="entered")
    )
    forged = reseal(entries, tmp_path / "forged.jsonl")
    states = {p.name: verification(p, read_log(p).entries)["status"] for p in (proven, entered, forged)}
    assert states == {"proven.jsonl": "ok", "table.jsonl": "entered", "forged.jsonl": "failed"}
    assert "cannot be proven" in verification(entered, read_log(entered).entries)["summary"]


def test_the_walkthrough_of_docs_verify_md_runs_as_shown(tmp_path: Path) -> None:
    import re
    import shlex
    import subprocess
    import sys

    text = (ROOT / "docs" / "verify.md").read_text(encoding="utf-8")
    section = text[text.index("## A fair fight at a table") :]
    block = re.search(r"```text\n(.*?)```", section, re.S)
    assert block is not None
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    (tmp_path / "tools").symlink_to(ROOT / "tools")
    commitment = ""
    output = ""
    for line in block.group(1).splitlines():
        if not line.startswith("$ "):
            want = line.replace("COMMITMENT", commitment)
            assert want in output, f"{want!r} not in {output!r}"
            continue
        argv = shlex.split(line[2:].replace("COMMITMENT", commitment))
        prefix = [sys.executable, "-m", "fracas"] if argv[0] == "fracas" else [sys.executable]
        proc = subprocess.run([*prefix, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, (line, proc.stdout, proc.stderr)
        output = proc.stdout
        if argv[1] == "commit":
            commitment = output.split()[1]
    assert commitment and (tmp_path / "table.jsonl").is_file()


def test_commit_takes_a_bundled_scenario_by_name_as_run_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fracas commit mira_vs_guard` said "cannot read scenario"; run, validate, batch and play take the name."""
    monkeypatch.chdir(tmp_path)
    assert main(["commit", "mira_vs_guard", "--seed-out", "gm.seed", "--json"]) == 0
    commitment = json.loads(capsys.readouterr().out)["commitment"]
    assert main(["run", "mira_vs_guard", "--seed-file", "gm.seed", "--log", "m.jsonl", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verify", "m.jsonl", "--commitment", commitment]) == 0


def test_a_seed_file_that_is_a_device_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--seed-file /dev/zero read for ever (a seed file is read whole)."""
    assert main(["run", str(DUEL), "--seed-file", "/dev/zero", "--log", str(tmp_path / "x.jsonl")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "fracas: error: /dev/zero: not a regular file (a device): fracas reads only regular files"
    ]
