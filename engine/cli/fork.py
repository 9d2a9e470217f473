"""``fracas replay LOG --fork-at SEQ --seed N [--log NEW]``: a what-if branch (:mod:`fracas.services.fork`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fracas.core.errors import EXIT_OK, FracasError


def add_replay_flags(rep: Any) -> None:
    rep.add_argument(
        "--fork-at", type=int, metavar="SEQ", help="what-if: re-simulate from just after SEQ with new dice"
    )
    rep.add_argument("--seed", help="with --fork-at: the dice seed of the new branch")
    rep.add_argument("--log", dest="new_log", help="with --fork-at: where to write the new log")
    rep.add_argument("--force", action="store_true", help="with --fork-at: replace the new log if it exists")


def cmd_fork(args: argparse.Namespace) -> int:
    from fracas.cli.guard import damage_reported, holding_log
    from fracas.core.files import check_output, safe_name
    from fracas.core.state import state_to_builtins  # imported here: keeps `fracas --help` fast
    from fracas.services.fork import fork_log

    if args.seed is None:
        raise FracasError("--fork-at needs --seed N (the dice of the new branch)")
    parent = holding_log(args.log)
    name = f"{safe_name(parent.stem)}-fork{args.fork_at}-seed{safe_name(str(args.seed), 32)}.jsonl"
    out = Path(args.new_log) if args.new_log else Path("logs") / name
    check_output(out, force=args.force, inputs=[parent])
    with damage_reported(parent):
        result = fork_log(parent, args.fork_at, seed=str(args.seed), log_path=out)
    if args.json:
        sys.stdout.write(json.dumps({"log": result.log, "state": state_to_builtins(result.state)}) + "\n")
        return EXIT_OK
    who = f"side {result.winner} wins" if result.winner else "no winner"
    sys.stdout.write(
        f"forked {parent} at seq {args.fork_at} with seed {args.seed}: {who} ({result.reason}) after "
        f"{result.rounds} rounds; {result.events} events logged to {result.log}\n"
    )
    return EXIT_OK
