"""Point Zéro: the rule system of seed 003, registered as ``point_zero``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import simpy
from fracas.core import events as E
from fracas.core.encounter import PRIORITY_ACT, PRIORITY_MOVE, TICKS_PER_SECOND, Encounter, Turn, play_turns
from fracas.core.quality import TestRead
from fracas.core.scenario import parse_duration
from fracas.core.system import Process, policy_table, registered_policy_names
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero import tactics
from fracas.systems.point_zero.oddscmd import PointZeroOdds
from fracas.systems.point_zero.policies import DECLARED, POLICIES, Plan
from fracas.systems.point_zero.rules import PHYSICAL, RULE_IDS, SHOCK, PointZeroRules
from fracas.systems.point_zero.sheet import Actor, Scenario, validate

__all__ = ["SYSTEM", "PointZero"]


class PointZero:
    name = "point_zero"
    title = "Point Zéro"
    seed_file = "003_bc2a140c3a977501.txt"
    round_seconds = 3  # PZ-ROUND-1
    rules_type = PointZeroRules
    scenario_type = Scenario
    rule_ids = RULE_IDS
    odds_command = PointZeroOdds()

    @property
    def policies(self) -> tuple[str, ...]:
        """The built-in policies, then those other packages register (group ``fracas.policies.point_zero``)."""
        return (*POLICIES, *registered_policy_names(self.name))

    def validate(self, scenario: Any, file: str, text: str) -> None:
        validate(scenario, file, text)

    def bounded_decisions(self, rules: PointZeroRules) -> bool:
        """Whether the AI's decisions weigh a bounded number of foes (rules edition 5: the nearest
        ``tactics.NEAREST_FOES``; earlier editions weigh every foe at every firing cell)."""
        return rules.edition >= tactics.BOUNDED_EDITION

    def outcome_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability of this test's result or a better one (systems/point_zero/odds.py)."""
        from fracas.systems.point_zero.odds import outcome_odds

        return outcome_odds(test, dice)

    def test_quality(self, test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
        """This test read for the decision-quality report (systems/point_zero/odds.py)."""
        from fracas.systems.point_zero.odds import test_quality

        return test_quality(test, dice)

    def success_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability that this test succeeds, before the roll (systems/point_zero/odds.py)."""
        from fracas.systems.point_zero.odds import success_odds

        return success_odds(test, dice)

    def entered(self, enc: Encounter, actor: Any) -> E.ActorEntered:
        spec: Actor = actor
        r: PointZeroRules = enc.rules
        ranged = [w for w in spec.weapons if w.ammo is not None]
        return E.ActorEntered(
            actor=spec.id,
            name=spec.name or spec.id,
            side=spec.side,
            x=spec.position[0],
            y=spec.position[1],
            monitors=[
                E.MonitorSpec(name=PHYSICAL, levels=r.physical_levels, boxes=r.monitor_boxes),
                E.MonitorSpec(name=SHOCK, levels=r.shock_levels, boxes=r.monitor_boxes),
            ],
            ammo={w.name: w.ammo for w in ranged if w.ammo is not None},
            spare={w.name: w.reloads for w in ranged},
            weapons=[w.name for w in spec.weapons],
            policy=spec.policy,
        )

    # ---------------------------------------------------------------- round

    def play_round(self, enc: Encounter, rnd: int) -> Process:
        """PZ-INIT-1..3: initiative, declarations slowest first, resolution counting down."""
        if not R.as_written(enc):
            yield from self._play_round_edition_1(enc, rnd)
            return
        for aid, (_, _) in list(R.under_way(enc).items()):  # PZ-ROUND-1: a collapse breaks the task under way
            if not R.BREAKS_A_TASK.isdisjoint(enc.state.actors[aid].conditions):
                R.interrupt(enc, aid, "interrupted")
        actors = [aid for aid, a in enc.state.actors.items() if R.may_act(enc, a)]
        specs = enc.actor_specs
        busy = R.under_way(enc)
        # PZ-INIT-1: every actor rolls (whether it only moves is known once it has declared)
        inits = {aid: R.roll_initiative(enc, aid, True) for aid in actors}
        order = R.resolution_order(enc, inits)
        plans: dict[str, Plan] = {}
        enc.scratch[DECLARED] = plans  # what the policies see of the declarations made (policies.declared)
        # PZ-INIT-3: the rolls are known as the declarations go round (a move-only one becomes DEP once
        # declared), and who declared an attack on whom (read by the edition-6 AI: tactics.known)
        enc.scratch[tactics.INITIATIVE] = inits
        against: dict[str, list[str]] = {}
        enc.scratch[tactics.DECLARED_AGAINST] = against
        policies = policy_table(self.name, POLICIES, expected="a callable (Encounter, actor id) -> Plan")
        moved_only = False
        for aid in reversed(order):  # PZ-INIT-3: ascending order, each seeing the slower ones' declarations
            if aid in busy:  # PZ-ROUND-1: « ne peut rien faire d'autre »: the task goes on, nobody is asked
                plan, rounds = busy[aid]
                plans[aid] = plan
                if plan.kind == "attack" and plan.target is not None:
                    against.setdefault(plan.target, []).append(aid)
                this = rounds - enc.state.actors[aid].conditions.get(R.BUSY, 0) + 1
                text = f"keeps at it: {plan.text(enc)} (round {this} of {rounds})"
                enc.emit(
                    E.ActionDeclared(actor=aid, action="continue", text=text, target=plan.target, rule="PZ-ROUND-1")
                )
                continue
            plan = plans[aid] = policies[specs[aid].policy](enc, aid)
            if plan.kind == "attack" and plan.target is not None:
                against.setdefault(plan.target, []).append(aid)
            self._declare(enc, aid, plan)
            if not plan.acts():  # PZ-INIT-2: a move-only round resolves at DEP
                inits[aid] = R.roll_initiative(enc, aid, False)
                moved_only = True
        if moved_only:
            order = R.resolution_order(enc, inits)
        enc.flush()
        # wait for each in turn (cheaper than simpy.AllOf; one already over does not wait)
        yield from self._turns(enc, order, inits, plans)
        for aid, a in enc.state.actors.items():
            if "sprinting" in a.conditions:
                enc.emit(E.ConditionCleared(actor=aid, condition="sprinting", rule="PZ-MOVE-3"))

    def _declare(self, enc: Encounter, aid: str, plan: Plan) -> None:
        enc.emit(
            E.ActionDeclared(
                actor=aid,
                action=plan.kind,
                text=plan.text(enc),
                target=plan.target,
                policy=enc.actor_specs[aid].policy,
                rule="PZ-INIT-3",
            )
        )
        if plan.kind in ("sprint", "flee") and plan.after:
            enc.emit(E.ConditionSet(actor=aid, condition="sprinting", value=len(plan.after), rule="PZ-MOVE-3"))

    def _play_round_edition_1(self, enc: Encounter, rnd: int) -> Process:
        """Rules edition 1: plans before initiative, only actors that act roll, declarations then logged ascending."""
        actors = [aid for aid, a in enc.state.actors.items() if a.can_act()]
        specs = enc.actor_specs
        plans: dict[str, Plan] = {}
        inits: dict[str, int] = {}
        policies = policy_table(self.name, POLICIES, expected="a callable (Encounter, actor id) -> Plan")
        for aid in actors:
            plan = plans[aid] = policies[specs[aid].policy](enc, aid)
            inits[aid] = R.roll_initiative(enc, aid, plan.acts())
        order = R.resolution_order(enc, inits)
        for aid in reversed(order):  # PZ-INIT-3: ascending order of initiative
            plan = plans[aid]
            enc.emit(
                E.ActionDeclared(
                    actor=aid,
                    action=plan.kind,
                    text=plan.text(enc),
                    target=plan.target,
                    policy=specs[aid].policy,
                    rule="PZ-INIT-3",
                )
            )
            if plan.kind in ("sprint", "flee") and plan.after:
                enc.emit(E.ConditionSet(actor=aid, condition="sprinting", value=len(plan.after), rule="PZ-MOVE-3"))
        enc.flush()
        # wait for each in turn (cheaper than simpy.AllOf; one already over does not wait)
        yield from self._turns(enc, order, inits, plans)
        for aid, a in enc.state.actors.items():
            if "sprinting" in a.conditions:
                enc.emit(E.ConditionCleared(actor=aid, condition="sprinting", rule="PZ-MOVE-3"))

    def _turns(self, enc: Encounter, order: list[str], inits: dict[str, int], plans: dict[str, Plan]) -> Process:
        """The round's turns in resolution order (:meth:`_turn` each), run inside the round's process by
        :func:`~fracas.core.encounter.play_turns`: one SimPy event per tick that something happens at, not a
        process per actor and an event per wait (C-CLOCK-1). A turn with nothing in it (no move before or after,
        no action: a hold) would end at once, writing nothing (the round's end writes what is pending): it is left
        out. The Shock clocks (PZ-HEAL-1, rules edition 3 on) are the only other processes awake in a round: each
        waits at PRIORITY_ROUND, below every turn's priority, for a tick it asked for a minute before, so it wakes
        before the turns at that tick whichever way they run. tests/unit/test_point_zero_turns.py plays fights both
        ways (a SimPy process for every turn) and compares the logs byte for byte."""
        yield from play_turns(
            enc.env,
            [
                self._turn(enc, aid, inits[aid], plan, rank)
                for rank, aid in enumerate(order)
                if (plan := plans[aid]).before or plan.after or plan.acts()
            ],
        )

    def _turn(self, enc: Encounter, aid: str, init: int, plan: Plan, rank: int) -> Turn:
        """PZ-MOVE-1..3: move metre by metre (one per count), act at init - metres moved (a turn of
        :func:`~fracas.core.encounter.play_turns`: it yields ``(tick, priority)`` to wait for a count)."""
        count = init
        rule = "PZ-MOVE-2"
        written = R.as_written(enc)
        last = 0 if written else 1  # PZ-MOVE-2: the metre that brings initiative to 0 is walked (edition 1: not)
        for cell in plan.before:
            count -= 1
            if count < last:
                enc.emit(E.ActionLost(actor=aid, reason="initiative reached 0 before acting", rule="PZ-MOVE-2"))
                return
            yield enc.tick_of(count), PRIORITY_MOVE + rank
            if enc.over or not R.may_act(enc, enc.state.actors[aid]):
                return
            R.step(enc, aid, cell, count, rule)
            if count == 0 and plan.acts():  # « le Tour du personnage est terminé »: the action is lost
                enc.emit(E.ActionLost(actor=aid, reason="initiative reached 0 before acting", rule="PZ-MOVE-2"))
                return
        if plan.acts():
            yield enc.tick_of(count), PRIORITY_ACT + rank
            if enc.over:
                return
            if not R.may_act(enc, enc.state.actors[aid]):
                enc.emit(E.ActionLost(actor=aid, reason="no longer able to act", rule="PZ-INIT-4"))
                return
            self._perform(enc, aid, plan)
            enc.flush()
            if aid in R.under_way(enc):  # PZ-ROUND-1: busy with a longer action: no free move after it
                return
        else:
            rule = "PZ-MOVE-3"
        exit_cell = None
        if plan.kind == "flee":
            exit_cell = next(((e.x, e.y) for e in enc.scenario.map.exits if e.name == plan.exit), None)
        for cell in plan.after:
            count -= 1
            if count < last:
                break
            yield enc.tick_of(count), PRIORITY_MOVE + rank
            if enc.over or not R.may_act(enc, enc.state.actors[aid]):
                return
            R.step(enc, aid, cell, count, rule)
            if plan.kind == "flee" and cell == exit_cell and plan.exit is not None:
                enc.emit(E.ActorFled(actor=aid, exit=plan.exit, rule="C-END-1"))
                enc.check_end()
                break
        enc.flush()

    def _perform(self, enc: Encounter, aid: str, plan: Plan) -> None:
        if aid in R.under_way(enc):  # PZ-ROUND-1: one more Tour of a longer action
            if not R.BREAKS_A_TASK.isdisjoint(enc.state.actors[aid].conditions):
                R.interrupt(enc, aid, "interrupted")
                return
            if not R.go_on_with(enc, aid):
                return
        else:
            rounds = R.action_rounds(enc, aid, plan.kind, plan.weapon)
            if rounds > 1:
                R.start_long_action(enc, aid, plan, rounds)
                return
        if plan.kind == "attack" and plan.target is not None:
            surpass: int | None = min(plan.surpass, enc.rules.surpass_max)
            if enc.actor_specs[aid].policy in tactics.COMPETENT and enc.rules.edition >= tactics.COMPETENT_EDITION:
                surpass = tactics.at_resolution(enc, aid, plan.target, plan.weapon, surpass or 0)
                if surpass is None:
                    enc.emit(
                        E.ActionLost(actor=aid, reason=f"holds fire: {plan.target} cannot be hit now", rule="PZ-INIT-4")
                    )
                    return
            R.attack(enc, aid, plan.target, plan.weapon, surpass or 0)
        elif plan.kind == "reload":
            R.reload(enc, aid, plan.weapon)
        elif plan.kind in ("clear", "pickup"):
            R.ready_weapon(enc, aid, plan.weapon)
        elif plan.kind == "aim" and plan.target is not None:
            R.aim(enc, aid, plan.target)
        elif plan.kind == "surrender":
            enc.emit(E.ActorSurrendered(actor=aid, rule="C-END-1"))
            enc.check_end()

    # ------------------------------------------------------------ aftermath

    def aftermath(self, enc: Encounter) -> Process:
        """PZ-MON-6, PZ-HEAL-1..3: the clock runs on after the fight."""
        spec = enc.scenario.aftermath
        now = int(enc.env.now)
        end = now + parse_duration(spec.duration) * TICKS_PER_SECOND
        shock_step = enc.rules.shock_heal_seconds * TICKS_PER_SECOND
        marked_at: dict[tuple[str, int], float] = enc.scratch.get("pz_marked_at", {})
        cared: dict[str, bool] = {}
        procs = []
        for aid, a in enc.state.actors.items():
            if "dead" in a.conditions:
                continue
            if spec.treats(a.side) and a.monitors[PHYSICAL].worst() >= 0:
                cared[aid] = R.medicine_test(enc, aid, spec)
                worst = a.monitors[PHYSICAL].worst()
                if cared[aid] and worst >= 2:
                    if worst == 3:
                        enc.emit(
                            E.WoundHealed(
                                actor=aid,
                                monitor=PHYSICAL,
                                level=3,
                                to_level=2,
                                boxes=a.monitors[PHYSICAL].marked[3],
                                rule="PZ-HEAL-3",
                            )
                        )
                    enc.emit(E.ConditionSet(actor=aid, condition="stabilised", rule="PZ-HEAL-3"))
                    R.update_conditions(enc, aid)
            # A wound that cannot change before the end needs no process of its own (nothing
            # else happens between here and a process's first step, so the test is the same).
            first_shock = self._first_shock_heal(enc, aid, now, shock_step)
            if a.monitors[SHOCK].worst() >= 0 and first_shock <= end:
                procs.append(enc.env.process(self._shock_heals(enc, aid, end, first_shock)))
            m = a.monitors[PHYSICAL]
            stabilised = "stabilised" in a.conditions
            for level in range(len(m.levels) - 1, -1, -1):
                if m.marked[level]:
                    first = self._physical_change_at(enc, aid, level, cared.get(aid, False), stabilised, marked_at)
                    if first is not None and first <= end:
                        procs.append(
                            enc.env.process(
                                self._physical(enc, aid, level, m.marked[level], cared.get(aid, False), end)
                            )
                        )
        if procs:
            yield simpy.AllOf(enc.env, procs)

    def _first_shock_heal(self, enc: Encounter, aid: str, now: int, step: int) -> int:
        """PZ-HEAL-1: the tick the next Shock box clears: the fight's clock runs on (edition 1: a minute from now)."""
        clock: int | None = enc.scratch.get(R.SHOCK_CLOCK, {}).get(aid)
        return max(clock, now) if clock is not None and R.as_written(enc) else now + step

    def _shock_heals(self, enc: Encounter, aid: str, end: int, first: int) -> Process:
        """PZ-HEAL-1: one Shock box per minute, the highest first."""
        step = enc.rules.shock_heal_seconds * TICKS_PER_SECOND
        wake = first
        while True:
            m = enc.state.actors[aid].monitors[SHOCK]
            level = m.worst()
            if level < 0 or wake > end or "dead" in enc.state.actors[aid].conditions:
                return
            yield enc.env.timeout(wake - int(enc.env.now))
            wake += step
            if "dead" in enc.state.actors[aid].conditions:
                return
            enc.emit(E.WoundHealed(actor=aid, monitor=SHOCK, level=level, to_level=-1, boxes=1, rule="PZ-HEAL-1"))
            R.update_conditions(enc, aid)

    def _physical_change_at(
        self,
        enc: Encounter,
        aid: str,
        level: int,
        cared: bool,
        stabilised: bool,
        marked_at: dict[tuple[str, int], float],
    ) -> int | None:
        """PZ-MON-6 / PZ-HEAL-2: the tick at which a wound at ``level`` next changes; None: never.

        Fatale kills VIG minutes after it was marked (a stabilised one counts as Critique);
        Critique untreated turns Fatale VIG hours after it was marked; otherwise the wound
        heals one level after its level's hours, counted from now.
        """
        if level == 3 and stabilised:
            level = 2
        r: PointZeroRules = enc.rules
        vig = R.sheet(enc, aid).attributes.VIG
        marked = marked_at.get((aid, level), 0.0) * TICKS_PER_SECOND
        since = round(marked) if R.as_written(enc) else int(marked)  # edition 1 truncated 16.06 s to tick 1605
        if level == 3:
            return since + vig * 60 * TICKS_PER_SECOND
        if level == 2 and not stabilised:
            return since + vig * 3600 * TICKS_PER_SECOND
        hours = (r.heal_hours_care if cared else r.heal_hours_no_care)[level]
        return None if hours < 0 else int(enc.env.now) + hours * 3600 * TICKS_PER_SECOND

    def _physical(self, enc: Encounter, aid: str, level: int, boxes: int, cared: bool, end: int) -> Process:
        """PZ-MON-6 and PZ-HEAL-2: wounds worsen untreated, or heal one level per step."""
        vig = R.sheet(enc, aid).attributes.VIG
        marked_at: dict[tuple[str, int], float] = enc.scratch.get("pz_marked_at", {})
        stabilised = "stabilised" in enc.state.actors[aid].conditions
        if level == 3 and stabilised:
            level = 2
        while level >= 0:
            a = enc.state.actors[aid]
            if "dead" in a.conditions:
                return
            wake = self._physical_change_at(enc, aid, level, cared, stabilised, marked_at)
            if wake is None or wake > end:
                return
            yield enc.env.timeout(max(0, wake - int(enc.env.now)))
            if level == 3:  # Fatale: VIG minutes without intensive care, then death
                enc.emit(E.ActorDied(actor=aid, cause=f"Fatale wound untreated for {vig} minutes", rule="PZ-MON-6"))
                return
            if level == 2 and not stabilised:  # Critique: VIG hours untreated, then Fatale
                enc.emit(
                    E.WoundWorsened(actor=aid, monitor=PHYSICAL, level=2, to_level=3, boxes=boxes, rule="PZ-MON-6")
                )
                marked_at[(aid, 3)] = enc.now_seconds
                R.update_conditions(enc, aid)
                level = 3
                continue
            enc.emit(  # healed one level
                E.WoundHealed(
                    actor=aid, monitor=PHYSICAL, level=level, to_level=level - 1, boxes=boxes, rule="PZ-HEAL-2"
                )
            )
            if level == 2:
                enc.emit(E.ConditionCleared(actor=aid, condition="stabilised", rule="PZ-HEAL-2"))
            R.update_conditions(enc, aid)
            level -= 1


SYSTEM = PointZero()
