"""Mergeable accumulators: integer counts only, so merging is exact, associative and commutative."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import msgspec
from fracas.core.quality import PolicyQuality, merge_quality
from fracas.services.batch.fight import FightRecord

#: How many fight indices the keep-logs candidates remember per kind (constant memory).
KEEP_MAX_DEFAULT = 10
#: Distinct end reasons counted before the rest are lumped together.
MAX_REASONS = 32


#: the fields of an actor's fight record that add up as they are, over the fights
FIGHT_COUNTS = ("down", "escaped", "dead", "damage_dealt", "damage_taken", "ammo_spent")


class ActorAcc(msgspec.Struct):
    """Integer sums over the fights of a chunk (or of a whole batch) for one actor."""

    present: int = 0
    down: int = 0
    escaped: int = 0
    dead: int = 0
    damage_dealt: int = 0
    damage_taken: int = 0
    ammo_spent: int = 0
    hp_fights: int = 0
    hp_lost: int = 0
    #: status at the end of the fight -> fights
    statuses: dict[str, int] = {}
    #: monitor -> counts of the worst level at the end of the fight; index 0 = no wound, k = level k-1
    wounds: dict[str, list[int]] = {}
    levels: dict[str, list[str]] = {}

    def merge(self, other: ActorAcc) -> None:
        for name in self.__struct_fields__:
            mine = getattr(self, name)
            if isinstance(mine, int):
                setattr(self, name, mine + getattr(other, name))
        for st, c in other.statuses.items():
            self.statuses[st] = self.statuses.get(st, 0) + c
        for name, counts in other.wounds.items():
            mine = self.wounds.setdefault(name, [0] * len(counts))
            if len(mine) < len(counts):
                mine.extend([0] * (len(counts) - len(mine)))
            for k, c in enumerate(counts):
                mine[k] += c
        for name, lv in other.levels.items():
            self.levels.setdefault(name, lv)


def _keep_smallest(a: list[int], b: list[int], k: int) -> list[int]:
    return sorted(set(a) | set(b))[:k]


class Acc(msgspec.Struct):
    """A mergeable accumulator: counts only, so merging is exact and order-free."""

    n: int = 0
    wins: dict[str, int] = {}
    draws: int = 0
    rounds: dict[int, int] = {}
    reasons: dict[str, int] = {}
    actors: dict[str, ActorAcc] = {}
    keep: int = KEEP_MAX_DEFAULT
    #: keep-logs candidates: the first ``keep`` fight indices won by each side, drawn
    won_by: dict[str, list[int]] = {}
    drawn: list[int] = []
    #: the ``keep`` longest fights as (rounds, index), longest first, lowest index on ties
    longest: list[tuple[int, int]] = []
    #: decision quality per policy (``--quality``; empty otherwise)
    quality: dict[str, PolicyQuality] = {}

    def add(self, rec: FightRecord, levels: dict[str, dict[str, list[str]]]) -> None:
        self.n += 1
        if rec.winner is None:
            self.draws += 1
            if len(self.drawn) < self.keep:
                self.drawn.append(rec.index)
        else:
            self.wins[rec.winner] = self.wins.get(rec.winner, 0) + 1
            won = self.won_by.setdefault(rec.winner, [])
            if len(won) < self.keep:
                won.append(rec.index)
        self.rounds[rec.rounds] = self.rounds.get(rec.rounds, 0) + 1
        reason = rec.reason if (rec.reason in self.reasons or len(self.reasons) < MAX_REASONS) else "other"
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        self.longest = _top_longest(self.longest, [(rec.rounds, rec.index)], self.keep)
        for aid, af in rec.actors.items():
            acc = self.actors.get(aid)
            if acc is None:
                acc = self.actors[aid] = ActorAcc()
            if not af.present:
                acc.statuses["absent"] = acc.statuses.get("absent", 0) + 1
                continue
            acc.present += 1
            acc.statuses[af.status] = acc.statuses.get(af.status, 0) + 1
            for name in FIGHT_COUNTS:
                setattr(acc, name, getattr(acc, name) + getattr(af, name))
            if af.hp_lost is not None:
                acc.hp_fights += 1
                acc.hp_lost += af.hp_lost
            for mon, worst in af.worst.items():
                names = levels.get(aid, {}).get(mon, [])
                counts = acc.wounds.get(mon)
                if counts is None:
                    counts = acc.wounds[mon] = [0] * (len(names) + 1)
                    acc.levels[mon] = names
                if worst + 1 >= len(counts):
                    counts.extend([0] * (worst + 2 - len(counts)))
                counts[worst + 1] += 1

    def merge(self, other: Acc) -> None:
        self.n += other.n
        self.draws += other.draws
        for side, w in other.wins.items():
            self.wins[side] = self.wins.get(side, 0) + w
        for r, c in other.rounds.items():
            self.rounds[r] = self.rounds.get(r, 0) + c
        for reason, c in other.reasons.items():
            if reason not in self.reasons and len(self.reasons) >= MAX_REASONS:
                reason = "other"
            self.reasons[reason] = self.reasons.get(reason, 0) + c
        for aid, acc in other.actors.items():
            self.actors.setdefault(aid, ActorAcc()).merge(acc)
        for side, idx in other.won_by.items():
            self.won_by[side] = _keep_smallest(self.won_by.get(side, []), idx, self.keep)
        self.drawn = _keep_smallest(self.drawn, other.drawn, self.keep)
        self.longest = _top_longest(self.longest, other.longest, self.keep)
        merge_quality(self.quality, other.quality)


def _top_longest(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]], k: int) -> list[tuple[int, int]]:
    both = {(int(r), int(i)) for r, i in itertools.chain(a, b)}
    return sorted(both, key=lambda t: (-t[0], t[1]))[:k]
