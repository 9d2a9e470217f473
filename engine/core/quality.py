"""Decision quality: how well each policy played, read from the events alone.

A rule system reads one logged test for this report through its optional
hook ``test_quality(test, dice) -> TestRead | None`` (``dice``: the actor's
``DiceRolled`` events since its previous test, in order). The engine knows
nothing of the rules: the system says whether the test was an attack, its
exact odds of success as rolled, and what the actor's own extra effort
(surpassing, Character Points, Cojones) added to them.

:class:`QualityProbe` folds events, live (a listener of a batch fight) or
from a stored log (:func:`quality_of_entries`), into :class:`PolicyQuality`
counts per policy. The counts are integers (odds in parts per million), so
merging chunks of a batch is exact and order-free, like the rest of a batch.

The declarations of a round are read too (``ActionDeclared``, in the order logged;
in Point Zéro the slowest first, PZ-INIT-3): how many decisions came after a foe had
declared an attack on the deciding actor, how many of those answered it with an
attack on that foe, and how many attacks went to a foe an ally had already
declared an attack on.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec
from fracas.core import events as E
from fracas.core.system import get_system

#: Odds are summed in parts per million: integers merge exactly.
PPM = 1_000_000
#: An extra effort that adds fewer points of odds than this is flagged (issue 16: a surpass only for >= 10 points).
WORTH_POINTS = 0.10
#: An attack below these odds is counted as a long shot.
LONG_SHOT = 0.15
#: A defence that takes fewer points than this off the odds of every attack it meets is counted as weak.
DEFENCE_POINTS = 0.05


class Extra(msgspec.Struct, frozen=True, kw_only=True):
    """An effort the actor chose for one test: its kind and the odds of success without and with it."""

    kind: str  # surpass | cp | cojones
    amount: int
    before: float
    after: float


class TestRead(msgspec.Struct, frozen=True, kw_only=True):
    """What a rule system reads from one logged test for the quality report."""

    __test__ = False  # not a pytest class

    attack: bool
    odds: float
    #: the system's own "beyond any roll" flag (Point Zéro: difficulty above six times the dice kept)
    beyond: bool = False
    extras: tuple[Extra, ...] = ()
    #: the target's defence that met this attack (``before``: the odds without it, ``after``: as rolled); counted for
    #: the target's policy, which chose it (Z-Corps ZC-DEF-1)
    defence: Extra | None = None


class ExtraQuality(msgspec.Struct):
    """Efforts of one kind: how many, the dice or points spent, the odds they added, how many added < 10 points."""

    times: int = 0
    amount: int = 0
    added_ppm: int = 0
    under_worth: int = 0
    #: efforts taken on a test whose odds stayed under 5 % even with them
    hopeless: int = 0

    def merge(self, other: ExtraQuality) -> None:
        self.times += other.times
        self.amount += other.amount
        self.added_ppm += other.added_ppm
        self.under_worth += other.under_worth
        self.hopeless += other.hopeless


class PolicyQuality(msgspec.Struct):
    """Counts over every actor of one policy."""

    decisions: int = 0
    attacks: int = 0
    zero: int = 0
    long_shots: int = 0
    beyond: int = 0
    odds_ppm: int = 0
    extras: dict[str, ExtraQuality] = {}
    #: resources spent (ResourceSpent events): name -> amount
    spent: dict[str, int] = {}
    #: decisions taken after a foe declared an attack on the actor earlier in the round
    threatened: int = 0
    #: of those, an attack declared on one of those foes
    answered: int = 0
    #: attacks declared on a foe an ally had declared an attack on earlier in the round
    shared_targets: int = 0
    #: defences chosen (an ``active_defence`` declaration), the odds they took off the attacks they met (summed over
    #: those attacks), and how many took fewer than DEFENCE_POINTS off them all
    defences: int = 0
    defence_ppm: int = 0
    weak_defences: int = 0

    def merge(self, other: PolicyQuality) -> None:
        self.decisions += other.decisions
        self.attacks += other.attacks
        self.zero += other.zero
        self.long_shots += other.long_shots
        self.beyond += other.beyond
        self.odds_ppm += other.odds_ppm
        for kind, q in other.extras.items():
            self.extras.setdefault(kind, ExtraQuality()).merge(q)
        for name, amount in other.spent.items():
            self.spent[name] = self.spent.get(name, 0) + amount
        self.threatened += other.threatened
        self.answered += other.answered
        self.shared_targets += other.shared_targets
        self.defences += other.defences
        self.defence_ppm += other.defence_ppm
        self.weak_defences += other.weak_defences

    def add_test(self, read: TestRead) -> None:
        if read.attack:
            self.attacks += 1
            self.zero += read.odds <= 0.0
            self.long_shots += read.odds < LONG_SHOT
            self.beyond += read.beyond
            self.odds_ppm += round(read.odds * PPM)
        for x in read.extras:
            q = self.extras.setdefault(x.kind, ExtraQuality())
            q.times += 1
            q.amount += x.amount
            added = x.after - x.before
            q.added_ppm += round(added * PPM)
            q.under_worth += added < WORTH_POINTS - 1e-12
            q.hopeless += x.after < 0.05


def merge_quality(into: dict[str, PolicyQuality], other: dict[str, PolicyQuality]) -> None:
    for policy, q in other.items():
        into.setdefault(policy, PolicyQuality()).merge(q)


class QualityProbe:
    """A listener (or a fold over a log) that counts decision quality per policy."""

    __slots__ = ("_against", "_defending", "_dice", "_hook", "_policy", "_side", "by_policy", "ended")

    def __init__(self, system: str | None = None) -> None:
        self.by_policy: dict[str, PolicyQuality] = {}
        self._policy: dict[str, str] = {}
        self._dice: dict[str, list[E.DiceRolled]] = {}
        self._side: dict[str, str] = {}
        #: this round's declared attacks: target -> the actors that declared one on it, in order
        self._against: dict[str, list[str]] = {}
        self._hook = getattr(get_system(system), "test_quality", None) if system else None
        self.ended = False
        #: the defence each actor holds now: the odds it has taken off the attacks so far (ppm)
        self._defending: dict[str, int] = {}

    def _defended(self, target: str, defence: Extra) -> None:
        q = self._of(target)
        if q is None:
            return
        before = self._defending[target]
        added = round((defence.before - defence.after) * PPM)
        self._defending[target] = before + added
        q.defence_ppm += added
        weak = round(DEFENCE_POINTS * PPM)
        if before < weak <= before + added:
            q.weak_defences -= 1

    def _of(self, actor: str) -> PolicyQuality | None:
        policy = self._policy.get(actor)
        if policy is None:
            return None
        q = self.by_policy.get(policy)
        if q is None:
            q = self.by_policy[policy] = PolicyQuality()
        return q

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        self.feed(ev)

    def feed(self, ev: E.Event) -> None:
        if self.ended:
            return
        if isinstance(ev, E.DiceRolled):
            self._dice.setdefault(ev.actor, []).append(ev)
        elif isinstance(ev, E.SkillTested):
            dice = self._dice.pop(ev.actor, [])
            q = self._of(ev.actor)
            if q is not None and self._hook is not None:
                read = self._hook(ev, dice)
                if read is not None:
                    q.add_test(read)
                    if read.defence is not None and ev.target in self._defending:
                        self._defended(ev.target, read.defence)
        elif isinstance(ev, E.ActionDeclared):
            q = self._of(ev.actor)
            if q is not None:
                q.decisions += 1
                self._read_declaration(q, ev)
                if ev.action == "active_defence":
                    q.defences += 1
                    q.weak_defences += 1  # until the attacks it meets say otherwise
                    self._defending[ev.actor] = 0
        elif isinstance(ev, E.RoundStarted):
            self._against.clear()
        elif isinstance(ev, E.ConditionCleared):
            if ev.condition == "active_defence":
                self._defending.pop(ev.actor, None)
        elif isinstance(ev, E.ResourceSpent):
            q = self._of(ev.actor)
            if q is not None:
                q.spent[ev.resource] = q.spent.get(ev.resource, 0) + ev.amount
        elif isinstance(ev, E.ActorEntered):
            self._policy[ev.actor] = ev.policy or "?"
            self._side[ev.actor] = ev.side
        elif isinstance(ev, E.EncounterStarted):
            self._hook = getattr(get_system(ev.system), "test_quality", None)
        elif isinstance(ev, E.AftermathStarted):
            self.ended = True  # healing tests after the fight are no decisions

    def _read_declaration(self, q: PolicyQuality, ev: E.ActionDeclared) -> None:
        """A decision against what was declared before it this round (PZ-INIT-3: the slower actors' plans)."""
        side = self._side.get(ev.actor)
        foes_on_me = [a for a in self._against.get(ev.actor, ()) if self._side.get(a) != side]
        attack = ev.action == "attack" and ev.target is not None
        if foes_on_me:
            q.threatened += 1
            q.answered += attack and ev.target in foes_on_me
        if attack and ev.target is not None:
            against = self._against.setdefault(ev.target, [])
            q.shared_targets += any(self._side.get(a) == side for a in against)
            against.append(ev.actor)


def quality_of_entries(entries: Iterable[E.Entry]) -> dict[str, PolicyQuality]:
    """The decision quality of one stored log (its entries, header first)."""
    probe = QualityProbe()
    for entry in entries:
        probe.feed(entry.ev)
    return probe.by_policy


def summary(by_policy: dict[str, PolicyQuality]) -> dict[str, dict[str, object]]:
    """The report as JSON-ready numbers (shares and means as fractions, None when nothing was counted)."""
    out: dict[str, dict[str, object]] = {}
    for policy in sorted(by_policy):
        q = by_policy[policy]
        n = q.attacks
        extras = {
            kind: {
                "times": x.times,
                "amount": x.amount,
                "mean_odds_added": x.added_ppm / PPM / x.times if x.times else None,
                "under_10_points": x.under_worth,
                "under_5_percent_after": x.hopeless,
            }
            for kind, x in sorted(q.extras.items())
        }
        out[policy] = {
            "decisions": q.decisions,
            "attack_tests": n,
            "zero_odds": q.zero / n if n else None,
            "long_shots": q.long_shots / n if n else None,
            "beyond_reach": q.beyond / n if n else None,
            "mean_odds": q.odds_ppm / PPM / n if n else None,
            "extras": extras,
            "spent": dict(sorted(q.spent.items())),
            "threatened": q.threatened,
            "answered": q.answered / q.threatened if q.threatened else None,
            "shared_targets": q.shared_targets / n_declared if (n_declared := q.decisions) else None,
            "defences": {
                "times": q.defences,
                "mean_odds_prevented": q.defence_ppm / PPM / q.defences if q.defences else None,
                "under_5_points": q.weak_defences,
            },
        }
    return out


def _pct(x: object) -> str:
    return "   -  " if x is None else f"{float(x):6.1%}"  # type: ignore[arg-type]


def render(by_policy: dict[str, PolicyQuality], *, beyond_label: str = "beyond reach") -> list[str]:
    """The report as text lines: one line per policy, then one per kind of extra effort."""
    lines = [
        f"{'policy':<12} {'decisions':>9} {'attacks':>7} {'0 % odds':>8} {'< 15 %':>7} "
        f"{'mean odds':>9} {beyond_label:>13}"
    ]
    for policy, s in summary(by_policy).items():
        lines.append(
            f"{policy:<12} {s['decisions']:>9} {s['attack_tests']:>7} {_pct(s['zero_odds']):>8} "
            f"{_pct(s['long_shots']):>7} {_pct(s['mean_odds']):>9} {_pct(s['beyond_reach']):>13}"
        )
        extras: dict[str, dict[str, object]] = s["extras"]  # type: ignore[assignment]
        for kind, x in extras.items():
            lines.append(
                f"  {kind}: {x['times']} times ({x['amount']} spent), mean odds added "
                f"{_pct(x['mean_odds_added']).strip()}, {x['under_10_points']} adding < 10 points, "
                f"{x['under_5_percent_after']} still under 5 %"
            )
        defences: dict[str, object] = s["defences"]  # type: ignore[assignment]
        if defences["times"]:
            lines.append(
                f"  active defence: {defences['times']} times, mean odds taken off the attacks "
                f"{_pct(defences['mean_odds_prevented']).strip()}, {defences['under_5_points']} taking < 5 points"
            )
        spent: dict[str, int] = s["spent"]  # type: ignore[assignment]
        if spent:
            lines.append("  spent: " + ", ".join(f"{k} {v}" for k, v in spent.items()))
        q = by_policy[policy]
        if q.threatened or q.shared_targets:
            lines.append(
                f"  declarations: {q.threatened} decisions after a foe declared an attack on the actor, "
                f"{_pct(s['answered']).strip()} of them an attack on that foe; "
                f"{_pct(s['shared_targets']).strip()} of decisions an attack on a foe an ally declared against"
            )
    return lines


__all__ = [
    "Extra",
    "ExtraQuality",
    "PolicyQuality",
    "QualityProbe",
    "TestRead",
    "merge_quality",
    "quality_of_entries",
    "render",
    "summary",
]
