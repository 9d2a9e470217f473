"""``fracas audit``: "what were my chances?" is the chance of success before the roll, not the percentile."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]


def _brute_at_least(m: int, n: int, target: int) -> Fraction:
    hits = sum(sum(sorted(f, reverse=True)[:n]) >= target for f in itertools.product(range(1, 7), repeat=m))
    return Fraction(hits, 6**m)


def test_readme_roll_6_answers_the_chance_of_success(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "mira.jsonl"
    run_scenario(ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml", seed="7", log_path=log)
    assert main(["audit", str(log), "--roll", "6", "--json"]) == 0
    audit = json.loads(capsys.readouterr().out)
    test_line = next(line for line in audit["lines"] if line.startswith("Test "))
    assert "Mira's handguns/PER" in test_line and "keeps the best 3" in test_line
    # Mira rolls 5 d6 (Handguns 5), keeps 3 (PER 3), against 14 (the guard behind the forklift):
    # independently, by brute force
    assert audit["chance"] == pytest.approx(float(_brute_at_least(5, 3, 14)))
    assert f"{audit['chance']:.2%}" == "52.56%"
    # and where her 12 fell: 12 or better
    assert audit["odds"] == pytest.approx(float(_brute_at_least(5, 3, 12)))
    assert main(["audit", str(log), "--roll", "6"]) == 0
    text = capsys.readouterr().out
    assert "Chance before the roll: 52.56% to succeed against 14" in text
    assert "Where it fell: 77.46% of rolls do this well or better" in text
