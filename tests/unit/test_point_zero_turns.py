"""Point Zéro's round: a turn with nothing in it stands as one event done at once, not a process (logs unchanged).

A hold (no move before or after, no action: PZ-INIT-3) would be a process that ends at once; one event done at
once stands for every such turn of a round (``PointZero._turns``). The round must go on after the same events
as with a process each: each fight below is played both ways and logged byte for byte the same, with holds,
moves, blows and the Shock clocks (PZ-HEAL-1) among the turns. The shortcut broken on purpose (every turn without
an action stood for, sprints included) logs otherwise, and the check sees it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems.point_zero import PointZero

ROOT = Path(__file__).resolve().parents[2]
ENDLESS = "tests/data/pz_endless.toml"
#: The endless brawl's two unarmoured and deft enough to land blows (Shock wounds that heal a minute later)
SPARRING = (
    ("round_limit = 10000", "round_limit = 80"),
    ('armour = "heavy_combat"', 'armour = "none"'),
    ("ADR = 2", "ADR = 3"),
)
#: (scenario file, changes to its text, seeds, rules editions (None: the scenario's own))
FIGHTS = [
    (ENDLESS, (("round_limit = 10000", "round_limit = 40"),), (1,), (None, 1)),
    (ENDLESS, SPARRING, (1, 2, 3), (None,)),
    ("scenarios/point_zero/duel.toml", (), (1, 2), (None, 1)),
    ("scenarios/point_zero/mira_vs_guard.toml", (), (1, 2), (None,)),
    ("scenarios/point_zero/warehouse.toml", (), (1, 2), (None,)),
]

Turns = Callable[[PointZero, Any, list[str], dict[str, int], dict[str, Any]], list[Any]]


def every_turn_a_process(
    self: PointZero, enc: Any, order: list[str], inits: dict[str, int], plans: dict[str, Any]
) -> list[Any]:
    return [enc.env.process(self._turn(enc, aid, inits[aid], plans[aid], rank)) for rank, aid in enumerate(order)]


def logs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, turns: Turns) -> tuple[list[bytes], list[bytes]]:
    """Each fight's log with ``turns`` and with a process for every turn."""
    fast: list[bytes] = []
    plain: list[bytes] = []
    for file, changes, seeds, editions in FIGHTS:
        for edition in editions:
            text = read_scenario_text(ROOT / file)
            for old, new in changes:
                assert old in text, (file, old)
                text = text.replace(old, new)
            if edition is not None:
                text += f"\n[rules]\nedition = {edition}\n"
            scenario = build_scenario(file, text)
            for seed in seeds:
                for how, out in ((turns, fast), (every_turn_a_process, plain)):
                    monkeypatch.setattr(PointZero, "_turns", how)
                    path = tmp_path / "fight.jsonl"
                    run_scenario(scenario, seed=str(seed), log_path=path)  # type: ignore[arg-type]
                    out.append(path.read_bytes())
    return fast, plain


def test_a_round_logs_as_with_a_process_for_every_turn(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fast, plain = logs(monkeypatch, tmp_path, PointZero._turns)
    assert fast == plain
    together = b"".join(fast)
    for met in (b'"action":"hold"', b'"rule":"PZ-HEAL-1"', b'"type":"Moved"', b'"type":"DamageRolled"'):
        assert together.count(met) > 3, met


def test_the_check_finds_a_broken_shortcut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Broken on purpose: every turn without an action stood for (a sprint's metres never walked)."""

    def broken(self: PointZero, enc: Any, order: list[str], inits: dict[str, int], plans: dict[str, Any]) -> list[Any]:
        done = enc.env.event()
        done.succeed()
        return [
            enc.env.process(self._turn(enc, aid, inits[aid], plans[aid], rank)) if plans[aid].acts() else done
            for rank, aid in enumerate(order)
        ]

    fast, plain = logs(monkeypatch, tmp_path, broken)
    assert fast != plain
