"""The forger's corpus (issue 12): every forgery re-seals the hash chain, and ``fracas verify`` must say no.

Each forgery starts from an honest log of a duel of every system (seed 1),
changes what a forger would change, then recomputes every ``h`` exactly as
docs/log-format.md says (``h_i = SHA-256(h_{i-1} || line without h)``, raw
bytes, 32 zero bytes before the first), with hashlib alone: the chain is
intact, so only the other checks can catch it. ``fracas verify`` must exit 1
and name the step and the line where the forgery is.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from conftest import ROOT
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.log import read_log, to_binary
from fracas.services.resim import encounter_from_header
from fracas.services.run import run_scenario

SYSTEMS = ("point_zero", "zcorps", "d100")
H_KEY = b',"h":"'

Lines = list[bytes]  # each line without its ,"h":"..." key (the bytes its hash covers)


# ------------------------------------------------------------------ helpers


def unseal(data: bytes) -> Lines:
    """The bytes each line's hash covers (docs/log-format.md: cut at the last ,"h":" and close the object)."""
    return [line[: line.rindex(H_KEY)] + b"}" for line in data.split(b"\n") if line]


def reseal(lines: Lines, newline: bytes = b"\n") -> bytes:
    """Recompute the chain as the docs say, as a forger would: every line gets its new ``h`` as the last key."""
    prev = bytes(32)
    out = []
    for body in lines:
        prev = hashlib.sha256(prev + body).digest()
        out.append(body[:-1] + H_KEY + prev.hex().encode() + b'"}' + newline)
    return b"".join(out)


def encode(obj: msgspec.Struct) -> bytes:
    """A struct's canonical JSON (the encoder the log uses)."""
    return msgspec.json.encode(obj, order="deterministic")


def entry_body(entry: E.Entry, ev: E.Event | None = None) -> bytes:
    """An entry's line without ``h``, with ``ev`` in place of its event."""
    out = {"seq": entry.seq, "round": entry.round, "count": entry.count, "sec": entry.sec}
    head = encode(msgspec.structs.replace(entry, h=""))
    body = head[: head.rindex(b',"ev":')]
    assert body == json.dumps(out, separators=(",", ":")).encode()[:-1]
    return body + b',"ev":' + encode(ev if ev is not None else entry.ev) + b"}"


def rolls(entries: list[E.Entry]) -> list[int]:
    return [i for i, e in enumerate(entries) if type(e.ev) is E.DiceRolled]


class Honest:
    def __init__(self, system: str, directory: Path) -> None:
        self.system = system
        self.scenario = ROOT / "scenarios" / system / "duel.toml"
        self.path = directory / f"{system}-duel-seed1.jsonl"
        result = run_scenario(self.scenario, seed="1", log_path=self.path)
        self.winner = result.winner
        self.data = self.path.read_bytes()
        self.entries = read_log(self.path).entries
        self.lines = unseal(self.data)
        head = self.entries[0].ev
        assert isinstance(head, E.EncounterStarted)
        self.head = head


