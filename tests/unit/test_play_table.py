"""``fracas play``: a human decides (and rolls) through a script of answers; the log verifies."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, cast

import pytest
from fracas.core import events as E
from fracas.core.errors import FracasError
from fracas.core.log import read_log
from fracas.services.play import Prompter, TerminalChooser, parse_faces, play_scenario
from fracas.services.verify import verify_log
from hypothesis import example, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


@pytest.fixture
def human_mira(tmp_path: Path) -> Path:
    path = tmp_path / "human.toml"
    path.write_text(MIRA.read_text().replace('policy = "cautious"', 'policy = "human"'))
    return path


class Table:
    """Answers each prompt like a player: a typo first, then a valid answer."""

    def __init__(self, action: int = 1) -> None:
        self.out = io.StringIO()
        self.action = action
        self.typos = 0
        self.asked_actions = 0
        self.asked_dice = 0
        self.face = 0

    # the output stream
    def write(self, text: str) -> int:
        return self.out.write(text)

    def flush(self) -> None:
        return None

    # the input stream
    def readline(self) -> str:
        prompt = self.out.getvalue().rsplit("\n", 1)[-1]
        dice = re.search(r"enter (\d+) faces? from 1 to (\d+)[^:]*: $", prompt)
        if self.typos < 2 and (dice is not None) == (self.typos == 1):  # one bad action number, one bad face list
            self.typos += 1
            return "7 7\n" if dice else "banana\n"
        if dice:
            self.asked_dice += 1
            n, sides = int(dice.group(1)), int(dice.group(2))
            faces = []
            for _ in range(n):
                self.face = self.face % sides + 1
                faces.append(str(self.face))
            return " ".join(faces) + "\n"
        self.asked_actions += 1
        return f"{self.action}\n"


def play(scenario: Path, log: Path, table: Table, dice: str) -> None:
    stream = cast(Any, table)
    play_scenario(scenario, inp=stream, out=stream, dice=dice, seed="3", log_path=log)


def test_a_human_decides_with_derived_dice_and_the_log_verifies(human_mira: Path, tmp_path: Path) -> None:
    log = tmp_path / "h.jsonl"
    table = Table(action=3)
    play(human_mira, log, table, "derived")
    out = table.out.getvalue()
    assert "Round 1: Mira decides.\nMap around Mira at (28, 8), 1 character = 1 m:" in out
    assert "  A The guard (Security guards, 8 m)\n" in out
    assert re.search(r"   \d\. attack the guard with the pistol  \[77\.5% to succeed\]", out)
    assert "into cover (crates, half), attack the guard with the pistol" in out
    assert "fists" not in out  # no hopeless offer: a punch from 8 m
    assert "  not a choice number: 'banana'; type a number from 1 to " in out
    entries = read_log(log).entries
    declared = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == "mira"]
    assert declared and all(d.policy == "human" for d in declared)
    assert len(declared) == table.asked_actions
    report = verify_log(log)
    assert report.ok, report.problem


def test_enter_alone_at_a_prompt_chooses_nothing_and_asks_again(human_mira: Path, tmp_path: Path) -> None:
    """A slip of the finger takes no action for the player: the prompt says so and asks again."""
    answers = io.StringIO("\n" + "1\n" * 200)
    out = io.StringIO()
    play_scenario(human_mira, inp=answers, out=out, seed="3", log_path=tmp_path / "enter.jsonl")
    shown = out.getvalue()
    first = shown.index("Mira's choice [1-")
    assert re.match(r"Mira's choice \[1-(\d+)\]:   nothing typed; type a number from 1 to \1\n", shown[first:])
    declared = [e.ev for e in read_log(tmp_path / "enter.jsonl").entries if isinstance(e.ev, E.ActionDeclared)]
    assert declared[[d.actor for d in declared].index("mira")].policy == "human"


def test_entered_dice_are_asked_again_on_a_typo_recorded_as_entered_and_verify(
    human_mira: Path, tmp_path: Path
) -> None:
    log = tmp_path / "e.jsonl"
    table = Table(action=1)
    play(human_mira, log, table, "entered")
    assert "  expected " in table.out.getvalue() and "; roll again or retype\n" in table.out.getvalue()
    entries = read_log(log).entries
    rolls = [e.ev for e in entries if isinstance(e.ev, E.DiceRolled)]
    assert rolls and all(r.source == "entered" for r in rolls)
    assert entries[0].ev.dice.source == "entered"  # type: ignore[union-attr]
    report = verify_log(log)
    assert report.ok, report.problem
    assert report.dice == {"entered": sum(len(r.faces) for r in rolls), "re-derived": 0}


def test_a_changed_human_decision_is_caught_by_the_rules(human_mira: Path, tmp_path: Path) -> None:
    import msgspec
    from fracas.core.log import GENESIS, encode_entry

    log = tmp_path / "h.jsonl"
    play(human_mira, log, Table(action=3), "derived")
    entries = read_log(log).entries
    i = next(k for k, e in enumerate(entries) if isinstance(e.ev, E.ActionDeclared) and e.ev.policy == "human")
    out, prev = [], GENESIS
    for k, e in enumerate(entries):
        ev = msgspec.structs.replace(e.ev, text="surrender", action="surrender") if k == i else e.ev
        line, prev = encode_entry(e.seq, e.round, e.count, e.sec, ev, prev)
        out.append(line)
    log.write_bytes(b"\n".join(out) + b"\n")
    report = verify_log(log)
    assert report.problem is not None and report.problem.step == "rules"
    assert report.problem.line is not None and report.problem.line <= i + 1


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("3 4 5", [3, 4, 5]),
        ("3,4, 5", [3, 4, 5]),
        ("3 4", "expected 3 faces, got 2"),
        ("3 4 x", "'x' is not a number"),
        ("3 4 7", "7 is not a face of a d6 (1 to 6)"),
        ("0 4 5", "0 is not a face of a d6 (1 to 6)"),
    ],
)
def test_parse_faces_checks_count_and_range(text: str, want: list[int] | str) -> None:
    assert parse_faces(text, 3, 6) == want


#: What a person may type: any text, with the characters that are digits to str.isdigit() but not to int() ("²",
#: "①") and the digits of other scripts ("٣", "３") that int() reads, which crashed the prompts with a traceback.
TYPED = st.text(alphabet=st.sampled_from("0123456789 ,²³①٣３x-+.\t") | st.characters(), max_size=12)


@given(text=TYPED, n=st.integers(1, 5), sides=st.sampled_from([6, 10, 100]))
@example(text="²", n=1, sides=6)
@example(text="²³", n=2, sides=6)
@example(text="٣ ３", n=2, sides=6)
@settings(max_examples=300, deadline=None)
def test_any_typed_faces_are_faces_or_a_reason(text: str, n: int, sides: int) -> None:
    parsed = parse_faces(text, n, sides)
    if isinstance(parsed, list):
        assert len(parsed) == n and all(1 <= face <= sides for face in parsed)
    else:
        assert parsed  # a reason the person reads before typing again


@given(typed=st.lists(TYPED, min_size=1, max_size=4), n=st.integers(1, 9))
@example(typed=["²"], n=3)
@example(typed=["", "①", "٣"], n=3)
@settings(max_examples=300, deadline=None)
def test_any_typed_answer_to_a_choice_is_a_choice_or_asked_again(typed: list[str], n: int) -> None:
    lines = [t.replace("\n", " ").replace("\r", " ") for t in typed]
    chooser = TerminalChooser(Prompter(io.StringIO("".join(f"{t}\n" for t in lines) + "1\n"), io.StringIO()))
    picked = chooser._answer("Mira", n)
    assert picked is not None and 0 <= picked < n


def test_input_ending_mid_fight_is_a_one_line_error(human_mira: Path, tmp_path: Path) -> None:
    with pytest.raises(FracasError) as err:
        play_scenario(human_mira, inp=io.StringIO(""), out=io.StringIO(), seed="3", log_path=tmp_path / "x.jsonl")
    assert str(err.value) == "input ended while waiting for Mira's action"


class FirstMenu(Table):
    """Answers nothing: stops the fight at the first question (end of input), keeping what was shown."""

    def readline(self) -> str:
        return ""


def test_the_map_view_draws_full_and_low_walls_with_a_legend(tmp_path: Path) -> None:
    from fracas.services.play import InputEnded

    table = FirstMenu()
    scenario = ROOT / "scenarios" / "point_zero" / "warehouse.toml"
    stream = cast(Any, table)
    with pytest.raises(InputEnded):
        play_scenario(scenario, inp=stream, out=stream, seed="11", log_path=tmp_path / "w.jsonl", humans=["brandt"])
    out = table.out.getvalue()
    head = "Map around Brandt at (31, 10), 1 character = 1 m:\n"
    assert head in out
    rows = [line[2:] for line in out.split(head, 1)[1].split("\n")[:17]]  # y 2..18, x 23..35
    # the workbench (low wall, x 28, y 8-12), the dock wall (full, x 32-35, y 14), the shelving's east end
    # (full, x 16-21, y 10) is out of view; the pallets (cover zone, x 24-26, y 15-16)
    assert [rows[y - 2][28 - 23] for y in range(8, 13)] == ["="] * 5
    assert rows[14 - 2][32 - 23 :] == "####"
    assert rows[15 - 2][24 - 23 : 27 - 23] == ":::" and rows[16 - 2][24 - 23 : 27 - 23] in (":::", ":x:", ":A:")
    assert rows[10 - 2][31 - 23] == "@"
    assert "  # dock wall (full wall: blocks sight and movement)\n" in out
    assert "  = workbench (low wall: half cover, blocks movement)\n" in out
    assert "  : pallets (cover, partial)\n" in out
    assert "shelving (" not in out  # not in view: not in the legend


def test_the_map_view_says_who_a_wall_hides_or_covers(tmp_path: Path) -> None:
    from fracas.services.play import InputEnded

    # Okafor (the crew's rifle) behind the workbench (low wall, x 28) from Brandt; Lune beyond the dock wall
    text = (ROOT / "scenarios" / "point_zero" / "warehouse.toml").read_text()
    moved = tmp_path / "warehouse.toml"
    moved.write_text(text.replace("position = [2, 6]", "position = [25, 10]").replace("[30, 16]", "[33, 17]"))
    table = FirstMenu()
    stream = cast(Any, table)
    with pytest.raises(InputEnded):
        play_scenario(moved, inp=stream, out=stream, seed="11", log_path=tmp_path / "w.jsonl", humans=["brandt"])
    out = table.out.getvalue()
    assert re.search(r"\n  [A-Z] Okafor \(Kessler's crew, 6 m, half cover behind the workbench\)\n", out)
    assert re.search(r"\n  [A-Z] Lune \(The syndicate, 7 m, out of sight behind the dock wall\)\n", out)
    # an offer aimed at Okafor from where Brandt stands names the wall too; one that first walks round it does not
    offers = [line for line in out.split("Your choices:\n", 1)[1].split("\n") if "Okafor" in line]
    here = [line for line in offers if " move " not in line]
    moved_round = [line for line in offers if " move " in line and "to (2" in line]
    assert here and all("(Okafor: half cover behind the workbench)" in line for line in here), offers
    assert moved_round and not any("behind the workbench" in line for line in moved_round), offers
