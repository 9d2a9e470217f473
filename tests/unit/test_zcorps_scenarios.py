"""Z-Corps scenarios end to end: they load, end, replay to the live state, and log every die."""

from __future__ import annotations

from pathlib import Path

import pytest
from fracas.core import events as E
from fracas.core.log import iter_log
from fracas.core.state import state_to_builtins
from fracas.services.run import replay_log, run_scenario
from fracas.systems.zcorps.rules import RULE_IDS

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios" / "zcorps").glob("*.toml"))


def test_both_issue_scenarios_exist() -> None:
    assert {p.name for p in SCENARIOS} >= {"barricade.toml", "firefight.toml"}


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_replays_to_the_live_state_and_is_deterministic(path: Path, tmp_path: Path) -> None:
    a = run_scenario(path, seed="3", log_path=tmp_path / "a.jsonl")
    b = run_scenario(path, seed="3", log_path=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    replayed = replay_log(tmp_path / "a.jsonl")
    assert state_to_builtins(replayed.state) == state_to_builtins(a.state)
    assert a.winner == b.winner
    assert replayed.state.ended


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_die_is_logged_with_a_fate_and_every_rule_is_known(path: Path, tmp_path: Path) -> None:
    run_scenario(path, seed="5", log_path=tmp_path / "log.jsonl")
    entries = [e for e in iter_log(tmp_path / "log.jsonl") if isinstance(e, E.Entry)]
    dice = [e.ev for e in entries if isinstance(e.ev, E.DiceRolled)]
    assert dice
    expected_first = 0
    for d in sorted(dice, key=lambda d: d.first):
        assert d.first == expected_first  # the dice stream has no gap: every die drawn is logged
        expected_first += len(d.faces)
        assert set(d.fates) <= {"kept", "exploded", "cancelled", "dropped"}
        assert len(d.fates) == len(d.faces)
    known = set(RULE_IDS) | {"C-CLOCK-1", "C-END-1", "C-TIE-1", "C-ILLEGAL-1"}
    for e in entries:
        rule = getattr(e.ev, "rule", None)
        if rule is not None:
            assert rule in known, (e.seq, rule)


def test_barricade_seed_3_is_a_zombie_fight(tmp_path: Path) -> None:
    run_scenario(ROOT / "scenarios" / "zcorps" / "barricade.toml", seed="3", log_path=tmp_path / "log.jsonl")
    evs = [e.ev for e in iter_log(tmp_path / "log.jsonl") if isinstance(e, E.Entry)]
    rules = {getattr(ev, "rule", "") for ev in evs}
    assert {"ZC-INIT-1", "ZC-WILD-1", "ZC-FIRE-1", "ZC-ATK-1", "ZC-DMG-1", "ZC-RES-1", "ZC-WOUND-1"} <= rules
    assert any(isinstance(ev, E.ActorDied) and ev.cause == "destroyed" for ev in evs)
    assert isinstance(evs[-1], E.EncounterEnded)


def test_script_steps_are_validated_with_their_path(tmp_path: Path) -> None:
    import subprocess
    import sys

    text = (ROOT / "scenarios" / "zcorps" / "duel.toml").read_text(encoding="utf-8")
    for old, new, message in [
        (
            'policy = "aggressive"',
            'policy = "scripted"\nscript = [{ action = "dance" }]',
            "$.actors[0].script[0].action: unknown action 'dance' (expected one of fire, shoot, strike, bite, reload, "
            "aim, move, stand, escape, hold, grab, knock_down, push, trip, tackle)",
        ),
        (
            'policy = "aggressive"',
            'policy = "scripted"\nscript = [{ action = "fire", target = "reyes" }]',
            "$.actors[0].script[0].weapon: fire needs one of dutch's weapons (Glock 17)",
        ),
    ]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text.replace(old, new, 1), encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "fracas", "validate", str(bad)], capture_output=True, text=True, check=False
        )
        assert proc.returncode == 2
        assert proc.stderr.startswith(f"fracas: error: {bad}:")
        assert proc.stderr.rstrip().endswith(message)
