"""Policies registered from outside fracas (docs/plugins.md, "Policies are plugins too").

pyproject.toml registers them under ``fracas.policies.<system>``:

- ``sniper`` for Coinflip: shoots the foe with the best aim first (the most
  dangerous), then the first by id;
- ``steady`` for Point Zéro (a system shipped with fracas): plays like the
  built-in ``aggressive`` policy but never surpasses itself, so it never
  marks a Shock box for an extra die (PZ-SURPASS-1).

A policy is a plain function of the encounter and the actor's id. It must be
deterministic (no randomness, no clock): ``fracas verify`` re-simulates the
fight and must find the same decisions.
"""

from __future__ import annotations

from typing import cast

from fracas.plugin import Encounter
from fracas.systems.point_zero.policies import Plan, aggressive

from fracas_coinflip import Actor, foes

__all__ = ["sniper", "steady"]


def sniper(enc: Encounter, actor: str) -> str | None:
    """Coinflip: the foe with the best aim, then the first by id (None when no foe can act)."""

    def danger(foe_id: str) -> tuple[int, str]:
        return (-cast(Actor, enc.actor_specs[foe_id]).aim, foe_id)

    ranked = sorted((f.id for f in foes(enc, actor)), key=danger)
    return ranked[0] if ranked else None


def steady(enc: Encounter, actor: str) -> Plan:
    """Point Zéro: the built-in aggressive plan, without surpassing (PZ-SURPASS-1)."""
    plan = aggressive(enc, actor)
    if plan.kind != "attack" or not plan.surpass:
        return plan
    return Plan(kind="attack", target=plan.target, weapon=plan.weapon, before=plan.before, after=plan.after)
