"""``fracas play`` with a Z-Corps human: actions and active defences through a script of answers; the log verifies."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

import pytest
from fracas.core import events as E
from fracas.core.errors import ScenarioError
from fracas.core.log import read_log
from fracas.core.scenario import load_scenario
from fracas.services.narrate import Narrator
from fracas.services.play import play_scenario
from fracas.services.verify import verify_log
from fracas.systems.zcorps.human import pool_odds
from fracas.systems.zcorps.odds import DCode, success_probability

ROOT = Path(__file__).resolve().parents[2]
FIREFIGHT = ROOT / "scenarios" / "zcorps" / "firefight.toml"


@pytest.fixture
def human_vance(tmp_path: Path) -> Path:
    """The firefight with Sgt Vance (the first cautious actor) played by a human."""
    path = tmp_path / "human_vance.toml"
    text = FIREFIGHT.read_text().replace('policy = "cautious"', 'policy = "human"', 1)
    # rules edition 3: the fight these menus were checked on (edition 4's CP on initiative shortens it)
    path.write_text(text.replace("[rules]\n", "[rules]\nedition = 3\n", 1))
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


def defend_every_other_time() -> Callable[[list[str]], int]:
    """The first offered action; for an active defence: yes, then no, then yes..."""
    defences = 0

    def pick(options: list[str]) -> int:
        nonlocal defences
        if options[0].startswith("active defence"):
            defences += 1
            return (defences + 1) % 2
        return 0

    return pick


def play(scenario: Path, log: Path, table: Table, dice: str, seed: str) -> None:
    stream = cast(Any, table)
    play_scenario(scenario, inp=stream, out=stream, dice=dice, seed=seed, log_path=log)


def test_a_zcorps_human_acts_and_defends_with_derived_dice_and_the_log_verifies(
    human_vance: Path, tmp_path: Path
) -> None:
    log = tmp_path / "zc.jsonl"
    table = Table(defend_every_other_time())
    play(human_vance, log, table, "derived", "10")
    out = table.out.getvalue()
    assert "Round 1: Sgt Vance decides.\nMap around Sgt Vance at " in out
    # at 23 m (short range), no defence: 5D+1 against 10, the floor of 3 out of reach; the line of fire
    # crosses the shopping trolleys beside Mags: quarter cover, one more difficulty die (ZC-COVER-1, a plain d6)
    p = sum(float(success_probability(DCode(5, 1), 10 + face)) for face in range(1, 7)) / 6
    assert f". shoot Mags with M4 carbine (single auto)  [{p:.1%} to succeed]\n" in out
    assert ". hold\n" in out
    entries = read_log(log).entries
    human = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human"]
    assert len(human) == len(table.questions)
    assert {d.actor for d in human} == {"vance"}
    texts = [d.text for d in human]
    shown = Narrator()
    for e in entries:
        shown.text(e.ev)  # the names, as the table saw them
    for options, declared in zip(table.questions, texts, strict=True):
        assert shown.declared(declared) in options
    report = verify_log(log)
    assert report.ok, report.problem


def test_a_zcorps_human_under_fire_is_asked_to_defend_and_the_log_verifies(tmp_path: Path) -> None:
    """Okafor, whom the looters shoot at from the first round (behind the trolleys' line of fire, Sgt Vance is
    rarely their target since walls and cover count along the line), played by a human who defends every other time."""
    text = FIREFIGHT.read_text()
    block = text.index('id = "okafor"')
    at = text.index('policy = "cautious"', block)
    path = tmp_path / "human_okafor.toml"
    path.write_text(text[:at] + 'policy = "human"' + text[at + len('policy = "cautious"') :])
    log = tmp_path / "zc.jsonl"
    table = Table(defend_every_other_time())
    # a seed where the looters shoot at Okafor twice or more (edition 6: they dodge, the fight goes otherwise)
    play(path, log, table, "derived", "20")
    entries = read_log(log).entries
    texts = [e.ev.text for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human"]
    assert len(texts) == len(table.questions)
    assert any(re.fullmatch(r"active defence \(dodge\) against \w+, spending an action", t) for t in texts)
    assert any(re.fullmatch(r"no active defence against \w+", t) for t in texts)
    report = verify_log(log)
    assert report.ok, report.problem


def test_a_zcorps_human_with_entered_dice_is_recorded_as_entered_and_verifies(
    human_vance: Path, tmp_path: Path
) -> None:
    log = tmp_path / "zce.jsonl"
    table = Table(defend_every_other_time())
    play(human_vance, log, table, "entered", "10")
    # the code's plain dice and its Joker in one prompt (3D: 2 plain dice and the Joker)
    assert (
        "Sgt Vance rolls 3d6 for initiative (Agilité): enter 3 faces from 1 to 6, typed as 346, 3 4 6 or 3,4,6: "
        in (table.out.getvalue())
    )
    entries = read_log(log).entries
    rolls = [e.ev for e in entries if isinstance(e.ev, E.DiceRolled)]
    assert rolls and all(r.source == "entered" for r in rolls)
    human = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human"]
    assert table.questions and len(human) == len(table.questions)
    report = verify_log(log)
    assert report.ok, report.problem
    assert report.dice == {"entered": sum(len(r.faces) for r in rolls), "re-derived": 0}


def test_a_changed_zcorps_human_decision_is_caught_by_the_rules(human_vance: Path, tmp_path: Path) -> None:
    import msgspec
    from fracas.core.log import GENESIS, encode_entry

    log = tmp_path / "zc.jsonl"
    play(human_vance, log, Table(lambda options: 0), "derived", "10")
    entries = read_log(log).entries
    i = next(k for k, e in enumerate(entries) if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human")
    lines, prev = [], GENESIS
    for k, e in enumerate(entries):
        ev = msgspec.structs.replace(e.ev, text="dance", action="dance") if k == i else e.ev
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, ev, prev)
        lines.append(line)
    log.write_bytes(b"\n".join(lines) + b"\n")
    report = verify_log(log)
    assert report.problem is not None and report.problem.step == "rules"
    assert report.problem.message.startswith(f"human decision: seq {i}: vance's logged decision 'dance' is not a legal")


def test_pool_odds_convolve_the_difficulty_dice_exactly() -> None:
    # 3D against 10 + 1D (poor light, ZC-COVER-1): the mean of P(3D >= 10 + k) over k = 1..6
    want = sum((success_probability(DCode(3), 10 + k) for k in range(1, 7)), Fraction(0)) / 6
    assert pool_odds(DCode(3), 10, 1, 0) == want
    # a -1D firing mode against the floor of 3: P(3D >= max(3, 4 - k))
    want = sum((success_probability(DCode(3), max(3, 4 - k)) for k in range(1, 7)), Fraction(0)) / 6
    assert pool_odds(DCode(3), 4, 0, 1) == want
    assert pool_odds(DCode(0, 2), 10, 0, 0) == 0


def test_the_zcorps_sheet_accepts_the_human_policy(human_vance: Path, tmp_path: Path) -> None:
    assert load_scenario(human_vance).spec.actors[0].policy == "human"
    bad = tmp_path / "bad.toml"
    bad.write_text(FIREFIGHT.read_text().replace('policy = "cautious"', 'policy = "berserk"', 1))
    with pytest.raises(ScenarioError) as err:
        load_scenario(bad)
    assert str(err.value).endswith(
        "$.actors[0].policy: unknown policy 'berserk' (expected one of aggressive, cautious, zombie, scripted, human)"
    )
