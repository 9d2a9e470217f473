"""fracas engine: event-sourced encounter simulation, system-agnostic.

The public API; everything else is an implementation detail.
"""

from engine.api import Replayed, replay_log, run_scenario
from engine.dice import DerivedDice, DiceSource, EnteredDice, ScriptedDice, commitment_of, derive_face
from engine.encounter import Encounter, RunResult
from engine.errors import FracasError, IllegalAction, ScenarioError
from engine.events import AnyEvent, Entry, Event
from engine.log import LogWriter, read_log
from engine.scenario import LoadedScenario, load_scenario
from engine.state import State, apply, replay, state_to_builtins
from engine.system import RuleSystem, get_system, system_names
from engine.version import __version__

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
]
