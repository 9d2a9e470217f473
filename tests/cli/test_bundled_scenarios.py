"""Bundled scenarios: listed by ``fracas scenarios``, run by name from any folder; a path still wins.

A pip user has no checkout: the scenarios ship as package data of
``fracas.scenarios`` and every command that takes a scenario file
(run, validate, batch, play) also takes ``NAME`` or ``SYSTEM/NAME``. Each test
runs from an empty folder, as a user who just installed the wheel would.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, SCENARIOS
from fracas.cli.main import main
from fracas.core.bundled import bundled_scenarios, resolve_scenario
from fracas.core.errors import ScenarioError

SHIPPED = sorted(SCENARIOS.glob("*/*.toml"))
NO_FILE = "cannot read scenario: No such file or directory"


@pytest.fixture
def empty(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty current folder: nothing of the checkout is reachable by a relative path."""
    folder = tmp_path / "empty"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def test_every_shipped_scenario_is_bundled_once_under_its_system_folder() -> None:
    assert [b.qualified for b in bundled_scenarios()] == [f"{p.parent.name}/{p.stem}" for p in SHIPPED]


def test_scenarios_lists_one_line_each_with_system_title_and_actors(
    empty: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scenarios"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(SHIPPED)
    for line, path in zip(lines, SHIPPED, strict=True):
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        name, system, *_ = line.split()
        assert name in (path.stem, f"{path.parent.name}/{path.stem}")
        assert system == raw["system"]
        assert raw["name"] in line
        assert line.endswith(f"{len(raw['actors'])} actors ({' vs '.join(str(n) for n in _per_side(raw))})")


def _per_side(raw: dict[str, object]) -> list[int]:
    sides = [s["id"] for s in raw["sides"]]  # type: ignore[attr-defined]
    return [sum(1 for a in raw["actors"] if a["side"] == s) for s in sides]  # type: ignore[attr-defined]


def test_a_name_shared_by_two_systems_is_listed_with_its_system() -> None:
    names = {b.qualified: b.name for b in bundled_scenarios()}
    assert names["point_zero/duel"] == "point_zero/duel" and names["zcorps/duel"] == "zcorps/duel"
    assert names["point_zero/mira_vs_guard"] == "mira_vs_guard"


def test_scenarios_json_gives_each_file_and_its_sides(empty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    mira = next(d for d in doc if d["qualified"] == "point_zero/mira_vs_guard")
    raw = tomllib.loads((SCENARIOS / "point_zero/mira_vs_guard.toml").read_text(encoding="utf-8"))
    assert mira["sides"] == {s["id"]: [a["id"] for a in raw["actors"] if a["side"] == s["id"]] for s in raw["sides"]}
    assert (mira["name"], mira["system"], mira["title"]) == ("mira_vs_guard", "point_zero", raw["name"])
    assert Path(mira["file"]).read_bytes() == (SCENARIOS / "point_zero/mira_vs_guard.toml").read_bytes()


@pytest.mark.parametrize("name", ["mira_vs_guard", "point_zero/mira_vs_guard", "point_zero/mira_vs_guard.toml"])
def test_run_by_name_from_an_empty_folder_writes_the_expected_log(empty: Path, name: str) -> None:
    assert main(["run", name, "--seed", "7", "--quiet", "--log", "m.jsonl"]) == 0
    by_path = empty / "by_path.jsonl"
    duel = str(SCENARIOS / "point_zero/mira_vs_guard.toml")
    assert main(["run", duel, "--seed", "7", "--quiet", "--log", str(by_path)]) == 0
    assert (empty / "m.jsonl").read_bytes() == by_path.read_bytes()
    assert main(["verify", "m.jsonl"]) == 0


def test_the_default_log_of_a_bundled_run_lands_in_the_current_folder(empty: Path) -> None:
    assert main(["run", "mira_vs_guard", "--seed", "7", "--quiet"]) == 0
    assert (empty / "logs" / "mira_vs_guard-seed7.jsonl").is_file()


def test_validate_batch_and_play_take_names(empty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "point_zero/duel", "zcorps/duel", "d100/duel", "barricade"]) == 0
    out = capsys.readouterr().out
    assert out.count(": ok (") == 4
    assert main(["batch", "warehouse", "-n", "4", "--workers", "1", "--seed", "b", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["fights"], doc["scenario"]) == (4, "warehouse")
    argv = [sys.executable, "-m", "fracas", "play", "mira_vs_guard", "--seed", "3", "--log", "p.jsonl"]
    argv += ["--human", "mira"]
    answers = "1\n" * 200  # Mira always takes the first action offered
    done = subprocess.run(argv, cwd=empty, input=answers, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (empty / "p.jsonl").is_file()


def test_a_path_wins_over_a_bundled_name(empty: Path, capsys: pytest.CaptureFixture[str]) -> None:
    local = empty / "point_zero" / "mira_vs_guard.toml"
    local.parent.mkdir()
    local.write_bytes((SCENARIOS / "point_zero" / "duel.toml").read_bytes())  # 2 actors, not Mira's 4
    assert resolve_scenario("point_zero/mira_vs_guard.toml") == Path("point_zero/mira_vs_guard.toml")
    assert main(["validate", "point_zero/mira_vs_guard.toml"]) == 0
    assert "2 actors" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("duel", "did you mean d100/duel, point_zero/duel or zcorps/duel?"),
        ("mira", "did you mean mira_vs_guard?"),
        ("wherehouse", "did you mean warehouse?"),
        ("zcorps/dual", "did you mean zcorps/duel or horde?"),  # zcorps/horde shares the system prefix
        ("scenarios/point_zero/mira_vs_guard.toml", f"{NO_FILE}; did you mean the bundled scenario mira_vs_guard?"),
        ("../x/barricade.toml", f"{NO_FILE}; did you mean the bundled scenario barricade?"),
    ],
)
def test_an_ambiguous_or_unknown_name_is_one_line_exit_2_with_did_you_mean(
    empty: Path, capsys: pytest.CaptureFixture[str], typed: str, meant: str
) -> None:
    for command in (["run", typed], ["validate", typed], ["batch", typed, "-n", "2"], ["play", typed]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.startswith(f"fracas: error: {typed}: ") and meant in err, err
        assert err.count("\n") == 1 and "Traceback" not in err


def test_a_name_nothing_resembles_says_where_the_list_is(empty: Path) -> None:
    with pytest.raises(ScenarioError) as caught:
        resolve_scenario("qqqqqq")
    assert "did you mean" not in str(caught.value)
    assert str(caught.value).endswith("(`fracas scenarios` lists them)")


def test_the_readme_first_command_runs_in_an_empty_folder(empty: Path) -> None:
    first = (ROOT / "README.md").read_text(encoding="utf-8").split("```sh\n", 1)[1].splitlines()[0]
    install, sep, fight = first.partition(" && ")
    assert sep and install.startswith("pip install") and fight.startswith("fracas run "), first
    argv = [sys.executable, "-m", "fracas", *shlex.split(fight)[1:]]
    done = subprocess.run(argv, cwd=empty, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Mira" in done.stdout and "events logged to logs/mira_vs_guard-seed" in done.stdout
    assert list((empty / "logs").glob("mira_vs_guard-seed*.jsonl"))


def test_the_readme_log_line_is_a_line_of_the_real_log(empty: Path) -> None:
    """The ```json line the README shows (hash cut with "…") is line `seq` of `fracas run mira_vs_guard --seed 7`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("```json\n", 1)[1].split("\n```", 1)[0].strip()
    head, cut, _ = shown.partition("…")
    assert cut and '"h":"' in head, shown
    assert main(["run", "mira_vs_guard", "--seed", "7", "--quiet", "--log", "m.jsonl"]) == 0
    line = (empty / "m.jsonl").read_text(encoding="utf-8").splitlines()[json.loads(head + '"}')["seq"]]
    assert line.startswith(head), f"README shows {shown}, the log has {line}"
