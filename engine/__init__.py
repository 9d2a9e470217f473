"""fracas: event-sourced encounter simulation for tabletop role-playing fights.

The public API (docs/api.md). The names load on first use, so that
``fracas --help`` and ``import fracas`` stay cheap; everything not listed in
``__all__`` is an implementation detail. The package is laid out by layer:
``fracas.core`` (events, log, dice, clock, state, scenarios, the system
registry), ``fracas.services`` (run and replay, verify, audit, fork, batch,
render, narration, play) and ``fracas.cli`` (one module per command);
``fracas.systems`` holds the rule systems shipped with fracas.

Rule systems and policies from other packages import what they need from
:mod:`fracas.plugin` (docs/plugins.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from fracas.core.version import __version__

if TYPE_CHECKING:
    from fracas.core.dice import DerivedDice, DiceSource, EnteredDice, ScriptedDice, commitment_of, derive_face
    from fracas.core.encounter import Encounter, RunResult
    from fracas.core.errors import FracasError, IllegalAction, ScenarioError
    from fracas.core.events import AnyEvent, Entry, Event
    from fracas.core.log import LogWriter, read_log
    from fracas.core.scenario import LoadedScenario, load_scenario
    from fracas.core.state import State, apply, replay, state_to_builtins
    from fracas.core.system import RuleSystem, get_system, system_names
    from fracas.services.run import Replayed, replay_log, run_scenario
    from fracas.services.verify import verify_log

#: Where each public name lives; imported on first access (PEP 562).
_HOME = {
    "DerivedDice": "fracas.core.dice",
    "DiceSource": "fracas.core.dice",
    "EnteredDice": "fracas.core.dice",
    "ScriptedDice": "fracas.core.dice",
    "commitment_of": "fracas.core.dice",
    "derive_face": "fracas.core.dice",
    "Encounter": "fracas.core.encounter",
    "RunResult": "fracas.core.encounter",
    "FracasError": "fracas.core.errors",
    "IllegalAction": "fracas.core.errors",
    "ScenarioError": "fracas.core.errors",
    "AnyEvent": "fracas.core.events",
    "Entry": "fracas.core.events",
    "Event": "fracas.core.events",
    "LogWriter": "fracas.core.log",
    "read_log": "fracas.core.log",
    "LoadedScenario": "fracas.core.scenario",
    "load_scenario": "fracas.core.scenario",
    "State": "fracas.core.state",
    "apply": "fracas.core.state",
    "replay": "fracas.core.state",
    "state_to_builtins": "fracas.core.state",
    "RuleSystem": "fracas.core.system",
    "get_system": "fracas.core.system",
    "system_names": "fracas.core.system",
    "Replayed": "fracas.services.run",
    "replay_log": "fracas.services.run",
    "run_scenario": "fracas.services.run",
    "verify_log": "fracas.services.verify",
}

__all__ = [
    "AnyEvent",
    "DerivedDice",
    "DiceSource",
    "Encounter",
    "EnteredDice",
    "Entry",
    "Event",
    "FracasError",
    "IllegalAction",
    "LoadedScenario",
    "LogWriter",
    "Replayed",
    "RuleSystem",
    "RunResult",
    "ScenarioError",
    "ScriptedDice",
    "State",
    "__version__",
    "apply",
    "commitment_of",
    "derive_face",
    "get_system",
    "load_scenario",
    "read_log",
    "replay",
    "replay_log",
    "run_scenario",
    "state_to_builtins",
    "system_names",
    "verify_log",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'fracas' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
