"""``fracas odds point_zero 5 --keep 3 --vs 12 [--surpass N]``: the exact odds of a test.

The provider the engine's ``odds`` command finds on the system object
(``SYSTEM.odds_command``); the arithmetic is :mod:`fracas.systems.point_zero.odds`.
"""

from __future__ import annotations

import argparse
from typing import Any

from fracas.systems.point_zero.odds import format_test_odds, test_odds


class PointZeroOdds:
    """Odds of a Point Zéro test: skill d6, keep the best (attribute), against a difficulty."""

    usage = "DICE --keep N --vs DIFFICULTY [--surpass 0..2]"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("dice", type=int, help="d6 rolled: the skill level (PZ-TEST-1)")
        parser.add_argument("--keep", type=int, required=True, help="dice kept: the attribute (PER or ADR)")
        parser.add_argument("--vs", type=int, required=True, help="the difficulty (success: total >= VS)")
        parser.add_argument("--surpass", type=int, default=0, help="extra dice from se surpasser (PZ-SURP-1)")

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        if not 0 <= args.surpass <= 2:
            raise ValueError(f"--surpass is 0, 1 or 2 extra dice (PZ-SURP-1), got {args.surpass}")
        o = test_odds(args.dice + args.surpass, args.keep, args.vs)
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
