"""``fracas play`` of a fight of a thousand actors: the person at the table reads a prompt, not a phone book.

Each decision showed every actor's initiative on one line and every declaration of the round so far,
hundreds of zombie moves, before the choices; the narration between decisions was the play-by-play
of every zombie's every metre. A large fight at the table is narrated an attack a line, as ``run``
does, and a prompt names the actors of a crowd (a side of more than :data:`CROWD` actors) that its map
shows, counting the others.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.decide import ROLL_CHOICE
from fracas.core.log import read_log
from fracas.services.play import CROWD, MAP_RADIUS

FORTY_DEAD = Path(__file__).resolve().parents[1] / "data" / "zc_horde.toml"  # 4 survivors against 40 zombies
ANSWERS = "1\n" * 8  # Yumi: no CP on initiative, her first actions and their rolls; then the input ends


def play_the_horde(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr("sys.stdin", io.StringIO(ANSWERS))
    log = tmp_path / "h.jsonl"
    assert main(["play", "horde", "--human", "yumi", "--seed", "1", "--log", str(log), "--no-color"]) == 2
    captured = capsys.readouterr()
    assert "input ended while waiting for Yumi's action" in captured.err
    return captured.out


def test_the_horde_at_the_table_is_an_attack_a_line_and_a_prompt_of_what_the_map_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short, and nothing lost: the counts on the prompt equal an independent count from the log."""
    out = play_the_horde(tmp_path, capsys, monkeypatch)
    lines = out.splitlines()
    assert lines[0].startswith("1005 actors: one line per attack (--summary); --play-by-play")
    assert not any(" enters at " in line or " moves " in line for line in lines)  # no play-by-play
    assert len(lines) < 400, len(lines)  # 74,000 lines for the same answers (6,002 choices a decision)
    prompts = [chunk.split("choice [")[0] for chunk in out.split("decides.\n")[1:]]
    assert len(prompts) >= 2
    for shown in prompts:
        assert len(shown.splitlines()) < 80, shown
        assert "type all to list every action" in shown

    # the first prompt against the log up to Yumi's first action
    prompt = prompts[0]
    entries = read_log(tmp_path / "h.jsonl").entries
    entered = {e.ev.actor: e.ev for e in entries if isinstance(e.ev, E.ActorEntered)}
    sides = {aid: ev.side for aid, ev in entered.items()}
    crowd = {side for side in set(sides.values()) if list(sides.values()).count(side) > CROWD}
    assert crowd == {"dead"}
    # the state when Yumi first decides: the log up to her first declaration
    first = next(
        i
        for i, e in enumerate(entries)
        if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == "yumi" and e.ev.action != ROLL_CHOICE
    )
    where = {aid: (ev.x, ev.y) for aid, ev in entered.items()}
    initiative: dict[str, int] = {}
    declared: list[str] = []
    for e in entries[:first]:
        if isinstance(e.ev, E.Moved):
            where[e.ev.actor] = (e.ev.x, e.ev.y)
        elif isinstance(e.ev, E.InitiativeSet):
            initiative[e.ev.actor] = e.ev.value
        elif isinstance(e.ev, E.ActionDeclared) and e.ev.action != ROLL_CHOICE:
            declared.append(e.ev.actor)
    yx, yy = where["yumi"]

    def mapped(aid: str) -> bool:
        x, y = where[aid]
        return sides[aid] not in crowd or max(abs(x - yx), abs(y - yy)) <= MAP_RADIUS

    hidden_inits = [aid for aid in initiative if not mapped(aid)]
    hidden_declared = [aid for aid in declared if not mapped(aid)]
    assert hidden_inits and hidden_declared
    line = next(line for line in prompt.splitlines() if line.startswith("Initiative: "))
    named, _, rest = line.removeprefix("Initiative: ").partition(" (and ")
    assert rest.startswith(f"{len(hidden_inits)} more off the map"), line
    assert len(named.split(", ")) == len(initiative) - len(hidden_inits)
    declarations = prompt.split("Declared so far this round:\n")[1].split("Your choices")[0]
    assert f"(and {len(hidden_declared)} more off the map: " in declarations
    shown = re.findall(r"^  [^(\s][^:]*: ", declarations, re.M)
    assert len(shown) == len(declared) - len(hidden_declared)


class Player:
    """Answers like a player who wants a zombie far off: ``all`` on the first folded list, then that zombie's aim."""

    def __init__(self) -> None:
        self.out = io.StringIO()
        self.wanted: str | None = None
        self.answers = 0

    def write(self, text: str) -> int:
        return self.out.write(text)

    def flush(self) -> None:
        return None

    def readline(self) -> str:
        self.answers += 1
        if self.answers > 6:
            return ""  # the input ends
        screen = self.out.getvalue()
        if self.wanted is None and screen.endswith(", all]: "):
            self.wanted = ""
            return "all\n"
        if self.wanted == "":
            listed = screen.rsplit("Your choices:\n", 1)[1]
            number, zombie = re.findall(r"^ +(\d+)\. aim at (z\d+)$", listed, re.M)[-1]
            self.wanted = zombie
            return number + "\n"
        return "1\n"


def test_all_lists_every_action_and_its_number_is_the_one_played(tmp_path: Path) -> None:
    """A crowd folded off the map is still every legal action away: ``all``, then a number of the full list."""
    from fracas.core.errors import FracasError
    from fracas.services.play import play_scenario

    player = Player()
    log = tmp_path / "forty.jsonl"
    with pytest.raises(FracasError, match="input ended"):
        play_scenario(FORTY_DEAD, inp=player, out=player, seed="1", log_path=log, humans=["yumi"])  # type: ignore[arg-type]
    screen = player.out.getvalue()
    folded = screen.split("decides.\n")[1].split("choice [")[0]
    assert player.wanted and f"aim at {player.wanted}\n" not in folded  # an action about a zombie off the map
    declared = [e.ev.text for e in read_log(log).entries if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == "yumi"]
    assert f"aim {player.wanted}" in declared  # the logged text (the prompt says "aim at")
