"""Point Zéro's round: its turns run inside the round's process, holds left out (logs unchanged).

``PointZero._turns`` runs the round's turns with :func:`fracas.core.encounter.play_turns` (one SimPy event per
tick, not a process per actor and an event per wait) and leaves out a hold (no move before or after, no action:
PZ-INIT-3), which would be a process that ends at once. The round must go on after the same events as with a
SimPy process for every turn, holds included: each fight below is played both ways and logged byte for byte the
same, with holds, moves, blows and the Shock clocks (PZ-HEAL-1, processes of their own that wake among the
turns) in them. The shortcut broken on purpose (every turn without an action left out, sprints included) logs
otherwise, and the check sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
import simpy
from fracas.core.encounter import At, Turn, play_turns
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

Turns = Callable[[PointZero, Any, list[str], dict[str, int], dict[str, Any]], Generator[Any, Any, None]]


def as_process(env: simpy.Environment, turn: Turn) -> Generator[At, Any, None]:
    """A turn as SimPy runs it on its own: each wait an :class:`At` event."""
    for tick, priority in turn:
        yield At(env, tick, priority)


def every_turn_a_process(
    self: PointZero, enc: Any, order: list[str], inits: dict[str, int], plans: dict[str, Any]
) -> Generator[Any, Any, None]:
    """The plain way: a SimPy process for every turn, holds included; the round waits for each in turn."""
    yield from [
        enc.env.process(as_process(enc.env, self._turn(enc, aid, inits[aid], plans[aid], rank)))
        for rank, aid in enumerate(order)
    ]


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
    """Broken on purpose: every turn without an action left out (a sprint's metres never walked)."""

    def broken(
        self: PointZero, enc: Any, order: list[str], inits: dict[str, int], plans: dict[str, Any]
    ) -> Generator[Any, Any, None]:
        turns = [self._turn(enc, aid, inits[aid], plans[aid], rank) for rank, aid in enumerate(order)]
        yield from play_turns(enc.env, [turn for turn, aid in zip(turns, order, strict=True) if plans[aid].acts()])

    fast, plain = logs(monkeypatch, tmp_path, broken)
    assert fast != plain
