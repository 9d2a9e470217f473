"""Exact odds of d100 roll-under tests (D100-ROLL-1, D100-CRIT-1, D100-ATK-2).

Pure Python, standard library only, no import from the rest of fracas.
``band_of`` is the one classification of a roll: the engine calls it to
resolve a test, and the odds here are nothing but the count of the 100
equally likely rolls in each band, so engine and oracle cannot disagree.

The reading, fixed once (docs/odds.md):

- The modified skill is ``skill + mod``; every margin is measured from it,
  as it is, even when it is <= 0 or > 100.
- D100-ROLL-1: a roll succeeds if it is <= the modified skill, except that
  01 always succeeds and 100 always fails (so with a modified skill <= 0
  only 01 succeeds). Doubles are 11, 22, ..., 99 and 100.
- D100-CRIT-1, "critical or more than 40", as five bands:

  ``critical_success``  a success that is a double, or succeeds by 41 or
                        more (modified skill - roll >= 41);
  ``success``           any other success;
  ``fumble``            attack tests only (D100-ATK-2): a failure that is
                        a natural double, 100 included; the fumble takes
                        precedence over ``critical_failure``;
  ``critical_failure``  a failure that fails by 41 or more (roll -
                        modified skill >= 41), or, outside attack tests,
                        a failure that is a double;
  ``failure``           any other failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "ATTACK_BANDS",
    "CRITICAL_MARGIN",
    "DOUBLES",
    "TEST_BANDS",
    "D100Odds",
    "band_of",
    "effective_skill",
    "format_odds",
    "is_double",
    "is_success",
    "odds",
    "test_bands",
]

CRITICAL_MARGIN = 41
"""D100-CRIT-1: "more than 40" = a margin of 41 or more."""

DOUBLES = frozenset({*range(11, 100, 11), 100})
"""D100-ROLL-1: 11, 22, ..., 99 and 100."""

ATTACK_BANDS = ("critical_success", "success", "failure", "critical_failure", "fumble")
"""Bands of an attack roll (D100-ATK-2), best first."""

TEST_BANDS = ("critical_success", "success", "failure", "critical_failure")
"""Bands of any other test (dodge, parry, ...): no fumble, best first."""

_SUCCESS_BANDS = frozenset({"critical_success", "success"})


def _check_roll(roll: int) -> None:
    if isinstance(roll, bool) or not 1 <= roll <= 100:
        raise ValueError(f"a d100 roll is 1..100 (100 for 00), got {roll!r}")


def effective_skill(skill: int, mod: int = 0) -> int:
    """D100-ATK-1: the skill with every modifier added."""
    return skill + mod


def is_double(roll: int) -> bool:
    """D100-ROLL-1: 11, 22, ..., 99 and 100 are doubles."""
    _check_roll(roll)
    return roll in DOUBLES


def is_success(roll: int, skill: int, mod: int = 0) -> bool:
    """D100-ROLL-1: roll <= modified skill; 01 always succeeds, 100 always fails."""
    _check_roll(roll)
    return _succeeds(roll, effective_skill(skill, mod))


def _succeeds(roll: int, target: int) -> bool:
    """:func:`is_success` of a roll already checked, against the modified skill ``target``."""
    if roll == 1:
        return True
    if roll == 100:
        return False
    return roll <= target


def band_of(roll: int, skill: int, mod: int = 0, attack: bool = True) -> str:
    """D100-CRIT-1, D100-ATK-2: the band of one roll (see the module docstring).

    Returns one of ``ATTACK_BANDS`` when ``attack`` is true, else one of
    ``TEST_BANDS``.
    """
    _check_roll(roll)  # once, for both questions below
    target = effective_skill(skill, mod)
    double = roll in DOUBLES  # is_double(roll)
    if _succeeds(roll, target):
        if double or target - roll >= CRITICAL_MARGIN:
            return "critical_success"
        return "success"
    if double and attack:
        return "fumble"
    if double or roll - target >= CRITICAL_MARGIN:
        return "critical_failure"
    return "failure"


def _rolls_by_band(skill: int, mod: int, attack: bool) -> dict[str, list[int]]:
    rolls: dict[str, list[int]] = {b: [] for b in (ATTACK_BANDS if attack else TEST_BANDS)}
    for roll in range(1, 101):
        rolls[band_of(roll, skill, mod, attack)].append(roll)
    return rolls


def test_bands(skill: int, mod: int = 0, *, attack: bool = True) -> dict[str, Fraction]:
    """D100-CRIT-1: exact P(band), counting all 100 rolls through ``band_of``.

    Every band of ``ATTACK_BANDS`` (or ``TEST_BANDS``) is a key, zero ones
    included, in that order; the values sum to exactly 1.
    """
    return {band: Fraction(len(rolls), 100) for band, rolls in _rolls_by_band(skill, mod, attack).items()}


# Not a pytest test, despite its name: keep `from ... import test_bands`
# in a test module from being collected.
setattr(test_bands, "__test__", False)  # noqa: B010


@dataclass(frozen=True, slots=True)
class D100Odds:
    """The exact odds of one d100 test, as ``odds`` computes them.

    ``bands`` maps each band name to its probability; ``rolls`` to the rolls
    that land in it. ``p_success`` = critical_success + success.
    """

    skill: int
    mod: int
    effective: int
    attack: bool
    bands: Mapping[str, Fraction]
    rolls: Mapping[str, tuple[int, ...]]
    p_success: Fraction
    p_failure: Fraction


def odds(skill: int, mod: int = 0, attack: bool = True) -> D100Odds:
    """D100-ROLL-1, D100-CRIT-1, D100-ATK-2: the exact odds of one test."""
    rolls = _rolls_by_band(skill, mod, attack)
    bands = {band: Fraction(len(r), 100) for band, r in rolls.items()}
    p_success = sum((p for b, p in bands.items() if b in _SUCCESS_BANDS), Fraction(0))
    return D100Odds(
        skill=skill,
        mod=mod,
        effective=effective_skill(skill, mod),
        attack=attack,
        bands=bands,
        rolls={band: tuple(r) for band, r in rolls.items()},
        p_success=p_success,
        p_failure=1 - p_success,
    )


def _ranges(rolls: Iterable[int]) -> str:
    """[1, 2, 3, 5, 100] -> "01-03, 05, 100" (the dice as they read)."""
    spans: list[tuple[int, int]] = []
    for roll in rolls:
        if spans and roll == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], roll)
        else:
            spans.append((roll, roll))

    def face(roll: int) -> str:
        return "100" if roll == 100 else f"{roll:02d}"

    return ", ".join(face(lo) if lo == hi else f"{face(lo)}-{face(hi)}" for lo, hi in spans) or "-"


def format_odds(o: D100Odds) -> str:
    """Human-readable, multi-line text of ``odds`` (for ``fracas odds d100``)."""
    kind = "attack" if o.attack else "test"
    mod = f" {o.mod:+d} = {o.effective}" if o.mod else ""
    width = max(len(band) for band in o.bands) + 2

    def row(name: str, p: Fraction, rolls: str = "") -> str:
        return f"  {name:<{width}} {int(p * 100):>3}%  {rolls}".rstrip()

    lines = [f"d100 {kind}, skill {o.skill}{mod}", row("success", o.p_success)]
    for band, p in o.bands.items():
        if band == "failure":
            lines.append(row("failure", o.p_failure))
        lines.append(row(f"  {band}", p, _ranges(o.rolls[band])))
    return "\n".join(lines)
