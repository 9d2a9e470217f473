"""``fracas odds point_zero 5d6k3 [--vs 12] [--surpass N]``: the exact odds of a test.

The roll is written as players write it: ``5d6k3`` (roll 5 d6, keep the
best 3, PZ-TEST-1). The older form ``5 --keep 3`` stays as an alias. Without
``--vs`` the command prints the distribution of the total; with it, the
odds of success too.

The provider the engine's ``odds`` command finds on the system object
(``SYSTEM.odds_command``); the arithmetic is :mod:`fracas.systems.point_zero.odds`.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from fracas.systems.point_zero.odds import format_distribution, format_test_odds, keep_best_distribution, test_odds

_NOTATION = re.compile(r"(?P<dice>\d+)d(?P<sides>\d+)(?:k(?P<keep>\d+))?", re.IGNORECASE)


def parse_roll(text: str, keep: int | None) -> tuple[int, int]:
    """(dice rolled, dice kept) from ``5d6k3`` or ``5`` with ``--keep 3``; ValueError for anything else."""
    if text.isdecimal():
        if keep is None:
            raise ValueError(f"{text!r}: say how many dice are kept: write {text}d6kN (or {text} --keep N)")
        dice = int(text)
    else:
        match = _NOTATION.fullmatch(text.strip())
        if match is None or match.group("sides") != "6":
            raise ValueError(f"{text!r} is not a Point Zéro roll: expected NdKkM with d6, e.g. 5d6k3 (PZ-TEST-1)")
        dice = int(match.group("dice"))
        if match.group("keep") is not None and keep is not None:
            raise ValueError(f"{text!r} already says how many dice are kept: drop --keep {keep}")
        keep = int(match.group("keep")) if match.group("keep") is not None else dice
    if dice < 1 or keep < 1:
        raise ValueError(f"a test rolls and keeps at least one die, got {dice} rolled, {keep} kept")
    if keep > dice:
        raise ValueError(
            f"{dice}d6k{keep} keeps {keep} of {dice} dice: a test keeps at most the dice it rolls "
            f"(with fewer dice than the attribute, all are kept: {dice}d6k{dice}, PZ-TEST-3)"
        )
    return dice, keep


class PointZeroOdds:
    """Odds of a Point Zéro test: skill d6, keep the best (attribute), against a difficulty."""

    usage = "5d6k3 [--vs DIFFICULTY] [--surpass 0..2]"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("dice", help="the roll: 5d6k3 rolls 5 d6 (the skill) and keeps 3 (the attribute)")
        parser.add_argument("--keep", type=int, help="dice kept, for the older form `5 --keep 3`")
        parser.add_argument(
            "--vs", type=int, help="the difficulty (success: total >= VS); without it, the distribution"
        )
        parser.add_argument("--surpass", type=int, default=0, help="extra dice from se surpasser (PZ-SURP-1)")

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        if not 0 <= args.surpass <= 2:
            raise ValueError(f"--surpass is 0, 1 or 2 extra dice (PZ-SURP-1), got {args.surpass}")
        dice, keep = parse_roll(args.dice, args.keep)
        dice += args.surpass
        if dice > 30:
            raise ValueError(f"expected at most 30 dice, got {dice}")
        if args.vs is None:
            dist = keep_best_distribution(dice, keep)
            return format_distribution(dice, keep, dist), {
                "system": "point_zero",
                "dice": dice,
                "keep": keep,
                "vs": None,
                "distribution": {str(t): float(p) for t, p in dist.items()},
                "distribution_exact": {str(t): str(p) for t, p in dist.items()},
            }
        o = test_odds(dice, keep, args.vs)
        payload: dict[str, Any] = {
            "system": "point_zero",
            "dice": o.dice,
            "keep": o.keep,
            "vs": o.vs,
            "p_success": float(o.p_success),
            "p_success_exact": str(o.p_success),
            "p_critical_success": float(o.p_critical_success),
            "p_critical_failure": float(o.p_critical_failure),
            "mean": float(o.mean),
            "mean_exact": str(o.mean),
            "distribution": {str(t): float(p) for t, p in o.distribution.items()},
        }
        return format_test_odds(o), payload
