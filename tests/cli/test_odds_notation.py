"""``fracas odds`` in the players' notation: 5d6k3, 4D+2, d100 55; a distribution without --vs.

Every figure is checked against an independent brute force (every sequence of
faces), never against the code under test.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.cli.main import main


def _brute_keep_best(m: int, n: int) -> dict[int, Fraction]:
    counts: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=m):
        t = sum(sorted(faces, reverse=True)[:n])
        counts[t] = counts.get(t, 0) + 1
    return {t: Fraction(c, 6**m) for t, c in sorted(counts.items())}


def _table(out: str) -> dict[int, tuple[str, str]]:
    """The rows ``total  P(=)  P(>=)`` of a printed distribution."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit() and parts[1].endswith("%") and parts[2].endswith("%"):
            rows[int(parts[0])] = (parts[1], parts[2])
    return rows


def test_point_zero_5d6k3_prints_the_whole_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "point_zero", "5d6k3"]) == 0
    out = capsys.readouterr().out
    rows = _table(out)
    brute = _brute_keep_best(5, 3)
    assert sorted(rows) == sorted(brute)
    tail = Fraction(1)
    for total, p in brute.items():
        assert rows[total] == (f"{float(p):.2%}", f"{float(tail):.2%}")
        tail -= p
    assert "success" not in out  # no difficulty given: no success line


def test_point_zero_5d6k3_vs_12_is_77_46(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "point_zero", "5d6k3", "--vs", "12"]) == 0
    out = capsys.readouterr().out
    assert "77.46%" in out.splitlines()[1]
    # the old form stays as an alias and says the same
    assert main(["odds", "point_zero", "5", "--keep", "3", "--vs", "12"]) == 0
    assert capsys.readouterr().out == out


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["point_zero", "2d6k3"], "keeps 3 of 2 dice"),
        (["point_zero", "2", "--keep", "3"], "keeps 3 of 2 dice"),
        (["point_zero", "5d6k0"], "at least one die"),
        (["point_zero", "5d8k3"], "5d8k3"),
        (["point_zero", "5"], "--keep"),
        (["point_zero", "5d6k3", "--keep", "2"], "--keep"),
        (["d100", "0"], "1 to 100"),
        (["d100", "101"], "1 to 100"),
        (["zcorps", "4D+2", "--vs", "x"], "--vs"),
    ],
)
def test_impossible_requests_are_refused_with_one_line(
    argv: list[str], why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["odds", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fracas: error: odds ")
    assert why in err


def test_zcorps_4d_plus_2_prints_a_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "zcorps", "4D+2"]) == 0
    out = capsys.readouterr().out
    rows = _table(out)
    # lowest total: the Joker shows 1 (ZC-WILD-2), removing the highest other die; all three others 1: 1 + 1 + 1 + 2
    assert min(rows) == 5
    assert rows[5][1] == "100.00%"
    assert "success" not in out
    with_vs = main(["odds", "zcorps", "4D+2", "--vs", "15"])
    assert with_vs == 0 and "success (total >= 15)" in capsys.readouterr().out


def test_d100_notation_with_modifier(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["odds", "d100", "55", "--mod", "-30", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["effective"] == 25


def test_plot_without_vs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    png = tmp_path / "d.png"
    assert main(["odds", "point_zero", "5d6k3", "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    png2 = tmp_path / "z.png"
    assert main(["odds", "zcorps", "4D+2", "--plot", str(png2)]) == 0
    assert png2.read_bytes()[:4] == b"\x89PNG"
