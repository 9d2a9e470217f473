"""Exact Z-Corps odds (systems/zcorps/odds.py) against independent oracles.

Three oracles, none sharing code with the module under test:
- hand-computed values (each derivation in a comment);
- brute force: every face of every die enumerated, the Joker rule applied
  to the actual dice, explosions followed to a fixed depth; exact for every
  total below the first one a cut-off explosion could reach;
- icepool (when installed), the rule written with its pool operations.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction

import pytest
from conftest import need
from fracas.systems.zcorps.odds import (
    DISTRIBUTION_TAIL,
    DCode,
    critical_failure_probability,
    doubled,
    format_odds,
    odds,
    parse_code,
    roll_distribution,
    success_probability,
)

SIXTH = Fraction(1, 6)

# --------------------------------------------------------------------------
# ZC-DICE-1: D codes
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code", "shown"),
    [
        ("4D+2", DCode(4, 2), "4D+2"),
        ("3D", DCode(3, 0), "3D"),
        ("1D+1", DCode(1, 1), "1D+1"),
        ("1d+1", DCode(1, 1), "1D+1"),
        (" 2D + 2 ", DCode(2, 2), "2D+2"),
        ("4D+0", DCode(4, 0), "4D"),
        ("4D+3", DCode(5, 0), "5D"),
        ("2D+7", DCode(4, 1), "4D+1"),
        ("0D+2", DCode(0, 2), "0D+2"),
        ("12D", DCode(12, 0), "12D"),
    ],
)
def test_parse_code(text: str, code: DCode, shown: str) -> None:
    assert parse_code(text) == code
    assert str(parse_code(text)) == shown


@pytest.mark.parametrize("text", ["2D-1", "", "D", "4", "+2", "4D+", "4D2", "-1D", "1.5D", "4D+2+1"])
def test_parse_code_rejects(text: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_code(text)
    assert str(info.value) == (
        f"bad D code {text!r}: expected 'ND' or 'ND+P' with whole numbers N and P, e.g. '4D+2' or '3D'"
    )


def test_dcode_pips_are_0_to_2() -> None:
    with pytest.raises(ValueError) as info:
        DCode(4, 3)
    assert str(info.value) == ("pips must be 0..2 in a D code, got 3 (use DCode.of to carry 3 pips into 1D)")
    assert DCode.of(4, 3) == DCode(5, 0)
    assert DCode.of(4, -1) == DCode(3, 2)
    assert DCode.of(1, 8) == DCode(3, 2)


@pytest.mark.parametrize(
    ("code", "twice"),
    [
        (DCode(3, 2), DCode(7, 1)),  # the rule's own 3D+2 -> 6D+4 = 7D+1
        (DCode(1, 1), DCode(2, 2)),
        (DCode(2, 2), DCode(5, 1)),
        (DCode(4, 0), DCode(8, 0)),
        (DCode(0, 2), DCode(1, 1)),
    ],
)
def test_doubled(code: DCode, twice: DCode) -> None:
    assert doubled(code) == twice


# --------------------------------------------------------------------------
# Brute-force oracle
# --------------------------------------------------------------------------

DEPTH = 3  # rerolls followed per exploding die


def exploding_sequences(depth: int) -> Iterator[tuple[int, int, Fraction]]:
    """(first face, value, probability) of every roll sequence of an exploding
    d6 that stops within ``depth`` rerolls; sequences still going are dropped,
    and every one of them is worth more than 6 * (depth + 1)."""
    stack: list[tuple[int, int, Fraction, int]] = [(0, 0, Fraction(1), 0)]
    while stack:
        first, value, p, rerolls = stack.pop()
        for face in range(1, 7):
            f = first or face
            if face != 6:
                yield f, value + face, p / 6
            elif rerolls < depth:
                stack.append((f, value + 6, p / 6, rerolls + 1))


def brute(dice: int, pips: int, cp: int = 0, all_cp_wild: bool = False) -> dict[int, Fraction]:
    """P(total = t), exact for t <= 6 * (DEPTH + 1) + pips: every die rolled."""
    joker = list(exploding_sequences(DEPTH))
    cp_wild = cp if all_cp_wild else min(cp, 1)
    cp_plain = cp - cp_wild
    cp_rolls: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(cp_wild):
        step: dict[int, Fraction] = {}
        for a, pa in cp_rolls.items():
            for _first, b, pb in joker:  # a CP Joker's first 1 is a plain 1
                step[a + b] = step.get(a + b, Fraction(0)) + pa * pb
        cp_rolls = step
    for _ in range(cp_plain):
        step = {}
        for a, pa in cp_rolls.items():
            for face in range(1, 7):
                step[a + face] = step.get(a + face, Fraction(0)) + pa / 6
        cp_rolls = step
    dist: dict[int, Fraction] = {}
    for others in itertools.product(range(1, 7), repeat=dice - 1):
        p_others = Fraction(1, 6 ** (dice - 1))
        for first, value, p_joker in joker:
            # ZC-WILD-2: a first 1 drops the highest other die; the 1 counts.
            crit = first == 1
            # on a 1D pool the Joker is the highest die: its 1 is cancelled, the pips remain
            kept = (1 + sum(others) - max(others) if others else 0) if crit else value + sum(others)
            for extra, p_extra in cp_rolls.items():
                total = kept + extra + pips
                dist[total] = dist.get(total, Fraction(0)) + p_others * p_joker * p_extra
    return dist


BRUTE_CASES = [
    (1, 0, 0, False),
    (1, 2, 0, False),
    (2, 0, 0, False),
    (2, 1, 0, False),
    (3, 0, 0, False),
    (3, 2, 0, False),
    (4, 1, 0, False),
    (1, 0, 1, False),
    (2, 2, 1, False),
    (3, 1, 2, False),
    (2, 0, 2, True),
    (1, 1, 3, False),
]


@pytest.mark.parametrize(("dice", "pips", "cp", "all_cp_wild"), BRUTE_CASES)
def test_distribution_matches_brute_force(dice: int, pips: int, cp: int, all_cp_wild: bool) -> None:
    exact_up_to = 6 * (DEPTH + 1) + pips
    expected = brute(dice, pips, cp, all_cp_wild)
    got = roll_distribution(DCode(dice, pips), cp=cp, all_cp_wild=all_cp_wild)
    for total in range(exact_up_to + 1):
        assert got.get(total, Fraction(0)) == expected.get(total, Fraction(0)), total
    below = Fraction(0)
    for vs in range(exact_up_to + 2):
        p = success_probability(DCode(dice, pips), vs, cp=cp, all_cp_wild=all_cp_wild)
        assert p == 1 - below, vs
        below += expected.get(vs, Fraction(0))


# --------------------------------------------------------------------------
# Hand-computed values
# --------------------------------------------------------------------------


def test_one_die_by_hand() -> None:
    one = DCode(1, 0)
    dist = roll_distribution(one)
    # ZC-WILD-2: a 1 on the lone Joker cancels that die (the highest): the total is 0.
    assert dist[0] == SIXTH and 1 not in dist
    # 2..5 are single rolls; 6 always rolls again, so no total of 6, 12, ...
    for face in range(2, 6):
        assert dist[face] == SIXTH
    assert 6 not in dist and 12 not in dist
    # 7..11 = a 6 then 1..5; 13..17 = two 6s then 1..5.
    assert [dist[t] for t in range(7, 12)] == [Fraction(1, 36)] * 5
    assert [dist[t] for t in range(13, 18)] == [Fraction(1, 216)] * 5
    assert success_probability(one, 1) == Fraction(5, 6)
    assert success_probability(one, 2) == Fraction(5, 6)
    assert success_probability(one, 6) == SIXTH  # only a first 6 gets there
    assert success_probability(one, 7) == SIXTH
    assert success_probability(one, 8) == SIXTH * Fraction(5, 6)
    assert success_probability(one, 13) == Fraction(1, 36)
    assert success_probability(one, 19) == Fraction(1, 216)
    assert success_probability(one, -5) == 1
    # E = 3.5 + E/6 for an exploding d6, so E = 21/5 = 4.2; less the cancelled 1 (1/6): 121/30.
    assert odds(one, 6).mean == Fraction(121, 30)


def test_one_die_with_pips_keeps_only_the_pips() -> None:
    """Seed 000: « L'Echec Critique annule le dé ayant obtenu le résultat le plus haut »: on 1D, the Joker itself."""
    dist = roll_distribution(DCode(1, 2))
    assert min(dist) == 2  # ZC-WILD-2: only the pips remain
    assert dist[2] == SIXTH and 3 not in dist
    assert odds(DCode(1, 2), 3).p_success == Fraction(5, 6)
    assert odds(DCode(1, 1), 2).p_success == Fraction(5, 6)


