"""Z-Corps (D6 System): the rule system of seed 000, registered as ``zcorps``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import simpy
from fracas.core import events as E
from fracas.core.encounter import PRIORITY_ACT, PRIORITY_MOVE, TICKS_PER_SECOND, Encounter, Turn, play_turns
from fracas.core.quality import Extra, TestRead
from fracas.core.scenario import parse_duration
from fracas.core.state import DISABLING
from fracas.core.system import Process, policy_table, registered_policy_names
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, parse_code, success_probability
from fracas.systems.zcorps.oddscmd import ZCorpsOdds
from fracas.systems.zcorps.policies import POLICIES, Policy, defend_melee, defend_ranged, wants_extra_action
from fracas.systems.zcorps.rules import (
    INCAPACITATED,
    MORTALLY,
    RULE_IDS,
    STUNNED,
    WOUND_LEVELS,
    WOUNDED,
    WOUNDS,
    ZCorpsRules,
)
from fracas.systems.zcorps.sheet import Actor, Scenario, validate

__all__ = ["SYSTEM", "ZCorps", "logged_pool", "outcome_odds", "success_odds", "test_quality"]

_CODE = r"\d+D(?:\+\d+)?"
#: The ``skill`` text of resolution.skill_test (and the stamina and medicine tests).
_TEST_LABEL = re.compile(
    rf"(?P<skill>[a-z_]+) (?P<code>{_CODE})(?: doubled by Cojones = (?P<twice>{_CODE}))?"
    r"(?P<mods>(?: [+-]\d+D [^+]*?)*)(?P<reroll> \(Cojones reroll\))?"
)
#: ZC-COJ-1 as written (rules edition 2): the pool modifiers, then the doubled pool actually rolled.
_DOUBLED_LABEL = re.compile(
    rf"(?P<skill>[a-z_]+) (?P<code>{_CODE})(?P<mods>(?: [+-]\d+D [^+]*?)*)"
    rf" doubled by Cojones = (?P<rolled>{_CODE})(?P<reroll> \(Cojones reroll\))?"
)
_HEALING_LABEL = re.compile(rf"natural healing \(Puissance (?P<code>{_CODE})\)")
_POOL_MOD = re.compile(r" ([+-]\d+)D ")


def logged_pool(test: E.SkillTested) -> tuple[DCode, int] | None:
    """(the D code rolled, CP dice bought) of a logged Z-Corps test, read from its ``skill`` text and ``kept``.

    The text names the code, a Cojones doubling and every pool modifier
    ("firearms 4D+1 -1D wounded +1D aimed"); ``kept`` counts the code's dice
    plus the CP dice. None when the text does not say the pool (an escape
    names the unpenalised Puissance) or the counts disagree.
    """
    d = _DOUBLED_LABEL.fullmatch(test.skill)
    m = _TEST_LABEL.fullmatch(test.skill) if d is None else None
    if d is not None:
        rolled = parse_code(d.group("rolled"))
        cp = test.kept - rolled.dice
        return (rolled, 0) if cp == 0 else None  # no CP on a doubled roll
    if m is not None:
        code = parse_code(m.group("twice") or m.group("code"))
        extra = sum(int(d) for d in _POOL_MOD.findall(m.group("mods") + " "))
        rolled = DCode(code.dice + extra, code.pips)
    else:
        h = _HEALING_LABEL.fullmatch(test.skill)
        if h is None:
            return None
        rolled = parse_code(h.group("code"))
    cp = test.kept - rolled.dice
    if cp < 0 or cp > 3 or (cp and (m is None or m.group("twice") or m.group("reroll"))):
        return None
    return rolled, cp


def outcome_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(a roll total at least this test's), with the same pool and the same CP dice: this outcome or better.

    The roll total is ``dice_total`` + the code's pips (an attack bonus is
    the same either way). None for a pool of no dice (automatic failure,
    ZC-DICE-1), a test whose text does not say its pool, and two or more CP
    dice (their number of Jokers depends on the ``all_cp_wild`` rule, which
    the test does not carry).
    """
    pool = logged_pool(test)
    if pool is None:
        return None
    rolled, cp = pool
    if rolled.dice <= 0 or cp >= 2 or (dice is not None and dice.sides != 6):
        return None
    return float(success_probability(rolled, test.dice_total + rolled.pips, cp=cp))


