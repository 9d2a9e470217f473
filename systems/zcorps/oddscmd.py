"""``fracas odds zcorps 4D+2 [--vs 15] [--cp 1] [--cojones] [--all-cp-wild]``: the exact odds of a roll.

Without ``--vs`` the command prints the distribution of the total (P(= x) and P(>= x)).

The provider the engine's ``odds`` command finds on the system object
(``SYSTEM.odds_command``); the arithmetic is :mod:`fracas.systems.zcorps.odds`.
"""

from __future__ import annotations

import argparse
from typing import Any

from fracas.core.scenario import MAX_DICE
from fracas.systems.zcorps.odds import MAX_CP, format_odds, odds, parse_code


class ZCorpsOdds:
    """Odds of a Z-Corps roll: P(success), P(critical failure), the mean."""

    usage = "4D+2 [--vs 15] [--cp N] [--cojones] [--all-cp-wild]"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("code", help='the D code rolled, e.g. "4D+2"')
        parser.add_argument(
            "--vs", type=int, help="the difficulty (success: total >= VS); without it, the distribution"
        )
        parser.add_argument("--cp", type=int, default=0, help=f"Character Points spent (0..{MAX_CP}, ZC-CP-1)")
        parser.add_argument("--cojones", action="store_true", help="double the pool with a Cojones point (ZC-COJ-1)")
        parser.add_argument("--all-cp-wild", action="store_true", help="every CP die is a Joker (ZC-CP-1 option)")

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        """Raises ValueError with a one-line reason on bad input."""
        code = parse_code(args.code)
        if code.dice > MAX_DICE:  # the work grows with the dice: a sheet's bound (docs/scenario-limits.md)
            raise ValueError(f"expected at most {MAX_DICE}D, as a sheet allows, got {args.code!r}")
        o = odds(
            code,
            0 if args.vs is None else args.vs,
            cp=args.cp,
            cojones_double=args.cojones,
            all_cp_wild=args.all_cp_wild,
        )
        if args.vs is None:
            return format_odds(o, with_vs=False), {
                "system": "zcorps",
                "code": str(o.code),
                "rolled": str(o.rolled),
                "vs": None,
                "cp": o.cp,
                "automatic_failure": o.automatic_failure,
                "mean": None if o.mean is None else float(o.mean),
                "distribution": {str(t): float(p) for t, p in o.distribution.items() if p >= 1e-6},
            }
        payload: dict[str, Any] = {
            "system": "zcorps",
            "code": str(o.code),
            "rolled": str(o.rolled),
            "vs": o.vs,
            "cp": o.cp,
            "cojones_double": o.cojones_double,
            "all_cp_wild": o.all_cp_wild,
            "automatic_failure": o.automatic_failure,
            "p_success": float(o.p_success),
            "p_success_exact": str(o.p_success),
            "p_critical_failure": float(o.p_critical_failure),
            "mean": None if o.mean is None else float(o.mean),
            "mean_exact": None if o.mean is None else str(o.mean),
            "distribution": {str(t): float(p) for t, p in o.distribution.items() if p >= 1e-6},
        }
        return format_odds(o), payload
