"""``fracas play SCENARIO``: a real table's fight, decided and (optionally) rolled by people.

Actors with ``policy = "human"`` are asked at the terminal: a numbered list
of the legal actions their rule system offers, each with its odds when it
is a test. The other actors follow their AI policy. With ``dice="entered"``
every roll is asked for too: the physical faces, checked for count and
range; a typo is asked again, never a crash. Entered faces are logged with
``source = "entered"``; the log replays, audits and verifies like any other
(the dice step counts entered dice instead of re-deriving them).

Input and output are plain text streams, so tests drive a whole fight with a
script of answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from fracas.core.decide import Choice, attach_chooser
from fracas.core.dice import DiceSource, EnteredDice
from fracas.core.encounter import Encounter, Listener, RunResult
from fracas.core.errors import FracasError
from fracas.core.scenario import load_scenario
from fracas.core.system import get_system
from fracas.services.run import default_log_path, resolve_seed

if TYPE_CHECKING:
    from fracas.core.encounter import Encounter as _Enc

_SPLIT = re.compile(r"[\s,;]+")


class InputEnded(FracasError):
    """The person at the table stopped answering (end of input)."""


class Prompter:
    """Asks questions on ``out`` and reads answers from ``inp``, line by line."""

    def __init__(self, inp: TextIO, out: TextIO) -> None:
        self.inp = inp
        self.out = out

    def ask(self, prompt: str, what: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise InputEnded(f"input ended while waiting for {what}")
        return line.strip()


class TerminalChooser:
    """The human at the table picks from a numbered list of legal actions."""

    def __init__(self, prompter: Prompter) -> None:
        self.p = prompter

    def choose(self, enc: _Enc, actor: str, choices: Sequence[Choice]) -> int:
        out = self.p.out
        name = enc.state.actors[actor].name if actor in enc.state.actors else actor
        out.write(f"\nRound {enc.round}: {name} ({actor}) decides. Legal actions:\n")
        for i, c in enumerate(choices, start=1):
            odds = f"  [odds {c.odds:.1%}]" if c.odds is not None else ""
            out.write(f"  {i:>2}. {c.text}{odds}\n")
        n = len(choices)
        while True:
            answer = self.p.ask(f"{name}'s action [1-{n}]: ", f"{name}'s action")
            if answer.isdigit() and 1 <= int(answer) <= n:
                return int(answer) - 1
            out.write(f"  not an action number: {answer!r}; type a number from 1 to {n}\n")


def parse_faces(text: str, n: int, sides: int) -> list[int] | str:
    """The faces typed, or why they are not ``n`` faces of a d``sides``."""
    tokens = [t for t in _SPLIT.split(text) if t]
    if len(tokens) != n:
        return f"expected {n} face{'s' if n != 1 else ''}, got {len(tokens)}"
    faces = []
    for t in tokens:
        if not t.isdigit():
            return f"{t!r} is not a number"
        face = int(t)
        if not 1 <= face <= sides:
            return f"{face} is not a face of a d{sides} (1 to {sides})"
        faces.append(face)
    return faces


def entered_dice(prompter: Prompter) -> EnteredDice:
    """A dice source that asks the table for every roll, and asks again on a typo."""

    def ask(n: int, sides: int, actor: str, purpose: str) -> list[int]:
        while True:
            answer = prompter.ask(
                f"{actor} rolls {n}d{sides} for {purpose}: enter {n} face{'s' if n != 1 else ''} (1-{sides}): ",
                f"the dice of {actor} ({purpose})",
            )
            parsed = parse_faces(answer, n, sides)
            if isinstance(parsed, list):
                return parsed
            prompter.out.write(f"  {parsed}; roll again or retype\n")

    return EnteredDice(ask)


def play_scenario(
    scenario: str | Path,
    *,
    inp: TextIO,
    out: TextIO,
    dice: str = "derived",
    seed: str | None = None,
    log_path: Path | None = None,
    player_seeds: Sequence[str] = (),
    listeners: Sequence[Listener] = (),
) -> RunResult:
    """Run a fight with humans deciding (and, with ``dice="entered"``, rolling) at the terminal."""
    if dice not in ("derived", "entered"):
        raise FracasError(f"--dice: expected derived or entered, got {dice!r}")
    loaded = load_scenario(scenario)
    system = get_system(loaded.spec.system)
    if "human" not in system.policies:
        raise FracasError(f"{loaded.path}: rule system {system.name} has no human policy")
    seed_text = resolve_seed(seed, loaded)
    prompter = Prompter(inp, out)
    source: DiceSource | None = entered_dice(prompter) if dice == "entered" else None
    enc = Encounter(
        system,
        loaded,
        seed=seed_text,
        dice=source,
        log_path=log_path if log_path is not None else default_log_path(loaded, seed_text),
        player_seeds=player_seeds,
        listeners=listeners,
    )
    attach_chooser(enc, TerminalChooser(prompter))
    return enc.run()