def test_two_dice_by_hand() -> None:
    two = DCode(2, 0)
    dist = roll_distribution(two)
    assert dist[1] == SIXTH  # Joker 1: the other die is removed, whatever it shows
    assert 2 not in dist  # otherwise Joker >= 2 and the other >= 1
    assert dist[3] == Fraction(1, 36)  # Joker 2, other 1
    assert dist[4] == Fraction(2, 36)  # 2+2, 3+1
    # E = 1/6 * 1 + E[Joker; first != 1] + 5/6 * 7/2
    #   = 1/6 + (21/5 - 1/6) + 35/12 = 427/60
    assert odds(two, 10).mean == Fraction(427, 60)
    assert odds(two, 2).p_critical_failure_success == 0


def test_three_dice_by_hand() -> None:
    three = DCode(3, 0)
    o = odds(three, 3)
    # Critical failure keeps 1 + the lower of the two other dice: that lower
    # die is >= 2 with probability 25/36.
    assert o.p_critical_failure_success == SIXTH * Fraction(25, 36)
    # E[min of 2d6] = 91/36, so E = 1/6 * (1 + 91/36) + 121/30 + 5/6 * 7
    assert o.mean == SIXTH * (1 + Fraction(91, 36)) + Fraction(121, 30) + Fraction(35, 6)
    assert o.mean == Fraction(11291, 1080)


