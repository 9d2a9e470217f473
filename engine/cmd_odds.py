"""``fracas odds SYSTEM ...``: exact odds of a roll, from the system's own odds provider.

The engine imports no system: ``get_system(name)`` loads the registered
object, whose ``odds_command`` attribute (when it has one) satisfies
:class:`OddsProvider`. The provider declares its own arguments, so each
system keeps its notation (``fracas odds zcorps "4D+2" --vs 15 --cp 1``,
``fracas odds d100 55 --mod -30``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Protocol

from engine.errors import EXIT_OK, FracasError
from engine.system import get_system, system_names


class OddsProvider(Protocol):
    """What a rule system offers to ``fracas odds``."""

    usage: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the roll's arguments (positional and options)."""

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        """The odds as human text and as a JSON object; ValueError for bad input."""


def provider_of(name: str) -> OddsProvider:
    system = get_system(name)
    provider: OddsProvider | None = getattr(system, "odds_command", None)
    if provider is None:
        with_odds = [n for n in system_names() if getattr(get_system(n), "odds_command", None) is not None]
        raise FracasError(f"system {name!r} has no odds calculator (systems with one: {', '.join(with_odds)})")
    return provider


def cmd_odds(args: argparse.Namespace) -> int:
    provider = provider_of(args.system)
    sub = argparse.ArgumentParser(prog=f"fracas odds {args.system}", exit_on_error=False)
    provider.add_arguments(sub)
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        parsed = sub.parse_args(args.rest)
    except argparse.ArgumentError as exc:
        raise FracasError(f"odds {args.system}: {exc}") from None
    try:
        text, payload = provider.compute(parsed)
    except ValueError as exc:
        raise FracasError(f"odds {args.system}: {exc}") from None
    if parsed.json or args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print(text, file=sys.stdout)
    return EXIT_OK


def register(sub: Any) -> None:
    """Add the ``odds`` subcommand (engine.cli.EXTENSIONS)."""
    p = sub.add_parser(
        "odds",
        help='exact odds of a roll (e.g. odds zcorps "4D+2" --vs 15 --cp 1)',
        description="Exact odds of a roll under a rule system. The arguments after SYSTEM are the system's "
        "own: try `fracas odds SYSTEM --help`.",
    )
    p.add_argument("system", help="rule system name (fracas systems lists them)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the roll, in the system's notation")
    p.set_defaults(handler=cmd_odds)
