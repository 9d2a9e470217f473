#!/usr/bin/env python3
"""Independent check of a fracas log's chain and dice, with the Python standard library only.

    python tools/verify_dice.py LOG [--parent PARENT] [--commitment HEX]

It imports nothing from fracas: it is docs/log-format.md and docs/dice.md
written out a second time, so a player who does not trust fracas can read
these lines and run them. It reads JSON Lines and binary (msgpack) logs and
checks

1. the hash chain: ``h_i = SHA-256(h_{i-1} || line i without its ,"h":"..." key)``
   (binary logs: over each entry's canonical JSON line);
2. the commitment: the seed revealed by the last line opens the commitment
   of the first (format 2: bound to the salt, the scenario, the rules, the
   dice method and source; format 1: SHA-256 of the seed), and equals HEX
   when ``--commitment`` is given;
3. one dice source: every roll carries the header's ``dice.source`` (a
   fork's inherited rolls: the parent's);
4. every die: die ``k`` re-derives, from the key and ``k``, to the face the
   log records (derived dice); entered dice are counted only;
5. a fork's inherited dice: the parent (``--parent``, else the file of the
   header's ``parent_log`` name beside the log) must have the header's
   SHA-256, pass these same checks, and hold the same faces; otherwise the
   inherited dice cannot be proven and the check fails.

Exit status: 0 all good, 1 a mismatch (printed with its line), 2 unreadable.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import struct
import sys
from pathlib import Path
from typing import Any

H_KEY = b',"h":"'
SOURCES = ("derived", "entered", "scripted")


class Bad(Exception):
    """A check failed: the message names the line."""


# ---------------------------------------------------------------- reading


def read_msgpack(data: bytes, pos: int) -> tuple[Any, int]:
    """One msgpack object at ``pos`` (the types fracas writes): (value, end)."""
    b = data[pos]
    pos += 1
    if b <= 0x7F:
        return b, pos
    if b >= 0xE0:
        return b - 0x100, pos
    if 0xA0 <= b <= 0xBF or b in (0xD9, 0xDA, 0xDB):
        if b <= 0xBF:
            n = b & 0x1F
        else:
            width = {0xD9: 1, 0xDA: 2, 0xDB: 4}[b]
            n, pos = int.from_bytes(data[pos : pos + width], "big"), pos + width
        if pos + n > len(data):
            raise IndexError("truncated string")
        return data[pos : pos + n].decode("utf-8"), pos + n
    if 0x90 <= b <= 0x9F or b in (0xDC, 0xDD):
        if b <= 0x9F:
            n = b & 0x0F
        else:
            width = 2 if b == 0xDC else 4
            n, pos = int.from_bytes(data[pos : pos + width], "big"), pos + width
        items = []
        for _ in range(n):
            item, pos = read_msgpack(data, pos)
            items.append(item)
        return items, pos
    if 0x80 <= b <= 0x8F or b in (0xDE, 0xDF):
        if b <= 0x8F:
            n = b & 0x0F
        else:
            width = 2 if b == 0xDE else 4
            n, pos = int.from_bytes(data[pos : pos + width], "big"), pos + width
        obj = {}
        for _ in range(n):
            key, pos = read_msgpack(data, pos)
            obj[key], pos = read_msgpack(data, pos)
        return obj, pos
    fixed = {0xC0: None, 0xC2: False, 0xC3: True}
    if b in fixed:
        return fixed[b], pos
    ints = {0xCC: (1, False), 0xCD: (2, False), 0xCE: (4, False), 0xCF: (8, False)}
    ints.update({0xD0: (1, True), 0xD1: (2, True), 0xD2: (4, True), 0xD3: (8, True)})
    if b in ints:
        width, signed = ints[b]
        if pos + width > len(data):
            raise IndexError("truncated integer")
        return int.from_bytes(data[pos : pos + width], "big", signed=signed), pos + width
    if b == 0xCB:
        return struct.unpack(">d", data[pos : pos + 8])[0], pos + 8
    if b == 0xCA:
        return struct.unpack(">f", data[pos : pos + 4])[0], pos + 4
    raise ValueError(f"msgpack type 0x{b:02x} is not one fracas writes")


def canonical_json(value: Any) -> bytes:
    """docs/log-format.md, "Canonical encoding": keys in the order given, no whitespace, UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def read_log(path: Path) -> tuple[list[bytes], list[dict[str, Any]]]:
    """(each entry's JSON line, each entry) of a JSON Lines or binary log."""
    data = path.read_bytes()
    if not data:
        raise ValueError("empty file")
    if data[:1] == b"{":
        lines = data.split(b"\n")
        if lines[-1] == b"":
            lines.pop()
        return lines, [json.loads(line) for line in lines]
    entries: list[dict[str, Any]] = []
    pos = 0
    while pos < len(data):
        entry, pos = read_msgpack(data, pos)
        if not isinstance(entry, dict):
            raise ValueError(f"frame {len(entries) + 1} is not a map")
        entries.append(entry)
    return [canonical_json(entry) for entry in entries], entries  # maps keep the keys in the log's order


