"""Derived d100 rolls against the exact band odds of systems/d100/odds.py (chi-square).

100,000 derived faces (fixed seed) are classified with ``band_of``, the one
classification the engine uses too, and compared with ``test_bands``; the
p-value comes from the chi-square survival function below (standard
library only: scipy is not a dependency).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from fracas.core.dice import DerivedDice
from fracas.systems.d100.odds import band_of
from fracas.systems.d100.odds import test_bands as exact_bands

N = 100_000


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` (integer) degrees of freedom, closed form."""
    if x <= 0:
        return 1.0
    half = x / 2
    if df % 2 == 0:
        term = total = math.exp(-half)
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(2 * x / math.pi) * math.exp(-half)
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= x / (2 * i + 1)
    return min(1.0, total)


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [(3.841459, 1, 0.05), (7.814728, 3, 0.05), (9.487729, 4, 0.05), (18.46683, 4, 0.001), (20.51501, 5, 0.001)],
)
def test_chi2_sf_matches_the_tables(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-5)


def chi_square(rolls: list[int], skill: int, mod: int, attack: bool) -> tuple[float, int, dict[str, int]]:
    """Chi-square statistic and degrees of freedom of the observed bands against the exact odds."""
    observed = Counter(band_of(r, skill, mod, attack) for r in rolls)
    expected = exact_bands(skill, mod, attack=attack)
    stat = 0.0
    cells = 0
    for band, p in expected.items():
        if p == 0:
            assert observed[band] == 0, band
            continue
        e = float(p * len(rolls))
        stat += (observed[band] - e) ** 2 / e
        cells += 1
    return stat, cells - 1, dict(observed)


@pytest.fixture(scope="module")
def rolls() -> list[int]:
    return DerivedDice("d100 chi-square").draw(N, 100, actor="test", purpose="chi-square")


@pytest.mark.parametrize(
    ("skill", "mod", "attack"),
    [(55, -30, True), (60, 0, True), (50, 0, False), (90, 10, True), (30, -20, False), (5, 0, True)],
)
def test_derived_d100_rolls_fit_the_exact_band_odds(rolls: list[int], skill: int, mod: int, attack: bool) -> None:
    stat, df, observed = chi_square(rolls, skill, mod, attack)
    assert sum(observed.values()) == N
    assert chi2_sf(stat, df) > 0.001, (stat, df, observed)


def test_the_chi_square_catches_a_die_that_shows_50_for_100(rolls: list[int]) -> None:
    biased = [r if r != 100 else 50 for r in rolls]
    stat, df, _ = chi_square(biased, 55, -30, True)
    assert chi2_sf(stat, df) < 1e-6


def test_the_odds_sum_to_one_over_the_bands() -> None:
    assert sum(exact_bands(55, -30).values()) == Fraction(1)
