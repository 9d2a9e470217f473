"""``fracas audit LOG SEQ`` / ``--roll N``: explain one roll in plain words (:mod:`fracas.services.audit`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fracas.cli.terminal import json_text
from fracas.core.errors import EXIT_OK, FracasError


def register(sub: Any) -> None:
    p = sub.add_parser("audit", help="explain one roll: dice, fates, modifiers and rule IDs, odds, consequences")
    p.add_argument("log", help="log file (JSONL or binary)")
    p.add_argument("seq", nargs="?", type=int, help="the seq of the event to explain")
    p.add_argument("--roll", type=int, metavar="N", help="explain the Nth roll of the log (from 1) instead")
    p.add_argument("--json", action="store_true", help="print the explanation as one JSON object")
    p.set_defaults(handler=cmd_audit)


def cmd_audit(args: argparse.Namespace) -> int:
    if (args.seq is None) == (args.roll is None):
        raise FracasError("audit: give either SEQ or --roll N")
    import msgspec  # imported here: keeps `fracas --help` fast
    from fracas.cli.guard import damage_reported, holding_log
    from fracas.services.audit import audit_log

    log = holding_log(args.log)
    with damage_reported(log):
        audit = audit_log(log, seq=args.seq, roll=args.roll)
    if args.json:
        sys.stdout.write(json_text(msgspec.to_builtins(audit), separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(audit.text() + "\n")
    return EXIT_OK
