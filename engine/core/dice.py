"""Dice sources: derived (verifiable), scripted (tests) and entered (a real table).

Derived dice (docs/dice.md has the full method and known-answer vectors):

- the seed is a text; the commitment (:func:`commitment_v2`: SHA-256 over the
  salt, the seed, the scenario, the effective rules, the method and the
  source) is published in the log header before any die is drawn, the seed
  itself in the last event (format 1 logs: ``SHA-256(seed as UTF-8)``);
- the key is the seed's UTF-8 bytes, or, when players add seeds after the
  commitment, ``SHA-256("fracas-key-v1" 0x00 seed (0x00 player_seed)*)``;
- die ``k`` (0, 1, 2, ... over the whole encounter) with ``s`` sides is, for
  the first attempt ``j = 0, 1, ...`` that is not rejected,
  ``x = first 8 bytes, big-endian, of HMAC-SHA256(key, "fracas-die" k:8 j:4)``,
  rejected when ``x >= 2**64 - 2**64 % s``, else ``face = x % s + 1``.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Callable, Sequence
from typing import Protocol

METHOD = "hmac-sha256-v1"
_DIE_PREFIX = b"fracas-die"
_KEY_PREFIX = b"fracas-key-v1"
_TWO64 = 1 << 64
#: The HMAC message of die k, attempt j: "fracas-die" || k (8 bytes) || j (4 bytes), big-endian.
_DIE_MESSAGE = struct.Struct(">10sQI")
#: The first 8 bytes of a MAC as an unsigned big-endian integer.
_FIRST_8_BYTES = struct.Struct(">Q")
#: Byte tables for the HMAC pads (RFC 2104): ``block.translate(_XOR_IPAD)`` is every byte XOR 0x36.
_XOR_IPAD = bytes(b ^ 0x36 for b in range(256))
_XOR_OPAD = bytes(b ^ 0x5C for b in range(256))


class DiceError(Exception):
    """A dice source cannot produce the faces asked for."""


#: The first part of every format-2 commitment (docs/dice.md, "The commitment").
COMMIT_DOMAIN = "fracas-commit-v2"
#: Bits of a secret drawn by ``fracas commit``, and of its salt.
SECRET_BITS = 256
SALT_BITS = 128


def commitment_of(seed: str) -> str:
    """The format-1 commitment to a seed: hex SHA-256 of its UTF-8 bytes (it binds nothing else)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def commitment_v2(
    *,
    salt: str,
    seed: str,
    scenario_sha256: str,
    scenario_name: str,
    rules_sha256: str,
    method: str,
    source: str,
) -> str:
    """The format-2 commitment: hex SHA-256 of its eight parts, each as a 4-byte big-endian length and its UTF-8 bytes.

    The parts, in order: ``"fracas-commit-v2"``, the salt, the seed, the
    scenario's SHA-256, the scenario's name, the effective rules' SHA-256,
    the dice method and the dice source. Length prefixes make the split
    unambiguous whatever the texts hold.
    """
    parts = (COMMIT_DOMAIN, salt, seed, scenario_sha256, scenario_name, rules_sha256, method, source)
    data = b"".join(len(b).to_bytes(4, "big") + b for b in (p.encode("utf-8") for p in parts))
    return hashlib.sha256(data).hexdigest()


