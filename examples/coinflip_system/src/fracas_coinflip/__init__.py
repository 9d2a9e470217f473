"""Coinflip: a tiny rule system for fracas, the complete plugin example of docs/plugins.md.

Each round every able actor rolls 1d6 for initiative (CF-INIT-1) and, at its
count, shoots one foe chosen by its policy: 1d6 + aim against ``hit_on``
(CF-SHOT-1); a hit removes ``damage`` hit points and an actor at 0 dies
(CF-HARM-1). Nothing happens after the fight (CF-AFTER-1).

Everything comes from :mod:`fracas.plugin`; fracas never imports this
package: it finds :data:`SYSTEM` through the ``fracas.systems`` entry point.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

import msgspec
from fracas.plugin import (
    PRIORITY_ACT,
    ActionDeclared,
    ActionLost,
    ActorBase,
    ActorDied,
    ActorEntered,
    ActorState,
    DiceRolled,
    Encounter,
    HitPointsChanged,
    InitiativeSet,
    Modifier,
    Process,
    RuleSystem,
    ScenarioBase,
    ScenarioError,
    SkillTested,
    check_common,
    locate,
    policy_table,
    registered_policy_names,
    tie_broken_order,
)

__all__ = ["POLICIES", "RULE_IDS", "SYSTEM", "Actor", "Coinflip", "CoinflipRules", "Policy", "Scenario"]

RULE_IDS: Mapping[str, str] = {
    "CF-INIT-1": "each round every able actor rolls 1d6 initiative; higher acts first, ties are rolled off",
    "CF-SHOT-1": "a shot hits when 1d6 + the shooter's aim reaches hit_on",
    "CF-HARM-1": "a hit removes `damage` hit points; an actor at 0 hit points dies",
    "CF-AFTER-1": "nothing heals or bleeds after the fight",
}


class CoinflipRules(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The values a scenario's ``[rules]`` may override."""

    hit_on: int = 4  # CF-SHOT-1
    damage: int = 1  # CF-HARM-1


class Actor(ActorBase, frozen=True, kw_only=True):
    """A Coinflip actor: the shared fields plus hit points and aim."""

    hp: int = 3
    aim: int = 0


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    actors: list[Actor]  # narrows ScenarioBase.actors: msgspec validates each actor's sheet fields


#: A policy: the id of the foe to shoot, or None to hold fire. Deterministic: no randomness.
Policy = Callable[[Encounter, str], "str | None"]


def foes(enc: Encounter, actor: str) -> list[ActorState]:
    """The able actors of the other sides, in the order they entered."""
    me = enc.state.actors[actor]
    return [a for a in enc.state.actors.values() if a.side != me.side and a.can_act()]


def aggressive(enc: Encounter, actor: str) -> str | None:
    """The foe with the fewest hit points left, then the first by id."""
    ranked = sorted(foes(enc, actor), key=lambda f: (f.hp or 0, f.id))
    return ranked[0].id if ranked else None


def nearest(enc: Encounter, actor: str) -> str | None:
    """The nearest foe (grid distance), then the first by id."""
    me = enc.state.actors[actor]
    ranked = sorted(foes(enc, actor), key=lambda f: (max(abs(f.x - me.x), abs(f.y - me.y)), f.id))
    return ranked[0].id if ranked else None


POLICIES: Mapping[str, Policy] = {"aggressive": aggressive, "nearest": nearest}


def shot_odds(difficulty: int) -> float:
    """P(1d6 >= difficulty), exactly (CF-SHOT-1)."""
    return min(6, max(0, 7 - difficulty)) / 6


