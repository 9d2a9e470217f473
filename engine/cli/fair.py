"""Provably fair dice on the command line: ``fracas run --commit --player-seed TEXT`` (docs/dice.md).

``--commit`` prints the commitment ``SHA-256(seed)`` before the first die is
drawn; each ``--player-seed`` is mixed into the dice key after that
commitment is fixed, so neither the game master (who chose the seed) nor the
players (who chose theirs, knowing only the commitment) choose the dice.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_run_flags(run: Any) -> None:
    """The fair-dice flags of ``fracas run``."""
    run.add_argument(
        "--commit", action="store_true", help="print the seed's commitment SHA-256(seed) before the first die"
    )
    run.add_argument(
        "--player-seed",
        action="append",
        default=[],
        metavar="TEXT",
        help="a player's seed mixed into the dice key (repeatable; docs/dice.md)",
    )


def announce(args: argparse.Namespace, seed: str) -> None:
    """Print the commitment (stderr under --json, so stdout stays one JSON object)."""
    if not getattr(args, "commit", False):
        return
    from fracas.core.dice import commitment_of  # imported here: keeps `fracas --help` fast

    stream = sys.stderr if getattr(args, "json", False) else sys.stdout
    seeds = getattr(args, "player_seed", [])
    extra = f"; player seeds mixed in after it: {len(seeds)}" if seeds else ""
    stream.write(f"dice commitment: {commitment_of(seed)} (SHA-256 of the seed, revealed at the end{extra})\n")
    stream.flush()
