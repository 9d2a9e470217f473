"""Exact odds of Z-Corps D6 rolls (ZC-DICE-1, ZC-WILD-1/2, ZC-CP-1, ZC-COJ-1).

Pure Python, standard library only, no import from the rest of fracas: this
module is the oracle the engine's dice are tested against and the back end
of ``fracas odds zcorps``. Every probability is an exact ``Fraction``.

The roll, read in rulebook order:

- ZC-DICE-1: a D code ``ND+P`` rolls N d6 plus P pips (3 pips = 1D).
  A pool of 0 dice or fewer fails automatically.
- ZC-WILD-1: one of the N dice is the Joker. A 6 on it is added and rolled
  again, as long as it shows 6 (no cap).
- ZC-WILD-2: a 1 on the Joker's first roll is a critical failure: the
  highest of the N - 1 other dice is removed, the Joker's 1 counts, the
  rest is judged normally. In a 1D pool the Joker is the highest die: only
  the pips remain.
- ZC-CP-1: each Character Point adds 1D (at most 3). One CP die is a second
  Joker that explodes like the first but whose 1 is a plain 1 (option
  ``all_cp_wild``: every CP die is such a Joker). CP dice are never removed.
- ZC-COJ-1: Cojones doubling turns ND+P into 2N D + 2P pips (normalised),
  still with one Joker; no CP on a doubled roll.

Method (see docs/odds.md): the exploding Joker has a closed form. Its value
is ``6k + r`` (k sixes, then r in 1..5) with probability ``6**-(k + 1)``,
so every point probability of the total is a finite sum, exact; P(total
>= vs) is one minus the finite sum below vs, and the mean comes from
linearity. Nothing is truncated except the *listing* of
``roll_distribution``, which stops at the first total whose remaining tail
is below ``DISTRIBUTION_TAIL`` (1e-18); the tail is reported, not folded.
The critical failure depends on the other dice, so the N - 1 plain dice are
convolved over the joint state (sum, highest face).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

__all__ = [
    "DISTRIBUTION_TAIL",
    "MAX_CP",
    "DCode",
    "ZOdds",
    "critical_failure_probability",
    "doubled",
    "format_odds",
    "odds",
    "parse_code",
    "point_masses",
    "roll_distribution",
    "success_probability",
]

MAX_CP = 3
"""ZC-CP-1: at most +3D of Character Points per roll."""

DISTRIBUTION_TAIL = Fraction(1, 10**18)
"""``roll_distribution`` lists totals until the mass left above is below this."""

_EXPLODING_MEAN = Fraction(21, 5)
"""E[exploding d6] = 7/2 + E/6, so E = 21/5 (ZC-WILD-1)."""

_CODE_RE = re.compile(r"\s*(\d+)\s*[dD]\s*(?:\+\s*(\d+)\s*)?")


# --------------------------------------------------------------------------
# ZC-DICE-1: D codes
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DCode:
    """ZC-DICE-1: a D code, ``dice`` d6 plus ``pips`` (0..2); ``str`` gives "4D+2".

    ``dice`` may be 0 or negative (a pool reduced by penalties): such a pool
    fails automatically. Build codes from arbitrary pips with ``DCode.of``.
    """

    dice: int
    pips: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.pips <= 2:
            raise ValueError(f"pips must be 0..2 in a D code, got {self.pips} (use DCode.of to carry 3 pips into 1D)")

    @classmethod
    def of(cls, dice: int, pips: int) -> DCode:
        """ZC-DICE-1: normalise, 3 pips = 1D (4D+3 -> 5D, 4D-1 -> 3D+2)."""
        carried, rest = divmod(pips, 3)
        return cls(dice + carried, rest)

    def __str__(self) -> str:
        return f"{self.dice}D+{self.pips}" if self.pips else f"{self.dice}D"


@lru_cache(maxsize=1024)
def parse_code(text: str) -> DCode:
    """ZC-DICE-1: parse "4D+2", "3D", "1d+1" (pips >= 3 are carried into dice).

    Only ``+`` pips are accepted; anything else raises ``ValueError``. Cached:
    the rules read the same few codes of the sheets at every roll (a DCode is frozen).
    """
    match = _CODE_RE.fullmatch(text)
    if match is None:
        raise ValueError(
            f"bad D code {text!r}: expected 'ND' or 'ND+P' with whole numbers N and P, e.g. '4D+2' or '3D'"
        )
    return DCode.of(int(match.group(1)), int(match.group(2) or 0))


def doubled(code: DCode) -> DCode:
    """ZC-COJ-1: Cojones double the pool, pips included (3D+2 -> 6D+4 = 7D+1)."""
    return DCode.of(2 * code.dice, 2 * code.pips)


# --------------------------------------------------------------------------
# The pool actually rolled
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Pool:
    dice: int  # dice of the code, Joker included (after Cojones doubling)
    pips: int
    cp_plain: int  # CP dice that are plain d6
    cp_wild: int  # CP dice that explode on 6 (their 1 is a plain 1)

    @property
    def automatic_failure(self) -> bool:
        return self.dice <= 0


def _pool(code: DCode, cp: int, cojones_double: bool, all_cp_wild: bool) -> _Pool:
    if isinstance(cp, bool) or not 0 <= cp <= MAX_CP:
        raise ValueError(f"cp must be 0..{MAX_CP} Character Points (ZC-CP-1), got {cp}")
    if cojones_double and cp:
        raise ValueError(f"no Character Points on a roll doubled by Cojones (ZC-COJ-1), got cp={cp}")
    rolled = doubled(code) if cojones_double else code
    cp_wild = cp if all_cp_wild else min(cp, 1)
    return _Pool(rolled.dice, rolled.pips, cp - cp_wild, cp_wild)


# --------------------------------------------------------------------------
# Exact point masses. A pmf is (counts, e): P(value) = counts[value] / 6**e.
# All dice values are >= 0, so dropping values above a bound while
# convolving keeps every point at or below that bound exact.
# --------------------------------------------------------------------------

_Pmf = tuple[dict[int, int], int]

_ONE: _Pmf = ({0: 1}, 0)


@lru_cache(maxsize=64)
def _plain_dice(count: int) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Counts over 6**count of (sum, sum less the highest die) of plain d6.

    The two come from one pass over the joint state (sum, highest face);
    with no dice both are 0.
    """
    joint: dict[tuple[int, int], int] = {(0, 0): 1}
    for _ in range(count):
        step: dict[tuple[int, int], int] = {}
        for (total, high), ways in joint.items():
            for face in range(1, 7):
                key = (total + face, max(high, face))
                step[key] = step.get(key, 0) + ways
        joint = step
    sums: dict[int, int] = {}
    drops: dict[int, int] = {}
    for (total, high), ways in joint.items():
        sums[total] = sums.get(total, 0) + ways
        drops[total - high] = drops.get(total - high, 0) + ways
    return tuple(sorted(sums.items())), tuple(sorted(drops.items()))


