"""``fracas verify LOG [--json]``: the five checks of :mod:`fracas.services.verify`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("verify", help="prove a log untouched: structure, hash chain, dice, rules, state")
    p.add_argument("log", help="log file (JSONL or binary)")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(handler=cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    import msgspec  # imported here: keeps `fracas --help` fast
    from fracas.services.verify import verify_log

    report = verify_log(Path(args.log))  # Unreadable is a FracasError: exit 2
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
        return report.exit_code
    out = sys.stdout
    out.write(f"{report.log}: {report.events} events, {report.system}\n")
    for step in report.steps:
        mark = {"ok": "ok", "failed": "FAILED", "skipped": "skipped"}[step.status]
        detail = f" ({step.detail})" if step.detail else ""
        out.write(f"  {step.name:<9} {mark}{detail}\n")
    if report.problem is None:
        out.write(f"intact: {report.events} events verified in {report.seconds * 1000:.1f} ms\n")
    else:
        p = report.problem
        out.write(f"PROBLEM ({p.step}): {p.text()}\n")
        if p.expected is not None or p.found is not None:
            out.write(f"  expected: {p.expected}\n  found:    {p.found}\n")
    return report.exit_code