class Coinflip:
    """The rule system object that the ``fracas.systems`` entry point names."""

    name = "coinflip"
    title = "Coinflip (the plugin example of docs/plugins.md)"
    seed_file = "examples/coinflip_system/README.md"
    round_seconds = 6
    rules_type = CoinflipRules
    scenario_type = Scenario
    rule_ids = RULE_IDS

    @property
    def policies(self) -> tuple[str, ...]:
        """The built-in policies, then those other packages register (group ``fracas.policies.coinflip``)."""
        return (*POLICIES, *registered_policy_names(self.name))

    def validate(self, scenario: Any, file: str, text: str) -> None:
        spec = cast(Scenario, scenario)
        check_common(spec, file, text, self.policies)
        for i, actor in enumerate(spec.actors):
            if actor.hp < 1:
                path = f"$.actors[{i}].hp"
                raise ScenarioError(file, path, f"expected at least 1, got {actor.hp}", line=locate(text, path))

    def outcome_odds(self, test: SkillTested, dice: DiceRolled | None) -> float | None:
        """For ``fracas audit``: P(a roll at least this good), exactly; None for a roll that is not a shot."""
        if test.rule != "CF-SHOT-1" or (dice is not None and dice.sides != 6):
            return None
        return shot_odds(test.total)

    def entered(self, enc: Encounter, actor: Any) -> ActorEntered:
        spec = cast(Actor, actor)
        return ActorEntered(
            actor=spec.id,
            name=spec.name or spec.id,
            side=spec.side,
            x=spec.position[0],
            y=spec.position[1],
            hp=spec.hp,
            policy=spec.policy,
        )

    def play_round(self, enc: Encounter, rnd: int) -> Process:
        """CF-INIT-1: initiative, then each actor shoots at its count, highest first."""
        inits: dict[str, int] = {}
        for aid, a in enc.state.actors.items():
            if a.can_act():
                inits[aid] = enc.roll(1, 6, actor=aid, purpose="initiative", rule="CF-INIT-1")[0]
                enc.emit(InitiativeSet(actor=aid, value=inits[aid], rule="CF-INIT-1"))
        order = tie_broken_order(enc, inits, lambda aid: (-inits[aid],), rule="CF-INIT-1")
        enc.flush()
        policies = policy_table(self.name, POLICIES, expected="a callable (Encounter, actor id) -> foe id or None")
        for rank, aid in enumerate(order):
            yield enc.at_count(inits[aid], PRIORITY_ACT + rank)
            if enc.over:
                return
            if not enc.state.actors[aid].can_act():
                enc.emit(ActionLost(actor=aid, reason="no longer able to act", rule="CF-INIT-1"))
                continue
            spec = cast(Actor, enc.actor_specs[aid])
            target = policies[spec.policy](enc, aid)
            text = f"shoot at {target}" if target is not None else "hold fire"
            enc.emit(
                ActionDeclared(
                    actor=aid,
                    action="shoot" if target else "hold",
                    text=text,
                    target=target,
                    policy=spec.policy,
                    rule="CF-INIT-1",
                )
            )
            if target is not None:
                self._shoot(enc, spec, target)
            enc.check_end()
            enc.flush()

    def _shoot(self, enc: Encounter, shooter: Actor, target: str) -> None:
        """CF-SHOT-1, CF-HARM-1."""
        rules = cast(CoinflipRules, enc.rules)
        face = enc.roll(1, 6, actor=shooter.id, purpose=f"shot at {target}", rule="CF-SHOT-1")[0]
        aim = [Modifier(name="aim", value=-shooter.aim, rule="CF-SHOT-1")] if shooter.aim else []
        difficulty = rules.hit_on - shooter.aim
        enc.emit(
            SkillTested(
                actor=shooter.id,
                rule="CF-SHOT-1",
                skill="shoot",
                kept=1,
                dice_total=face,
                modifiers=aim,
                difficulty=difficulty,
                difficulty_base=rules.hit_on,
                total=face,
                success=face >= difficulty,
                margin=face - difficulty,
                target=target,
            )
        )
        if face < difficulty:
            return
        hp = max(0, (enc.state.actors[target].hp or 0) - rules.damage)
        enc.emit(HitPointsChanged(actor=target, delta=-rules.damage, hp=hp, rule="CF-HARM-1"))
        if hp == 0:
            enc.emit(ActorDied(actor=target, cause="out of hit points", rule="CF-HARM-1"))

    def aftermath(self, enc: Encounter) -> Process:
        """CF-AFTER-1: nothing happens after the fight."""
        yield from ()


SYSTEM: RuleSystem = Coinflip()  # mypy checks here that Coinflip satisfies the contract
