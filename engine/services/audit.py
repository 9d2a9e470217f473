"""``fracas audit LOG SEQ`` / ``--roll N``: explain one roll like a referee, from the log alone.

For the test an event belongs to it tells: who rolled and why (the actor's
declaration that round), every die with its index in the dice stream and
its fate, the dice total, the difficulty, its base and each modifier with
its name and rule ID, the margin, the exact chance of success before the
roll (the rule system's ``success_odds``) and where the result fell: the
probability of that result or a better one (``outcome_odds``),
and the chain of consequences that followed at the same instant: damage,
save, wound threshold, boxes marked, conditions, death.

Works on the generic events, so for every rule system; the odds come from
the system object (``system.outcome_odds(test, dice) -> float | None``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec
from fracas.core import events as E
from fracas.core.catalogue import rule_statement
from fracas.core.decide import ROLL_CHOICE
from fracas.core.errors import FracasError
from fracas.core.log import LogError, read_log
from fracas.core.system import get_system
from fracas.services.narrate import Narrator, verdict

#: Events that can follow a test as its consequences.
_CONSEQUENCES = (
    E.DiceRolled,
    E.SkillTested,
    E.DamageRolled,
    E.ThresholdComputed,
    E.WoundMarked,
    E.HitPointsChanged,
    E.ConditionSet,
    E.ConditionCleared,
    E.ActorDied,
    E.WeaponStateChanged,
    E.Noted,
    E.ResourceSpent,
    E.ActorSurrendered,
)


class Audit(msgspec.Struct, kw_only=True):
    log: str
    seq: int
    test_seq: int | None
    dice_seq: int | None
    odds: float | None
    #: P(the test succeeds) before the roll, exactly ("what were my chances?"); None when unknown
    chance: float | None = None
    consequences: list[int]
    lines: list[str]

    def text(self) -> str:
        return "\n".join(self.lines)


def _actor_of(ev: E.Event) -> str | None:
    actor = getattr(ev, "actor", None)
    return actor if isinstance(actor, str) else None


def _find_seq(entries: Sequence[E.Entry], path: Path, seq: int | None, roll: int | None) -> int:
    if roll is not None:
        n = 0
        for i, entry in enumerate(entries):
            if type(entry.ev) is E.DiceRolled:
                n += 1
                if n == roll:
                    return i
        raise FracasError(f"{path}: no roll number {roll}: the log has {n} rolls (numbered from 1)")
    assert seq is not None
    if not 0 <= seq < len(entries) or entries[seq].seq != seq:
        last = entries[-1].seq if entries else -1
        raise FracasError(f"{path}: no event with seq {seq} (the log has seq 0..{last})")
    return seq


def _anchor(entries: Sequence[E.Entry], i: int) -> tuple[int | None, int | None]:
    """(index of the test or damage roll, index of its dice) that event ``i`` belongs to."""
    ev = entries[i].ev
    sec = entries[i].sec
    if isinstance(ev, E.DiceRolled):
        while i + 1 < len(entries):  # the rest of the same roll (a Joker after the plain dice)
            nxt_entry = entries[i + 1]
            if type(nxt_entry.ev) is not E.DiceRolled or nxt_entry.ev.actor != ev.actor or nxt_entry.sec != sec:
                break
            i += 1
        for j in range(i + 1, len(entries)):
            nxt = entries[j].ev
            if entries[j].sec != sec or isinstance(nxt, E.DiceRolled):
                break
            if isinstance(nxt, (E.SkillTested, E.DamageRolled)) and nxt.actor == ev.actor:
                return j, i
        return None, i
    if isinstance(ev, (E.SkillTested, E.DamageRolled)):
        j = i - 1
        while j > 0 and entries[j].sec == sec:
            prev = entries[j].ev
            if isinstance(prev, E.DiceRolled) and prev.actor == ev.actor:
                return i, j
            if isinstance(prev, (E.SkillTested, E.DamageRolled)):
                break
            j -= 1
        return i, None
    # a consequence: walk back to the attack it came from (a test with a target, same instant)
    j = i - 1
    while j > 0 and entries[j].sec == sec and isinstance(entries[j].ev, _CONSEQUENCES):
        prev = entries[j].ev
        if isinstance(prev, E.SkillTested) and prev.target is not None:
            return _anchor(entries, j)
        j -= 1
    return None, None


def _dice_run(entries: Sequence[E.Entry], di: int) -> list[int]:
    """The consecutive dice events of one actor at one instant ending at ``di`` (a Joker, difficulty dice)."""
    last = entries[di]
    assert isinstance(last.ev, E.DiceRolled)
    start = di
    while start > 1:
        prev = entries[start - 1]
        if type(prev.ev) is not E.DiceRolled or prev.ev.actor != last.ev.actor or prev.sec != last.sec:
            break
        start -= 1
    return list(range(start, di + 1))


def _consequences(entries: Sequence[E.Entry], start: int, people: set[str]) -> list[int]:
    """The events after ``start`` at the same instant that follow from it."""
    out = []
    sec = entries[start].sec
    for j in range(start + 1, len(entries)):
        ev = entries[j].ev
        if entries[j].sec != sec or not isinstance(ev, _CONSEQUENCES) or _actor_of(ev) not in people:
            break
        if isinstance(ev, E.SkillTested) and ev.target is not None and j != start:
            break  # a new attack
        out.append(j)
    return out


def _declaration(entries: Sequence[E.Entry], i: int, actor: str) -> E.Entry | None:
    rnd = entries[i].round
    for j in range(i - 1, 0, -1):
        e = entries[j]
        if e.round != rnd:
            return None
        if isinstance(e.ev, E.ActionDeclared) and e.ev.actor == actor and e.ev.action != ROLL_CHOICE:
            return e
    return None


def audit_log(path: Path | str, *, seq: int | None = None, roll: int | None = None) -> Audit:
    """Explain event ``seq`` (or the ``roll``-th DiceRolled, from 1) of a log."""
    path = Path(path)
    try:
        entries = read_log(path).entries
    except LogError as exc:
        raise FracasError(str(exc)) from None
    if not entries or not isinstance(entries[0].ev, E.EncounterStarted):
        raise FracasError(f"{path}: line 1: not a fracas log (no EncounterStarted header)")
    head = entries[0].ev
    i = _find_seq(entries, path, seq, roll)
    narrator = Narrator()
    for e in entries[: i + 1]:  # what the clock's words and the names need: the sides, actors, aftermath
        if isinstance(e.ev, E.EncounterStarted | E.ActorEntered | E.AftermathStarted):
            narrator.text(e.ev)
    name = narrator.name
    target_entry = entries[i]
    ti, di = _anchor(entries, i)
    lines: list[str] = []
    at = entries[ti if ti is not None else (di if di is not None else i)]
    lines.append(
        f"{head.scenario_name} ({head.system}), {narrator.moment(at.round, at.count)}, {at.sec:g} s into the fight"
    )
    if ti is None and di is None:
        text = narrator.text(target_entry.ev, target_entry.sec) or type(target_entry.ev).__name__
        lines.append(f"seq {target_entry.seq}: {text}")
        rule = getattr(target_entry.ev, "rule", None)
        if rule:
            lines.append(f"rule {rule}: {get_rule_summary(head.system, rule)}")
        return Audit(
            log=str(path), seq=target_entry.seq, test_seq=None, dice_seq=None, odds=None, consequences=[], lines=lines
        )
    anchor_ev = entries[ti].ev if ti is not None else entries[di].ev  # type: ignore[index]
    actor = _actor_of(anchor_ev) or "?"
    decl = _declaration(entries, ti if ti is not None else di, actor)  # type: ignore[arg-type]
    if decl is not None and isinstance(decl.ev, E.ActionDeclared):
        # Point Zéro declares at the round's start (PZ-INIT-3); Z-Corps and d100 on the actor's turn, and a
        # d100 reaction when the shot comes, by the resolution's rule rather than a named policy
        round_start = next(
            (e.count for e in entries if e.round == decl.round and isinstance(e.ev, E.RoundStarted)), None
        )
        when = f"at the start of round {decl.round}" if decl.count == round_start else (
            f"at count {decl.count} of round {decl.round}"
        )  # fmt: skip
        who = f"decided by the {decl.ev.policy} policy, " if decl.ev.policy else ""
        lines.append(
            f'Why: {name(actor)} declared "{narrator.declared(decl.ev.text)}" {when} '
            f"({who}seq {decl.seq}) [{decl.ev.rule}]"
        )
    dice = entries[di].ev if di is not None else None
    rolls = _dice_run(entries, di) if di is not None else []
    for k in rolls:
        roll_ev = entries[k].ev
        assert isinstance(roll_ev, E.DiceRolled)
        n = len(roll_ev.faces)
        src = {"derived": "derived from the seed", "entered": "entered at the table"}.get(
            roll_ev.source, roll_ev.source
        )
        why = narrator.purpose_text(roll_ev.purpose)
        asked = ", the one asked" if k == i and len(rolls) > 1 else ""  # a Joker and its pool: which one
        lines.append(
            f"Roll (seq {entries[k].seq}{asked}): {name(roll_ev.actor)} rolls {n}d{roll_ev.sides} {why} "
            f"[{roll_ev.rule}]; dice {roll_ev.first}..{roll_ev.first + n - 1} of the stream, {src}:"
        )
        for idx, (face, fate) in enumerate(zip(roll_ev.faces, roll_ev.fates, strict=True)):
            lines.append(f"  die {roll_ev.first + idx}: {face} {fate}")
    odds: float | None = None
    chance: float | None = None
    test = entries[ti].ev if ti is not None else None
    if isinstance(test, E.SkillTested):
        assert ti is not None
        kept = [f for f, fate in zip(dice.faces, dice.fates, strict=True) if fate == "kept"] if dice else []  # type: ignore[union-attr]
        kept.sort(reverse=True)
        if len(rolls) == 1 and len(kept) > 1:
            sum_text = " + ".join(str(f) for f in kept) + f" = {test.dice_total}"
        else:  # one die, or several rolls (a Joker, difficulty dice): the total is the test's
            sum_text = str(test.dice_total)
        # Point Zéro keeps the best dice (PZ-TEST-1); Z-Corps adds its whole pool; d100 reads one die
        dropped = any(fate == "dropped" for k in rolls for fate in entries[k].ev.fates)  # type: ignore[union-attr]
        if dropped:
            dice_text = f"keeps the best {test.kept}: {sum_text}"
        elif test.kept == 1:
            dice_text = f"rolls {sum_text}"
        else:
            dice_text = f"adds {test.kept} dice: {sum_text}"
        lines.append(
            f"Test (seq {entries[ti].seq}) [{test.rule}]: {name(test.actor)}'s {test.skill}"
            + (f" against {name(test.target)}" if test.target else "")
            + f": {dice_text}"
            + (f", total {test.total}" if test.total != test.dice_total else "")
        )
        lines.append(f"Difficulty {test.difficulty}: base {test.difficulty_base}, then:")
        if not test.modifiers:
            lines.append("  no modifier")
        for m in test.modifiers:
            value = f"{m.value:+d}" if m.value else "(sets the base)" if m.value == 0 else ""
            lines.append(f"  {value:>15}  {m.name} [{m.rule}]")
        lines.append(f"Result: {test.total} against {test.difficulty}: {verdict(test)}, margin {test.margin:+d}")
        system = get_system(head.system)
        rolled = dice if isinstance(dice, E.DiceRolled) else None
        fn = getattr(system, "outcome_odds", None)
        if fn is not None:
            odds = fn(test, rolled)
        chance_fn = getattr(system, "success_odds", None)
        if chance_fn is not None:
            chance = chance_fn(test, rolled)
        if chance is not None:
            lines.append(
                f"Chance before the roll: {chance:.2%} to succeed against {test.difficulty} "
                f"(exact, from the {head.system} odds)"
            )
        if odds is not None:
            lines.append(f"Where it fell: {odds:.2%} of rolls do this well or better")
        if odds is None and chance is None:
            lines.append("Odds: not available for this roll")
    elif test is not None:
        lines.append(f"Result (seq {entries[ti].seq}): {narrator.text(test, entries[ti].sec)}")  # type: ignore[index]
    elif dice is not None and di is not None and di + 1 < len(entries):
        nxt = entries[di + 1]
        if _actor_of(nxt.ev) == actor:
            lines.append(f"Result (seq {nxt.seq}): {narrator.text(nxt.ev, nxt.sec)}")
    start = ti if ti is not None else di
    assert start is not None
    people = {actor}
    target = getattr(test, "target", None)
    if isinstance(target, str):
        people.add(target)
    conseq = _consequences(entries, start, people)
    if conseq:
        lines.append("What followed:")
        # the rolls numbered as the narration and --roll number them; a Z-Corps pool waits for its Joker, and the
        # line comes with the Joker's seq, as in the narration
        narrator.rolls = sum(1 for e in entries[: conseq[0]] if type(e.ev) is E.DiceRolled)
        for j in conseq:
            e = entries[j]
            said = narrator.text(e.ev, e.sec)
            if said is not None:  # two lines when a held pool comes out before this event's own
                lines.extend(f"  seq {e.seq}: {part}" for part in said.split("\n"))
        rest = narrator.flush()  # a pool whose Joker is not among them
        if rest is not None:
            lines.append(f"  seq {entries[conseq[-1]].seq}: {rest}")
    elif test is not None:
        lines.append("What followed: nothing else at that instant")
    return Audit(
        log=str(path),
        seq=target_entry.seq,
        test_seq=entries[ti].seq if ti is not None else None,
        dice_seq=entries[di].seq if di is not None else None,
        odds=odds,
        chance=chance,
        consequences=[entries[j].seq for j in conseq],
        lines=lines,
    )


def get_rule_summary(system_name: str, rule: str) -> str:
    try:
        return rule_statement(get_system(system_name), rule) or "engine rule"
    except FracasError:
        return "(rule system not installed)"
