"""``fracas play --human ID --dice entered`` driven through a real pseudo-terminal, as a player would.

The player answers each menu and types every roll, rotating through the three
accepted forms (``346``, ``3 4 6``, ``3,4,6``); the log must verify as an
entered-dice log and the end line must say what was entered, never a seed.
The timeouts only stop a hung child; no outcome depends on timing.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import sys
from pathlib import Path

import pytest
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.verify import verify_log

ROOT = Path(__file__).resolve().parents[2]
DICE = re.compile(
    r"(?P<who>[^\n]*?) rolls (?P<n>\d+)d(?P<sides>\d+) (?P<why>[^\n]*?): enter \d+ faces? from 1 to \d+[^\n]*?: $"
)
CHOICE = re.compile(r"(?P<who>[^\n]*)'s choice \[1-(?P<n>\d+)\]: $")
FORMS = ("compact", "spaced", "commas")


class Player:
    """Reads the terminal, answers menus with a fixed pick and dice with a running sequence of faces."""

    def __init__(self, argv: list[str], pick: int) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: fracas on the terminal
            env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
            os.execve(sys.executable, [sys.executable, "-m", "fracas", *argv], env)
        self.pick = pick
        self.screen = ""
        self.face = 2
        self.forms_used: dict[str, int] = dict.fromkeys(FORMS, 0)
        self.dice_prompts: list[str] = []
        self.menus = 0

    def _faces(self, n: int, sides: int) -> list[str]:
        out = []
        for _ in range(n):
            self.face = self.face % sides + 1
            out.append(str(self.face))
        return out

    def _answer(self) -> str | None:
        tail = self.screen[-600:]
        m = DICE.search(tail)
        if m is not None:
            self.dice_prompts.append(m.group(0))
            n, sides = int(m.group("n")), int(m.group("sides"))
            faces = self._faces(n, sides)
            form = FORMS[len(self.dice_prompts) % 3] if sides <= 9 and n > 1 else "spaced"
            self.forms_used[form] += 1
            return {"compact": "".join(faces), "spaced": " ".join(faces), "commas": ",".join(faces)}[form]
        m = CHOICE.search(tail)
        if m is not None:
            self.menus += 1
            return str(min(self.pick, int(m.group("n"))))
        return None

    def run(self, limit_s: float = 120.0) -> int:
        waited = 0.0
        while True:
            ready, _, _ = select.select([self.fd], [], [], 1.0)
            if not ready:
                waited += 1.0
                if waited > limit_s:
                    os.kill(self.pid, signal.SIGKILL)
                    pytest.fail(f"fracas play hung; last screen:\n{self.screen[-2000:]}")
                continue
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            self.screen += data.decode("utf-8", "replace").replace("\r\n", "\n")
            answer = self._answer()
            if answer is not None:
                os.write(self.fd, (answer + "\n").encode())
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status)


def _check_entered_log(log: Path, player: Player) -> None:
    entries = read_log(log).entries
    head = entries[0].ev
    assert isinstance(head, E.EncounterStarted) and head.dice.source == "entered"
    rolls = [e.ev for e in entries if isinstance(e.ev, E.DiceRolled)]
    assert rolls and all(r.source == "entered" for r in rolls)
    report = verify_log(log)
    assert report.ok, report.problem
    faces = sum(len(r.faces) for r in rolls)
    assert report.dice == {"entered": faces, "re-derived": 0}
    # the end line says what was entered, not a "revealed seed"
    assert f"{faces} dice entered at the table" in player.screen
    assert "seed revealed" not in player.screen
    assert all(player.forms_used[f] for f in FORMS), player.forms_used


def test_point_zero_mira_played_at_the_table(tmp_path: Path) -> None:
    log = tmp_path / "mira.jsonl"
    scenario = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
    player = Player(["play", str(scenario), "--human", "mira", "--dice", "entered", "--log", str(log)], pick=2)
    assert player.run() == 0, player.screen[-2000:]
    assert player.menus >= 1
    screen = player.screen
    assert "Map around Mira at (28, 8)" in screen and "A The guard (Security guards, 8 m)" in screen
    assert "into cover (crates, half)" in screen
    # asked by character name, with the purpose
    assert any(p.startswith("Mira rolls 5d6 for the pistol attack on the guard") for p in player.dice_prompts)
    assert not any(re.match(r"[a-z]", p) for p in player.dice_prompts), "asked by id"
    assert "\x1b[" in screen  # a terminal gets colour
    declared = [e.ev for e in read_log(log).entries if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == "mira"]
    assert declared and all(d.policy == "human" for d in declared)
    _check_entered_log(log, player)


def test_zcorps_reyes_played_at_the_table(tmp_path: Path) -> None:
    log = tmp_path / "reyes.jsonl"
    scenario = ROOT / "scenarios" / "zcorps" / "duel.toml"
    player = Player(["play", str(scenario), "--human", "reyes", "--dice", "entered", "--log", str(log)], pick=1)
    assert player.run() == 0, player.screen[-2000:]
    assert player.menus >= 1
    assert "Map around Reyes at (9, 2)" in player.screen
    assert "Initiative: " in player.screen
    assert any(p.startswith("Reyes rolls ") for p in player.dice_prompts)
    _check_entered_log(log, player)


def test_no_human_is_refused_with_the_actors_to_pick(capsys: pytest.CaptureFixture[str]) -> None:
    from fracas.cli.main import main

    scenario = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
    assert main(["play", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert "no actor is played by a human: pick one with --human ID" in err and "mira (Mira)" in err
    assert main(["play", str(scenario), "--human", "nobody"]) == 2
    assert "--human nobody:" in capsys.readouterr().err


def test_zcorps_character_points_and_cojones_are_offered_roll_by_roll(tmp_path: Path) -> None:
    """ZC-CP-1 « Chaque fois qu'un joueur effectue un jet de dés, il a la possibilité de dépenser des Points de
    Personnage » (initiative, damage, resistance and stamina included) and ZC-COJ-1 « C'est le joueur qui décide
    de cet usage »: a human is asked at each roll, not by stakes chosen with the action."""
    scenario = tmp_path / "duel.toml"
    text = (ROOT / "scenarios" / "zcorps" / "duel.toml").read_text()
    # rules edition 4: the fight these entered dice play against the edition-4 AI (the offers are the same from 4 on)
    text = text.replace('armour = "1D"\ncp = 2', 'armour = "1D"\ncp = 12\ncojones = 1', 1) + "\n[rules]\nedition = 4\n"
    scenario.write_text(text)
    log = tmp_path / "reyes.jsonl"
    player = Player(["play", str(scenario), "--human", "reyes", "--dice", "entered", "--log", str(log)], pick=2)
    assert player.run() == 0, player.screen[-2000:]
    screen = player.screen
    # the first roll is the initiative: CP offered on it, after the roll, with what it stands at
    asked = (
        r"Reyes rolled \d+ for initiative \(Agilité\): \d actions?, \d+ short of one more\. Character Points \(2 left\)"
    )
    assert re.search(asked, screen), screen[:3000]
    assert "   2. spend 1 CP on initiative (Agilité)\n" in screen
    offers = re.findall(r"\n +\d+\. ([^\n]*)", screen)
    assert not [o for o in offers if "(high stakes)" in o or "(critical)" in o]  # no stakes offers any more
    entries = read_log(log).entries
    chosen = [e.ev for e in entries if isinstance(e.ev, E.ActionDeclared) and e.ev.action == "roll_choice"]
    assert chosen and all(c.actor == "reyes" and c.policy == "human" for c in chosen)
    assert chosen[0].text == "spend 1 CP on initiative (Agilité)" and chosen[0].rule == "ZC-CP-1"
    spent = [e.ev for e in entries if isinstance(e.ev, E.ResourceSpent) and e.ev.actor == "reyes"]
    cp_chosen = [c.text for c in chosen if c.rule == "ZC-CP-1"]
    assert [(s.resource, s.amount) for s in spent if s.resource == "cp"] == [("cp", 1)] * len(cp_chosen)
    # every kind of roll was offered: initiative, the attack test, damage and resistance
    for purpose in ("initiative (Agilité)", "Beretta 92 single at dutch", "Beretta 92 damage on dutch", "resistance"):
        assert any(t.startswith(f"spend 1 CP on {purpose}") for t in cp_chosen), (purpose, cp_chosen)
    # the CP die of the initiative was rolled for the initiative, before the initiative was set
    first_init = next(i for i, e in enumerate(entries) if isinstance(e.ev, E.InitiativeSet) and e.ev.actor == "reyes")
    assert any(
        isinstance(e.ev, E.DiceRolled) and e.ev.actor == "reyes" and e.ev.purpose.startswith("initiative (Agilité): CP")
        for e in entries[:first_init]
    )
    # Cojones: asked before the first roll it may double (here a resistance roll, ZC-RES-1), then no more
    cojones = [c for c in chosen if c.rule == "ZC-COJ-1"]
    assert cojones and cojones[0].text.startswith("double the pool with Cojones: ")
    assert [s.amount for s in spent if s.resource == "cojones"] == [1]
    assert any(isinstance(e.ev, E.DiceRolled) and "doubled by Cojones (" in e.ev.purpose for e in entries)
    # the doubled roll and its Joker read as one line
    assert re.search(r"Reyes rolls 8D\+2 for resistance doubled by Cojones: [^\n]*, Joker \d", screen)
    _check_entered_log(log, player)
