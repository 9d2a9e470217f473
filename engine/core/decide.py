"""Human decisions: how a rule system asks for a choice it cannot make itself.

A rule system whose actor has ``policy = "human"`` lists the legal actions
as :class:`Choice` objects and calls :func:`ask_human`; whoever runs the
encounter has attached a :class:`Chooser` to it:

- ``fracas play`` attaches a terminal chooser (a numbered list, with odds);
- ``fracas verify`` and ``fracas replay --fork-at`` attach a
  :class:`ReplayChooser` that takes the decisions from the log's
  ``ActionDeclared`` events, so a replay needs no human and no AI code.

The contract for a rule system: each call to :func:`ask_human` for an actor
is followed by exactly one ``ActionDeclared`` event for that actor with
``policy="human"`` and ``text`` equal to the chosen :attr:`Choice.text`
(the texts of one call's choices must be distinct). That is how a replay
finds the same choice again.

A choice about a roll rather than an action (spend a resource on it: Z-Corps
Character Points) is declared with ``action=ROLL_CHOICE``; its choices carry
the :attr:`Choice.question` a chooser shows instead of the map and the round.
"""

from __future__ import annotations

import weakref
from collections import deque
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

import msgspec
from fracas.core import events as E
from fracas.core.errors import FracasError

if TYPE_CHECKING:
    from fracas.core.encounter import Encounter

HUMAN = "human"
#: the ``ActionDeclared.action`` of a human's choice about a roll (not an action of the round)
ROLL_CHOICE = "roll_choice"


class Choice(msgspec.Struct, frozen=True, kw_only=True):
    """One legal action offered to a human: its text and, for a test, its odds of success."""

    text: str
    odds: float | None = None
    #: for a choice about a roll (ROLL_CHOICE): what is asked, with the roll as it stands
    question: str = ""


class Chooser(Protocol):
    def choose(self, enc: Encounter, actor: str, choices: Sequence[Choice]) -> int:
        """The index of the chosen entry of ``choices``."""
        ...


class DecisionError(FracasError):
    """A human decision that cannot be taken (no chooser, or not among the legal actions)."""


class NoLoggedDecision(DecisionError):
    """The log holds no (more) human decision for an actor."""


_choosers: weakref.WeakKeyDictionary[Encounter, Chooser] = weakref.WeakKeyDictionary()


def attach_chooser(enc: Encounter, chooser: Chooser) -> None:
    """Let ``chooser`` decide for the human actors of ``enc``."""
    _choosers[enc] = chooser


def ask_human(enc: Encounter, actor: str, choices: Sequence[Choice]) -> int:
    """The index of the choice a human made for ``actor`` (raises DecisionError when nobody can answer)."""
    if not choices:
        raise DecisionError(f"{actor}, round {enc.round}: no legal action to offer")
    chooser = _choosers.get(enc)
    if chooser is None:
        raise DecisionError(
            f"{actor}, round {enc.round}: policy {HUMAN!r} needs a human at the table: use `fracas play`"
        )
    index = chooser.choose(enc, actor, choices)
    if not 0 <= index < len(choices):
        raise DecisionError(f"{actor}, round {enc.round}: choice {index} is not one of the {len(choices)} offered")
    return index


class ReplayChooser:
    """Takes each human decision from the next logged ``ActionDeclared`` of that actor.

    ``fallback`` (used by what-if forks) picks the first choice once the
    logged decisions run out or stop being legal; without it that is a
    :class:`DecisionError` naming the seq of the logged decision.
    """

    def __init__(self, entries: Iterable[E.Entry], *, fallback: bool = False) -> None:
        self._entries: Iterable[E.Entry] | None = entries
        self._queues: dict[str, deque[tuple[int, str]]] = {}
        self.fallback = fallback

    @property
    def queues(self) -> dict[str, deque[tuple[int, str]]]:
        """The logged human decisions per actor, read from the entries at the first question.

        Most logs have no human actor: verifying them then never reads the entries a second time.
        """
        if self._entries is not None:
            for entry in self._entries:
                ev = entry.ev
                if isinstance(ev, E.ActionDeclared) and ev.policy == HUMAN:
                    self._queues.setdefault(ev.actor, deque()).append((entry.seq, ev.text))
            self._entries = None
        return self._queues

    def choose(self, enc: Encounter, actor: str, choices: Sequence[Choice]) -> int:
        queue = self.queues.get(actor)
        if not queue:
            if self.fallback:
                return 0
            raise NoLoggedDecision(f"{actor}, round {enc.round}: the log records no human decision for this turn")
        seq, text = queue.popleft()
        for i, choice in enumerate(choices):
            if choice.text == text:
                return i
        if self.fallback:
            self.queues[actor] = deque()
            return 0
        legal = "; ".join(c.text for c in choices)
        raise DecisionError(
            f"seq {seq}: {actor}'s logged decision {text!r} is not a legal action in round {enc.round} (legal: {legal})"
        )
