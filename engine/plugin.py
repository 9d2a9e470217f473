"""Everything a rule-system or policy plugin needs, in one module (docs/plugins.md, docs/api.md).

A plugin imports from here (or from :mod:`fracas`) and nothing else of
fracas: the modules behind these names (``fracas.core.*``) are private and
may move. Everything listed in ``__all__`` is typed, so that a plugin
passes ``mypy --strict`` without ``type: ignore``.

- The contract: :class:`RuleSystem` (registered under the entry-point group
  :data:`SYSTEMS_GROUP`), its optional :class:`OddsProvider`, the
  :data:`Process` type of its SimPy bodies, and the policy registry
  (:data:`POLICIES_GROUP`, :func:`policy_table`, :func:`registered_policy_names`).
- What a system's methods receive and use: the :class:`Encounter` (clock,
  dice, event stream), the clock constants, the scenario Structs to
  subclass, the projected :class:`State`, the events it emits, the human
  decision types, the errors it raises and the decision-quality read
  (:class:`TestRead`) of its optional ``test_quality`` hook.
"""

from __future__ import annotations

from fracas.core.decide import HUMAN, Choice, DecisionError, ask_human
from fracas.core.dice import DiceSource
from fracas.core.encounter import (
    PRIORITY_ACT,
    PRIORITY_MOVE,
    PRIORITY_ROUND,
    TICKS_PER_SECOND,
    Encounter,
    tie_broken_order,
)
from fracas.core.errors import FracasError, IllegalAction, ScenarioError
from fracas.core.events import (
    ActionDeclared,
    ActionLost,
    ActorDied,
    ActorEntered,
    ActorFled,
    ActorSurrendered,
    AmmoSpent,
    AnyEvent,
    ConditionCleared,
    ConditionSet,
    DamageRolled,
    DiceRolled,
    Event,
    HitPointsChanged,
    InitiativeSet,
    Modifier,
    MonitorSpec,
    Moved,
    Noted,
    Reloaded,
    ResourceSpent,
    SkillTested,
    ThresholdComputed,
    TieBroken,
    WeaponStateChanged,
    WoundHealed,
    WoundMarked,
    WoundWorsened,
)
from fracas.core.quality import Extra, TestRead
from fracas.core.scenario import (
    ActorBase,
    AftermathSpec,
    CoverZone,
    ExitSpec,
    MapSpec,
    ScenarioBase,
    ScriptStep,
    SideSpec,
    Spec,
    check_common,
    locate,
    parse_duration,
)
from fracas.core.state import DISABLING, ActorState, Monitor, State
from fracas.core.system import (
    POLICIES_GROUP,
    SYSTEMS_GROUP,
    OddsProvider,
    Process,
    RuleSystem,
    forget_plugins,
    policy_table,
    registered_policy_names,
)

__all__ = [
    "DISABLING",
    "HUMAN",
    "POLICIES_GROUP",
    "PRIORITY_ACT",
    "PRIORITY_MOVE",
    "PRIORITY_ROUND",
    "SYSTEMS_GROUP",
    "TICKS_PER_SECOND",
    "ActionDeclared",
    "ActionLost",
    "ActorBase",
    "ActorDied",
    "ActorEntered",
    "ActorFled",
    "ActorState",
    "ActorSurrendered",
    "AftermathSpec",
    "AmmoSpent",
    "AnyEvent",
    "Choice",
    "ConditionCleared",
    "ConditionSet",
    "CoverZone",
    "DamageRolled",
    "DecisionError",
    "DiceRolled",
    "DiceSource",
    "Encounter",
    "Event",
    "ExitSpec",
    "Extra",
    "FracasError",
    "HitPointsChanged",
    "IllegalAction",
    "InitiativeSet",
    "MapSpec",
    "Modifier",
    "Monitor",
    "MonitorSpec",
    "Moved",
    "Noted",
    "OddsProvider",
    "Process",
    "Reloaded",
    "ResourceSpent",
    "RuleSystem",
    "ScenarioBase",
    "ScenarioError",
    "ScriptStep",
    "SideSpec",
    "SkillTested",
    "Spec",
    "State",
    "TestRead",
    "ThresholdComputed",
    "TieBroken",
    "WeaponStateChanged",
    "WoundHealed",
    "WoundMarked",
    "WoundWorsened",
    "ask_human",
    "check_common",
    "forget_plugins",
    "locate",
    "parse_duration",
    "policy_table",
    "registered_policy_names",
    "tie_broken_order",
]
