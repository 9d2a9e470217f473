"""``fracas render LOG -o fight.html``: the visual replay of a logged fight."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fracas.cli.terminal import json_text
from fracas.core.errors import EXIT_OK


def cmd_render(args: argparse.Namespace) -> int:
    from fracas.cli.guard import damage_reported, holding_log
    from fracas.core.files import check_output
    from fracas.services.render import render_html  # imported here: keeps `fracas --help` fast

    log = holding_log(args.log)
    out = Path(args.output) if args.output else log.with_suffix(".html")
    check_output(out, force=args.force, inputs=[log])
    with damage_reported(log):
        result = render_html(log, out)
    if result.torn is not None:
        t = result.torn
        print(
            f"fracas: warning: {log}: line {t.line} is torn ({t.length} bytes: {t.error}); "
            f"rendered the {result.entries} entries before it",
            file=sys.stderr,
        )
    if args.json:
        payload = {"output": str(out), "entries": result.entries, "bytes": result.size, "verified": result.verified}
        print(json_text(payload))
    else:
        print(f"{out}: {result.entries} events, {result.size / 1024:.0f} KiB, log {result.verified}")
    return EXIT_OK


def register(sub: Any) -> None:
    """Add the ``render`` subcommand to the ``fracas`` subparsers (fracas.cli.main.EXTENSIONS)."""
    p = sub.add_parser("render", help="write a self-contained HTML replay of a log")
    p.add_argument("log", help="log file (JSONL or binary)")
    p.add_argument("-o", "--output", metavar="HTML", help="the page to write (default: the log's name with .html)")
    p.add_argument("--json", action="store_true", help="print one JSON object about what was written")
    p.add_argument("--force", action="store_true", help="replace the page if it exists (never the log)")
    p.set_defaults(handler=cmd_render)