def new_secret() -> str:
    """A fresh secret seed for ``fracas commit``: 256 bits from the OS, as 64 hex digits."""
    return secrets.token_hex(SECRET_BITS // 8)


def new_salt() -> str:
    """A fresh salt for a commitment: 128 bits from the OS, as 32 hex digits."""
    return secrets.token_hex(SALT_BITS // 8)


def is_secret_seed(seed: str, salt: str) -> bool:
    """Whether a seed and salt have the shape ``fracas commit`` draws (64 and 32 lowercase hex digits)."""
    hexdigits = set("0123456789abcdef")
    return (
        len(seed) == SECRET_BITS // 4
        and len(salt) == SALT_BITS // 4
        and set(seed) <= hexdigits
        and set(salt) <= hexdigits
    )


def derive_key(seed: str, player_seeds: Sequence[str] = ()) -> bytes:
    """The HMAC key: the seed, or the seed mixed with the players' seeds."""
    if not player_seeds:
        return seed.encode("utf-8")
    parts = [_KEY_PREFIX, seed.encode("utf-8"), *(p.encode("utf-8") for p in player_seeds)]
    return hashlib.sha256(b"\x00".join(parts)).digest()


def derive_face(key: bytes, k: int, sides: int) -> int:
    """Die number ``k`` of the stream keyed by ``key``, uniform on 1..sides."""
    limit = _TWO64 - _TWO64 % sides
    head = _DIE_PREFIX + k.to_bytes(8, "big")
    j = 0
    while True:
        digest = hmac.digest(key, head + j.to_bytes(4, "big"), "sha256")
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % sides + 1
        j += 1


class DiceSource(Protocol):
    """Where faces come from. ``counter`` is the index of the next die."""

    kind: str
    counter: int

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        """Return ``n`` faces of ``sides``-sided dice and advance the counter."""
        ...


class DerivedDice:
    """The default source: every die re-derivable from the revealed seed.

    Computes exactly :func:`derive_face`, with the HMAC's inner and outer
    SHA-256 states keyed once (RFC 2104) instead of once per die.
    """

    kind = "derived"

    def __init__(self, seed: str, player_seeds: Sequence[str] = (), counter: int = 0) -> None:
        self.seed = seed
        self.player_seeds = list(player_seeds)
        self.key = derive_key(seed, player_seeds)
        self.counter = counter
        block = self.key if len(self.key) <= 64 else hashlib.sha256(self.key).digest()
        block = block.ljust(64, b"\x00")
        self._inner = hashlib.sha256(block.translate(_XOR_IPAD))
        self._outer = hashlib.sha256(block.translate(_XOR_OPAD))

    def face(self, k: int, sides: int) -> int:
        """Die ``k`` with ``sides`` sides: the same value as ``derive_face(self.key, k, sides)``."""
        return self.faces(k, 1, sides)[0]

    def faces(self, first: int, n: int, sides: int) -> list[int]:
        """Dice ``first`` .. ``first + n - 1``, each with ``sides`` sides (the counter is not moved).

        One HMAC per attempt, as :func:`derive_face`; the loop is written out
        here rather than calling :meth:`face` per die, which costs a sixth more.
        """
        limit = _TWO64 - _TWO64 % sides
        pack_message = _DIE_MESSAGE.pack
        first_8_bytes = _FIRST_8_BYTES.unpack_from
        keyed_inner, keyed_outer = self._inner, self._outer
        out: list[int] = []
        for k in range(first, first + n):
            j = 0
            while True:
                inner = keyed_inner.copy()
                inner.update(pack_message(_DIE_PREFIX, k, j))
                outer = keyed_outer.copy()
                outer.update(inner.digest())
                (x,) = first_8_bytes(outer.digest())
                if x < limit:
                    break
                j += 1
            out.append(x % sides + 1)
        return out

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        first = self.counter
        faces = self.faces(first, n, sides)
        self.counter = first + n
        return faces


class ScriptedDice:
    """Faces from a fixed list, for tests and worked examples.

    Running out of faces is an error naming what was being rolled, so a
    worked example that needs more dice than it scripted fails loudly.
    """

    kind = "scripted"

    def __init__(self, faces: Sequence[int]) -> None:
        self.faces = list(faces)
        self.counter = 0

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        start = self.counter
        if start + n > len(self.faces):
            raise DiceError(
                f"scripted dice exhausted: {actor} needs {n}d{sides} for {purpose} "
                f"at die {start}, only {len(self.faces) - start} left"
            )
        faces = self.faces[start : start + n]
        for face in faces:
            if not 1 <= face <= sides:
                raise DiceError(f"scripted face {face} is not a d{sides} face ({purpose})")
        self.counter = start + n
        return faces


class EnteredDice:
    """Faces typed in from a real table, asked for through ``ask``.

    ``ask(n, sides, actor, purpose)`` returns the faces; it is responsible for
    re-asking on bad input, and this class validates again before accepting.
    """

    kind = "entered"

    def __init__(self, ask: Callable[[int, int, str, str], Sequence[int]]) -> None:
        self.ask = ask
        self.counter = 0

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        faces = list(self.ask(n, sides, actor, purpose))
        if len(faces) != n or not all(1 <= f <= sides for f in faces):
            raise DiceError(f"entered dice for {purpose}: need {n} faces in 1..{sides}")
        self.counter += n
        return faces