def test_cp_dice_are_never_removed() -> None:
    dist = roll_distribution(DCode(2, 0), cp=1)
    # Joker 1 removes the plain die, not the CP die: 1 + CP die.
    assert dist[2] == SIXTH * SIXTH
    assert dist[3] == SIXTH * SIXTH
    assert min(dist) == 2
    # The CP Joker's 1 is a plain 1: no second critical failure.
    assert critical_failure_probability(DCode(2, 0), cp=1) == SIXTH


def test_cp_means() -> None:
    base = odds(DCode(4, 2), 15).mean
    assert base is not None
    assert odds(DCode(4, 2), 15, cp=1).mean == base + Fraction(21, 5)
    assert odds(DCode(4, 2), 15, cp=3).mean == base + Fraction(21, 5) + 7
    assert odds(DCode(4, 2), 15, cp=3, all_cp_wild=True).mean == base + 3 * Fraction(21, 5)
    assert odds(DCode(4, 2), 15, cp=0, all_cp_wild=True).mean == base


def test_mean_agrees_with_distribution() -> None:
    for code, cp in [(DCode(1, 0), 0), (DCode(4, 2), 1), (DCode(6, 1), 3)]:
        o = odds(code, 15, cp=cp)
        assert o.mean is not None
        listed = sum((t * p for t, p in o.distribution.items()), Fraction(0))
        assert abs(o.mean - listed) < Fraction(1, 10**12)


