"""What the terminal can show: the narration's French typography where it can, "?" where it cannot.

The narration prints "Point Zéro", "margin −2" and "…"; a Latin-1 terminal has no "−" or "…", an
ASCII one no "é", and Windows writes a redirected output in its ANSI code page. Text goes out with
"?" for what the terminal's encoding lacks (never a crash), and JSON stays exact: escaped to ASCII
where the encoding is not UTF-8.
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from fracas.core.controls import CONTROLS, json_escaped, written


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
    """``value`` as JSON for standard output: as is in UTF-8, escaped to ASCII in any other encoding; a control
    character or an override (fracas.core.controls) always as a ``\\u`` escape, so that :func:`shown` finds
    nothing to write out in it and the JSON stays JSON, and exact."""
    return json_escaped(json.dumps(value, ensure_ascii=not speaks_utf8(sys.stdout), **options))


#: The styles fracas's own narration paints with (fracas.services.narrate): they pass, no other escape does.
STYLES = ("0", "1", "2", "31", "32", "33", "1;31")
#: What :func:`shown` writes out (fracas.core.controls); an escape sequence of one of :data:`STYLES` is kept
#: whole (the first alternative).
_OWN_STYLE = "\x1b\\[(?:" + "|".join(re.escape(s) for s in STYLES) + ")m"
_CONTROL = re.compile(f"{_OWN_STYLE}|[{CONTROLS}]")


def _escaped(match: re.Match[str]) -> str:
    text = match.group()
    return text if len(text) > 1 else written(text)  # a style of fracas's own, or one character written out


def shown(text: str) -> str:
    """``text`` with what would drive a terminal written out (``\\x1b``, ``\\r``, ``\\u202e``), fracas's colours kept.

    A log read is someone else's: its names and texts could clear the screen, move the cursor up and
    rewrite "PROBLEM" as "intact", or hide a line. Scenarios refuse such characters (fracas.core.controls);
    a forged log's texts are shown escaped here, on their way to the screen."""
    return _CONTROL.sub(_escaped, text) if _CONTROL.search(text) else text


class ShownStream:
    """A text stream whose every write goes through :func:`shown` (the rest is the stream's own)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(shown(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def shown_output() -> Iterator[None]:
    """Standard output goes through :func:`shown` while a command runs."""
    before = sys.stdout
    sys.stdout = cast(TextIO, ShownStream(before))
    try:
        yield
    finally:
        sys.stdout = before