@pytest.fixture(scope="module", params=SYSTEMS)
def honest(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Honest:
    return Honest(request.param, tmp_path_factory.mktemp(request.param))


# --------------------------------------------------------------- forgeries
# Each returns (the forged file's bytes, the line verify must name, the steps that may name it).

Forgery = tuple[bytes, int, tuple[str, ...]]


def relabel(h: Honest, *, change_face: bool) -> Forgery:
    """One derived roll labelled entered (its face kept, or changed): it must be re-derived, not counted."""
    lines = list(h.lines)
    i = rolls(h.entries)[0]
    ev = h.entries[i].ev
    assert isinstance(ev, E.DiceRolled)
    faces = list(ev.faces)
    if change_face:
        faces[0] = faces[0] % ev.sides + 1
    lines[i] = entry_body(h.entries[i], msgspec.structs.replace(ev, source="entered", faces=faces))
    return reseal(lines), i + 1, ("dice",)


class ChosenFaces:
    """The forger's dice: faces of another seed, labelled entered."""

    kind = "entered"

    def __init__(self, seed: str) -> None:
        from fracas.core.dice import DerivedDice

        self.inner = DerivedDice(seed)
        self.counter = 0

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        self.inner.counter = self.counter
        out = self.inner.draw(n, sides, actor=actor, purpose=purpose)
        self.counter = self.inner.counter
        return out


def whole_fight(h: Honest) -> Forgery:
    """The fight re-simulated on faces the forger chose, every roll labelled entered,
    under the honest header (commitment included) and the honest revealed seed: the winner flips."""
    end = h.entries[-1].ev
    assert isinstance(end, E.EncounterEnded)
    for alt in range(2, 200):
        lines: Lines = []
        events: list[E.Event] = []

        def keep(
            seq: int,
            rnd: int,
            count: int,
            sec: float,
            ev: E.Event,
            lines: Lines = lines,
            events: list[E.Event] = events,
        ) -> None:
            if seq == 0:
                ev = h.head  # the honest header, byte for byte
            events.append(ev)
            body = {"seq": seq, "round": rnd, "count": count, "sec": sec}
            lines.append(json.dumps(body, separators=(",", ":")).encode()[:-1] + b',"ev":' + encode(ev) + b"}")

        enc = encounter_from_header(h.head, seed=end.seed, dice=ChosenFaces(f"forger-{alt}"), listeners=[keep])
        result = enc.run()
        if result.winner != h.winner:
            assert result.winner is not None
            first_roll = next(i for i, ev in enumerate(events) if type(ev) is E.DiceRolled)
            assert all(ev.source == "entered" for ev in events if isinstance(ev, E.DiceRolled))
            assert lines[0] == h.lines[0]
            return reseal(lines), first_roll + 1, ("dice",)
    pytest.fail("no chosen faces flip the winner")


def unknown_field(h: Honest) -> Forgery:
    """A field no check reads, added to an event (msgspec drops it when decoding)."""
    lines = list(h.lines)
    i = rolls(h.entries)[0]
    lines[i] = lines[i].replace(b'"type":"DiceRolled",', b'"type":"DiceRolled","witness":"the forger",', 1)
    assert b"witness" in lines[i]
    return reseal(lines), i + 1, ("structure",)


def unknown_envelope_field(h: Honest) -> Forgery:
    lines = list(h.lines)
    i = 3
    lines[i] = lines[i].replace(b',"ev":', b',"note":1,"ev":', 1)
    return reseal(lines), i + 1, ("structure",)


def fake_parent(h: Honest) -> Forgery:
    """A fork header pointing at no parent (missing file, zero hash), and an inherited face changed."""
    entries = h.entries
    i = rolls(entries)[0]
    ev = entries[i].ev
    assert isinstance(ev, E.DiceRolled)
    fork_seq = rolls(entries)[-1]
    fork_die = sum(len(entries[k].ev.faces) for k in rolls(entries))  # type: ignore[union-attr]
    origin = E.ForkOrigin(parent_log="missing.jsonl", parent_sha256="0" * 64, fork_seq=fork_seq, fork_die=fork_die)
    lines = list(h.lines)
    lines[0] = entry_body(entries[0], msgspec.structs.replace(h.head, parent=origin))
    faces = list(ev.faces)
    faces[0] = faces[0] % ev.sides + 1
    lines[i] = entry_body(entries[i], msgspec.structs.replace(ev, faces=faces))
    return reseal(lines), 1, ("dice", "header")


def header_edit(h: Honest, **fields: object) -> Forgery:
    lines = list(h.lines)
    lines[0] = entry_body(h.entries[0], msgspec.structs.replace(h.head, **fields))  # type: ignore[arg-type]
    return reseal(lines), 1, ("header",)


def edit_rules(h: Honest) -> Forgery:
    rules = dict(h.head.rules)
    key = next(k for k, v in sorted(rules.items()) if type(v) is int)
    rules[key] += 1
    return header_edit(h, rules=rules)


def edit_skill(h: Honest) -> Forgery:
    """One point more in the first actor's first skill (Z-Corps codes: one pip more)."""
    scenario = json.loads(json.dumps(h.head.scenario))
    skills = scenario["actors"][0]["skills"]
    skill = sorted(skills)[0]
    value = skills[skill]
    skills[skill] = value + 1 if isinstance(value, int) else value.split("+")[0] + "+2"
    assert skills[skill] != value
    return header_edit(h, scenario=scenario)


FORGERIES: dict[str, Callable[[Honest], Forgery]] = {
    "one roll relabelled entered, face kept": lambda h: relabel(h, change_face=False),
    "one roll relabelled entered, face changed": lambda h: relabel(h, change_face=True),
    "whole fight on chosen faces labelled entered": whole_fight,
    "unknown field in an event": unknown_field,
    "unknown field in an envelope": unknown_envelope_field,
    "fake fork parent, inherited face changed": fake_parent,
    "header: a rules value": edit_rules,
    "header: an actor's skill": edit_skill,
    "header: scenario_sha256 zeroed": lambda h: header_edit(h, scenario_sha256="0" * 64),
    "header: fracas_version": lambda h: header_edit(h, fracas_version="9.9.9"),
    "header: the scenario's name": lambda h: header_edit(h, scenario_name="Another fight"),
    "header: dice.source": lambda h: (
        header_edit(h, dice=msgspec.structs.replace(h.head.dice, source="entered"))[0],
        rolls(h.entries)[0] + 1,
        ("dice",),
    ),
    "header: an unknown dice source": lambda h: (
        header_edit(h, dice=msgspec.structs.replace(h.head.dice, source="x"))[0],
        1,
        ("structure",),
    ),
    "header: the clock": lambda h: header_edit(h, ticks_per_second=1000),
    "CRLF line endings": lambda h: (reseal(h.lines, b"\r\n"), 1, ("structure",)),
    "a space after a colon": lambda h: (
        reseal([h.lines[0], h.lines[1].replace(b'"seq":', b'"seq": ', 1), *h.lines[2:]]),
        2,
        ("structure",),
    ),
    "an escaped letter": lambda h: (
        reseal([h.lines[0], h.lines[1].replace(b'"type"', b'"\\u0074ype"', 1), *h.lines[2:]]),
        2,
        ("structure",),
    ),
    "keys out of order": lambda h: (
        reseal(
            [h.lines[0], re.sub(rb'^\{"seq":(\d+),"round":(\d+),', rb'{"round":\2,"seq":\1,', h.lines[1]), *h.lines[2:]]
        ),
        2,
        ("structure",),
    ),
}

TRIED: dict[str, list[str]] = {}


def verify_cli(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["verify", str(path), *extra])
    return code, capsys.readouterr().out


def test_the_honest_log_verifies(honest: Honest, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify_cli(honest.path, capsys)
    assert code == 0, out
    assert "dice proven" in out


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_resealed_forgery_exits_1_naming_its_step_and_line(
    name: str, honest: Honest, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, line, steps = FORGERIES[name](honest)
    assert data != honest.data
    path = tmp_path / honest.path.name
    path.write_bytes(data)
    code, out = verify_cli(path, capsys)
    problem = [x for x in out.splitlines() if x.startswith("PROBLEM")]
    assert code == 1, f"{name}: verify said\n{out}"
    assert problem and any(problem[0].startswith(f"PROBLEM ({s}): line {line},") for s in steps), out


def test_the_whole_fight_forgery_flips_the_winner(honest: Honest) -> None:
    data, _, _ = whole_fight(honest)
    last = json.loads(data.splitlines()[-1])
    assert last["ev"]["winner"] != honest.winner
    assert last["ev"]["seed"] == "1"


def test_a_fake_parent_is_refused_by_the_stdlib_checker_too(honest: Honest, tmp_path: Path) -> None:
    data, _, _ = fake_parent(honest)
    path = tmp_path / "fork.jsonl"
    path.write_bytes(data)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "verify_dice.py"), str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 1, proc.stdout
    assert "inherited" in proc.stdout


def key_name_offsets(frame: bytes) -> list[int]:
    """Offsets of the bytes of every map key (a fixstr right after a map header or a value) in a msgpack frame."""
    out = []
    for m in re.finditer(rb"[\xa1-\xbf]([a-z_]+)", frame):
        name = m.group(1)
        if len(name) == m.group(0)[0] - 0xA0:
            out.extend(range(m.start(1), m.end(1)))
    return out


def flips_caught(data: bytes, path: Path, positions: list[int], rng: random.Random) -> int:
    """How many single-bit flips, one at each position, `fracas verify` rejects as a problem (exit 1).

    Exit 2 would mean "not a log at all": a flip must be named as tampering, not as unreadable input.
    """
    caught = 0
    for pos in positions:
        path.write_bytes(data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1 :])
        caught += main(["verify", str(path)]) == 1
    return caught


def test_any_bit_flipped_in_a_key_name_of_a_binary_log_is_caught(honest: Honest, tmp_path: Path) -> None:
    data = to_binary(honest.entries)
    path = tmp_path / "log.msgpack"
    path.write_bytes(data)
    assert main(["verify", str(path)]) == 0
    rng = random.Random(12)
    picks = rng.sample(key_name_offsets(data), 60)
    assert flips_caught(data, path, picks, rng) == len(picks)


@pytest.mark.parametrize(("binary", "seed"), [(True, 7), (False, 9)], ids=["binary", "jsonl"])
def test_any_bit_flipped_anywhere_in_a_log_is_caught(honest: Honest, tmp_path: Path, binary: bool, seed: int) -> None:
    data = to_binary(honest.entries) if binary else honest.data
    path = tmp_path / ("log.msgpack" if binary else "log.jsonl")
    rng = random.Random(seed)
    picks = [rng.randrange(len(data)) for _ in range(60)]
    assert flips_caught(data, path, picks, rng) == len(picks)


def test_a_torn_line_after_a_complete_log_fails_and_says_so(honest: Honest, tmp_path: Path) -> None:
    path = tmp_path / "appended.jsonl"
    path.write_bytes(honest.data + b'{"seq":')
    from fracas.services.verify import verify_log

    report = verify_log(path)
    assert report.exit_code == 1 and report.problem is not None
    assert (report.problem.step, report.problem.line) == ("structure", len(honest.lines) + 1)
    assert "after the EncounterEnded" in report.problem.message


def test_a_log_without_its_last_newline_fails(honest: Honest, tmp_path: Path) -> None:
    path = tmp_path / "no-newline.jsonl"
    path.write_bytes(honest.data[:-1])
    from fracas.services.verify import verify_log

    report = verify_log(path)
    assert report.exit_code == 1 and report.problem is not None
    assert (report.problem.step, report.problem.line) == ("structure", len(honest.lines))


def test_a_log_downgraded_to_format_1_says_what_it_lacks_and_fails_the_published_commitment(
    honest: Honest, tmp_path: Path
) -> None:
    """Rewritten as format 1 (SHA-256(seed) commitment, no salt or secret), re-sealed: verify says what format 1
    cannot prove, never "played from the commitment", and the commitment published before play refuses it."""
    from fracas.services.verify import FORMAT_1_LACKS, verify_log

    head = json.loads(honest.lines[0])
    dice = head["ev"]["dice"]
    del dice["salt"], dice["secret"]
    dice["commitment"] = hashlib.sha256(b"1").hexdigest()
    head["ev"]["format"] = 1
    head["ev"]["rules"].pop("edition", None)
    lines = [json.dumps(head, separators=(",", ":"), ensure_ascii=False).encode(), *honest.lines[1:]]
    path = tmp_path / "downgraded.jsonl"
    path.write_bytes(reseal(lines))
    report = verify_log(path)
    if report.ok:
        assert report.notes == list(FORMAT_1_LACKS)
    published = honest.head.dice.commitment
    refused = verify_log(path, commitment=published)
    assert refused.exit_code == 1 and refused.problem is not None and refused.problem.line == 1


def test_format_1_logs_verify_and_say_what_their_format_lacks() -> None:
    from conftest import DATA
    from fracas.services.verify import FORMAT_1_LACKS, verify_log

    for log in sorted((DATA / "logs" / "v0.1.0").glob("*.jsonl")):
        report = verify_log(log)
        assert report.ok and report.notes == list(FORMAT_1_LACKS), log
