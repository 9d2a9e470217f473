"""What ``fracas run`` prints for a fight of many actors: readable, and nothing hidden that a flag cannot show.

A thousand zombies wrote over a hundred thousand lines of play-by-play, then three lines of sheet
each. A large fight is narrated an attack a line (``--summary``) unless ``--play-by-play`` asks for
every action, and the sheets of a big side show the actors the fight touched and count the rest
unless ``--all-sheets`` asks for every sheet.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from conftest import ROOT
from fracas.cli.main import SIDE_SHEETS, main
from fracas.cli.narration import narrates_a_summary
from fracas.core.state import ActorState

FORTY_DEAD = ROOT / "tests" / "data" / "zc_horde.toml"  # 4 survivors against 40 zombies


def untouched(actor: dict[str, object]) -> bool:
    """Independently of the CLI: nothing on the sheet but a place (no box, no condition, no damage)."""
    monitors = actor["monitors"]
    assert isinstance(monitors, dict)
    return (
        not actor["conditions"]
        and all(marked == 0 for m in monitors.values() for marked, _boxes in m.values())
        and actor["hp"] == actor["hp_max"]
        and actor["damage_taken"] == 0
    )


def final_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    assert main(["run", str(FORTY_DEAD), "--seed", "1", "--json", "--log", str(tmp_path / "j.jsonl")]) == 0
    actors: dict[str, dict[str, object]] = json.loads(capsys.readouterr().out)["state"]["actors"]
    return actors


def test_a_big_sides_untouched_actors_are_counted_and_the_others_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    actors = final_state(tmp_path, capsys)
    dead = [a for a in actors.values() if a["side"] == "dead"]
    assert len(dead) > SIDE_SHEETS
    folded = [a for a in dead if untouched(a)]
    assert folded and len(folded) < len(dead)  # the fight touched some of the dead, not all

    assert main(["run", str(FORTY_DEAD), "--seed", "1", "--quiet", "--log", str(tmp_path / "q.jsonl")]) == 0
    out = capsys.readouterr().out
    shown = set(re.findall(r"^\S.* \[(\S+), side \S+\]", out, flags=re.MULTILINE))
    assert shown == {aid for aid, a in actors.items() if a["side"] != "dead" or not untouched(a)}
    assert f"... and {len(folded)} more of side dead with nothing on their sheets" in out

    assert (
        main(["run", str(FORTY_DEAD), "--seed", "1", "--quiet", "--all-sheets", "--log", str(tmp_path / "a.jsonl")])
        == 0
    )
    out = capsys.readouterr().out
    assert set(re.findall(r"^\S.* \[(\S+), side \S+\]", out, flags=re.MULTILINE)) == set(actors)
    assert "more of side" not in out


def test_a_small_side_shows_every_sheet_even_an_untouched_one() -> None:
    from fracas.cli.main import folded_sides

    few = {f"s{i}": ActorState(id=f"s{i}", name=f"S{i}", side="survivors", x=i, y=0) for i in range(SIDE_SHEETS)}
    assert folded_sides(list(few.values())) == set()
    many = [*few.values(), ActorState(id="one_more", name="One more", side="survivors", x=0, y=1)]
    assert folded_sides(many) == {"survivors"}


@pytest.mark.parametrize(
    ("flags", "actors", "summary"),
    [
        ({}, 44, False),  # the forty dead: every action
        ({}, 1005, True),  # the thousand: an attack a line
        ({"play_by_play": True}, 1005, False),
        ({"only": "wounds"}, 1005, False),  # a filter asked for is kept
        ({"summary": True}, 44, True),
    ],
)
def test_a_large_fight_is_summarised_unless_a_narration_was_asked_for(
    flags: dict[str, object], actors: int, summary: bool
) -> None:
    args = argparse.Namespace(**{"summary": False, "only": None, "play_by_play": False, **flags})
    assert narrates_a_summary(args, actors) is summary


def test_the_horde_prints_an_attack_a_line_and_says_how_to_see_every_action(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "horde", "--seed", "1", "--no-color", "--log", str(tmp_path / "h.jsonl")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) < 600, len(lines)  # it printed 106,000 lines of play-by-play and 3,000 of sheets
    assert any("1005 actors: one line per attack" in line and "--play-by-play" in line for line in lines[:3])
    assert not any(" moves " in line for line in lines)  # no play-by-play of the moves
    assert lines[-1].startswith("No winner (round limit 12 reached: a draw), after 12 rounds")
    attacks = [line for line in lines if " attacks " in line]

    # the replay's narration of the same log: the same attack lines, each led by its seq
    assert main(["replay", str(tmp_path / "h.jsonl"), "--narrate", "--no-color"]) == 0
    replayed = capsys.readouterr().out.splitlines()
    assert len(replayed) < 600, len(replayed)
    assert replayed[0].startswith("1005 actors: one line per attack (--summary); --play-by-play")
    assert [line.split(None, 1)[1] for line in replayed if " attacks " in line] == attacks


@pytest.mark.parametrize(
    "data",
    [b"", b'{"seq":0,"round":0,"cou', b"garbage\n{}\n"],
    ids=["empty", "a torn header", "not a log"],
)
def test_replay_narrate_of_a_damaged_log_is_one_line_exit_2(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header read for the actor count meets the damage first: it must say so as every reader does."""
    log = tmp_path / "damaged.jsonl"
    log.write_bytes(data)
    assert main(["replay", str(log), "--narrate"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(log) in err[0] and "Traceback" not in err[0], err
