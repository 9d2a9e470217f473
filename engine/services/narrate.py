"""A readable play-by-play of any log: one line (or none) per event.

Works from events alone (plus the actors' names seen so far), so it narrates
a live run and a replayed log identically, for every rule system.
"""

from __future__ import annotations

from collections.abc import Iterable

from fracas.core import events as E


def _mods(mods: Iterable[E.Modifier]) -> str:
    shown = [f"{m.name} {m.value:+d} [{m.rule}]" if m.value else f"{m.name} [{m.rule}]" for m in mods]
    return "; ".join(shown)


def dice_text(ev: E.DiceRolled) -> str:
    """Faces with their fates: kept plain, dropped in parentheses, others tagged."""
    out = []
    for face, fate in zip(ev.faces, ev.fates, strict=True):
        if fate == "kept":
            out.append(f"{face}")
        elif fate == "dropped":
            out.append(f"({face})")
        else:
            out.append(f"{face}<{fate}>")
    return " ".join(out)


class Narrator:
    """Turns events into sentences; remembers names and monitor levels it has seen."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.levels: dict[str, dict[str, list[str]]] = {}

    def level(self, actor: str, monitor: str, index: int) -> str:
        """A monitor level's name (Légère, Wounded...), or its number if the actor is unknown."""
        names = self.levels.get(actor, {}).get(monitor, [])
        return names[index] if 0 <= index < len(names) else f"level {index}"

    def name(self, actor: str | None) -> str:
        if actor is None:
            return "?"
        return self.names.get(actor, actor)

    def line(self, rnd: int, count: int, sec: float, ev: E.Event) -> str | None:
        when = f"R{rnd} @{count:<3d}" if count else f"R{rnd}     "
        text = self.text(ev, sec)
        if text is None:
            return None
        return f"{when} {text}"

    def text(self, ev: E.Event, sec: float = 0.0) -> str | None:
        n = self.name
        if isinstance(ev, E.EncounterStarted):
            return (
                f"=== {ev.scenario_name} ({ev.system}); dice {ev.dice.source}, "
                f"commitment {ev.dice.commitment[:16]}… ==="
            )
        if isinstance(ev, E.RoundStarted):
            return f"--- round {ev.round} ---"
        if isinstance(ev, E.ActorEntered):
            self.names[ev.actor] = ev.name
            self.levels[ev.actor] = {m.name: list(m.levels) for m in ev.monitors}
            return f"{ev.name} ({ev.side}) enters at ({ev.x},{ev.y}) [{ev.policy}]"
        if isinstance(ev, E.InitiativeSet):
            extra = f", {ev.actions} actions" if ev.actions > 1 else ""
            return f"{n(ev.actor)}: initiative {ev.value}{extra} [{ev.rule}]"
        if isinstance(ev, E.TieBroken):
            return f"tie order: {', '.join(n(a) for a in ev.order)} [{ev.rule}]"
        if isinstance(ev, E.ActionDeclared):
            return f"{n(ev.actor)} declares: {ev.text} [{ev.rule}]"
        if isinstance(ev, E.ActionLost):
            return f"{n(ev.actor)} loses the action: {ev.reason} [{ev.rule}]"
        if isinstance(ev, E.Moved):
            return f"{n(ev.actor)} moves to ({ev.x},{ev.y}), {ev.metres} m this round, initiative {ev.initiative} [{ev.rule}]"
        if isinstance(ev, E.DiceRolled):
            src = "" if ev.source == "derived" else f" ({ev.source})"
            return f"{n(ev.actor)} rolls {len(ev.faces)}d{ev.sides} for {ev.purpose}: {dice_text(ev)}{src} [{ev.rule}]"
        if isinstance(ev, E.SkillTested):
            verdict = "success" if ev.success else "failure"
            if ev.critical:
                verdict = f"critical {ev.critical}"
            mods = _mods(ev.modifiers)
            against = f" vs {n(ev.target)}" if ev.target else ""
            pool = f" ({_mods(ev.pool_modifiers)})" if ev.pool_modifiers else ""
            return (
                f"{n(ev.actor)} {ev.skill}{against}{pool}: {ev.total} vs difficulty {ev.difficulty}"
                f" (base {ev.difficulty_base}{'; ' + mods if mods else ''}) -> {verdict}, margin {ev.margin:+d} [{ev.rule}]"
            )
        if isinstance(ev, E.DamageRolled):
            return f"{n(ev.actor)} deals {ev.total} {ev.kind} damage to {n(ev.target)} ({ev.dice_total} rolled; {_mods(ev.modifiers)}) [{ev.rule}]"
        if isinstance(ev, E.ThresholdComputed):
            parts = " + ".join(f"{p.name} {p.value}" for p in ev.parts)
            return f"{n(ev.actor)}: wound threshold {ev.value} ({parts}) [{ev.rule}]"
        if isinstance(ev, E.WoundMarked):
            cause = f" ({ev.damage} vs {ev.threshold})" if ev.threshold else ""
            return f"{n(ev.actor)} marks a {ev.level_name} box on the {ev.monitor} monitor{cause} [{ev.rule}]"
        if isinstance(ev, E.WoundHealed):
            lvl = self.level(ev.actor, ev.monitor, ev.level)
            boxes = f"{ev.boxes} {lvl} box{'es' if ev.boxes > 1 else ''} ({ev.monitor})"
            if ev.to_level < 0:
                return f"{n(ev.actor)}: {boxes} heal{'s' if ev.boxes == 1 else ''} after {_duration(sec)} [{ev.rule}]"
            to = self.level(ev.actor, ev.monitor, ev.to_level)
            return (
                f"{n(ev.actor)}: {boxes} become{'s' if ev.boxes == 1 else ''} {to} after {_duration(sec)} [{ev.rule}]"
            )
        if isinstance(ev, E.WoundWorsened):
            lvl = self.level(ev.actor, ev.monitor, ev.level)
            to = self.level(ev.actor, ev.monitor, ev.to_level)
            boxes = f"{ev.boxes} {lvl} box{'es' if ev.boxes > 1 else ''} ({ev.monitor})"
            return f"{n(ev.actor)}: untreated, {boxes} worsen{'s' if ev.boxes == 1 else ''} to {to} after {_duration(sec)} [{ev.rule}]"
        if isinstance(ev, E.HitPointsChanged):
            return f"{n(ev.actor)}: {ev.delta:+d} HP -> {ev.hp} [{ev.rule}]"
        if isinstance(ev, E.ConditionSet):
            value = f" ({ev.value})" if ev.value else ""
            if _adjective(ev.condition):
                return f"{n(ev.actor)} is {ev.condition}{value} [{ev.rule}]"
            return f"{n(ev.actor)}: {_words(ev.condition)}{value} [{ev.rule}]"
        if isinstance(ev, E.ConditionCleared):
            if _adjective(ev.condition):
                return f"{n(ev.actor)} is no longer {ev.condition} [{ev.rule}]"
            return f"{n(ev.actor)}: {_words(ev.condition)} ends [{ev.rule}]"
        if isinstance(ev, E.AmmoSpent):
            return f"{n(ev.actor)} fires {ev.rounds} from {ev.weapon} ({ev.left} left) [{ev.rule}]"
        if isinstance(ev, E.Reloaded):
            return f"{n(ev.actor)} reloads {ev.weapon} ({ev.rounds} rounds, {ev.spare_left} spare) [{ev.rule}]"
        if isinstance(ev, E.WeaponStateChanged):
            return f"{n(ev.actor)}'s {ev.weapon} is {ev.state} [{ev.rule}]"
        if isinstance(ev, E.ResourceSpent):
            return f"{n(ev.actor)} spends {ev.amount} {ev.resource} ({ev.left} left) [{ev.rule}]"
        if isinstance(ev, E.Noted):
            return f"{n(ev.actor)}: {ev.text} [{ev.rule}]"
        if isinstance(ev, E.ActorFled):
            return f"{n(ev.actor)} flees through {ev.exit} [{ev.rule}]"
        if isinstance(ev, E.ActorSurrendered):
            return f"{n(ev.actor)} surrenders [{ev.rule}]"
        if isinstance(ev, E.ActorDied):
            return f"{n(ev.actor)} dies: {ev.cause} [{ev.rule}]"
        if isinstance(ev, E.AftermathStarted):
            who = f"side {ev.winner} wins" if ev.winner else "no winner"
            return f"=== the fight is over: {who} ({ev.reason}); the clock runs on ==="
        if isinstance(ev, E.EncounterEnded):
            who = f"winner: {ev.winner}" if ev.winner else "a draw"
            return f"=== end after {ev.rounds} rounds, {_duration(sec)} simulated: {who}; seed revealed: {ev.seed} ==="
        return None


def _words(condition: str) -> str:
    return condition.replace("_", " ")


def _adjective(condition: str) -> bool:
    """A one-word condition reads as "is <condition>"; others ("extra_actions") as a noun."""
    return condition.isalpha()


def _duration(sec: float) -> str:
    """Simulated time since the start, as a game master says it: 9 s, 12 min 9 s, 48 h 0 min, 7 d 2 h."""
    if sec < 120:
        return f"{sec:g} s"
    s = int(sec)
    if s < 7200:
        return f"{s // 60} min {s % 60} s"
    if s < 3 * 86400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"
