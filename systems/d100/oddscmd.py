"""``fracas odds d100 55 --mod -30 [--not-attack]``: the exact bands of a d100 test.

The provider the engine's ``odds`` command finds on the system object
(``SYSTEM.odds_command``); the arithmetic is :mod:`fracas.systems.d100.odds`.
"""

from __future__ import annotations

import argparse
from typing import Any

from fracas.systems.d100.odds import format_odds, odds

#: The largest modifier the calculator takes, either way.
MAX_MOD = 500


class D100OddsCommand:
    """Odds of a d100 test: critical, success, failure, 41+ failure, fumble."""

    usage = "SKILL [--mod N] [--not-attack]"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("skill", type=int, help="the skill in percent, e.g. 55")
        parser.add_argument("--mod", type=int, default=0, help="the sum of the modifiers, e.g. -30 after a dodge")
        parser.add_argument(
            "--not-attack", action="store_true", help="a plain test: doubles above the skill are not fumbles"
        )

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        if not 1 <= args.skill <= 100:
            raise ValueError(f"a skill is a percentage from 1 to 100, got {args.skill}")
        if not -MAX_MOD <= args.mod <= MAX_MOD:
            raise ValueError(f"--mod {args.mod}: expected a modifier from -{MAX_MOD} to {MAX_MOD}")
        o = odds(args.skill, args.mod, attack=not args.not_attack)
        payload: dict[str, Any] = {
            "system": "d100",
            "skill": o.skill,
            "mod": o.mod,
            "effective": o.effective,
            "attack": o.attack,
            "p_success": float(o.p_success),
            "p_failure": float(o.p_failure),
            "bands": {band: float(p) for band, p in o.bands.items()},
            "bands_exact": {band: str(p) for band, p in o.bands.items()},
        }
        return format_odds(o), payload
