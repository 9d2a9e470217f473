#!/usr/bin/env python3
"""Independent check of a fracas log's dice, with the Python standard library only.

    python tools/verify_dice.py LOG.jsonl

It imports nothing from fracas: it is the method of docs/dice.md written
out a second time, so a player who does not trust fracas can read these
lines and run them. It checks

1. the hash chain: ``h_i = SHA-256(h_{i-1} || line i without its ,"h":"..." key)``;
2. the commitment: SHA-256 of the seed revealed by the last line equals the
   commitment of the first line;
3. every die: die ``k`` re-derives, from the key and ``k``, to the face the
   log records (``source = "derived"``); entered dice are counted only.

Exit status: 0 all good, 1 a mismatch (printed with its line), 2 unreadable.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys

H_KEY = b',"h":"'


def derive_key(seed: str, player_seeds: list[str]) -> bytes:
    """The seed's UTF-8 bytes, or SHA-256("fracas-key-v1" 0x00 seed (0x00 player seed)*)."""
    if not player_seeds:
        return seed.encode("utf-8")
    parts = [b"fracas-key-v1", seed.encode("utf-8"), *(p.encode("utf-8") for p in player_seeds)]
    return hashlib.sha256(b"\x00".join(parts)).digest()


def derive_face(key: bytes, k: int, sides: int) -> int:
    """Die k: the first attempt j whose 64-bit value is below the largest multiple of sides."""
    limit = 2**64 - 2**64 % sides
    j = 0
    while True:
        mac = hmac.new(key, b"fracas-die" + k.to_bytes(8, "big") + j.to_bytes(4, "big"), hashlib.sha256)
        x = int.from_bytes(mac.digest()[:8], "big")
        if x < limit:
            return x % sides + 1
        j += 1


def check(path: str) -> int:
    try:
        with open(path, "rb") as fh:
            lines = [line for line in fh.read().split(b"\n") if line]
        entries = [json.loads(line) for line in lines]
    except (OSError, ValueError) as exc:
        print(f"{path}: unreadable: {exc}")
        return 2
    if not entries or entries[0]["ev"]["type"] != "EncounterStarted":
        print(f"{path}: line 1: not a fracas log header")
        return 2
    prev = bytes(32)
    for n, (line, entry) in enumerate(zip(lines, entries, strict=True), start=1):
        cut = line.rfind(H_KEY)
        digest = hashlib.sha256(prev + line[:cut] + b"}").digest()
        if digest.hex() != entry.get("h"):
            print(f"{path}: line {n}: hash chain broken (expected {digest.hex()}, found {entry.get('h')})")
            return 1
        prev = digest
    dice = entries[0]["ev"]["dice"]
    if dice["method"] != "hmac-sha256-v1":
        print(f"{path}: line 1: unknown dice method {dice['method']!r}")
        return 1
    last = entries[-1]["ev"]
    if last["type"] != "EncounterEnded":
        print(f"{path}: line {len(entries)}: no EncounterEnded: the seed is not revealed, the dice cannot be checked")
        return 1
    seed = last["seed"]
    found = hashlib.sha256(seed.encode("utf-8")).hexdigest()
    if found != dice["commitment"]:
        print(
            f"{path}: line {len(entries)}: SHA-256 of the revealed seed is {found}, line 1 commits to "
            f"{dice['commitment']}"
        )
        return 1
    key = derive_key(seed, dice.get("player_seeds", []))
    parent = entries[0]["ev"].get("parent")
    fork_seq = parent["fork_seq"] if parent else -1
    counter = checked = other = inherited = 0
    for n, entry in enumerate(entries, start=1):
        ev = entry["ev"]
        if ev["type"] != "DiceRolled":
            continue
        if ev["first"] != counter:
            print(f"{path}: line {n}: the roll starts at die {ev['first']}, the stream is at die {counter}")
            return 1
        for i, face in enumerate(ev["faces"]):
            if entry["seq"] <= fork_seq:
                inherited += 1  # derived from the parent log's seed: check the parent
            elif ev.get("source", "derived") == "derived":
                want = derive_face(key, counter + i, ev["sides"])
                if want != face:
                    print(f"{path}: line {n}: die {counter + i} derives to {want}, the log records {face}")
                    return 1
                checked += 1
            else:
                other += 1
        counter += len(ev["faces"])
    print(
        f"{path}: ok: chain of {len(entries)} lines intact, seed matches its commitment, "
        f"{checked} derived dice re-derived, {other} entered dice, {inherited} inherited from the parent log"
    )
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/verify_dice.py LOG.jsonl")
        return 2
    return check(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
