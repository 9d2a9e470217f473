"""C-END-1 with an escape objective, and aftermath care limited to some sides."""

from __future__ import annotations

from pathlib import Path

from conftest import SCENARIOS, run_fight
from fracas.cli.main import main
from fracas.core import events as E

MIRA = SCENARIOS / "point_zero" / "mira_vs_guard.toml"


def test_c_end_1_a_side_whose_objective_is_escape_wins_when_its_actor_flees(tmp_path: Path) -> None:
    fight = run_fight(MIRA, tmp_path, seed="7")
    fled = fight.events(E.ActorFled)
    assert [e.actor for e in fled] == ["mira"]
    end = fight.events(E.EncounterEnded)[0]
    assert (end.winner, end.reason) == ("mira", "side mira escaped")


def test_c_end_1_without_the_objective_fleeing_loses(tmp_path: Path) -> None:
    plain = tmp_path / "plain.toml"
    plain.write_text(MIRA.read_text(encoding="utf-8").replace('objective = "escape"', ""), encoding="utf-8")
    fight = run_fight(plain, tmp_path, seed="7")
    end = fight.events(E.EncounterEnded)[0]
    assert (end.winner, end.reason) == ("guards", "only side guards can still fight")


def test_care_reaches_only_the_sides_named_in_the_aftermath(tmp_path: Path) -> None:
    fight = run_fight(MIRA, tmp_path, seed="7")
    patients = [e.target for e in fight.events(E.SkillTested) if e.rule == "PZ-HEAL-3"]
    assert patients == ["mira"]  # the wounded guard gets no care from Mira's contact


def bad_variant(tmp_path: Path, old: str, new: str) -> tuple[int, str]:
    bad = tmp_path / "bad.toml"
    bad.write_text(MIRA.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "fracas", "validate", str(bad)], capture_output=True, text=True, check=False
    )
    return proc.returncode, proc.stderr.replace(str(bad), "FILE")


def test_bad_objectives_and_care_sides_are_named(tmp_path: Path) -> None:
    assert bad_variant(tmp_path, 'objective = "escape"', 'objective = "loot"') == (
        2,
        "fracas: error: FILE:25:1: $.sides[0].objective: unknown objective 'loot' (expected one of fight, escape)\n",
    )
    assert bad_variant(tmp_path, 'exits = [{ name = "service door", x = 0, y = 8 }]', "exits = []") == (
        2,
        "fracas: error: FILE:25:1: $.sides[0].objective: "
        "an escape objective needs an exit on the map ([[map.exits]])\n",
    )
    assert bad_variant(tmp_path, 'sides = ["mira"]', 'sides = ["chet"]') == (
        2,
        "fracas: error: FILE:83:1: $.aftermath.sides[0]: unknown side 'chet' (expected one of mira, guards)\n",
    )
    assert main(["validate", str(MIRA)]) == 0
