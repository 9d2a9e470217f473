"""What the terminal can show: the narration's French typography where it can, "?" where it cannot.

The narration prints "Point Zéro", "margin −2" and "…"; a Latin-1 terminal has no "−" or "…", an
ASCII one no "é", and Windows writes a redirected output in its ANSI code page. Text goes out with
"?" for what the terminal's encoding lacks (never a crash), and JSON stays exact: escaped to ASCII
where the encoding is not UTF-8.
"""

from __future__ import annotations

import codecs
import json
import sys
from typing import Any, TextIO


def speaks_utf8(stream: TextIO) -> bool:
    """Whether ``stream`` takes any character (an in-memory stream has no encoding: it does)."""
    encoding = getattr(stream, "encoding", None)
    return encoding is None or codecs.lookup(encoding).name == "utf-8"


def tolerate_unencodable() -> None:
    """Standard output shows "?" for a character its encoding lacks, instead of raising (standard error
    already escapes one, as Python sets it up: a file name in an error stays exact)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and not speaks_utf8(stream) and stream.errors == "strict":
            reconfigure(errors="replace")


def json_text(value: Any, **options: Any) -> str:
    """``value`` as JSON for standard output: as is in UTF-8, escaped to ASCII in any other encoding."""
    return json.dumps(value, ensure_ascii=not speaks_utf8(sys.stdout), **options)
