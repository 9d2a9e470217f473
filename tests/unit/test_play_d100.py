"""``fracas play`` with a d100 human: reloads, turns and reactions through a script of answers; the log verifies."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.play import play_scenario
from fracas.services.verify import verify_log

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "d100" / "duel.toml"


@pytest.fixture
def human_kestrel(tmp_path: Path) -> Path:
    """The duel with Kestrel (the raider: handgun 60, dodge 60) played by a human."""
    path = tmp_path / "human_kestrel.toml"
    path.write_text(DUEL.read_text().replace('policy = "raider"', 'policy = "human"'))
    return path


class Table:
    """Answers each prompt like a player: ``pick(options)`` for a decision, faces 1, 2, 3... for dice."""

    def __init__(self, pick: Callable[[list[str]], int]) -> None:
        self.out = io.StringIO()
        self.pick = pick
        self.questions: list[list[str]] = []
        self.face = 0

    def write(self, text: str) -> int:
        return self.out.write(text)

    def flush(self) -> None:
        return None

    def readline(self) -> str:
        text = self.out.getvalue()
        dice = re.search(r"enter (\d+) faces? from 1 to (\d+)[^:]*: $", text.rsplit("\n", 1)[-1])
        if dice:
            faces = []
            for _ in range(int(dice.group(1))):
                self.face = self.face % int(dice.group(2)) + 1
                faces.append(str(self.face))
            return " ".join(faces) + "\n"
        listing = text[text.rindex("Your choices:\n") :]
        options = re.findall(r"^ +\d+\. (.*?)(?:  \[[\d.]+% to succeed\])?$", listing, re.M)
        self.questions.append(options)
        return f"{self.pick(options) + 1}\n"


def a_player() -> Callable[[list[str]], int]:
    """Shoots (the first option); reloads at the first chance, then waits; dodges, then lets a shot come, ..."""
    seen = {"reload": 0, "react": 0}

    def pick(options: list[str]) -> int:
        if options[0].startswith("act at my initiative count"):  # rules edition 1: asked as the round starts
            seen["reload"] += 1
            return 1 if seen["reload"] == 1 else 0
        reloads = [i for i, o in enumerate(options) if o.startswith("reload the ")]
        if reloads:  # D100-TURN-1: on the turn
            seen["reload"] += 1
            if seen["reload"] == 1:
                return reloads[0]
        if options[0].startswith("react to "):
            seen["react"] += 1
            return 0 if seen["react"] % 2 else len(options) - 1
        return 0

    return pick


def play(scenario: Path, log: Path, table: Table, dice: str, seed: str) -> None:
    stream = cast(Any, table)
    play_scenario(scenario, inp=stream, out=stream, dice=dice, seed=seed, log_path=log)


def test_a_d100_human_reloads_shoots_and_reacts_with_derived_dice_and_the_log_verifies(
    human_kestrel: Path, tmp_path: Path
) -> None:
    log = tmp_path / "d100.jsonl"
    table = Table(a_player())
    play(human_kestrel, log, table, "derived", "1")
    out = table.out.getvalue()
    # handgun 60, no modifier: rolls 01..60 hit; dodge 60 likewise
    assert "   1. aim and shoot at Sgt Vance with the pistol (lethal mode)  [60.0% to succeed]\n" in out
    assert "   1. react to Sgt Vance's shot: dodge  [60.0% to succeed]\n   2. no reaction to Sgt Vance's shot\n" in out
    assert re.search(r"^ +\d+\. reload the pistol \(the rest of the round\)$", out, re.M)  # D100-TURN-1
    entries = read_log(log).entries
    human = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human"]
    assert len(human) == len(table.questions)
    for options, declared in zip(table.questions, human, strict=True):
        assert declared.actor == "kestrel" and declared.text in options
    actions = {d.action for d in human}
    assert {"reload", "shoot", "react", "no_reaction"} <= actions
    reloaded = [e.ev for e in entries if isinstance(e.ev, E.Reloaded) and e.ev.actor == "kestrel"]
    assert reloaded and reloaded[0].rounds == 8
    report = verify_log(log)
    assert report.ok, report.problem


def test_a_d100_human_with_entered_dice_is_recorded_as_entered_and_verifies(
    human_kestrel: Path, tmp_path: Path
) -> None:
    log = tmp_path / "d100e.jsonl"
    table = Table(a_player())
    play(human_kestrel, log, table, "entered", "1")
    assert (
        "Kestrel rolls 1d12 for initiative (1D12 + DEX 15 + bonus): enter 1 face from 1 to 12: " in table.out.getvalue()
    )
    entries = read_log(log).entries
    rolls = [e.ev for e in entries if isinstance(e.ev, E.DiceRolled)]
    assert rolls and all(r.source == "entered" for r in rolls)
    human = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human"]
    assert table.questions and len(human) == len(table.questions)
    report = verify_log(log)
    assert report.ok, report.problem
    assert report.dice == {"entered": sum(len(r.faces) for r in rolls), "re-derived": 0}


def test_a_d100_human_reaction_changed_in_the_log_is_caught_by_the_rules(human_kestrel: Path, tmp_path: Path) -> None:
    import msgspec
    from fracas.core.log import GENESIS, encode_entry

    log = tmp_path / "d100.jsonl"
    play(human_kestrel, log, Table(a_player()), "derived", "1")
    entries = read_log(log).entries
    i = next(k for k, e in enumerate(entries) if isinstance(e.ev, E.ActionDeclared) and e.ev.action == "react")
    lines, prev = [], GENESIS
    for k, e in enumerate(entries):
        ev = msgspec.structs.replace(e.ev, text="react to Sgt Vance's shot: duck") if k == i else e.ev
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, ev, prev)
        lines.append(line)
    log.write_bytes(b"\n".join(lines) + b"\n")
    report = verify_log(log)
    assert report.problem is not None and report.problem.step == "rules"
    assert report.problem.message.startswith(
        f"human decision: seq {i}: kestrel's logged decision \"react to Sgt Vance's shot: duck\" is not a legal action"
    )
