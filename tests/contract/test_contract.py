"""The contract every rule system and every shipped scenario must keep.

Parametrised over every scenario under scenarios/ (so over every registered
system that ships one): a new system passes this suite with no change to it.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from conftest import all_scenarios, heavy_scenarios
from fracas.core import events as E
from fracas.core.dice import DerivedDice
from fracas.core.log import chained_bytes, read_log, to_binary
from fracas.core.state import replay, state_digest, state_to_builtins
from fracas.core.system import get_system, system_names
from fracas.services.logdiff import expected_log_path, first_difference
from fracas.services.run import run_scenario

LIGHT = all_scenarios()
#: the heavy scenarios (fracas.scenarios.HEAVY) keep the contract too, in the slow suite (-m slow)
SCENARIOS = [*LIGHT, *(pytest.param(p, marks=pytest.mark.slow) for p in heavy_scenarios())]
IDS = [f"{p.parent.name}/{p.stem}" for p in [*LIGHT, *heavy_scenarios()]]


class CountingDice(DerivedDice):
    """Derived dice that count every face drawn, to check C-LOG-1."""

    drawn = 0

    def draw(self, n: int, sides: int, *, actor: str, purpose: str) -> list[int]:
        self.drawn += n
        return super().draw(n, sides, actor=actor, purpose=purpose)


def test_every_registered_system_ships_a_scenario() -> None:
    shipped = {p.parent.name for p in LIGHT}
    assert set(system_names()) <= shipped


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_same_seed_same_bytes(scenario: Path, tmp_path: Path) -> None:
    run_scenario(scenario, seed="42", log_path=tmp_path / "a.jsonl")
    run_scenario(scenario, seed="42", log_path=tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_replay_equals_live_state(scenario: Path, tmp_path: Path) -> None:
    log = tmp_path / "fight.jsonl"
    result = run_scenario(scenario, seed="5", log_path=log)
    assert state_to_builtins(replay(read_log(log).entries)) == state_to_builtins(result.state)
    assert msgspec.to_builtins(replay(read_log(log).entries)) == msgspec.to_builtins(result.state)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_every_random_number_is_a_dice_event_with_a_rule(scenario: Path, tmp_path: Path) -> None:
    dice = CountingDice("9")
    log = tmp_path / "fight.jsonl"
    run_scenario(scenario, seed="9", log_path=log, dice=dice)
    rolls = [e.ev for e in read_log(log).entries if isinstance(e.ev, E.DiceRolled)]
    assert sum(len(r.faces) for r in rolls) == dice.drawn
    rules = get_system(read_log(log).entries[0].ev.system).rule_ids  # type: ignore[union-attr]
    for r in rolls:
        assert r.rule in rules or r.rule.startswith("C-"), r
        assert r.purpose and r.actor and len(r.fates) == len(r.faces)
    firsts = [r.first for r in rolls]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_every_fight_ends_with_a_winner_or_a_draw(scenario: Path, seed: str, tmp_path: Path) -> None:
    log = tmp_path / "fight.jsonl"
    run_scenario(scenario, seed=seed, log_path=log)
    entries = read_log(log).entries
    assert isinstance(entries[0].ev, E.EncounterStarted)
    assert isinstance(entries[-1].ev, E.EncounterEnded)
    assert [e.seq for e in entries] == list(range(len(entries)))
    assert entries[-1].ev.seed == seed


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_hash_chain_and_state_checks_hold(scenario: Path, tmp_path: Path) -> None:
    import hashlib

    log = tmp_path / "fight.jsonl"
    run_scenario(scenario, seed="4", log_path=log)
    prev = bytes(32)
    for line in log.read_bytes().splitlines():
        prev = hashlib.sha256(prev + chained_bytes(line)).digest()
        assert line.endswith(b'"h":"' + prev.hex().encode() + b'"}')
    entries = read_log(log).entries
    for i, entry in enumerate(entries):
        if isinstance(entry.ev, E.StateChecked):
            assert state_digest(replay(entries[:i])) == entry.ev.digest


@pytest.mark.parametrize("scenario", SCENARIOS, ids=IDS)
def test_binary_and_jsonl_logs_decode_to_the_same_events(scenario: Path, tmp_path: Path) -> None:
    run_scenario(scenario, seed="6", log_path=tmp_path / "a.jsonl")
    run_scenario(scenario, seed="6", log_path=tmp_path / "a.bin", binary=True)
    text, binary = read_log(tmp_path / "a.jsonl"), read_log(tmp_path / "a.bin")
    assert text.entries == binary.entries
    assert to_binary(text.entries) == (tmp_path / "a.bin").read_bytes()


@pytest.mark.parametrize("scenario", LIGHT, ids=IDS[: len(LIGHT)])
def test_expected_log_is_reproduced(scenario: Path, tmp_path: Path) -> None:
    """The committed log (tools/regen_expected.py --write rewrites it on purpose)."""
    expected = expected_log_path(scenario)
    assert expected.exists(), f"{expected} missing: run python tools/regen_expected.py --write {scenario}"
    log = tmp_path / "fight.jsonl"
    run_scenario(scenario, log_path=log)
    diff = first_difference(expected.read_bytes(), log.read_bytes())
    assert diff is None, f"{scenario}: {diff}"