# --------------------------------------------------------------------------
# Exact totals, truncation of the listing only
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cp", "all_cp_wild"),
    [
        (DCode(1, 0), 0, False),
        (DCode(4, 2), 1, False),
        (DCode(3, 0), 3, True),
    ],
)
def test_listing_stops_at_the_documented_tail(code: DCode, cp: int, all_cp_wild: bool) -> None:
    dist = roll_distribution(code, cp=cp, all_cp_wild=all_cp_wild)
    tail = 1 - sum(dist.values(), Fraction(0))
    assert 0 < tail < DISTRIBUTION_TAIL
    assert all(p > 0 for p in dist.values())
    last = max(dist)
    # The tail is the exact mass above the last total listed ...
    assert success_probability(code, last + 1, cp=cp, all_cp_wild=all_cp_wild) == tail
    # ... and one total fewer would have left too much.
    assert tail + dist[last] >= DISTRIBUTION_TAIL
    assert odds(code, 15, cp=cp, all_cp_wild=all_cp_wild).distribution_tail == tail


def test_success_is_one_minus_the_totals_below() -> None:
    dist = roll_distribution(DCode(4, 2), cp=1)
    below = Fraction(0)
    for vs in range(0, 60):
        assert success_probability(DCode(4, 2), vs, cp=1) == 1 - below
        below += dist.get(vs, Fraction(0))


def test_success_falls_as_difficulty_rises() -> None:
    ps = [success_probability(DCode(3, 1), vs) for vs in range(0, 80)]
    assert all(a >= b for a, b in itertools.pairwise(ps))
    assert ps[0] == 1 and 0 < ps[-1] < Fraction(1, 10**6)


# --------------------------------------------------------------------------
# ZC-WILD-2, ZC-CP-1, ZC-COJ-1, automatic failure
# --------------------------------------------------------------------------


@pytest.mark.parametrize("dice", [1, 2, 5, 12])
def test_critical_failure_is_one_sixth(dice: int) -> None:
    code = DCode(dice, 1)
    assert critical_failure_probability(code) == SIXTH
    assert critical_failure_probability(code, cp=2) == SIXTH
    assert critical_failure_probability(code, cojones_double=True) == SIXTH
    assert odds(code, 10).p_critical_failure == SIXTH


def test_cojones_double_is_the_doubled_code_with_one_joker() -> None:
    plain = odds(DCode(7, 1), 20)
    twice = odds(DCode(3, 2), 20, cojones_double=True)
    assert twice.rolled == DCode(7, 1)
    assert twice.code == DCode(3, 2)
    assert twice.distribution == plain.distribution
    assert twice.p_success == plain.p_success
    assert twice.mean == plain.mean
    assert twice.p_critical_failure == SIXTH


def test_cojones_forbids_cp() -> None:
    with pytest.raises(ValueError) as info:
        odds(DCode(3, 2), 15, cp=1, cojones_double=True)
    assert str(info.value) == ("no Character Points on a roll doubled by Cojones (ZC-COJ-1), got cp=1")


@pytest.mark.parametrize("cp", [-1, 4])
def test_cp_limits(cp: int) -> None:
    with pytest.raises(ValueError) as info:
        roll_distribution(DCode(3, 0), cp=cp)
    assert str(info.value) == f"cp must be 0..3 Character Points (ZC-CP-1), got {cp}"


@pytest.mark.parametrize("code", [DCode(0, 2), DCode(0, 0), DCode(-2, 1)])
def test_empty_pool_fails_automatically(code: DCode) -> None:
    o = odds(code, 1, cp=2)
    assert o.automatic_failure
    assert o.p_success == 0 and o.p_critical_failure == 0 and o.mean is None
    assert o.distribution == {}
    assert success_probability(code, -10) == 0
    assert critical_failure_probability(code) == 0
    with pytest.raises(ValueError) as info:
        roll_distribution(code)
    assert str(info.value) == (f"a pool of {code.dice}D has no dice to roll: it fails automatically (ZC-DICE-1)")
    # Doubling 0D+2 rolls 1D+1: the pool is judged after Cojones.
    if code == DCode(0, 2):
        assert not odds(code, 1, cojones_double=True).automatic_failure


