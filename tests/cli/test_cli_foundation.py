"""The ``fracas`` command line as a user runs it: run, replay, validate, systems, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SCENARIOS
from fracas.cli.main import main

MIRA = SCENARIOS / "point_zero" / "mira_vs_guard.toml"


def fracas(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fracas", *args], capture_output=True, text=True, cwd=cwd, check=False)


def test_run_prints_a_play_by_play_and_writes_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "mira.jsonl"
    assert main(["run", str(MIRA), "--seed", "7", "--log", str(log)]) == 0
    out = capsys.readouterr().out
    assert "R1 start Mira declares: move 2 m to (27, 6), attack the guard with the pistol [PZ-INIT-3]" in out
    assert "R1 @7    Mira rolls 5d6 for the pistol attack on the guard: 4 2 6 (2) (1) [roll 6, PZ-TEST-1]" in out
    assert "Mira moves to (27, 6), 2 m this round [PZ-MOVE-2]" in out
    # PZ-INIT-3: the second guard heard Mira declare her flight, and shoots where it takes her past him
    assert "R3 start Second guard declares: attack Mira with the pistol (surpassing +1D) [PZ-INIT-3]" in out
    assert "R3 @14   Second guard tests handguns/PER, +1D for surpassing oneself against Mira: 14 against" in out
    assert "Mira escapes through the service door [C-END-1]" in out
    assert "after    Mira: 2 Légère boxes (physical) heal after 48 h [PZ-HEAL-2]" in out
    assert f"Won by Mira, who escaped, after 3 rounds; 153 events logged to {log}" in out
    # the sheets at the end of the fight, then after the aftermath (Mira's Légère boxes healed 48 h later)
    fight, after = out.split("At the end of the fight")[1].split("After the aftermath")
    assert "Légère [x][x][ ]" in fight.split("The guard [")[0]
    assert "Légère [ ][ ][ ]" in after.split("The guard [")[0]
    assert "\x1b[" not in out  # no colour when not on a terminal
    assert log.exists()


def test_two_runs_with_the_same_seed_write_identical_bytes(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert main(["run", str(MIRA), "--seed", "7", "--quiet", "--log", str(tmp_path / f"{name}.jsonl")]) == 0
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_replay_json_prints_the_state_of_run_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "w.jsonl"
    warehouse = SCENARIOS / "point_zero" / "warehouse.toml"
    assert main(["run", str(warehouse), "--json", "--log", str(log)]) == 0
    ran = json.loads(capsys.readouterr().out)
    assert set(ran) == {"winner", "rounds", "events", "log", "state"}
    assert main(["replay", str(log), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed == {"state": ran["state"]}


def test_replay_at_shows_the_state_just_after_an_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "mira.jsonl"
    main(["run", str(MIRA), "--seed", "7", "--quiet", "--log", str(log)])
    capsys.readouterr()
    assert main(["replay", str(log), "--at", "12"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Mira vs the guard (point_zero): state just after seq 12, round 1")
    assert "Mira [mira, side mira] active at (28,8)" in out
    assert "physical  Légère [ ][ ][ ]  Grave [ ][ ]  Critique [ ]  Fatale [ ]" in out


def test_replay_of_a_log_cut_mid_line_warns_and_replays_the_prefix(tmp_path: Path) -> None:
    log = tmp_path / "mira.jsonl"
    main(["run", str(MIRA), "--seed", "7", "--quiet", "--log", str(log)])
    data = log.read_bytes()
    cut = data.rfind(b"\n", 0, len(data) - 1) + 40
    log.write_bytes(data[:cut])
    proc = fracas("replay", str(log))
    assert proc.returncode == 0
    lines = data[:cut].count(b"\n")
    assert proc.stderr.startswith(f"fracas: warning: {log}: line {lines + 1} is torn (39 bytes: ")
    assert proc.stderr.rstrip().endswith(f"replayed the {lines} entries before it")
    assert "Mira [mira, side mira] fled" in proc.stdout


def test_a_scenario_typo_is_one_line_with_its_path_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "typo.toml"
    bad.write_text(
        MIRA.read_text(encoding="utf-8").replace("skills = { handguns = 5", "skils = { handguns = 5"), encoding="utf-8"
    )
    proc = fracas("run", str(bad))
    assert proc.returncode == 2
    assert proc.stdout == ""
    line = 1 + next(i for i, t in enumerate(bad.read_text(encoding="utf-8").splitlines()) if t.startswith("skils"))
    assert proc.stderr == (
        f"fracas: error: {bad}:{line}:1: $.actors[0].skils: unknown field `skils` (did you mean 'skills'?)\n"
    )


def test_a_wrong_type_names_what_was_expected_and_found(tmp_path: Path) -> None:
    bad = tmp_path / "type.toml"
    bad.write_text(
        MIRA.read_text(encoding="utf-8").replace(
            "PER = 3, ADR = 2, VIG = 3, COG = 2, INIT = 3", 'PER = "three", ADR = 2, VIG = 3, COG = 2, INIT = 3', 1
        ),
        encoding="utf-8",
    )
    proc = fracas("validate", str(bad))
    assert proc.returncode == 2
    assert proc.stderr == f"fracas: error: {bad}:50:16: $.actors[1].attributes.PER: expected `int`, got `str`\n"


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text('system = "point_zero"\nname = "x\n', encoding="utf-8")
    proc = fracas("validate", str(bad))
    message = f"fracas: error: {bad}:2:10: invalid TOML (expected TOML syntax): Illegal character '\\n'\n"
    assert (proc.returncode, proc.stderr) == (2, message)


def test_unknown_system_and_missing_file_are_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "sys.toml"
    bad.write_text('system = "gurps"\n', encoding="utf-8")
    proc = fracas("validate", str(bad), str(tmp_path / "missing.toml"))
    assert proc.returncode == 2
    first, second = proc.stderr.splitlines()
    assert first.startswith(f"fracas: error: {bad}:1:1: $.system: unknown rule system 'gurps' (expected one of ")
    assert second == f"fracas: error: {tmp_path / 'missing.toml'}: cannot read scenario: No such file or directory"


def test_semantic_errors_name_the_path(tmp_path: Path) -> None:
    bad = tmp_path / "side.toml"
    bad.write_text(
        MIRA.read_text(encoding="utf-8").replace('side = "mira"\nposition', 'side = "rebels"\nposition'),
        encoding="utf-8",
    )
    proc = fracas("validate", str(bad))
    assert proc.stderr == (
        f"fracas: error: {bad}:34:1: $.actors[0].side: unknown side 'rebels' (expected one of mira, guards)\n"
    )


def test_a_log_that_is_not_a_log_is_bad_input(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"seq": 0}\n{"seq": 1}\n', encoding="utf-8")
    proc = fracas("replay", str(junk))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"fracas: error: {junk}: line 1: corrupt entry: Object missing required field")
    assert "Traceback" not in proc.stderr


def test_validate_accepts_every_shipped_scenario() -> None:
    paths = sorted(str(p) for p in SCENARIOS.glob("*/*.toml"))
    proc = fracas("validate", *paths)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(": ok (") == len(paths)


def test_systems_lists_every_rule_id_and_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["systems"]) == 0
    out = capsys.readouterr().out
    assert "point_zero: Point Zéro" in out
    for rule in ("PZ-INIT-3", "PZ-MOVE-2", "PZ-HEAL-3"):
        assert rule in out
    assert "monitor_boxes = [3, 2, 1, 1]" in out


def test_rules_overrides_are_validated_and_recorded_in_the_header(tmp_path: Path) -> None:
    text = MIRA.read_text(encoding="utf-8").replace(
        "round_limit = 12\n", "round_limit = 12\n[rules]\nmonitor_boxes = [4, 2, 1, 1]\n"
    )
    ok = tmp_path / "ok.toml"
    ok.write_text(text, encoding="utf-8")
    log = tmp_path / "ok.jsonl"
    assert main(["run", str(ok), "--quiet", "--log", str(log)]) == 0
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["ev"]["rules"]["monitor_boxes"] == [4, 2, 1, 1]
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace("monitor_boxes", "monitor_boxs"), encoding="utf-8")
    proc = fracas("validate", str(bad))
    assert proc.stderr == (
        f"fracas: error: {bad}:12:1: $.rules.monitor_boxs: "
        "unknown rules value `monitor_boxs` (did you mean 'monitor_boxes'?)\n"
    )


def test_quiet_names_the_winner_as_the_narration_does(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--quiet's one line said "won by the mira side" where the narration says "won by Mira"."""
    assert main(["run", str(MIRA), "--seed", "7", "--log", str(tmp_path / "told.jsonl")]) == 0
    told = capsys.readouterr().out.splitlines()[-1]
    assert main(["run", str(MIRA), "--seed", "7", "--quiet", "--log", str(tmp_path / "quiet.jsonl")]) == 0
    quiet = capsys.readouterr().out.strip().splitlines()[-1]
    assert quiet.replace("quiet.jsonl", "told.jsonl") == told
    assert quiet.startswith("Won by Mira, who escaped, after 3 rounds")
