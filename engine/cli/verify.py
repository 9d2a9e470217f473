"""``fracas verify LOG [--json] [--commitment HEX] [--parent PATH]``: the six checks of verify."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from fracas.cli.terminal import json_text
from fracas.core.errors import FracasError


def register(sub: Any) -> None:
    p = sub.add_parser("verify", help="prove a log untouched: structure, hash chain, header, dice, rules, state")
    p.add_argument("log", help="log file (JSONL or binary)")
    p.add_argument(
        "--commitment",
        metavar="HEX",
        help="the commitment published before play (fracas commit): exit 1 unless the log was played from it",
    )
    p.add_argument(
        "--parent", metavar="PATH", help="a fork's parent log (default: the file of the header's name beside it)"
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(handler=cmd_verify)


def faces_line(report: Any) -> str:
    """What an intact log's dice prove, in words: proven, or entered (never the same words)."""
    from fracas.services.verify import FACES_NOT_PROVEN, FACES_PROVEN

    if report.faces == "proven":
        return FACES_PROVEN
    if report.faces in FACES_NOT_PROVEN:
        return str(FACES_NOT_PROVEN[report.faces])
    if report.faces == "none":
        return "no dice rolled"
    return f"dice {report.faces}"


def cmd_verify(args: argparse.Namespace) -> int:
    import msgspec  # imported here: keeps `fracas --help` fast
    from fracas.cli.guard import damage_reported, readable_log
    from fracas.services.verify import verify_log

    commitment = args.commitment
    if commitment is not None:
        if re.fullmatch(r"[0-9a-fA-F]{64}", commitment) is None:  # a typo is the argument's fault, not the log's
            raise FracasError(f"--commitment {commitment}: expected the 64 hexadecimal digits fracas commit printed")
        commitment = commitment.lower()
    log = readable_log(args.log)
    with damage_reported(log):  # Unreadable is a FracasError: exit 2
        report = verify_log(log, commitment=commitment, parent=args.parent)
    if args.json:
        sys.stdout.write(json_text(msgspec.to_builtins(report), separators=(",", ":")) + "\n")
        return report.exit_code
    out = sys.stdout
    out.write(f"{report.log}: {report.events} events, {report.system}\n")
    for step in report.steps:
        mark = {"ok": "ok", "failed": "FAILED", "skipped": "skipped"}[step.status]
        detail = f" ({step.detail})" if step.detail else ""
        out.write(f"  {step.name:<9} {mark}{detail}\n")
    for note in report.notes:
        out.write(f"  note: {note}\n")
    if report.problem is None and report.unverified:
        out.write(f"UNVERIFIED: {report.unverified}\n")
    elif report.problem is None:
        out.write(f"intact: {report.events} events verified in {report.seconds * 1000:.1f} ms; {faces_line(report)}\n")
    else:
        p = report.problem
        out.write(f"PROBLEM ({p.step}): {p.text()}\n")
        if p.expected is not None or p.found is not None:
            out.write(f"  expected: {p.expected}\n  found:    {p.found}\n")
    return report.exit_code