def test_all_cp_wild_option() -> None:
    code = DCode(2, 0)
    one_joker = roll_distribution(code, cp=2)
    all_jokers = roll_distribution(code, cp=2, all_cp_wild=True)
    # Joker 2 + plain 1 + CP 6 and 1: 10 with one CP Joker; with both CP
    # dice exploding, a CP 6 always rolls on, so the 10 needs a 5 + 2 split.
    assert one_joker[10] != all_jokers[10]
    assert success_probability(code, 30, cp=2, all_cp_wild=True) > success_probability(code, 30, cp=2)


# --------------------------------------------------------------------------
# Worked numbers and text
# --------------------------------------------------------------------------


def test_worked_numbers() -> None:
    code = parse_code("4D+2")
    assert odds(code, 15).p_success == success_probability(code, 15)
    assert float(odds(code, 15).p_success) == pytest.approx(0.6161265432, abs=1e-9)
    assert float(odds(code, 15, cp=1).p_success) == pytest.approx(0.8216520919, abs=1e-9)
    assert odds(code, 15).mean == Fraction(11429, 720)


def test_format_odds() -> None:
    text = format_odds(odds(parse_code("1D"), 6))
    assert text.splitlines()[:7] == [
        "Z-Corps 1D vs 6",
        "  success (total >= 6):   16.67%",
        "  critical failure (Joker 1):  16.67%  (still succeeds: 0.00%)",
        "  mean total:                   4.033",
        "  total   P(=)     P(>=)",
        "      0  16.67%  100.00%",
        "      2  16.67%   83.33%",
    ]
    assert format_odds(odds(DCode(0, 2), 5)) == (
        "Z-Corps 0D+2 vs 5\n  a pool of 0D or fewer fails automatically (ZC-DICE-1)"
    )
    header = format_odds(odds(DCode(3, 2), 15, cojones_double=True)).splitlines()[0]
    assert header == "Z-Corps 3D+2 doubled by Cojones = 7D+1 vs 15"
    header = format_odds(odds(DCode(4, 2), 15, cp=2, all_cp_wild=True)).splitlines()[0]
    assert header == "Z-Corps 4D+2 + 2 CP (all CP dice are Jokers) vs 15"


# --------------------------------------------------------------------------
# Third oracle: icepool, when installed
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "pips", "cp", "all_cp_wild"),
    [
        (1, 0, 0, False),
        (4, 2, 1, False),
        (5, 1, 3, True),
        (6, 0, 2, False),
    ],
)
def test_matches_icepool(dice: int, pips: int, cp: int, all_cp_wild: bool) -> None:
    icepool = need("icepool")
    d6 = icepool.d6
    depth = 6
    others = dice - 1
    # Joker first 1: 1 + the other dice without their highest.
    # (on 1D the Joker is the highest die: it is cancelled, nothing remains)
    critical = (1 + (d6.pool(others).lowest(others - 1).sum() if others >= 2 else 0)) if others else 0
    # Joker first 2..5, or 6 and exploding on; plus every other die.
    regular = icepool.Die([2, 3, 4, 5, 6 + d6.explode(depth=depth - 1)])
    if others:
        regular = regular + others @ d6
    total = icepool.Die([critical] + [regular] * 5)
    wild_cp = cp if all_cp_wild else min(cp, 1)
    for _ in range(wild_cp):
        total = total + d6.explode(depth=depth)
    if cp - wild_cp:
        total = total + (cp - wild_cp) @ d6
    total = total + pips
    ours = roll_distribution(DCode(dice, pips), cp=cp, all_cp_wild=all_cp_wild)
    for t in range(6 * (depth + 1) + pips):  # below icepool's explosion cap (a 6 kept at depth)
        assert Fraction(total.quantity(t), total.denominator()) == ours.get(t, 0), t