#: The attack tests of Z-Corps: shots and blows (ZC-ATK-1) and manoeuvres (ZC-BRAWL-1).
_ATTACK_RULES = ("ZC-ATK-1", "ZC-BRAWL-1")


def _cp_at_least(plain: int, jokers: int, gap: int) -> float:
    """P(``plain`` plain d6 + ``jokers`` (0 or 1) exploding d6 whose 1 is plain >= ``gap``), exactly (ZC-CP-1)."""
    if gap <= 0:
        return 1.0
    sums: dict[int, Fraction] = {0: Fraction(1)}
    for _ in range(plain):
        nxt: dict[int, Fraction] = {}
        for t, p in sums.items():
            for face in range(1, 7):
                nxt[t + face] = nxt.get(t + face, Fraction(0)) + p / 6
        sums = nxt
    total = Fraction(0)
    for t, p in sums.items():
        need = gap - t
        if jokers == 0:
            total += p if need <= 0 else 0
            continue
        # one exploding die: P(X >= g) = 6**-k * (7 - (g - 6k)) / 6 with k = (g - 1) // 6 (ZC-WILD-1)
        if need <= 0:
            total += p
        else:
            k = (need - 1) // 6
            total += p * Fraction(7 - (need - 6 * k), 6) / 6**k
    return float(total)


