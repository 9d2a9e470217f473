"""How ``run``, ``replay --narrate`` and ``play`` print a fight: the play-by-play, ``--summary``, ``--only``.

Colour only on a terminal, and never with ``NO_COLOR`` set (https://no-color.org)
or ``--no-color``; a pipe or a file gets plain text. Start-up: this module
imports no service and no event type until a fight is narrated, so ``--help``
stays light (tests/cli/test_startup.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from fracas.core.errors import FracasError

if TYPE_CHECKING:
    from fracas.core import events as E
    from fracas.services.narrate import Narrator, Summary

#: ``--only`` choices (fracas.services.narrate.ONLY, repeated here so that --help imports no service).
ONLY = ("wounds", "hits", "rolls")

__all__ = [
    "ONLY",
    "Printer",
    "add_flags",
    "aftermath_seq",
    "duration",
    "narrate_log",
    "narration_lines",
    "use_colour",
]

Write = Callable[[str], object]


def add_flags(p: argparse.ArgumentParser) -> None:
    """``--summary``, ``--only`` and ``--no-color`` on a command that narrates."""
    p.add_argument("--summary", action="store_true", help="one line per action: who, whom, hit or miss, wound")
    p.add_argument("--only", choices=ONLY, help="narrate only the wounds, the hits or the rolls")
    p.add_argument("--no-color", action="store_true", help="no colour even on a terminal (NO_COLOR works too)")


def use_colour(args: argparse.Namespace, stream: TextIO) -> bool:
    if getattr(args, "no_color", False) or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Printer:
    """Feeds events to a narrator (or a summary) and writes what they say."""

    def __init__(self, args: argparse.Namespace, write: Write, stream: TextIO | None = None) -> None:
        from fracas.services.narrate import Narrator, Summary

        self.write = write
        colour = use_colour(args, stream or sys.stdout)
        self.narrator: Narrator = Narrator(colour=colour, only=getattr(args, "only", None))
        self.summary: Summary | None = Summary(self.narrator) if getattr(args, "summary", False) else None
        self.aftermath_seq: int | None = None

    def note_aftermath(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        """A listener that only remembers where the aftermath starts (``--quiet``, ``--json``)."""
        if type(ev).__name__ == "AftermathStarted":
            self.aftermath_seq = seq

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event, prefix: str = "") -> None:
        self.note_aftermath(seq, rnd, count, sec, ev)
        if self.summary is not None:
            for line in self.summary.feed(rnd, count, ev, sec):
                self.write(prefix + line)
            return
        said = self.narrator.line(rnd, count, sec, ev)
        if said is not None:
            for part in said.split("\n"):
                self.write(prefix + part)

    def finish(self) -> None:
        rest = self.summary.flush() if self.summary is not None else [self.narrator.flush()]
        for line in rest:
            if line is not None:
                self.write(line)


def narrate_log(path: Path, at: int | None, printer: Printer) -> None:
    """Narrate a stored log up to ``at`` (each line led by its seq, the number ``replay --at`` takes)."""
    from fracas.core.log import LogError, TornLine, iter_log

    try:
        for item in iter_log(path):
            if isinstance(item, TornLine) or (at is not None and item.seq > at):
                break
            printer(item.seq, item.round, item.count, item.sec, item.ev, prefix=f"{item.seq:>5} ")
    except LogError as exc:
        raise FracasError(str(exc)) from None
    printer.finish()


def actors_in_header(path: Path) -> int:
    """How many actors the log's scenario has (its header's copy), 0 when the header cannot tell."""
    from fracas.core.events import EncounterStarted
    from fracas.core.log import LogError, iter_log

    try:
        head = next(iter_log(path), None)
    except LogError as exc:
        raise FracasError(str(exc)) from None
    ev = getattr(head, "ev", None)  # a torn first line has none
    if not isinstance(ev, EncounterStarted):
        return 0
    actors = ev.scenario.get("actors")
    return len(actors) if isinstance(actors, list) else 0


def narration_lines(path: Path, *, summary: bool = False, only: str | None = None) -> list[str]:
    """What ``fracas replay PATH --narrate [--summary] [--only X]`` prints before the sheets, uncoloured.

    The golden narration files (tests/golden/narration, rewritten by ``tools/regen_expected.py --write``)
    are this text for each scenario's expected log.
    """
    lines: list[str] = []
    args = argparse.Namespace(summary=summary, only=only, no_color=True)
    narrate_log(path, None, Printer(args, lines.append))
    return lines


def duration(sec: float) -> str:
    """Simulated time as a game master says it (fracas.services.narrate.duration)."""
    from fracas.services.narrate import duration as said

    return said(sec)


def aftermath_seq(path: Path) -> int | None:
    """The seq of the log's AftermathStarted (the end of the fight proper), None when it has none."""
    from fracas.core import events as E
    from fracas.core.log import LogError, TornLine, iter_log

    try:
        for item in iter_log(path):
            if isinstance(item, TornLine):
                return None
            if isinstance(item.ev, E.AftermathStarted):
                return item.seq
    except LogError as exc:
        raise FracasError(str(exc)) from None
    return None
