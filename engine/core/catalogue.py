"""The rule catalogue: every rule ID fracas cites, with its one-line statement.

The common rules (``C-…``) belong to the engine; each rule system brings its
own (:attr:`RuleSystem.rule_ids`) and its default values. ``fracas systems``
prints this catalogue, and ``tools/rules_catalogue.py`` writes it to
docs/rules.md (a test fails when the two drift apart).
"""

from __future__ import annotations

from typing import Any

import msgspec
from fracas.core.system import RuleSystem

#: The rules every system follows (the engine applies them), by ID.
COMMON_RULE_IDS: dict[str, str] = {
    "C-LOG-1": "every random number comes from a dice event in the log, with purpose, actor and rule ID",
    "C-CLOCK-1": "rounds; within one the clock counts initiative down; simulated seconds run on after the fight",
    "C-TIE-1": "equal initiative: the system's tie-break attribute first, then a roll-off",
    "C-END-1": "the fight ends when at most one side can act (the end names winner and why), or at the round limit",
    "C-ILLEGAL-1": "an action illegal when declared is refused naming the rule; one impossible at resolution is lost",
}


def describe_system(system: RuleSystem) -> dict[str, Any]:
    """What ``fracas systems --json`` reports for one system."""
    return {
        "title": system.title,
        "seed": system.seed_file,
        "round_seconds": system.round_seconds,
        "policies": list(system.policies),
        "rules": dict(system.rule_ids),
        "defaults": msgspec.to_builtins(system.rules_type()),
    }


def rule_statement(system: RuleSystem | None, rule: str) -> str | None:
    """The one-line statement of ``rule``: the system's own, else a common rule's; None if unknown."""
    if system is not None and rule in system.rule_ids:
        return system.rule_ids[rule]
    return COMMON_RULE_IDS.get(rule)
