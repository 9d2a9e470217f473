"""What-if forks: equal to the parent up to the fork point, different after, and verifiable."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.errors import FracasError
from fracas.core.log import read_log
from fracas.core.system import system_names
from fracas.services.fork import fork_log
from fracas.services.run import run_scenario
from fracas.services.verify import verify_log

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [
    sorted((ROOT / "scenarios" / s).glob("*.toml"))[0]
    for s in system_names()
    if (ROOT / "scenarios" / s).is_dir() and list((ROOT / "scenarios" / s).glob("*.toml"))
]


def envelope(e: E.Entry) -> tuple[int, int, float, E.Event]:
    return (e.round, e.count, e.sec, e.ev)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda p: p.parent.name)
def test_a_fork_equals_its_parent_up_to_the_fork_point_and_differs_after(scenario: Path, tmp_path: Path) -> None:
    parent = tmp_path / "parent.jsonl"
    run_scenario(scenario, seed="5", log_path=parent)
    pe = read_log(parent).entries
    rolls = [e.seq for e in pe if isinstance(e.ev, E.DiceRolled)]
    at = rolls[len(rolls) // 2] - 1  # just before a roll, so the next die is a new one
    for seed in range(1, 20):
        child = tmp_path / f"fork{seed}.jsonl"
        fork_log(parent, at, seed=f"what-if {seed}", log_path=child)
        ce = read_log(child).entries
        assert [envelope(e) for e in ce[1 : at + 1]] == [envelope(e) for e in pe[1 : at + 1]]
        if [envelope(e) for e in ce[at + 1 :]] != [envelope(e) for e in pe[at + 1 :]]:
            break
    else:
        pytest.fail("19 forks all replayed the parent exactly")
    head = ce[0].ev
    assert isinstance(head, E.EncounterStarted) and head.parent is not None
    recorded = sum(len(e.ev.faces) for e in pe[: at + 1] if isinstance(e.ev, E.DiceRolled))
    assert head.parent.fork_die >= recorded  # drawn by then: recorded ones, maybe a Joker still to record
    assert head.parent == E.ForkOrigin(
        parent_log=parent.name,
        parent_sha256=hashlib.sha256(parent.read_bytes()).hexdigest(),
        fork_seq=at,
        fork_die=head.parent.fork_die,
    )
    report = verify_log(child)
    assert report.ok, report.problem
    assert report.dice["re-derived"] == report.dice["derived"]  # inherited dice checked against the parent


def test_the_replay_command_forks_and_refuses_a_seq_out_of_range(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parent = tmp_path / "p.jsonl"
    run_scenario(ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml", seed="7", log_path=parent)
    child = tmp_path / "c.jsonl"
    assert main(["replay", str(parent), "--fork-at", "10", "--seed", "9", "--log", str(child)]) == 0
    assert capsys.readouterr().out.startswith(f"forked {parent} at seq 10 with seed 9: ")
    assert main(["verify", str(child)]) == 0
    with pytest.raises(FracasError) as err:
        fork_log(parent, 0, seed="1", log_path=None)
    last = read_log(parent).entries[-1].seq
    assert str(err.value) == f"{parent}: --fork-at 0: expected a seq from 1 to {last}"


def test_a_fork_inside_a_roll_recorded_as_several_events_verifies(tmp_path: Path) -> None:
    """Z-Corps draws the plain dice and the Joker together, then records two events."""
    root = Path(__file__).resolve().parents[2]
    parent = tmp_path / "parent.jsonl"
    run_scenario(root / "scenarios" / "zcorps" / "firefight.toml", seed="10", log_path=parent)
    entries = read_log(parent).entries
    inside = [
        e.seq
        for e, nxt in itertools.pairwise(entries)
        if type(e.ev) is E.DiceRolled and type(nxt.ev) is E.DiceRolled and e.ev.actor == nxt.ev.actor
    ][:6]
    assert inside, "the firefight has no multi-event roll"
    for seq in inside:
        child = tmp_path / f"fork{seq}.jsonl"
        fork_log(parent, seq, seed="99", log_path=child)
        head = read_log(child).entries[0].ev
        assert isinstance(head, E.EncounterStarted) and head.parent is not None
        assert head.parent.fork_seq == seq and head.parent.fork_die > 0
        report = verify_log(child)
        assert report.ok, report
