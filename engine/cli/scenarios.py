"""``fracas scenarios``: the scenarios shipped with fracas, one line each.

Any of them runs by name from any folder (``fracas run mira_vs_guard``);
:mod:`fracas.core.bundled` finds them in the installed package.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fracas.cli.terminal import json_text
from fracas.core.errors import EXIT_OK


def register(sub: Any) -> None:
    p = sub.add_parser(
        "scenarios",
        help="list the bundled scenarios (run any by name: fracas run mira_vs_guard)",
        description="The scenarios shipped with fracas: name, system, title and sides (actors per side). "
        "run, validate, batch and play take a name (NAME or SYSTEM/NAME) wherever they take a file.",
    )
    p.add_argument("--json", action="store_true", help="one JSON list (with descriptions, actor ids and files)")
    p.set_defaults(handler=cmd_scenarios)


def cmd_scenarios(args: argparse.Namespace) -> int:
    from fracas.core.bundled import bundled_path, bundled_scenarios

    found = bundled_scenarios()
    if args.json:
        doc = [
            {
                "name": b.name,
                "qualified": b.qualified,
                "system": b.system,
                "title": b.title,
                "description": b.description,
                "sides": b.sides,
                "file": str(bundled_path(b.qualified)),
            }
            for b in found
        ]
        sys.stdout.write(json_text(doc, indent=2) + "\n")
        return EXIT_OK
    name_w = max((len(b.name) for b in found), default=0)
    system_w = max((len(b.system) for b in found), default=0)
    title_w = max((len(b.title) for b in found), default=0)
    for b in found:
        actors = sum(len(ids) for ids in b.sides.values())
        versus = " vs ".join(str(len(ids)) for ids in b.sides.values())
        sys.stdout.write(
            f"{b.name:<{name_w}}  {b.system:<{system_w}}  {b.title:<{title_w}}  {actors} actors ({versus})\n"
        )
    return EXIT_OK
