"""The clock moved without a SimPy event when nothing else is scheduled (logs unchanged).

``fracas.core.encounter.nobody_else_waits``: a round's start and a turn's wake-up move the clock
themselves when SimPy has nothing scheduled (the lone event would only have moved the clock and woken
the process). Each fight below, with every system, Point Zéro's Shock clocks (processes of their own
that wake among the turns) and an aftermath that heals, is run that way and with every wait an event
(``nobody_else_waits`` always False), and the two logs compared byte for byte. The shortcut broken on
purpose (the clock moved even past what is scheduled) logs otherwise, and the check sees it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import simpy
from fracas.core import encounter
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]
#: The endless brawl's two unarmoured and deft enough to land blows (Shock wounds that heal a minute later)
SPARRING = (
    ("round_limit = 10000", "round_limit = 80"),
    ('armour = "heavy_combat"', 'armour = "none"'),
    ("ADR = 2", "ADR = 3"),
)
#: (scenario file, changes to its text, seeds, rules editions (None: the scenario's own))
FIGHTS = [
    ("tests/data/pz_endless.toml", SPARRING, (1, 2), (None,)),
    ("scenarios/point_zero/duel.toml", (), (1, 2, 3), (None, 1)),
    ("scenarios/point_zero/mira_vs_guard.toml", (), (1, 2), (None,)),
    ("scenarios/point_zero/warehouse.toml", (), (1,), (None, 1)),
    ("scenarios/zcorps/duel.toml", (), (1, 2), (None,)),
    ("scenarios/zcorps/barricade.toml", (), (1,), (None,)),
    ("scenarios/d100/duel.toml", (), (1, 2), (None,)),
]


def every_wait_an_event(env: simpy.Environment) -> bool:
    return False


def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[bytes], list[bytes]]:
    """Each fight's log as it runs, and with every wait a SimPy event."""
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
                path = tmp_path / "fight.jsonl"
                run_scenario(scenario, seed=str(seed), log_path=path)
                fast.append(path.read_bytes())
                with monkeypatch.context() as m:
                    m.setattr(encounter, "nobody_else_waits", every_wait_an_event)
                    run_scenario(scenario, seed=str(seed), log_path=path)
                plain.append(path.read_bytes())
    return fast, plain


def test_fights_log_as_with_every_wait_an_event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, plain = logs(tmp_path, monkeypatch)
    assert fast == plain
    together = b"".join(fast)
    for met in (b'"rule":"PZ-HEAL-1"', b'"type":"Moved"', b'"type":"WoundHealed"', b'"system":"d100"'):
        assert together.count(met) > 3, met


def test_the_check_finds_a_broken_shortcut(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Broken on purpose: the clock moved even when something else is scheduled (a Shock clock jumped past)."""
    monkeypatch.setattr(encounter, "nobody_else_waits", lambda env: True)
    fast, plain = logs(tmp_path, monkeypatch)
    assert fast != plain
