"""The rule-system plugin contract and the registry (DESIGN.md contract 6).

The engine never imports ``systems/``: built-in and third-party systems alike
register under the ``fracas.systems`` entry-point group, each pointing at an
object that satisfies :class:`RuleSystem`.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from fracas.core.errors import UnknownSystem

if TYPE_CHECKING:
    from fracas.core.encounter import Encounter
    from fracas.core.events import ActorEntered

ENTRY_POINT_GROUP = "fracas.systems"

#: The rules edition of a log header that records none (docs/rules-notes.md, "Rules editions"): a rules
#: Struct with an ``edition`` field plays the readings of that edition; edition 1 is never written.
FIRST_EDITION = 1

Process = Generator[Any, Any, None]


class RuleSystem(Protocol):
    """What a rule system provides to the engine.

    Optional, looked up with ``getattr`` so a minimal system needs neither:
    ``odds_command`` (an :class:`fracas.cli.odds.OddsProvider` for ``fracas odds``) and
    ``outcome_odds(test, dice) -> float | None`` (P(this result or better), for ``fracas audit``) and
    ``test_quality(test, dice) -> TestRead | None`` (a logged test read for the decision-quality
    report, :mod:`fracas.core.quality`).
    """

    name: str
    title: str
    seed_file: str
    round_seconds: int
    rules_type: type[msgspec.Struct]
    scenario_type: type[Any]
    rule_ids: Mapping[str, str]
    policies: tuple[str, ...]

    def validate(self, scenario: Any, file: str, text: str) -> None:
        """Semantic checks beyond the Structs; raise ScenarioError with a $.path."""

    def entered(self, enc: Encounter, actor: Any) -> ActorEntered:
        """The event that puts an actor on the map (at the start or as a reinforcement)."""

    def play_round(self, enc: Encounter, rnd: int) -> Process:
        """A SimPy process body for one round: initiative, decisions, resolution."""

    def aftermath(self, enc: Encounter) -> Process:
        """A SimPy process body for the clock after the fight (bleeding, healing)."""


_cache: dict[str, RuleSystem] = {}


def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def system_names() -> list[str]:
    return sorted(_entry_points())


def get_system(name: str) -> RuleSystem:
    """The registered system ``name``, or an error listing the known ones."""
    if name in _cache:
        return _cache[name]
    eps = _entry_points()
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none installed"
        raise UnknownSystem(f"unknown system {name!r} (known: {known})")
    system: RuleSystem = eps[name].load()
    _cache[name] = system
    return system


def header_rules(rules: msgspec.Struct) -> dict[str, Any]:
    """The effective rules as a log header records them: edition 1 is left out (absent means 1)."""
    raw: dict[str, Any] = msgspec.to_builtins(rules)
    if raw.get("edition") == FIRST_EDITION:
        del raw["edition"]
    return raw


def effective_rules(system: RuleSystem, overrides: Mapping[str, Any]) -> msgspec.Struct:
    """The system's defaults with a scenario's overrides (validated by the caller)."""
    base = msgspec.to_builtins(system.rules_type())
    base.update(overrides)
    return msgspec.convert(base, system.rules_type)
