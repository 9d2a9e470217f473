"""``fracas play SCENARIO [--dice entered]``: humans decide (and roll) at the terminal (:mod:`fracas.services.play`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fracas.cli import narration
from fracas.core.errors import EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser("play", help="play a fight at the table: humans decide (--human ID) and may roll real dice")
    p.add_argument("scenario", help="scenario TOML file, or the name of a bundled one (fracas scenarios lists them)")
    p.add_argument(
        "--human",
        action="append",
        default=[],
        metavar="ID",
        help="an actor played by a person at the table (repeat for several; the scenario's comments suggest whom)",
    )
    p.add_argument("--dice", choices=("derived", "entered"), default="derived", help="entered: type physical dice in")
    p.add_argument("--seed", help="dice seed for derived dice (default: the scenario's, else random)")
    p.add_argument("--log", help="where to write the log (default: logs/<scenario>-seed<seed>.jsonl)")
    p.add_argument("--player-seed", action="append", default=[], metavar="TEXT", help="a player's seed (docs/dice.md)")
    p.add_argument("--force", action="store_true", help="replace the log if it exists (never an input)")
    narration.add_flags(p)
    p.set_defaults(handler=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    from fracas.core.bundled import resolve_scenario
    from fracas.services.play import play_scenario  # imported here: keeps `fracas --help` fast

    out = sys.stdout
    printer = narration.Printer(args, lambda line: out.write(line + "\n"), out)

    result = play_scenario(
        resolve_scenario(args.scenario),
        inp=sys.stdin,
        out=out,
        dice=args.dice,
        seed=args.seed,
        log_path=Path(args.log) if args.log else None,
        player_seeds=args.player_seed,
        listeners=[printer],
        humans=args.human,
        force=args.force,
    )
    printer.finish()
    nar = printer.narrator
    who = nar.outcome(result.winner, result.reason)
    out.write(
        f"\n{who[0].upper()}{who[1:]}, after {result.rounds} rounds; {result.events} events logged to {result.log}\n"
    )
    return EXIT_OK
