"""The engine's Z-Corps dice against the exact odds (systems/zcorps/odds.py).

100,000 rolls of the engine's own roll function (systems/zcorps/dice.py)
drawn from DerivedDice with a fixed seed, binned, and compared with the
exact distribution by a chi-square test; the fit must not be rejected at
p <= 0.001. The p-value comes from the regularised upper incomplete gamma
function, computed here (no scipy in the project's dependencies).
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest
from fracas.core.dice import DerivedDice
from fracas.systems.zcorps.dice import add_cp, roll_pool
from fracas.systems.zcorps.odds import DCode, doubled, roll_distribution

ROLLS = 100_000


def chi2_sf(x: float, dof: int) -> float:
    """P(chi-square with ``dof`` degrees of freedom >= x) = Q(dof/2, x/2)."""
    a, z = dof / 2, x / 2
    if z <= 0:
        return 1.0
    if z < a + 1:  # series for P, then Q = 1 - P
        term = total = 1 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= z / n
            total += term
        return 1 - total * math.exp(-z + a * math.log(z) - math.lgamma(a))
    # continued fraction for Q (Lentz)
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-z + a * math.log(z) - math.lgamma(a)) * h


def test_chi2_sf_matches_known_values() -> None:
    # chi-square critical values at p = 0.05 and 0.001 (standard tables)
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=1e-4)
    assert chi2_sf(29.588, 10) == pytest.approx(0.001, abs=1e-5)
    assert chi2_sf(2.0, 2) == pytest.approx(math.exp(-1), abs=1e-12)


def bins(dist: dict[int, Fraction], n: int) -> list[tuple[int, int, float]]:
    """Consecutive totals merged until each bin expects at least 5 rolls: (low, high, p)."""
    out: list[tuple[int, int, float]] = []
    low, acc = None, 0.0
    for total in sorted(dist):
        low = total if low is None else low
        acc += float(dist[total])
        if acc * n >= 5:
            out.append((low, total, acc))
            low, acc = None, 0.0
    last_low, _, last_p = out.pop()
    out.append((last_low, 10**9, last_p + acc + (1 - sum(float(p) for p in dist.values()))))
    return out


@pytest.mark.parametrize(
    ("code", "cp", "cojones"),
    [(DCode(1, 0), 0, False), (DCode(3, 2), 0, False), (DCode(5, 0), 2, False), (DCode(3, 2), 0, True)],
    ids=["1D", "3D+2", "5D with 2 CP", "3D+2 doubled"],
)
def test_engine_dice_match_the_exact_odds(code: DCode, cp: int, cojones: bool) -> None:
    dice = DerivedDice(f"chi-square {code} cp{cp} coj{cojones}")

    def draw(k: int) -> list[int]:
        return dice.draw(k, 6, actor="test", purpose="chi-square")

    rolled = doubled(code) if cojones else code
    counts: Counter[int] = Counter()
    for _ in range(ROLLS):
        roll = roll_pool(draw, rolled)
        if cp:
            add_cp(draw, roll, cp, all_wild=False)
        counts[roll.total] += 1
    dist = roll_distribution(code, cp=cp, cojones_double=cojones)
    chi2 = 0.0
    table = bins(dist, ROLLS)
    for low, high, p in table:
        seen = sum(c for t, c in counts.items() if low <= t <= high)
        expected = p * ROLLS
        chi2 += (seen - expected) ** 2 / expected
    assert sum(counts[t] for t in counts if t < table[0][0]) == 0
    p_value = chi2_sf(chi2, len(table) - 1)
    assert p_value > 0.001, f"{code} cp={cp} cojones={cojones}: chi2 {chi2:.1f}, {len(table) - 1} dof, p {p_value:.2g}"
