"""The d100 system of seed 002: a BRP-like percentile game with stun and lethal modes, registered as ``d100``.

``SYSTEM.odds`` is :mod:`fracas.systems.d100.odds`, the exact band probabilities
of a d100 test that ``fracas odds d100`` prints and the tests use as oracle.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from fractions import Fraction
from types import ModuleType
from typing import Any

from fracas.core import events as E
from fracas.core.encounter import PRIORITY_ACT, TICKS_PER_SECOND, Encounter
from fracas.core.quality import TestRead
from fracas.core.scenario import parse_duration
from fracas.core.system import Process, registered_policy_names
from fracas.systems.d100 import odds as odds_module
from fracas.systems.d100 import resolution as R
from fracas.systems.d100.oddscmd import D100OddsCommand
from fracas.systems.d100.policies import POLICIES, Plan, decide, reaction, round_start
from fracas.systems.d100.rules import RULE_IDS, D100Rules
from fracas.systems.d100.sheet import Actor, Scenario, luck_of, validate

__all__ = ["D100", "SYSTEM", "outcome_odds", "success_odds", "test_quality"]

DAY = 86_400


def outcome_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(a band at least as good as this test's), exactly (D100-ROLL-1, D100-CRIT-1, D100-ATK-2).

    The band is re-read from the logged roll (``total``), the base skill
    (``difficulty_base``) and the modifiers (``difficulty - difficulty_base``);
    bands rank critical success, success, failure, critical failure, fumble.
    An attack roll (its dice cite D100-ATK-1, or the test is a fumble) has the
    fumble band; other tests do not. None when the test is not a d100 roll,
    or when, without its dice, a critical failure cannot tell an attack from
    another test.
    """
    if dice is not None and dice.sides != 100:
        return None
    if not 1 <= test.total <= 100 or test.kept != 1:
        return None
    attack = test.critical == "fumble" or (dice is not None and dice.rule == "D100-ATK-1")
    mod = test.difficulty - test.difficulty_base
    band = odds_module.band_of(test.total, test.difficulty_base, mod, attack)
    if band == "critical_failure" and dice is None and not attack:
        return None
    bands = odds_module.test_bands(test.difficulty_base, mod, attack=attack)
    order = list(bands)
    return float(sum((bands[b] for b in order[: order.index(band) + 1]), Fraction(0)))


