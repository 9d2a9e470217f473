"""One fight of a batch, summarised: what it did to each actor (no log unless asked)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.quality import QualityProbe
from fracas.core.scenario import LoadedScenario
from fracas.core.state import DISABLING, State, apply
from fracas.services.batch.stats import fight_seed
from fracas.services.run import run_scenario


class _Probe:
    """A listener: a shadow fold up to the end of the fight, and ammunition spent."""

    __slots__ = ("ammo", "ended", "state")

    def __init__(self) -> None:
        self.state = State()
        self.ammo: dict[str, int] = {}
        self.ended = False

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if self.ended:
            return
        apply(self.state, ev)
        if isinstance(ev, E.AmmoSpent):
            self.ammo[ev.actor] = self.ammo.get(ev.actor, 0) + ev.rounds
        elif isinstance(ev, E.AftermathStarted):
            self.ended = True


class ActorFight(msgspec.Struct, array_like=True):
    """What one fight did to one actor."""

    present: bool
    status: str  # at the end of the fight: active, unconscious, fled, dead...
    down: bool  # out of the fight when it ended, beaten (not escaped: fleeing by an exit is not a defeat)
    dead: bool
    damage_dealt: int
    damage_taken: int
    ammo_spent: int
    hp_lost: int | None
    worst: dict[str, int]  # monitor -> worst marked level at the end of the fight (-1: none)
    escaped: bool = False  # left by an exit (C-END-1): apart from down


class FightRecord(msgspec.Struct, array_like=True):
    index: int
    seed: str
    winner: str | None
    rounds: int
    reason: str
    actors: dict[str, ActorFight]


def run_fight(
    loaded: LoadedScenario, index: int, root: str, log_path: Path | None = None, quality: QualityProbe | None = None
) -> FightRecord:
    """Run fight ``index`` of a batch (no log unless ``log_path``) and summarise it.

    ``quality``: a probe that also reads every event for the decision-quality report.
    """
    seed = fight_seed(root, index)
    probe = _Probe()
    listeners: list[Any] = [probe] if quality is None else [probe, quality]
    result = run_scenario(loaded, seed=seed, log_path=log_path, listeners=listeners)
    end = probe.state
    actors: dict[str, ActorFight] = {}
    for spec in loaded.spec.actors:
        a = end.actors.get(spec.id)
        final = result.state.actors.get(spec.id)
        if a is None or final is None:
            actors[spec.id] = ActorFight(
                present=False,
                status="absent",
                down=False,
                dead=False,
                damage_dealt=0,
                damage_taken=0,
                ammo_spent=0,
                hp_lost=None,
                worst={},
            )
            continue
        actors[spec.id] = ActorFight(
            present=True,
            status=a.status(),
            down=any(c in DISABLING for c in a.conditions if c != "fled"),
            escaped="fled" in a.conditions,
            dead="dead" in final.conditions,
            damage_dealt=final.damage_dealt,
            damage_taken=final.damage_taken,
            ammo_spent=probe.ammo.get(spec.id, 0),
            hp_lost=None if a.hp is None or a.hp_max is None else a.hp_max - a.hp,
            worst={m.name: m.worst() for m in a.monitors.values()},
        )
    return FightRecord(
        index=index, seed=seed, winner=result.winner, rounds=result.rounds, reason=result.reason, actors=actors
    )