# ------------------------------------------------------------------- dice


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


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def commitment(head: dict[str, Any], seed: str) -> str:
    """docs/dice.md, "The commitment"."""
    dice = head["dice"]
    if head["format"] == 1:
        return sha256_hex(seed.encode("utf-8"))
    parts = [
        "fracas-commit-v2",
        dice["salt"],
        seed,
        head["scenario_sha256"],
        head["scenario_name"],
        sha256_hex(json.dumps(head["rules"], sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()),
        dice["method"],
        dice["source"],
    ]
    data = b"".join(len(p.encode("utf-8")).to_bytes(4, "big") + p.encode("utf-8") for p in parts)
    return sha256_hex(data)


# ------------------------------------------------------------------ check


def check(path: Path, parent_path: Path | None = None, expected_commitment: str | None = None) -> dict[str, int]:
    """Run every check; return the dice counts, or raise Bad naming the line."""
    lines, entries = read_log(path)
    if not entries or entries[0].get("ev", {}).get("type") != "EncounterStarted":
        raise ValueError("line 1: not a fracas log header")
    prev = bytes(32)
    for n, (line, entry) in enumerate(zip(lines, entries, strict=True), start=1):
        cut = line.rfind(H_KEY)
        digest = hashlib.sha256(prev + line[:cut] + b"}").digest()
        if cut < 0 or digest.hex() != entry.get("h"):
            raise Bad(f"line {n}: hash chain broken (expected {digest.hex()}, found {entry.get('h')})")
        prev = digest
    head = entries[0]["ev"]
    dice = head["dice"]
    if dice["method"] != "hmac-sha256-v1":
        raise Bad(f"line 1: unknown dice method {dice['method']!r}")
    if dice["source"] not in SOURCES:
        raise Bad(f"line 1: unknown dice source {dice['source']!r}")
    if expected_commitment is not None and expected_commitment.lower() != dice["commitment"]:
        raise Bad(f"line 1: the header commits to {dice['commitment']}, not to the commitment given")
    last = entries[-1]["ev"]
    if last["type"] != "EncounterEnded":
        raise Bad(f"line {len(entries)}: no EncounterEnded: the seed is not revealed, the dice cannot be checked")
    seed = last["seed"]
    found = commitment(head, seed)
    if found != dice["commitment"]:
        n = len(entries)
        raise Bad(f"line {n}: the revealed seed gives the commitment {found}, line 1 has {dice['commitment']}")
    key = derive_key(seed, dice.get("player_seeds", []))
    parent = head.get("parent")
    fork_die = 0
    parent_faces: list[int] = []
    parent_source = dice["source"]
    if parent:
        fork_die = parent.get("fork_die", -1)
        if fork_die < 0:  # logs written before fork_die: the dice of the events up to fork_seq
            rolled = [e["ev"] for e in entries if e["ev"]["type"] == "DiceRolled" and e["seq"] <= parent["fork_seq"]]
            fork_die = sum(len(ev["faces"]) for ev in rolled)
        parent_file = parent_path or path.parent / Path(parent["parent_log"].replace("\\", "/")).name
        if fork_die:
            if not parent_file.is_file():
                raise Bad(f"line 1: cannot prove {fork_die} inherited dice: the parent log {parent_file} is not found")
            if sha256_hex(parent_file.read_bytes()) != parent["parent_sha256"]:
                raise Bad(f"line 1: cannot prove {fork_die} inherited dice: {parent_file} is not the parent (SHA-256)")
            try:
                check(parent_file)
            except Bad as exc:
                raise Bad(f"line 1: cannot prove {fork_die} inherited dice: the parent log fails: {exc}") from None
            _, pentries = read_log(parent_file)
            parent_source = pentries[0]["ev"]["dice"]["source"]
            parent_faces = [f for e in pentries if e["ev"]["type"] == "DiceRolled" for f in e["ev"]["faces"]]
    counts = {"re-derived": 0, "entered": 0, "scripted": 0, "inherited": 0}
    counter = 0
    for n, entry in enumerate(entries, start=1):
        ev = entry["ev"]
        if ev["type"] != "DiceRolled":
            continue
        faces = ev["faces"]
        if ev["first"] != counter:
            raise Bad(f"line {n}: the roll starts at die {ev['first']}, the stream is at die {counter}")
        declared = dice["source"] if counter + len(faces) > fork_die else parent_source
        if ev["source"] != declared:
            raise Bad(f"line {n}: a roll labelled {ev['source']!r}, the header declares {declared!r} dice")
        for i, face in enumerate(faces):
            k = counter + i
            if not 1 <= face <= ev["sides"]:
                raise Bad(f"line {n}: die {k}: face {face} is not a face of a d{ev['sides']}")
            if k < fork_die:
                if k >= len(parent_faces) or parent_faces[k] != face:
                    raise Bad(f"line {n}: die {k} is inherited, the parent log has another face")
                counts["inherited"] += 1
            elif ev["source"] == "derived":
                want = derive_face(key, k, ev["sides"])
                if want != face:
                    raise Bad(f"line {n}: die {k} derives to {want}, the log records {face}")
                counts["re-derived"] += 1
            else:
                counts[ev["source"]] += 1
        counter += len(faces)
    counts["entries"] = len(entries)
    return counts


def main(argv: list[str]) -> int:
    args = list(argv)
    options: dict[str, str] = {}
    for flag in ("--parent", "--commitment"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                print(f"usage: {flag} needs a value")
                return 2
            options[flag] = args.pop(i + 1)
            args.pop(i)
    if len(args) != 1:
        print("usage: python tools/verify_dice.py LOG [--parent PARENT] [--commitment HEX]")
        return 2
    path = Path(args[0])
    parent = Path(options["--parent"]) if "--parent" in options else None
    try:
        counts = check(path, parent, options.get("--commitment"))
    except Bad as exc:
        print(f"{path}: {exc}")
        return 1
    except (OSError, ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        print(f"{path}: unreadable: {exc}")
        return 2
    print(
        f"{path}: ok: chain of {counts['entries']} lines intact, seed opens its commitment, "
        f"{counts['re-derived']} derived dice re-derived, {counts['entered']} entered dice, "
        f"{counts['scripted']} scripted dice, {counts['inherited']} inherited from the parent log"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
