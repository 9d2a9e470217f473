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
#: A fight of more actors than this is narrated an attack a line (``--summary``) unless a narration is asked for:
#: a thousand zombies' play-by-play is a hundred thousand lines of moves.
LARGE_FIGHT = 100

__all__ = [
    "LARGE_FIGHT",
    "ONLY",
    "Printer",
    "add_flags",
    "aftermath_seq",
    "duration",
    "narrate_log",
    "narrates_a_summary",
    "narration_lines",
    "use_colour",
]

Write = Callable[[str], object]


def add_flags(p: argparse.ArgumentParser) -> None:
    """``--summary``, ``--only``, ``--play-by-play`` and ``--no-color`` on a command that narrates."""
    p.add_argument("--summary", action="store_true", help="one line per action: who, whom, hit or miss, wound")
    p.add_argument("--only", choices=ONLY, help="narrate only the wounds, the hits or the rolls")
    p.add_argument(
        "--play-by-play",
        action="store_true",
        help=f"narrate every action even in a fight of more than {LARGE_FIGHT} actors (an attack a line by default)",
    )
    p.add_argument("--no-color", action="store_true", help="no colour even on a terminal (NO_COLOR works too)")


def use_colour(args: argparse.Namespace, stream: TextIO) -> bool:
    if getattr(args, "no_color", False) or os.environ.get("NO_COLOR"):
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def narrates_a_summary(args: argparse.Namespace, actors: int) -> bool:
    """``--summary``, or a fight of more than :data:`LARGE_FIGHT` actors with no narration asked for."""
    if getattr(args, "summary", False):
        return True
    if getattr(args, "play_by_play", False) or getattr(args, "only", None) is not None:
        return False
    return actors > LARGE_FIGHT


class Printer:
    """Feeds events to a narrator (or a summary) and writes what they say.

    The fight's size is read from its first event, the header (its scenario's actors): a large fight
    with no narration asked for is narrated an attack a line, and the first line says so
    (:func:`narrates_a_summary`). One decision for ``run``, ``replay --narrate`` and ``play``.
    """

    def __init__(self, args: argparse.Namespace, write: Write, stream: TextIO | None = None) -> None:
        from fracas.services.narrate import Narrator, Summary

        self.write = write
        self.args = args
        colour = use_colour(args, stream or sys.stdout)
        self.narrator: Narrator = Narrator(colour=colour, only=getattr(args, "only", None))
        self.summary: Summary | None = Summary(self.narrator) if getattr(args, "summary", False) else None
        self.aftermath_seq: int | None = None
        self._sized = self.summary is not None  # a summary asked for needs no header to decide

    def _size_up(self, ev: E.Event) -> None:
        """On the first event: a large fight's header turns the summary on, and says how to see every action."""
        from fracas.services.narrate import Summary

        self._sized = True
        scenario = getattr(ev, "scenario", None)  # only the header (EncounterStarted) holds the scenario
        actors = scenario.get("actors") if isinstance(scenario, dict) else None
        n = len(actors) if isinstance(actors, list) else 0
        if narrates_a_summary(self.args, n):
            self.summary = Summary(self.narrator)
            self.write(f"{n} actors: one line per attack (--summary); --play-by-play narrates every action")

    def note_aftermath(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        """A listener that narrates nothing (``--quiet``, ``--json``): it remembers where the aftermath starts,
        and reads the header's names for the last line ("won by Mira", not "won by the mira side")."""
        kind = type(ev).__name__
        if kind == "AftermathStarted":
            self.aftermath_seq = seq
        elif kind == "EncounterStarted":
            self.narrator.text(ev)

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event, prefix: str = "") -> None:
        if type(ev).__name__ == "AftermathStarted":
            self.aftermath_seq = seq
        if not self._sized:
            self._size_up(ev)
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
