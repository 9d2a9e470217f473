"""``fracas play SCENARIO [--dice entered]``: humans decide (and roll) at the terminal (:mod:`fracas.services.play`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.core.errors import EXIT_OK

if TYPE_CHECKING:
    from fracas.core import events as E


def register(sub: Any) -> None:
    p = sub.add_parser("play", help="play a fight at the table: humans decide for actors with policy human")
    p.add_argument("scenario", help="scenario TOML file")
    p.add_argument("--dice", choices=("derived", "entered"), default="derived", help="entered: type physical dice in")
    p.add_argument("--seed", help="dice seed for derived dice (default: the scenario's, else random)")
    p.add_argument("--log", help="where to write the log (default: logs/<scenario>-seed<seed>.jsonl)")
    p.add_argument("--player-seed", action="append", default=[], metavar="TEXT", help="a player's seed (docs/dice.md)")
    p.set_defaults(handler=cmd_play)


def cmd_play(args: argparse.Namespace) -> int:
    from fracas.services.narrate import Narrator  # imported here: keeps `fracas --help` fast
    from fracas.services.play import play_scenario

    narrator = Narrator()
    out = sys.stdout

    def show(seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        line = narrator.line(rnd, count, sec, ev)
        if line is not None:
            out.write(line + "\n")

    result = play_scenario(
        args.scenario,
        inp=sys.stdin,
        out=out,
        dice=args.dice,
        seed=args.seed,
        log_path=Path(args.log) if args.log else None,
        player_seeds=args.player_seed,
        listeners=[show],
    )
    who = f"side {result.winner} wins" if result.winner else "no winner"
    out.write(
        f"\n{who} ({result.reason}) after {result.rounds} rounds; {result.events} events logged to {result.log}\n"
    )
    return EXIT_OK
