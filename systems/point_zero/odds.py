"""Exact odds of a Point Zéro test: roll M d6, keep the best N, compare with a difficulty.

PZ-TEST-1 / PZ-TEST-3: the total is the sum of the N highest of M d6 (all of
them when M <= N). The distribution is exact (``Fraction``): it enumerates
the multisets of faces (how many 1s, 2s, ... 6s), C(M+5, 5) of them, each
weighted by its multinomial count, so 12 dice take 6,188 terms instead of
6**12 sequences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from math import factorial

import msgspec
from fracas.core import events as E
from fracas.core.quality import Extra, TestRead

__all__ = [
    "TestOdds",
    "at_least",
    "format_distribution",
    "format_test_odds",
    "keep_best_distribution",
    "outcome_odds",
    "success_odds",
    "test_odds",
    "test_quality",
]


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


def success_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(this test succeeds), before the roll: the same dice kept the same way against the same difficulty.

    The total is the kept dice plus the test's flat bonuses (``total - dice_total``), so the
    dice must reach ``difficulty - bonus``. None when the test rolled no d6.
    """
    if dice is None or not dice.faces or dice.sides != 6:
        return None
    bonus = test.total - test.dice_total
    return float(at_least(len(dice.faces), test.kept, test.difficulty - bonus))


class TestOdds(msgspec.Struct, frozen=True, kw_only=True):
    """The exact odds of one Point Zéro test (PZ-TEST-1..3, PZ-CRIT-1/2)."""

    __test__ = False  # not a pytest class

    dice: int
    keep: int
    vs: int
    p_success: Fraction
    p_critical_success: Fraction
    p_critical_failure: Fraction
    mean: Fraction
    distribution: dict[int, Fraction]


@lru_cache(maxsize=256)
def test_odds(m: int, n: int, vs: int) -> TestOdds:
    """Roll ``m`` d6, keep the best ``n``, against ``vs``: success and criticals, exactly.

    A critical success is a success where a strict majority of the dice show 6;
    a critical failure, a failure where a strict majority show 1.
    """
    if m < 1 or n < 1:
        raise ValueError(f"expected at least one die rolled and kept, got {m} rolled, {n} kept")
    if m > 30:
        raise ValueError(f"expected at most 30 dice, got {m}")
    fm = factorial(m)
    space = 6**m
    success = crit_s = crit_f = 0
    for ms in _multisets(m, 6):
        weight = fm
        for c in ms:
            weight //= factorial(c)
        left, total = n, 0
        for face in range(6, 0, -1):
            take = min(left, ms[face - 1])
            total += take * face
            left -= take
        if total >= vs:
            success += weight
            crit_s += weight if 2 * ms[5] > m else 0
        else:
            crit_f += weight if 2 * ms[0] > m else 0
    dist = keep_best_distribution(m, n)
    return TestOdds(
        dice=m,
        keep=n,
        vs=vs,
        p_success=Fraction(success, space),
        p_critical_success=Fraction(crit_s, space),
        p_critical_failure=Fraction(crit_f, space),
        mean=sum((t * p for t, p in dist.items()), Fraction(0)),
        distribution=dist,
    )


test_odds.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def _table(distribution: dict[int, Fraction]) -> list[str]:
    """``total  P(=)  P(>=)`` rows."""
    lines = ["  total   P(=)     P(>=)"]
    tail = Fraction(1)
    for total, p in distribution.items():
        lines.append(f"  {total:5d}  {float(p):6.2%}  {float(tail):7.2%}")
        tail -= p
    return lines


def format_distribution(m: int, n: int, distribution: dict[int, Fraction]) -> str:
    """The distribution of the best ``n`` of ``m`` d6, with its mean (no difficulty given)."""
    mean = sum((t * p for t, p in distribution.items()), Fraction(0))
    return "\n".join(
        [
            f"Point Zéro {m}d6k{n}: roll {m} d6, keep the best {n}",
            f"  mean total: {float(mean):.3f}",
            *_table(distribution),
        ]
    )


def format_test_odds(o: TestOdds) -> str:
    lines = [
        f"Point Zéro {o.dice}d6k{o.keep} vs {o.vs}",
        f"  success (total >= {o.vs}):  {float(o.p_success):7.2%}",
        f"  critical success:         {float(o.p_critical_success):7.2%}  (MR doubled, PZ-CRIT-1)",
        f"  critical failure:         {float(o.p_critical_failure):7.2%}  (jam, drop or fall, PZ-CRIT-2)",
        f"  mean total:               {float(o.mean):7.3f}",
        *_table(o.distribution),
    ]
    return "\n".join(lines)


def test_quality(test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
    """The decision-quality reading of a logged Point Zéro test (fracas.core.quality).

    An attack is a PZ-TEST-3 test with a target (saves have none, Medicine is PZ-HEAL-3).
    Its odds are exact: the dice rolled (the last d6 roll of the actor before the test),
    keep ``kept``, against the difficulty; ``beyond`` is a difficulty above six times the
    dice kept, which no roll reaches. A surpass (PZ-SURP-1, "+N surpass" in the skill)
    is an extra effort: the odds with N dice fewer, and with them.
    """
    if test.rule != "PZ-TEST-3":
        return None
    rolled = next((d for d in reversed(dice) if d.sides == 6 and d.rule == "PZ-TEST-1"), None)
    m = len(rolled.faces) if rolled is not None else 0

    def p(n: int) -> float:
        if n <= 0:
            return 1.0 if test.difficulty <= 0 else 0.0
        return float(at_least(n, test.kept, test.difficulty))

    odds = p(m)
    extras: tuple[Extra, ...] = ()
    match = _SURPASS.search(test.skill)
    if match is not None:
        extra = int(match.group(1))
        extras = (Extra(kind="surpass", amount=extra, before=p(m - extra), after=odds),)
    return TestRead(attack=test.target is not None, odds=odds, beyond=test.difficulty > 6 * test.kept, extras=extras)


_SURPASS = re.compile(r" \+(\d+) surpass$")
