"""What-if: ``fracas replay LOG --fork-at SEQ --seed N --log NEW``.

The parent's scenario is run again from its header with a dice source that
serves the parent's recorded faces for every die drawn up to event SEQ, then
derives new dice from seed ``N`` (continuing the die index where the parent
stopped). Up to SEQ the rules therefore produce exactly the parent's events,
so the state just after SEQ is the parent's; after it the fight diverges.
The new header names the parent log, its SHA-256 and the fork seq
(``EncounterStarted.parent``); ``fracas verify`` checks the inherited dice
against the parent log when it finds it.

Human decisions up to the fork are the parent's; after it a human actor keeps
its parent's next decisions while they stay legal, else takes the first
action its rule system offers (for Point Zéro, the aggressive AI's plan).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from fracas.core import events as E
from fracas.core.decide import ReplayChooser
from fracas.core.dice import DerivedDice
from fracas.core.encounter import Listener, RunResult
from fracas.core.errors import FracasError
from fracas.core.log import LogError, read_log
from fracas.services.resim import RecordedDice, encounter_from_header


class _Reached(Exception):
    """The dry run has written the fork point's event."""


def dice_before(head: E.EncounterStarted, entries: list[E.Entry], fork_seq: int) -> int:
    """How many dice the rules had drawn when they wrote event ``fork_seq``.

    A system may draw every die of a roll before recording them as several
    DiceRolled events (Z-Corps: the plain dice, then the Joker, whose 1 changes
    the plain dice's fates), so the dice recorded up to ``fork_seq`` are not
    always all the dice drawn by then: a dry re-run on the parent's dice counts them.
    """
    dice = RecordedDice.from_entries(entries)

    def watch(seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if seq == fork_seq:
            raise _Reached(dice.counter)

    enc = encounter_from_header(
        head, seed="dry-run", dice=dice, chooser=ReplayChooser(entries, fallback=True), listeners=(watch,)
    )
    try:
        enc.run()
    except _Reached as reached:
        return int(reached.args[0])
    raise FracasError(f"the rules did not reach seq {fork_seq} again: the parent log does not replay")


def fork_log(
    parent: Path | str,
    fork_seq: int,
    *,
    seed: str,
    log_path: Path | None,
    binary: bool = False,
    listeners: tuple[Listener, ...] = (),
) -> RunResult:
    """Re-run the parent's fight identically up to ``fork_seq``, then with new dice from ``seed``."""
    parent = Path(parent)
    try:
        data = parent.read_bytes()
        result = read_log(parent)
    except (OSError, LogError) as exc:
        raise FracasError(f"{parent}: cannot read the parent log: {exc}") from None
    entries = result.entries
    if not entries or not isinstance(entries[0].ev, E.EncounterStarted):
        raise FracasError(f"{parent}: line 1: not a fracas log (no EncounterStarted header)")
    head = entries[0].ev
    last = entries[-1].seq
    if not 0 < fork_seq <= last:
        raise FracasError(f"{parent}: --fork-at {fork_seq}: expected a seq from 1 to {last}")
    fork_die = dice_before(head, entries, fork_seq)
    recorded = RecordedDice.from_entries(entries)
    dice = RecordedDice(recorded.faces[:fork_die], recorded.sources[:fork_die], then=DerivedDice(seed))
    origin = E.ForkOrigin(
        parent_log=parent.name,  # the name, not a machine path: verify looks for it beside the fork
        parent_sha256=hashlib.sha256(data).hexdigest(),
        fork_seq=fork_seq,
        fork_die=fork_die,
    )
    enc = encounter_from_header(
        head,
        seed=seed,
        dice=dice,
        chooser=ReplayChooser(entries, fallback=True),
        listeners=listeners,
        log_path=log_path,
        binary=binary,
        player_seeds=[],
        parent=origin,
    )
    return enc.run()
