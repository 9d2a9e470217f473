"""Exact odds of a Point Zéro test: roll M d6, keep the best N, compare with a difficulty.

PZ-TEST-1 / PZ-TEST-3: the total is the sum of the N highest of M d6 (all of
them when M <= N). The distribution is exact (``Fraction``): it enumerates
the multisets of faces (how many 1s, 2s, ... 6s), C(M+5, 5) of them, each
weighted by its multinomial count, so 12 dice take 6,188 terms instead of
6**12 sequences.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import factorial

from engine import events as E

__all__ = ["at_least", "keep_best_distribution", "outcome_odds"]


def _multisets(m: int, faces: int) -> list[tuple[int, ...]]:
    """Every way to split ``m`` dice among ``faces`` face values (counts per face, face 1 first)."""
    if faces == 1:
        return [(m,)]
    out = []
    for c in range(m + 1):
        for rest in _multisets(m - c, faces - 1):
            out.append((c, *rest))
    return out


@lru_cache(maxsize=256)
def keep_best_distribution(m: int, n: int, sides: int = 6) -> dict[int, Fraction]:
    """P(sum of the best ``n`` of ``m`` d``sides`` = t) for every t, exactly."""
    if m < 0 or n < 0:
        raise ValueError(f"expected m >= 0 and n >= 0 dice, got m={m}, n={n}")
    counts: dict[int, int] = {}
    fm = factorial(m)
    for ms in _multisets(m, sides):
        weight = fm
        for c in ms:
            weight //= factorial(c)
        left, total = n, 0
        for face in range(sides, 0, -1):
            take = min(left, ms[face - 1])
            total += take * face
            left -= take
            if not left:
                break
        counts[total] = counts.get(total, 0) + weight
    space = sides**m
    return {t: Fraction(c, space) for t, c in sorted(counts.items())}


def at_least(m: int, n: int, target: int, sides: int = 6) -> Fraction:
    """P(sum of the best ``n`` of ``m`` d``sides`` >= ``target``)."""
    return sum((p for t, p in keep_best_distribution(m, n, sides).items() if t >= target), Fraction(0))


def outcome_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(a dice total at least this test's) under the same dice: this outcome or a better one.

    None when the test rolled no dice (a skill of 0) or not d6.
    """
    if dice is None or not dice.faces or dice.sides != 6:
        return None
    return float(at_least(len(dice.faces), test.kept, test.dice_total))
