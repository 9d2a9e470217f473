"""The rule-system plugin contract and the registries (docs/design.md, docs/plugins.md).

The engine never imports ``systems/``: built-in and third-party systems alike
register under the ``fracas.systems`` entry-point group, each pointing at an
object that satisfies :class:`RuleSystem`. Policies (the AI of an actor) are
plugins too: a package registers one for system ``S`` under the group
``fracas.policies.S``; the system looks its policies up with
:func:`policy_table`.
"""

from __future__ import annotations

import argparse
from collections.abc import Generator, Mapping
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec
from fracas.core.errors import FracasError, UnknownSystem

if TYPE_CHECKING:
    from fracas.core.encounter import Encounter
    from fracas.core.events import ActorEntered

#: The entry-point group of rule systems: ``name = "package.module:OBJECT"``.
SYSTEMS_GROUP = "fracas.systems"
ENTRY_POINT_GROUP = SYSTEMS_GROUP
#: The entry-point group of the policies of system ``S`` is ``POLICIES_GROUP + "." + S``.
POLICIES_GROUP = "fracas.policies"

#: The rules edition of a log header that records none (docs/rules-notes.md, "Rules editions"): a rules
#: Struct with an ``edition`` field plays the readings of that edition; edition 1 is never written.
FIRST_EDITION = 1

#: A SimPy process body: yields SimPy events, returns nothing.
Process = Generator[Any, Any, None]

P = TypeVar("P")


class OddsProvider(Protocol):
    """What a rule system offers to ``fracas odds`` (its optional ``odds_command`` attribute)."""

    usage: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Declare the roll's arguments (positional and options)."""

    def compute(self, args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
        """The odds as human text and as a JSON object; ValueError for bad input."""


class RuleSystem(Protocol):
    """What a rule system provides to the engine.

    Optional, looked up with ``getattr`` so a minimal system needs neither:
    ``odds_command`` (an :class:`OddsProvider` for ``fracas odds``) and
    ``outcome_odds(test, dice) -> float | None`` (P(this result or better), for ``fracas audit``) and
    ``test_quality(test, dice) -> TestRead | None`` (a logged test read for the decision-quality
    report, :mod:`fracas.core.quality`).
    """

    # Read-only (properties), so that a plain class attribute of a narrower type satisfies them:
    # ``rules_type = MyRules`` is a ``type[MyRules]``, which a settable ``type[Struct]`` would refuse.

    @property
    def name(self) -> str:
        """The registered name, as scenarios give it in ``system = "..."``."""
        ...

    @property
    def title(self) -> str:
        """One line for ``fracas systems``."""
        ...

    @property
    def seed_file(self) -> str:
        """The rule text the system implements, by name (shown by ``fracas systems``; not a path)."""
        ...

    @property
    def round_seconds(self) -> int:
        """The length of a round in simulated seconds."""
        ...

    @property
    def rules_type(self) -> type[msgspec.Struct]:
        """The Struct of the values a scenario's ``[rules]`` may override; ``rules_type()`` gives the defaults."""
        ...

    @property
    def scenario_type(self) -> type[Any]:
        """The scenario Struct: a subclass of :class:`fracas.plugin.ScenarioBase`."""
        ...

    @property
    def rule_ids(self) -> Mapping[str, str]:
        """Every rule ID the system cites in its events, with a one-line summary."""
        ...

    @property
    def policies(self) -> tuple[str, ...]:
        """The policy names a scenario may give an actor: built-in ones, then registered ones."""
        ...

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
    return {ep.name: ep for ep in entry_points(group=SYSTEMS_GROUP)}


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


def header_rules(rules: msgspec.Struct, keys: frozenset[str] | None = None) -> dict[str, Any]:
    """The effective rules as a log header records them: edition 1 is left out (absent means 1).

    ``keys``: only these fields (a re-simulated log's header names what the original named).
    """
    raw: dict[str, Any] = msgspec.to_builtins(rules)
    if raw.get("edition") == FIRST_EDITION:
        del raw["edition"]
    if keys is not None:
        raw = {k: v for k, v in raw.items() if k in keys}
    return raw


def effective_rules(system: RuleSystem, overrides: Mapping[str, Any]) -> msgspec.Struct:
    """The system's defaults with a scenario's overrides (validated by the caller)."""
    base = msgspec.to_builtins(system.rules_type())
    base.update(overrides)
    return msgspec.convert(base, system.rules_type)


# ----------------------------------------------------------------- policies

_policy_eps: dict[str, dict[str, EntryPoint]] = {}
_policy_tables: dict[tuple[str, int], dict[str, Any]] = {}


def _policy_entry_points(system: str) -> dict[str, EntryPoint]:
    """The policies registered for ``system`` by name, in name order (read once per process)."""
    found = _policy_eps.get(system)
    if found is None:
        eps = entry_points(group=f"{POLICIES_GROUP}.{system}")
        found = _policy_eps[system] = {ep.name: ep for ep in sorted(eps, key=lambda ep: ep.name)}
    return found


def registered_policy_names(system: str) -> tuple[str, ...]:
    """The names of the policies other packages register for ``system``, sorted (nothing is imported)."""
    return tuple(_policy_entry_points(system))


def policy_table(system: str, builtin: Mapping[str, P], *, expected: str = "a callable") -> dict[str, P]:
    """``builtin`` then the policies registered for ``system`` (group ``fracas.policies.<system>``).

    Each registered object is imported on first use and must be what the
    system's built-in policies are: ``expected`` says what (docs/plugins.md
    says it for each shipped system); the object must at least be callable.
    A registered name that is already a built-in one, one that fails to
    import, or an object that is not callable is a :class:`FracasError`.
    """
    key = (system, id(builtin))
    table = _policy_tables.get(key)
    if table is None:
        table = dict(builtin)
        for name, ep in _policy_entry_points(system).items():
            where = f"policy {name!r} of {system} ({POLICIES_GROUP}.{system}: {ep.value})"
            if name in builtin:
                raise FracasError(f"{where}: {name!r} is a built-in policy of {system}; choose another name")
            try:
                policy = ep.load()
            except (ImportError, AttributeError) as exc:
                raise FracasError(f"{where}: cannot load it: {exc}") from None
            if not callable(policy):
                raise FracasError(f"{where}: expected {expected}, got {type(policy).__name__}")
            table[name] = policy
        _policy_tables[key] = table
    return table


def forget_plugins() -> None:
    """Read the entry points again on next use (for tests that install a plugin in-process)."""
    _cache.clear()
    _policy_eps.clear()
    _policy_tables.clear()
