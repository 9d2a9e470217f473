"""``fracas odds zcorps``: exact odds from the command line."""

from __future__ import annotations

import json

import pytest
from fracas.cli.main import main


def test_odds_zcorps_prints_success_critical_failure_and_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "zcorps", "4D+2", "--vs", "15", "--cp", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "Z-Corps 4D+2 + 1 CP (one CP Joker) vs 15"
    assert "success (total >= 15):" in out and "critical failure (Joker 1):  16.67%" in out
    assert "mean total:" in out


def test_odds_zcorps_json_is_exact_and_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "zcorps", "1D", "--vs", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["p_success"], data["p_critical_failure"], data["mean_exact"]) == (5 / 6, 1 / 6, "121/30")


def test_odds_zcorps_a_joker_1_on_1d_plus_1_leaves_the_pip(capsys: pytest.CaptureFixture[str]) -> None:
    """ZC-WILD-2, seed 000: « L'Echec Critique annule le dé ayant obtenu le résultat le plus haut »."""
    assert main(["odds", "zcorps", "1D+1", "--vs", "2"]) == 0
    assert "success (total >= 2):   83.33%" in capsys.readouterr().out


def test_odds_zcorps_bad_code_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "zcorps", "4X", "--vs", "15"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "fracas: error: odds zcorps: bad D code '4X': expected 'ND' or 'ND+P' with whole numbers N and P, "
        "e.g. '4D+2' or '3D'\n"
    )


def test_odds_zcorps_too_many_cp_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "zcorps", "4D", "--vs", "15", "--cp", "4"]) == 2
    assert capsys.readouterr().err == "fracas: error: odds zcorps: cp must be 0..3 Character Points (ZC-CP-1), got 4\n"


def test_odds_unknown_system_names_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "nope", "1"]) == 2
    assert capsys.readouterr().err.startswith("fracas: error: unknown system 'nope' (known: ")
