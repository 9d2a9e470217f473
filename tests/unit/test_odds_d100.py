"""Exact d100 odds (systems/d100/odds.py): band_of by hand, odds by counting."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

# Imported by name on purpose: the module marks it `__test__ = False`, so
# pytest must not collect it as a test here.
from fracas.systems.d100.odds import (
    ATTACK_BANDS,
    TEST_BANDS,
    band_of,
    format_odds,
    is_double,
    is_success,
    odds,
    test_bands,
)


def pct(n: int) -> Fraction:
    return Fraction(n, 100)


# --------------------------------------------------------------------------
# D100-ROLL-1, D100-CRIT-1, D100-ATK-2: single rolls by hand
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("roll", "skill", "mod", "attack", "band"),
    [
        # skill 55 - 30 = 25
        (1, 55, -30, True, "success"),
        (10, 55, -30, True, "success"),
        (11, 55, -30, True, "critical_success"),  # a double under the skill
        (22, 55, -30, True, "critical_success"),
        (25, 55, -30, True, "success"),
        (26, 55, -30, True, "failure"),
        (33, 55, -30, True, "fumble"),  # a double above the skill
        (65, 55, -30, True, "failure"),  # fails by 40
        (66, 55, -30, True, "fumble"),  # fails by 41 and a double: fumble first
        (67, 55, -30, True, "critical_failure"),  # fails by 42
        (77, 55, -30, True, "fumble"),
        (100, 55, -30, True, "fumble"),
        # the same rolls outside an attack: no fumble band
        (33, 55, -30, False, "critical_failure"),
        (66, 55, -30, False, "critical_failure"),
        (77, 55, -30, False, "critical_failure"),
        (26, 55, -30, False, "failure"),
        (11, 55, -30, False, "critical_success"),
        # margins of success
        (9, 50, 0, True, "critical_success"),  # succeeds by 41
        (10, 50, 0, True, "success"),  # succeeds by 40
        (44, 50, 0, True, "critical_success"),
        (50, 50, 0, True, "success"),
        (51, 50, 0, True, "failure"),
        (91, 50, 0, True, "critical_failure"),  # fails by 41
        (90, 50, 0, True, "failure"),
        # 01 always succeeds, 100 always fails
        (1, 0, 0, True, "success"),
        (1, -40, 0, True, "success"),
        (1, 60, 0, True, "critical_success"),  # 60 - 1 = 59 >= 41
        (2, 0, 0, True, "failure"),
        (100, 150, 0, True, "fumble"),
        (100, 150, 0, False, "critical_failure"),
        (99, 150, 0, True, "critical_success"),
        (98, 150, 0, True, "critical_success"),  # succeeds by 52
        (90, 130, 0, True, "success"),  # succeeds by 40
        # margins measured from the modified skill as it is, even below 0
        (31, -10, 0, False, "critical_failure"),  # fails by 41
        (30, -10, 0, False, "failure"),
        (40, 30, 20, True, "success"),  # 30 + 20 = 50
        (51, 30, 20, True, "failure"),
    ],
)
def test_band_of(roll: int, skill: int, mod: int, attack: bool, band: str) -> None:
    assert band_of(roll, skill, mod, attack) == band


def test_doubles() -> None:
    assert [r for r in range(1, 101) if is_double(r)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]


@pytest.mark.parametrize("roll", [0, 101, -1])
def test_roll_out_of_range(roll: int) -> None:
    with pytest.raises(ValueError) as info:
        band_of(roll, 50)
    assert str(info.value) == f"a d100 roll is 1..100 (100 for 00), got {roll}"


@pytest.mark.parametrize("skill", [-100, -1, 0])
def test_skill_at_most_zero_only_01_succeeds(skill: int) -> None:
    assert [r for r in range(1, 101) if is_success(r, skill)] == [1]
    assert odds(skill).p_success == pct(1)


@pytest.mark.parametrize("skill", [99, 100, 101, 250])
def test_100_always_fails(skill: int) -> None:
    assert not is_success(100, skill)
    assert odds(skill).p_success == pct(99)


# --------------------------------------------------------------------------
# Odds: the worked example and a brute recount
# --------------------------------------------------------------------------


def test_worked_example_55_minus_30() -> None:
    o = odds(55, -30)
    assert o.effective == 25
    assert o.p_success == pct(25)  # 01..25
    assert o.rolls["critical_success"] == (11, 22)
    assert o.rolls["fumble"] == (33, 44, 55, 66, 77, 88, 99, 100)
    # failures by 41+: 66..100 less the doubles, 35 - 5
    assert o.bands == {
        "critical_success": pct(2),
        "success": pct(23),
        "failure": pct(37),
        "critical_failure": pct(30),
        "fumble": pct(8),
    }
    assert test_bands(55, -30) == o.bands
    assert test_bands(55, -30, attack=False) == {
        "critical_success": pct(2),
        "success": pct(23),
        "failure": pct(37),
        "critical_failure": pct(38),  # 30 + the 8 doubles above the skill
    }


def recount(skill: int, mod: int, attack: bool) -> dict[str, Fraction]:
    """The bands by set arithmetic over the 100 faces, not by band_of."""
    target = skill + mod
    faces = set(range(1, 101))
    doubles = {11, 22, 33, 44, 55, 66, 77, 88, 99, 100}
    wins = {1} | {r for r in faces if r <= target} - {100}
    losses = faces - wins
    big_win = {r for r in wins if target - r >= 41} | (wins & doubles)
    fumble = (losses & doubles) if attack else set()
    big_loss = ({r for r in losses if r - target >= 41} | (losses & doubles)) - fumble
    counts = {
        "critical_success": len(big_win),
        "success": len(wins - big_win),
        "failure": len(losses - big_loss - fumble),
        "critical_failure": len(big_loss),
    }
    if attack:
        counts["fumble"] = len(fumble)
    return {band: pct(n) for band, n in counts.items()}


@pytest.mark.parametrize("attack", [True, False])
def test_bands_match_a_recount(attack: bool) -> None:
    for skill in range(-60, 161, 7):
        for mod in (-50, -30, -20, 0, 10):
            bands = test_bands(skill, mod, attack=attack)
            assert bands == recount(skill, mod, attack), (skill, mod)
            assert tuple(bands) == (ATTACK_BANDS if attack else TEST_BANDS)
            assert sum(bands.values()) == 1


def test_success_rises_with_skill() -> None:
    ps = [odds(s).p_success for s in range(-5, 106)]
    assert all(a <= b for a, b in itertools.pairwise(ps))
    assert odds(42).p_success == pct(42)


# --------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------


def test_format_odds() -> None:
    assert format_odds(odds(55, -30)) == "\n".join(
        [
            "d100 attack, skill 55 -30 = 25",
            "  success             25%",
            "    critical_success   2%  11, 22",
            "    success           23%  01-10, 12-21, 23-25",
            "  failure             75%",
            "    failure           37%  26-32, 34-43, 45-54, 56-65",
            "    critical_failure  30%  67-76, 78-87, 89-98",
            "    fumble             8%  33, 44, 55, 66, 77, 88, 99-100",
        ]
    )
    assert format_odds(odds(-5, attack=False)).splitlines()[:4] == [
        "d100 test, skill -5",
        "  success              1%",
        "    critical_success   0%  -",
        "    success            1%  01",
    ]