def test_quality(test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
    """The decision-quality reading of a logged Z-Corps test (fracas.core.quality).

    Attacks are ZC-ATK-1 and ZC-BRAWL-1 tests with a target. The odds are the
    exact odds of the pool as rolled (before any CP), against the difficulty
    less the attack bonus. CP are bought after the roll (ZC-CP-1): their worth
    is P(the CP dice make up what the roll lacked). A Cojones doubling
    (ZC-COJ-1) is worth the odds of the doubled pool less the plain one's; a
    Cojones reroll, the odds of the reroll (the first roll had failed). The target's active defence (ZC-DEF-1)
    is worth the odds the attack would have had without its total, less the odds it had; the attack's own odds
    leave it out (it is rolled after the declaration: the attacker could not know it).
    """
    pool = logged_pool(test)
    match = _TEST_LABEL.fullmatch(test.skill)
    if pool is None or match is None:
        return None
    rolled, cp = pool
    bonus = test.total - test.dice_total - rolled.pips
    vs = test.difficulty - bonus

    def p(code: DCode) -> float:
        return 0.0 if code.dice <= 0 else float(success_probability(code, vs))

    odds = p(rolled)
    extras: list[Extra] = []
    reroll = match.group("reroll") is not None
    if reroll:
        extras.append(Extra(kind="cojones", amount=1, before=0.0, after=odds))
    elif match.group("twice"):
        plain = parse_code(match.group("code"))
        extra_dice = rolled.dice - parse_code(match.group("twice")).dice
        extras.append(Extra(kind="cojones", amount=1, before=p(DCode(plain.dice + extra_dice, plain.pips)), after=odds))
    if cp:
        # the test's own CP dice: those rolled after its roll, at the end of the actor's dice since its last test
        # (earlier ones were bought for a damage or resistance roll in between)
        cp_dice: list[E.DiceRolled] = []
        for d in reversed(dice):
            if d.rule != "ZC-CP-1":
                break
            cp_dice.insert(0, d)
        # a second CP Joker (option all_cp_wild) is read as a plain die: a slight underestimate of its worth
        jokers = min(1, sum(1 for d in cp_dice if "Joker" in d.purpose))
        cp_sum = sum(sum(d.faces) for d in cp_dice)
        gap = test.difficulty - (test.total - cp_sum)
        extras.append(Extra(kind="cp", amount=cp, before=0.0, after=_cp_at_least(cp - jokers, jokers, gap)))
    attack = test.rule in _ATTACK_RULES and test.target is not None and not reroll
    # ZC-DEF-1: the target's active defence, as rolled, added to the difficulty: the odds it took off this attack
    # (rolled after the attack was declared: the attack's own odds, the attacker's choice, leave it out)
    guard = next((m.value for m in test.modifiers if m.rule == "ZC-DEF-1"), None) if attack else None
    if guard is None:
        return TestRead(attack=attack, odds=odds, extras=tuple(extras))
    without = 0.0 if rolled.dice <= 0 else float(success_probability(rolled, vs - guard))
    defence = Extra(kind="active defence", amount=guard, before=without, after=odds)
    return TestRead(attack=attack, odds=without, extras=tuple(extras), defence=defence)


def success_odds(test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
    """P(this test succeeds), before the roll: the same pool and CP dice against the difficulty as it stood.

    The difficulty's own dice (cover, light: ZC-COVER-1) are taken as rolled;
    the flat bonus is ``total`` minus the roll total. None as for :func:`outcome_odds`.
    """
    pool = logged_pool(test)
    if pool is None:
        return None
    rolled, cp = pool
    if rolled.dice <= 0 or cp >= 2 or (dice is not None and dice.sides != 6):
        return None
    bonus = test.total - (test.dice_total + rolled.pips)
    return float(success_probability(rolled, test.difficulty - bonus, cp=cp))


class ZCorps:
    name = "zcorps"
    title = "Z-Corps (D6 System)"
    seed_file = "000_8667c09cf01a5ff4.txt"
    round_seconds = 5  # [ref] OpenD6: a round is 5 seconds
    rules_type = ZCorpsRules
    scenario_type = Scenario
    rule_ids = RULE_IDS
    odds_command = ZCorpsOdds()

    @property
    def policies(self) -> tuple[str, ...]:
        """The built-in policies, then those other packages register (group ``fracas.policies.zcorps``)."""
        return (*POLICIES, *registered_policy_names(self.name))

    def validate(self, scenario: Any, file: str, text: str) -> None:
        validate(scenario, file, text)

    def outcome_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability of this test's roll total or a better one (see :func:`outcome_odds`)."""
        return outcome_odds(test, dice)

    def test_quality(self, test: E.SkillTested, dice: Sequence[E.DiceRolled]) -> TestRead | None:
        """This test read for the decision-quality report (see :func:`test_quality`)."""
        return test_quality(test, dice)

    def success_odds(self, test: E.SkillTested, dice: E.DiceRolled | None) -> float | None:
        """The exact probability that this test succeeds, before the roll (see :func:`success_odds`)."""
        return success_odds(test, dice)

    def entered(self, enc: Encounter, actor: Any) -> E.ActorEntered:
        spec: Actor = actor
        ammo: dict[str, int] = {}
        spare: dict[str, int] = {}
        for w in spec.weapons:
            if w.magazine:
                ammo[w.name] = w.magazine
                spare[w.name] = w.spare
        return E.ActorEntered(
            actor=spec.id,
            name=spec.name or spec.id,
            side=spec.side,
            x=spec.position[0],
            y=spec.position[1],
            monitors=[E.MonitorSpec(name=WOUNDS, levels=list(WOUND_LEVELS), boxes=[1] * len(WOUND_LEVELS))],
            ammo=ammo,
            spare=spare,
            weapons=[w.name for w in spec.weapons],
            resources={"cp": spec.cp, "cojones": spec.cojones} if spec.cp or spec.cojones else {},
            policy=spec.policy,
        )

    # ---------------------------------------------------------------- round

    def play_round(self, enc: Encounter, rnd: int) -> Process:
        """ZC-INIT-1: initiative rolls, then each action at total, total-10, ... counting down."""
        actors = [aid for aid, a in enc.state.actors.items() if a.can_act()]
        inits = R.roll_initiatives(enc, actors)
        order = R.resolution_order(enc, inits)
        for aid in order:
            R.action_counts(enc, aid, inits[aid], wants_extra_action(enc, aid))
        enc.flush()
        policies = policy_table(self.name, POLICIES, expected="a callable (Encounter, actor id) -> Plan")
        pending = R.book(enc).pending
        # every actor's turns in the clock's order, without a SimPy process each (C-CLOCK-1)
        yield from play_turns(
            enc.env, [self._turns(enc, aid, rank, pending[aid], policies) for rank, aid in enumerate(order)]
        )
        if not enc.over:
            R.end_of_round(enc, rnd)
            enc.check_end()

    def _turns(self, enc: Encounter, aid: str, rank: int, pending: list[int], policies: dict[str, Policy]) -> Turn:
        """One actor's actions of the round, each at its count (a turn of :func:`play_turns`).

        ``pending``: the counts of its actions (the round's book); ``policies``: the policy table.
        """
        policy_name = R.traits(enc, aid).policy
        policy = policies[policy_name]
        last = enc.tick_of(0)  # count c of this round is tick last - c
        priority = PRIORITY_ACT + rank
        conditions = enc.state.actors[aid].conditions  # an actor's state is one object all fight long
        for count in list(pending):
            yield last - count, priority
            if enc.over:
                return
            if count not in pending:
                continue  # spent on an active defence (ZC-DEF-1)
            pending.remove(count)
            if not DISABLING.isdisjoint(conditions):  # not can_act()
                enc.emit(E.ActionLost(actor=aid, reason="no longer able to act", rule="C-ILLEGAL-1"))
                return
            if "active_defence" in conditions or "partial_defence" in conditions:  # most actions find neither
                R.action_begins(enc, aid)
            plan = policy(enc, aid)
            enc.emit(
                E.ActionDeclared(
                    actor=aid,
                    action=plan.kind,
                    text=plan.text(),
                    target=plan.target,
                    policy=policy_name,
                    rule="ZC-INIT-1",
                )
            )
            if plan.kind == "move":  # the only action that waits (a metre per count)
                yield from self._move(enc, aid, plan, count, rank)
            else:
                self._perform(enc, aid, plan)
            enc.flush()

    def _perform(self, enc: Encounter, aid: str, plan: R.Plan) -> None:
        """Every action but a move: done at once."""
        if plan.kind == "shoot":
            R.shoot(enc, aid, plan, defend_ranged)
        elif plan.kind in ("strike", "manoeuvre"):
            R.strike(enc, aid, plan, defend_melee)
        elif plan.kind == "bite":
            R.bite(enc, aid, plan.target)
        elif plan.kind == "escape":
            R.escape(enc, aid)
        elif plan.kind == "stand":
            R.stand_up(enc, aid)
        elif plan.kind == "reload":
            R.reload(enc, aid, plan.weapon)
        elif plan.kind == "aim" and plan.target is not None:
            R.aim(enc, aid, plan.target)
        enc.check_end()

    def _move(self, enc: Encounter, aid: str, plan: R.Plan, count: int, rank: int) -> Turn:
        """ZC-MOVE-1: one metre per initiative count from the action's count (a move is an action)."""
        rule = "ZC-MOVE-1" if enc.rules.edition >= 3 else "C-CLOCK-1"  # editions 1 and 2 cited the clock
        if not plan.path and not enc.battlefield.open:
            # walls on the map: say why the mover stays (on open ground an empty path is a crowd, as it always was)
            enc.emit(E.ActionLost(actor=aid, reason=R.no_step_reason(enc, aid, plan), rule="C-ILLEGAL-1"))
            return
        last = enc.tick_of(0)
        priority = PRIORITY_MOVE + rank
        a = enc.state.actors[aid]
        conditions = a.conditions  # an actor's state is one object all fight long
        standing = enc.crowd.cells  # who stands on each cell
        for i, cell in enumerate(plan.path):
            at = count - i if count - i > 1 else 1
            if i:
                yield last - at, priority
            # not can_act(), written out: this runs at every metre
            if enc.over or not DISABLING.isdisjoint(conditions) or "grabbed" in conditions:
                return
            there = standing.get(cell)  # crowd.is_occupied(cell, aid), written out
            if there and (len(there) > 1 or there[0] != aid):
                return
            enc.emit(E.Moved(actor=aid, x=cell[0], y=cell[1], metres=a.moved + 1, initiative=at, rule=rule))
        enc.check_end()

    # ------------------------------------------------------------ aftermath

    def aftermath(self, enc: Encounter) -> Process:
        """ZC-WOUND-1, ZC-HEAL-1: mortal rolls each round, wake-ups, medicine, natural healing."""
        spec = enc.scenario.aftermath
        now = int(enc.env.now)
        end = now + parse_duration(spec.duration) * TICKS_PER_SECOND
        medic, code = R.medic_code(enc, spec)
        procs = []
        for aid, a in enc.state.actors.items():
            if "dead" in a.conditions or R.sheet(enc, aid).undead:
                continue
            m = a.monitors[WOUNDS]
            if m.marked[STUNNED]:
                enc.emit(
                    E.WoundHealed(actor=aid, monitor=WOUNDS, level=STUNNED, to_level=-1, boxes=1, rule="ZC-WOUND-1")
                )
            if m.worst() >= 0:
                if code is not None and spec.treats(a.side):
                    procs.append(enc.env.process(self._recover(enc, aid, medic, code, end)))
                    continue
                # Untreated, a wound that cannot change before the end needs no process (nothing else
                # happens to this actor between here and a process's first step, so the test is the same).
                first = self._untreated_change_at(enc, aid, now)
                if first is not None and first <= end:
                    procs.append(enc.env.process(self._recover(enc, aid, None, None, end)))
        if procs:
            yield simpy.AllOf(enc.env, procs)

    def _recover(self, enc: Encounter, aid: str, medic: str | None, code: Any, end: int) -> Process:
        r: ZCorpsRules = enc.rules
        step = enc.system.round_seconds * TICKS_PER_SECOND
        care_every = r.care_minutes * 60 * TICKS_PER_SECOND
        next_care = int(enc.env.now)
        # Mortally Wounded: a Puissance roll every round until treated or dead
        while "mortally_wounded" in enc.state.actors[aid].conditions:
            if code is not None and int(enc.env.now) >= next_care:
                next_care += care_every
                if R.medicine_test(enc, aid, medic, code):
                    break
            if int(enc.env.now) + step > end:
                return
            yield enc.env.timeout(step)
            if R.mortal_roll(enc, aid):
                return
        a = enc.state.actors[aid]
        if "unconscious" in a.conditions:
            wake = self._unconscious_until(enc, aid)
            if wake is not None:
                if wake > end:
                    return
                yield enc.env.timeout(max(0, wake - int(enc.env.now)))
                enc.emit(E.ConditionCleared(actor=aid, condition="unconscious", rule="ZC-WOUND-1"))
        # ZC-HEAL-1: medicine, one level per success, each try taking care_minutes
        if code is not None:
            while R.worst_level(enc.state.actors[aid]) >= 0:
                if int(enc.env.now) < next_care:
                    if next_care > end:
                        return
                    yield enc.env.timeout(next_care - int(enc.env.now))
                next_care = int(enc.env.now) + care_every
                if not R.medicine_test(enc, aid, medic, code):
                    break
        # ZC-HEAL-1: natural healing, a Puissance roll after each rest
        while True:
            wake_at = self._natural_healing_at(enc, aid, int(enc.env.now))
            if wake_at is None or wake_at > end:
                return
            yield enc.env.timeout(wake_at - int(enc.env.now))
            R.natural_healing_roll(enc, aid)

    def _natural_healing_at(self, enc: Encounter, aid: str, now: int) -> int | None:
        """ZC-HEAL-1: the tick of the next natural healing roll after a rest from ``now`` (None: no roll)."""
        level = R.worst_level(enc.state.actors[aid])
        if level < WOUNDED or level > MORTALLY:
            return None
        r: ZCorpsRules = enc.rules
        return now + r.natural_healing[level - 1][0] * 86400 * TICKS_PER_SECOND

    def _untreated_change_at(self, enc: Encounter, aid: str, now: int) -> int | None:
        """ZC-WOUND-1 / ZC-HEAL-1: the tick at which :meth:`_recover` without Medicine first changes anything.

        None: never. A Mortally Wounded actor rolls a round from now; an unconscious one wakes
        (at once if it is already time); else a Wounded to Mortally Wounded one
        rolls its natural healing after the rest of its level.
        """
        a = enc.state.actors[aid]
        if "mortally_wounded" in a.conditions:
            return now + enc.system.round_seconds * TICKS_PER_SECOND
        wake = self._unconscious_until(enc, aid)
        if wake is not None:
            return max(wake, now)
        return self._natural_healing_at(enc, aid, now)

    def _unconscious_until(self, enc: Encounter, aid: str) -> int | None:
        """The tick an unconscious (not mortally wounded) actor wakes, from its ConditionSet."""
        if "unconscious" not in enc.state.actors[aid].conditions:
            return None
        if R.worst_level(enc.state.actors[aid]) > INCAPACITATED:
            return None
        until = R.book(enc).unconscious_until.get(aid)
        return None if until is None else round(until * TICKS_PER_SECOND)


SYSTEM = ZCorps()