def _exploding(bound: int, *, first_one: bool) -> _Pmf:
    """ZC-WILD-1: an exploding d6 up to ``bound``: P(6k + r) = 6**-(k+1), r in 1..5.

    With ``first_one=False`` the value 1 (a 1 on the first roll) is left
    out: that is the Joker's critical-failure branch, handled apart.
    """
    top = max(0, (bound - 1) // 6)  # most sixes that still fit under bound
    counts: dict[int, int] = {}
    for sixes in range(top + 1):
        for last in range(1, 6):
            value = 6 * sixes + last
            if value > bound:
                break
            if value == 1 and not first_one:
                continue
            counts[value] = 6 ** (top - sixes)
    return counts, top + 1


def _convolve(a: _Pmf, b: _Pmf, bound: int) -> _Pmf:
    counts: dict[int, int] = {}
    for va, ca in a[0].items():
        for vb, cb in b[0].items():
            value = va + vb
            if value <= bound:
                counts[value] = counts.get(value, 0) + ca * cb
    return counts, a[1] + b[1]


def _mix(a: _Pmf, b: _Pmf) -> _Pmf:
    """The union of two disjoint branches (probabilities add)."""
    e = max(a[1], b[1])
    counts = {v: c * 6 ** (e - a[1]) for v, c in a[0].items()}
    for v, c in b[0].items():
        counts[v] = counts.get(v, 0) + c * 6 ** (e - b[1])
    return counts, e


def _branches(pool: _Pool, bound: int) -> tuple[_Pmf, _Pmf]:
    """Exact P(total = t) for every t <= bound, split by the Joker's first roll.

    Returns (critical failure branch, other branch); the values are totals,
    pips included.
    """
    inner = bound - pool.pips
    others = pool.dice - 1
    sums, drops = _plain_dice(others)
    # ZC-WILD-2: Joker first roll 1 (probability 1/6): the 1 counts, the
    # highest other die is removed; on 1D the Joker is the highest die and
    # is removed itself (only the pips remain).
    if others:
        critical: _Pmf = ({1 + v: c for v, c in drops if 1 + v <= inner}, others + 1)
    else:
        critical = ({0: 1} if inner >= 0 else {}, 1)
    # Otherwise the Joker (2..5, or 6 and rolling on) plus every other die.
    plain: _Pmf = (dict(sums), others)
    regular = _convolve(_exploding(inner, first_one=False), plain, inner)
    # ZC-CP-1: CP dice, never removed; a CP Joker's 1 is a plain 1.
    extra: _Pmf = (dict(_plain_dice(pool.cp_plain)[0]), pool.cp_plain)
    for _ in range(pool.cp_wild):
        extra = _convolve(extra, _exploding(inner, first_one=True), inner)
    if extra != _ONE:
        critical = _convolve(critical, extra, inner)
        regular = _convolve(regular, extra, inner)

    def shift(pmf: _Pmf) -> _Pmf:
        return {v + pool.pips: c for v, c in pmf[0].items()}, pmf[1]

    return shift(critical), shift(regular)


def _mass(pmf: _Pmf) -> Fraction:
    return Fraction(sum(pmf[0].values()), 6 ** pmf[1])


def _automatic_failure_error(pool: _Pool) -> ValueError:
    return ValueError(f"a pool of {pool.dice}D has no dice to roll: it fails automatically (ZC-DICE-1)")


# --------------------------------------------------------------------------
# Public functions
# --------------------------------------------------------------------------


def roll_distribution(
    code: DCode,
    *,
    cp: int = 0,
    cojones_double: bool = False,
    all_cp_wild: bool = False,
) -> dict[int, Fraction]:
    """ZC-WILD-1/2, ZC-CP-1, ZC-COJ-1: exact P(total = t) for each possible total.

    Every listed probability is exact. The Joker makes the support infinite,
    so the listing stops at the first total above which less than
    ``DISTRIBUTION_TAIL`` (1e-18) remains; that tail, ``1 - sum(values)``,
    is not folded into any total. Impossible totals are left out.
    Raises ``ValueError`` for a pool of 0 dice or fewer (automatic failure).
    """
    pool = _pool(code, cp, cojones_double, all_cp_wild)
    if pool.automatic_failure:
        raise _automatic_failure_error(pool)
    finite_top = pool.pips + 6 * (pool.dice + cp)
    extra_rolls = 24  # (1/6)**24 < 1e-18, widened below if ever too short
    while True:
        counts, e = _mix(*_branches(pool, finite_top + 6 * extra_rolls))
        denominator = 6**e
        left = denominator
        listed: dict[int, Fraction] = {}
        for total in sorted(counts):
            if counts[total]:
                listed[total] = Fraction(counts[total], denominator)
                left -= counts[total]
            if left * DISTRIBUTION_TAIL.denominator < denominator:
                return listed
        extra_rolls *= 2


def point_masses(code: DCode, bound: int) -> tuple[dict[int, int], int]:
    """ZC-WILD-1/2: exact P(total = t) = ``counts[t] / denominator`` for every total t up to ``bound``, as
    ``(counts, denominator)`` (totals above ``bound`` are left out; ``roll_distribution`` lists the same masses).

    For a reader of the first totals only: no ``Fraction`` is made, and the Joker is followed only as far as
    ``bound``. Raises ``ValueError`` for a pool of 0 dice or fewer (automatic failure).
    """
    pool = _pool(code, 0, False, False)
    if pool.automatic_failure:
        raise _automatic_failure_error(pool)
    counts, e = _mix(*_branches(pool, bound))
    return counts, 6**e


@lru_cache(maxsize=4096)
def success_probability(
    code: DCode,
    vs: int,
    *,
    cp: int = 0,
    cojones_double: bool = False,
    all_cp_wild: bool = False,
) -> Fraction:
    """ZC-ATK-1 style test: exact P(total >= vs), with no truncation at all.

    Equal to one minus the exact sum of P(total = t) for t < vs; 0 for a
    pool of 0 dice or fewer (ZC-DICE-1). Cached: the policies ask the same
    few questions at every shot (a DCode is frozen, a Fraction immutable).
    """
    pool = _pool(code, cp, cojones_double, all_cp_wild)
    if pool.automatic_failure:
        return Fraction(0)
    critical, regular = _branches(pool, vs - 1)
    return 1 - _mass(critical) - _mass(regular)


def critical_failure_probability(
    code: DCode,
    *,
    cp: int = 0,
    cojones_double: bool = False,
    all_cp_wild: bool = False,
) -> Fraction:
    """ZC-WILD-2: P(the Joker's first roll is 1) = 1/6; 0 when nothing is rolled."""
    pool = _pool(code, cp, cojones_double, all_cp_wild)
    return Fraction(0) if pool.automatic_failure else Fraction(1, 6)


def _mean(pool: _Pool) -> Fraction:
    """Exact E[total] by linearity (the Joker's two branches weighted apart)."""
    others = pool.dice - 1
    drops = _plain_dice(others)[1]
    mean_drop = Fraction(sum(v * c for v, c in drops), 6**others)
    # E[Joker; first roll != 1] = 21/5 - 1 * 1/6 = 121/30.
    regular = _EXPLODING_MEAN - Fraction(1, 6) + Fraction(5, 6) * Fraction(7, 2) * others
    critical = Fraction(1, 6) * (1 + mean_drop) if others else Fraction(0)  # on 1D the Joker's 1 is cancelled
    cp_dice = Fraction(7, 2) * pool.cp_plain + _EXPLODING_MEAN * pool.cp_wild
    return pool.pips + critical + regular + cp_dice


@dataclass(frozen=True, slots=True)
class ZOdds:
    """The exact odds of one Z-Corps test, as ``odds`` computes them.

    ``rolled`` is the code after Cojones doubling. With ``automatic_failure``
    (a pool of 0 dice or fewer) nothing is rolled: ``p_success`` and
    ``p_critical_failure`` are 0, ``mean`` is None, ``distribution`` empty.
    ``p_critical_failure_success``: the Joker showed 1 and the test still
    succeeded (ZC-WILD-2: judged normally). ``distribution_tail``: the mass
    above the last listed total (below 1e-18).
    """

    code: DCode
    rolled: DCode
    vs: int
    cp: int
    cojones_double: bool
    all_cp_wild: bool
    automatic_failure: bool
    p_success: Fraction
    p_critical_failure: Fraction
    p_critical_failure_success: Fraction
    mean: Fraction | None
    distribution: Mapping[int, Fraction]
    distribution_tail: Fraction


def odds(
    code: DCode,
    vs: int,
    *,
    cp: int = 0,
    cojones_double: bool = False,
    all_cp_wild: bool = False,
) -> ZOdds:
    """ZC-DICE-1..ZC-COJ-1: exact odds of reaching ``vs`` (total >= vs)."""
    pool = _pool(code, cp, cojones_double, all_cp_wild)
    rolled = DCode(pool.dice, pool.pips)
    if pool.automatic_failure:
        zero = Fraction(0)
        return ZOdds(
            code=code,
            rolled=rolled,
            vs=vs,
            cp=cp,
            cojones_double=cojones_double,
            all_cp_wild=all_cp_wild,
            automatic_failure=True,
            p_success=zero,
            p_critical_failure=zero,
            p_critical_failure_success=zero,
            mean=None,
            distribution={},
            distribution_tail=zero,
        )
    critical, regular = _branches(pool, vs - 1)
    sixth = Fraction(1, 6)
    distribution = roll_distribution(code, cp=cp, cojones_double=cojones_double, all_cp_wild=all_cp_wild)
    return ZOdds(
        code=code,
        rolled=rolled,
        vs=vs,
        cp=cp,
        cojones_double=cojones_double,
        all_cp_wild=all_cp_wild,
        automatic_failure=False,
        p_success=1 - _mass(critical) - _mass(regular),
        p_critical_failure=sixth,
        p_critical_failure_success=sixth - _mass(critical),
        mean=_mean(pool),
        distribution=distribution,
        distribution_tail=1 - sum(distribution.values(), Fraction(0)),
    )


def _percent(p: Fraction) -> str:
    return f"{float(p) * 100:6.2f}%"


def format_odds(o: ZOdds, *, with_vs: bool = True) -> str:
    """Human-readable, multi-line text of ``odds`` (``fracas odds zcorps``); ``with_vs=False``: the distribution."""
    head = f"Z-Corps {o.code}"
    if o.cojones_double:
        head += f" doubled by Cojones = {o.rolled}"
    if o.cp:
        kind = "all CP dice are Jokers" if o.all_cp_wild else "one CP Joker"
        head += f" + {o.cp} CP ({kind})"
    lines = [f"{head} vs {o.vs}" if with_vs else head]
    if o.automatic_failure or o.mean is None:
        lines.append("  a pool of 0D or fewer fails automatically (ZC-DICE-1)")
        return "\n".join(lines)
    if not with_vs:
        lines += [f"  mean total:                 {float(o.mean):7.3f}", "  total   P(=)     P(>=)"]
    else:
        lines += [
            f"  success (total >= {o.vs}):  {_percent(o.p_success)}",
            f"  critical failure (Joker 1): {_percent(o.p_critical_failure)}"
            f"  (still succeeds: {_percent(o.p_critical_failure_success).strip()})",
            f"  mean total:                 {float(o.mean):7.3f}",
            "  total   P(=)     P(>=)",
        ]
    at_least = Fraction(1)
    for total, p in o.distribution.items():
        if at_least < Fraction(1, 1000):
            lines.append(f"  ...     (P(>= {total}) < 0.1%)")
            break
        lines.append(f"  {total:>5} {_percent(p)}  {_percent(at_least)}")
        at_least -= p
    return "\n".join(lines)
