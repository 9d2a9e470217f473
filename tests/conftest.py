"""Shared helpers: run a scenario with fixed dice, build an encounter to poke at.

Worked examples use :class:`fracas.core.dice.ScriptedDice` (a fixed "deck", as
pokerkit fixes the deck) so every test names the faces the rule text names.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fracas.core.dice import ScriptedDice
from fracas.core.encounter import Encounter, RunResult
from fracas.core.events import Entry, Event
from fracas.core.log import read_log
from fracas.core.scenario import LoadedScenario, load_scenario
from fracas.core.system import get_system
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
DATA = Path(__file__).resolve().parent / "data"
T = TypeVar("T", bound=Event)


def all_scenarios() -> list[Path]:
    """Every shipped scenario but the heavy ones (fracas.scenarios.HEAVY), for the suites that play each often."""
    return [p for p in sorted(SCENARIOS.glob("*/*.toml")) if not is_heavy(p)]


def heavy_scenarios() -> list[Path]:
    """The shipped scenarios too big for an expected log (fracas.scenarios.HEAVY)."""
    return [p for p in sorted(SCENARIOS.glob("*/*.toml")) if is_heavy(p)]


def is_heavy(scenario: Path) -> bool:
    from fracas.core.bundled import HEAVY

    return f"{scenario.parent.name}/{scenario.stem}" in HEAVY


class Fight:
    """A finished fight: its result and its log entries."""

    def __init__(self, result: RunResult, entries: list[Entry]) -> None:
        self.result = result
        self.entries = entries

    def events(self, kind: type[T], actor: str | None = None) -> list[T]:
        out = [e.ev for e in self.entries if isinstance(e.ev, kind)]
        return [e for e in out if actor is None or getattr(e, "actor", None) == actor]

    def entries_of(self, kind: type[Event]) -> list[Entry]:
        return [e for e in self.entries if isinstance(e.ev, kind)]


def run_fight(
    scenario: Path | LoadedScenario, tmp_path: Path, dice: Sequence[int] | None = None, seed: str = "1"
) -> Fight:
    log = tmp_path / "fight.jsonl"
    source = ScriptedDice(dice) if dice is not None else None
    result = run_scenario(scenario, seed=seed, log_path=log, dice=source)
    return Fight(result, read_log(log).entries)


def encounter_for(scenario: Path | str, dice: Sequence[int] = (), tmp_path: Path | None = None) -> Encounter:
    """An encounter standing at round 1 with every round-1 actor on the map."""
    loaded = load_scenario(scenario)
    system = get_system(loaded.spec.system)
    enc = Encounter(system, loaded, seed="test", dice=ScriptedDice(dice), log_path=None)
    enc.emit(enc.header())
    enc.round = 1
    from fracas.core.events import RoundStarted

    enc.emit(RoundStarted(round=1))
    for spec in loaded.spec.actors:
        if spec.arrives == 1:
            enc.emit(system.entered(enc, spec))
    return enc


@pytest.fixture
def data() -> Path:
    return DATA


def need(module: str) -> Any:
    """Import an optional dependency: skipped on a developer machine without it, required in CI
    (the `test` extra installs every optional extra, so a skip there would hide a missing install)."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    return pytest.importorskip(module)


def register_entry_points(folder: Path, dist: str, groups: dict[str, dict[str, str]]) -> Path:
    """Register entry points as an installed distribution would, with no install: a ``dist-info`` in ``folder``.

    ``groups`` maps a group (``fracas.systems``, ``fracas.policies.point_zero``) to ``{name: "module:object"}``.
    Put ``folder`` on ``sys.path`` (or on ``PYTHONPATH`` for a subprocess) and call
    :func:`fracas.plugin.forget_plugins` in-process; nothing is left behind outside ``folder``.
    """
    info = folder / f"{dist.replace('-', '_')}-0.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.0.0\n", encoding="utf-8")
    lines = []
    for group, entries in groups.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in entries.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")
    return folder
