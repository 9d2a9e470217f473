"""The Z-Corps roll as a pure function of a draw (ZC-DICE-1, ZC-WILD-1/2, ZC-CP-1).

``roll_pool`` and ``add_cp`` take ``draw(n) -> n faces`` and nothing else, so
the encounter (which draws from its dice source and logs every face) and the
chi-square test against :mod:`fracas.systems.zcorps.odds` run the very same code.

Draw order, fixed so a worked example can script its faces: the code's plain
dice first, then the Joker and each of its rerolls (the plain dice and the
Joker's first roll come from one draw, so entered dice are asked for a whole
roll at once); CP dice later (they may be bought after the roll): the plain
CP dice, then each CP Joker and its rerolls.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec
from fracas.systems.zcorps.odds import DCode

Draw = Callable[[int], list[int]]

KEPT = "kept"
EXPLODED = "exploded"
CANCELLED = "cancelled"


def joker_chain(draw: Draw) -> list[int]:
    """ZC-WILD-1: a Joker: a 6 is added and rolled again, as long as it shows 6."""
    faces = draw(1)
    while faces[-1] == 6:
        faces += draw(1)
    return faces


def chain_fates(faces: list[int]) -> list[str]:
    """Every 6 of a chain was rerolled ("exploded"); the last face is kept."""
    if len(faces) == 1:  # the common case: no 6, nothing rerolled
        return [KEPT]
    return [EXPLODED] * (len(faces) - 1) + [KEPT]


class PoolRoll(msgspec.Struct):
    """One roll of a D code, with CP dice bought for it (a Struct: one is built at every roll, cheaply).

    ``cancelled`` (the face a Joker 1 removed) and ``dice_total`` are set by
    :func:`roll_pool` and kept up to date by :func:`add_cp`: every test reads
    the total several times, so it is summed once, not at each reading.
    """

    code: DCode
    plain: list[int] = []
    plain_fates: list[str] = []
    joker: list[int] = []
    cp_plain: list[int] = []
    cp_jokers: list[list[int]] = []
    cancelled: int | None = None
    dice_total: int = 0

    @property
    def automatic_failure(self) -> bool:
        """ZC-DICE-1: a pool of 0 dice or fewer rolls nothing and fails."""
        return self.code.dice <= 0

    @property
    def critical_failure(self) -> bool:
        """ZC-WILD-2: the Joker's first roll is a 1."""
        return bool(self.joker) and self.joker[0] == 1

    @property
    def critical_success(self) -> bool:
        """ZC-WILD-1: the Joker's first roll is a 6 (the seed's "Succès Critique")."""
        return bool(self.joker) and self.joker[0] == 6

    @property
    def total(self) -> int:
        return 0 if self.code.dice <= 0 else self.dice_total + self.code.pips


def roll_pool(draw: Draw, code: DCode, *, lone_joker_cancels: bool = True) -> PoolRoll:
    """ZC-DICE-1, ZC-WILD-1, ZC-WILD-2: N-1 plain dice and the Joker; a first 1 removes the highest plain die.

    In a 1D pool the Joker is the highest die: its 1 cancels itself and only the pips remain
    (``lone_joker_cancels``; rules edition 1 kept the 1).
    """
    if code.dice <= 0:  # automatic failure
        return PoolRoll(code=code)
    # One draw for the plain dice and the Joker's first roll (the Joker is the last of them), then its rerolls
    plain = draw(code.dice)
    joker = [plain.pop()]
    while joker[-1] == 6:
        joker += draw(1)
    fates = [KEPT] * len(plain)
    total = sum(plain) + sum(joker)
    cancelled = None
    if joker[0] == 1 and plain:
        cancelled = max(plain)
        fates[plain.index(cancelled)] = CANCELLED
        total -= cancelled
    elif joker[0] == 1 and lone_joker_cancels:
        cancelled = 1
        total -= 1
    return PoolRoll(code, plain, fates, joker, cancelled=cancelled, dice_total=total)


def add_cp(draw: Draw, roll: PoolRoll, cp: int, *, all_wild: bool) -> PoolRoll:
    """ZC-CP-1: +1D per CP; one of them (option: all) a Joker whose 1 is a plain 1; never removed."""
    wild = cp if all_wild else min(cp, 1)
    if cp - wild > 0:
        faces = draw(cp - wild)
        roll.cp_plain += faces
        roll.dice_total += sum(faces)
    for _ in range(wild):
        chain = joker_chain(draw)
        roll.cp_jokers.append(chain)
        roll.dice_total += sum(chain)
    return roll