def test_quality(test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
    """The decision-quality reading of a logged d100 test (fracas.core.quality).

    An attack is a test whose roll cites D100-ATK-1; its odds are the exact
    P(critical success or success) of the effective skill, every modifier in
    (the defender's reaction included: that is what the attacker faced).
    Reactions and other tests count as no attack.
    """
    if test.kept != 1 or not 0 <= test.total <= 100:
        return None
    rolled = dice[-1] if dice else None
    if rolled is not None and rolled.sides != 100:
        return None
    attack = rolled is not None and rolled.rule == "D100-ATK-1" and test.target is not None
    mod = test.difficulty - test.difficulty_base
    odds = float(odds_module.odds(test.difficulty_base, mod, attack=attack).p_success)
    return TestRead(attack=attack, odds=odds)


def success_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(this test succeeds), before the roll: its skill and modifiers, exactly (D100-ROLL-1, D100-CRIT-1)."""
    if (dice is not None and dice.sides != 100) or test.kept != 1:
        return None
    attack = test.critical == "fumble" or (dice is not None and dice.rule == "D100-ATK-1")
    mod = test.difficulty - test.difficulty_base
    return float(odds_module.odds(test.difficulty_base, mod, attack=attack).p_success)


class D100:
    name = "d100"
    title = "d100 (BRP-like roll-under, stun and lethal modes)"
    seed_file = "002_95e69bea9d096fe0.txt"
    round_seconds = 5  # [default]: the seed does not say (docs/rules-notes.md)
    rules_type = D100Rules
    scenario_type = Scenario
    rule_ids = RULE_IDS
    odds: ModuleType = odds_module
    odds_command = D100OddsCommand()

    @property
    def policies(self) -> tuple[str, ...]:
        """The built-in policies, then those other packages register (group ``fracas.policies.d100``)."""
        return (*POLICIES, *registered_policy_names(self.name))

    def validate(self, scenario: Any, file: str, text: str) -> None:
        validate(scenario, file, text)

    def bounded_decisions(self, rules: D100Rules) -> bool:
        """Whether the AI's decisions draw a bounded number of sight lines (rules edition 5: tactics.py looks
        at a bounded number of foes; earlier editions search for the nearest foe in sight among all)."""
        return rules.edition >= 5

    def outcome_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability of this test's band or a better one (see :func:`outcome_odds`)."""
        return outcome_odds(test, dice)

    def test_quality(self, test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
        """This test read for the decision-quality report (see :func:`test_quality`)."""
        return test_quality(test, dice)

    def success_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability that this test succeeds, before the roll (see :func:`success_odds`)."""
        return success_odds(test, dice)

    def entered(self, enc: Encounter, actor: Any) -> E.ActorEntered:
        spec: Actor = actor
        return E.ActorEntered(
            actor=spec.id,
            name=spec.name or spec.id,
            side=spec.side,
            x=spec.position[0],
            y=spec.position[1],
            hp=spec.hp,
            ammo={w.name: w.ammo for w in spec.weapons},
            spare={w.name: w.reloads for w in spec.weapons},
            weapons=[w.name for w in spec.weapons],
            resources={"luck": luck_of(spec)},
            policy=spec.policy,
        )

    # ---------------------------------------------------------------- round

    def play_round(self, enc: Encounter, rnd: int) -> Process:
        """D100-INIT-1, D100-TURN-1: initiative, turns counting down, reloads in at the round's end.

        A reload is chosen on the owner's turn and fills the rest of the round (edition 1: committed
        as the round starts, for the whole round).
        """
        actors = [aid for aid, a in enc.state.actors.items() if a.can_act()]
        inits = {aid: R.roll_initiative(enc, aid) for aid in actors}
        order = R.resolution_order(enc, inits)
        reloading: dict[str, Plan] = {}
        at_turn = enc.rules.edition >= 2  # D100-TURN-1: the reload is chosen on the owner's turn
        enc.scratch["d100_reloading"] = reloading
        for aid in [] if at_turn else order:  # edition 1: committed as the round starts, for the whole round
            plan = round_start(enc, aid)
            if plan.kind == "reload":
                self._declare(enc, aid, plan)
                if R.start_reload(enc, aid, plan.weapon):
                    reloading[aid] = plan
        enc.flush()
        top = enc.round_ticks - 1
        procs = [
            enc.env.process(self._turn(enc, aid, max(1, min(inits[aid], top)), rank))
            for rank, aid in enumerate(order)
            if aid not in reloading
        ]
        # wait for each in turn (cheaper than simpy.AllOf; one already over does not wait)
        yield from procs
        if enc.over:
            return
        yield enc.at_count(0, PRIORITY_ACT + len(order))
        for aid, plan in enc.scratch["d100_reloading"].items():
            R.finish_reload(enc, aid, plan.weapon)
        R.end_of_round(enc, rnd)
        enc.check_end()

    def _declare(self, enc: Encounter, aid: str, plan: Plan) -> None:
        enc.emit(
            E.ActionDeclared(
                actor=aid,
                action=plan.kind,
                text=plan.text(enc),
                target=plan.target,
                policy=R.sheet(enc, aid).policy,
                rule="D100-TURN-1",
            )
        )

    def _turn(self, enc: Encounter, aid: str, count: int, rank: int) -> Process:
        """D100-TURN-1: at its count the actor chooses: nothing, or aim and shoot (or ready its weapon)."""
        yield enc.at_count(count, PRIORITY_ACT + rank)
        if enc.over:
            return
        if not enc.state.actors[aid].can_act():
            enc.emit(E.ActionLost(actor=aid, reason="no longer able to act", rule="D100-TURN-1"))
            return
        off_balance = R.IS_OFF_BALANCE in enc.state.actors[aid].conditions
        fumbles = enc.scratch.get("d100_off_balance_fumbles", {}).get(aid, 0)
        plan = decide(enc, aid)
        if plan.kind == "reload":
            if enc.rules.edition < 2:  # edition 1: emptied since the round started, the round is too far gone
                plan = Plan(kind="nothing")
            else:  # D100-TURN-1: the reload fills the rest of the round; the magazine is in at its end
                self._declare(enc, aid, plan)
                if R.start_reload(enc, aid, plan.weapon):
                    enc.scratch["d100_reloading"][aid] = plan
                enc.flush()
                return
        self._declare(enc, aid, plan)
        self._perform(enc, aid, plan)
        a = enc.state.actors[aid]
        # D100-ATK-2: this action paid the off balance it started with; one it fumbled anew is for the next
        # (edition 1 cleared that one too)
        fumbled_again = enc.scratch.get("d100_off_balance_fumbles", {}).get(aid, 0) != fumbles
        if off_balance and R.IS_OFF_BALANCE in a.conditions and not (fumbled_again and enc.rules.edition >= 2):
            enc.emit(E.ConditionCleared(actor=aid, condition=R.IS_OFF_BALANCE, rule="D100-ATK-2"))
        enc.check_end()
        enc.flush()

    def _perform(self, enc: Encounter, aid: str, plan: Plan) -> None:
        weapon = R.weapon_of(enc, aid, plan.weapon)
        if plan.kind == "shoot" and plan.target is not None:
            choice = (
                reaction(enc, plan.target, aid, plan.weapon, plan.mode) if plan.target in enc.state.actors else "none"
            )
            R.shoot(enc, aid, plan.target, plan.weapon, plan.mode, choice)
        elif plan.kind == "clear" and weapon is not None:
            R.clear_jam(enc, aid, weapon)
        elif plan.kind == "unjam" and weapon is not None:
            R.work_serious_jam(enc, aid, weapon)
        elif plan.kind == "pickup" and weapon is not None:
            R.pick_up(enc, aid, weapon.name)
        elif plan.kind == "stand":
            R.stand_up(enc, aid)

    # ------------------------------------------------------------ aftermath

    def aftermath(self, enc: Encounter) -> Process:
        """D100-HP-1, D100-STUN-1, D100-HEAL-1: the clock runs on: first aid, the dying, paralysis, healing."""
        spec = enc.scenario.aftermath
        start = int(enc.env.now)
        end = start + parse_duration(spec.duration) * TICKS_PER_SECOND
        agenda: list[tuple[int, int, str, str]] = []  # (tick, actor index, actor, what)
        index = {aid: i for i, aid in enumerate(enc.state.actors)}
        for aid, a in enc.state.actors.items():
            if "dead" in a.conditions:
                continue
            if R.DYING in a.conditions and spec.treats(a.side):
                R.first_aid(enc, aid)
            if R.DYING in a.conditions:
                agenda.append((R.timers(enc)[(aid, R.DYING)], index[aid], aid, "dies"))
                continue
            for cond in (R.PARALYSED, R.UNCONSCIOUS, R.TETANISED):
                until = R.timers(enc).get((aid, cond))
                if until is not None:
                    agenda.append((max(until, start), index[aid], aid, cond))
            if (a.hp or 0) < (a.hp_max or 0):
                per_day = enc.rules.heal_per_day
                if spec.care == "medicine" and spec.treats(a.side) and R.medicine(enc, aid):
                    per_day *= enc.rules.heal_medicine_multiplier
                enc.scratch.setdefault("d100_heal", {})[aid] = per_day
                agenda.append((start + DAY * TICKS_PER_SECOND, index[aid], aid, "heal"))
        heapq.heapify(agenda)
        while agenda and agenda[0][0] <= end:
            tick, i, aid, what = heapq.heappop(agenda)
            if tick > int(enc.env.now):
                yield enc.env.timeout(tick - int(enc.env.now))
            if what == "dies":
                if R.DYING in enc.state.actors[aid].conditions:
                    R.timers(enc).pop((aid, R.DYING), None)
                    enc.emit(
                        E.ActorDied(actor=aid, cause="dying, not healed by the end of the next round", rule="D100-HP-1")
                    )
            elif what == "heal":
                if R.heal_day(enc, aid, enc.scratch["d100_heal"][aid]):
                    heapq.heappush(agenda, (tick + DAY * TICKS_PER_SECOND, i, aid, "heal"))
            elif what == R.TETANISED:
                R.timers(enc).pop((aid, R.TETANISED), None)
                if R.TETANISED in enc.state.actors[aid].conditions:
                    enc.emit(E.ConditionCleared(actor=aid, condition=R.TETANISED, rule="D100-STUN-1"))
            else:
                R.expire_timers(enc, aid, int(enc.env.now))


SYSTEM = D100()
