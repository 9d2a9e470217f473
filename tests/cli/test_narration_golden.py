"""The narration of every shipped scenario, word for word, against reviewed golden files.

The golden files (tests/golden/narration/SYSTEM/NAME.txt and NAME.summary.txt)
hold ``fracas replay EXPECTED_LOG --narrate`` and its ``--summary``. When a
fight or a sentence changes on purpose, ``python tools/regen_expected.py --write``
rewrites them with the expected logs; read the diff before committing it.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import all_scenarios
from fracas.cli.main import main
from fracas.cli.narration import narration_lines
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.logdiff import expected_log_path
from fracas.services.narrate import Narrator

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = all_scenarios()  # the heavy ones (fracas.scenarios.HEAVY) have no expected log
GOLDEN = ROOT / "tests" / "golden" / "narration"
REGEN = "run `python tools/regen_expected.py --write` and review the diff"


def _golden(scenario: Path, kind: str) -> str:
    suffix = ".txt" if kind == "narrate" else ".summary.txt"
    return (GOLDEN / scenario.parent.name / (scenario.stem + suffix)).read_text(encoding="utf-8")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_narration_is_the_reviewed_text(scenario: Path) -> None:
    text = "\n".join(narration_lines(expected_log_path(scenario))) + "\n"
    assert text == _golden(scenario, "narrate"), REGEN


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_summary_is_the_reviewed_text(scenario: Path) -> None:
    text = "\n".join(narration_lines(expected_log_path(scenario), summary=True)) + "\n"
    assert text == _golden(scenario, "summary"), REGEN


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_names_never_ids_and_one_language(scenario: Path) -> None:
    """No actor id that differs from its name appears in a sentence; no French verb or article."""
    entries = read_log(expected_log_path(scenario)).entries
    ids = {e.ev.actor: e.ev.name for e in entries if isinstance(e.ev, E.ActorEntered)}
    text = _golden(scenario, "narrate").split("\n", 1)[1] + _golden(scenario, "summary").split("\n", 1)[1]
    for actor, name in ids.items():
        if actor.lower() != name.lower() and not re.search(rf"\b{re.escape(actor)}\b", name):
            assert not re.search(rf"(?<![\w'/-]){re.escape(actor)}(?![\w'-])", text), f"id {actor!r} in the text"
    for bad in (" vs ", " de la ", " du ", "(s)", " a Incapacitated", " a Étourdi", "@300", "@500", "<exploded>"):
        assert bad not in text, f"{bad!r} in the narration of {scenario.name}"


def test_a_zcorps_roll_and_its_joker_are_one_line() -> None:
    text = _golden(ROOT / "scenarios" / "zcorps" / "barricade.toml", "narrate")
    assert "Rosa rolls 5D+1 for the pump shotgun single at Zombie 5 (an old woman): 1 2 6 6, Joker 6! 3" in text
    assert not re.search(r": Joker\b.*\n.*: Joker", text.split("rolls 5D+1 for the pump shotgun")[1][:200])
    duel = _golden(ROOT / "scenarios" / "zcorps" / "duel.toml", "narrate")
    assert "firearms 4D+1, \u22121D for a second action against Reyes" in duel


def test_a_zcorps_defence_reads_as_what_the_defender_does() -> None:
    """ZC-DEF-1 adds the roll to the difficulty until the defender's next action; ZC-DEF-2's counts above 10:
    the narration says the defender defends, never that it "is active defence"."""
    text = _golden(ROOT / "scenarios" / "zcorps" / "firefight.toml", "narrate")
    assert "is active defence" not in text and "is no longer active defence" not in text
    assert re.search(r"Mags defends actively \(\+\d+ to the difficulty to hit\)", text), "no active defence told"
    assert "Mags stops defending actively" in text


def test_replay_narrate_viewer_and_run_say_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"
    log = tmp_path / "m.jsonl"
    assert main(["run", str(scenario), "--log", str(log), "--no-color"]) == 0
    ran = capsys.readouterr().out
    assert main(["replay", str(log), "--narrate"]) == 0
    replayed = [line[6:] for line in capsys.readouterr().out.splitlines() if line[:5].strip().isdigit()]
    assert replayed and all(line in ran for line in replayed)
    from fracas.services.render import build_data

    data = build_data(log, read_log(log).entries)
    viewer = [t for t in data["text"] if t]
    narrator = Narrator()
    assert viewer == [t for t in (narrator.text(e.ev, e.sec) for e in read_log(log).entries) if t]
    assert all(any(t.split("\n")[0] in line for line in replayed) for t in viewer)


def test_narration_does_not_touch_the_log(tmp_path: Path) -> None:
    """The expected logs are byte-identical to a fresh run: narration is read-only."""
    scenario = ROOT / "scenarios" / "zcorps" / "duel.toml"
    log = tmp_path / "z.jsonl"
    assert main(["run", str(scenario), "--log", str(log), "--summary"]) == 0
    want = expected_log_path(scenario).read_bytes()
    assert hashlib.sha256(log.read_bytes()).hexdigest() == hashlib.sha256(want).hexdigest()


@pytest.mark.parametrize("only", ["wounds", "hits", "rolls"])
def test_only_filters(only: str, capsys: pytest.CaptureFixture[str]) -> None:
    log = expected_log_path(ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml")
    assert main(["replay", str(log), "--narrate", "--only", only]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line[:5].strip().isdigit()]
    body = [line for line in lines if "===" not in line and "--- Round" not in line and "dice derived" not in line]
    assert body
    if only == "wounds":
        assert all("box" in line for line in body)
    elif only == "hits":
        assert all(("success" in line and "against" in line) or "damage to" in line for line in body)
    else:
        assert all(re.search(r"rolls \d+(d\d+|D)", line) for line in body)


def test_colour_on_a_terminal_only_and_never_with_no_color(tmp_path: Path) -> None:
    import os
    import pty

    log = expected_log_path(ROOT / "scenarios" / "point_zero" / "duel.toml")
    cmd = [sys.executable, "-m", "fracas", "replay", str(log), "--narrate"]
    piped = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    assert "\x1b[" not in piped

    def on_tty(env: dict[str, str]) -> str:
        pid, fd = pty.fork()
        if pid == 0:
            os.execve(sys.executable, cmd, env)
        chunks = []
        while True:
            try:
                data = os.read(fd, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.waitpid(pid, 0)
        return b"".join(chunks).decode()

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    assert "\x1b[32msuccess\x1b[0m" in on_tty(env)
    assert "\x1b[" not in on_tty({**env, "NO_COLOR": "1"})
