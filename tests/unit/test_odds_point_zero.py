"""Point Zéro test odds against brute force over every sequence of faces, and the odds command."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.systems.point_zero.odds import test_odds as pz_test_odds


def brute(m: int, n: int, vs: int) -> tuple[Fraction, Fraction, Fraction]:
    success = crit_s = crit_f = 0
    for faces in itertools.product(range(1, 7), repeat=m):
        total = sum(sorted(faces, reverse=True)[:n])
        if total >= vs:
            success += 1
            crit_s += 2 * faces.count(6) > m
        else:
            crit_f += 2 * faces.count(1) > m
    space = 6**m
    return Fraction(success, space), Fraction(crit_s, space), Fraction(crit_f, space)


@pytest.mark.parametrize(("m", "n", "vs"), [(1, 1, 4), (3, 2, 10), (4, 3, 12), (5, 3, 12), (5, 5, 20), (2, 3, 7)])
def test_test_odds_match_brute_force(m: int, n: int, vs: int) -> None:
    o = pz_test_odds(m, n, vs)
    assert (o.p_success, o.p_critical_success, o.p_critical_failure) == brute(m, n, vs)
    assert sum(o.distribution.values()) == 1


def test_mira_5d6_keep_3_vs_12() -> None:
    o = pz_test_odds(5, 3, 12)
    assert o.p_success == Fraction(6023, 7776)
    assert o.p_critical_success == Fraction(276, 7776)


def test_odds_command_for_point_zero(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["odds", "point_zero", "5", "--keep", "3", "--vs", "12", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["p_success_exact"] == "6023/7776"
    assert main(["odds", "point_zero", "5", "--keep", "3", "--vs", "12", "--plot", str(tmp_path / "o.png")]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1] == "  success (total >= 12):   77.46%"
    assert (tmp_path / "o.png").read_bytes()[:4] == b"\x89PNG"


def test_odds_command_rejects_a_bad_surpass(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "point_zero", "5", "--keep", "3", "--vs", "12", "--surpass", "3"]) == 2
    assert (
        capsys.readouterr().err
        == "fracas: error: odds point_zero: --surpass is 0, 1 or 2 extra dice (PZ-SURP-1), got 3\n"
    )
