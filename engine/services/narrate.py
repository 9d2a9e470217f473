"""A play-by-play of any log that a game master can read aloud: one line (or none) per event.

Works from events alone (the header's scenario, then the actors' names seen
so far), so it narrates a live run, a replayed log and the viewer's log
identically, for every rule system. The text is English sentences; each
system's own terms (Légère, Panne, Joker, Cojones, CP) stay as they are, as
proper terms. Names, never ids: the ids inside logged texts (declarations,
roll purposes) are replaced by the actors' names. A Z-Corps roll and its
Joker read as one line. Every roll carries its number (``roll 6``), the
number ``fracas audit LOG --roll 6`` takes.

Nothing here reaches the log: changing a sentence never changes a log byte.

Three views of the same events:

- :class:`Narrator` (``text``: one sentence; ``line``: with its round and
  initiative count), optionally coloured and filtered (``only``);
- :class:`Summary`: one line per action (who did what to whom, hit or
  miss, the wound), as ``--summary`` prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from fracas.core import events as E
from fracas.core.decide import ROLL_CHOICE

#: ``--only`` filters and the events each keeps (headers, rounds and the end are always kept).
ONLY = ("wounds", "hits", "rolls")

_ZC_CODE = re.compile(r"^(?P<base>.*) \((?P<code>\d+D(?:\+\d+)?)\)$")
_POOL_MOD = re.compile(r" (?P<sign>[+-])(?P<dice>\d+)D (?P<what>.+?)(?= [+-]\d+D |$)")
_ZC_SKILL = re.compile(
    r"^(?P<skill>[a-z_]+) (?P<code>\d+D(?:\+\d+)?(?: doubled by Cojones = \d+D(?:\+\d+)?)?)(?P<mods>.*)$"
)
_PANNE = re.compile(r"^Panne of the (?P<weapon>.+) \((?P<at>\d+)\)$")
_MINUS = "\u2212"

#: ANSI styles used on a terminal (``colour=True``); NO_COLOR and pipes turn them off (the CLI decides).
_STYLE = {"bold": "1", "good": "32", "bad": "31", "wound": "33", "dim": "2", "death": "1;31"}


def dice_text(ev: E.DiceRolled) -> str:
    """Faces with their fates: kept plain, dropped in parentheses, a Joker's 6 rolled again as ``6!``."""
    out = []
    for face, fate in zip(ev.faces, ev.fates, strict=True):
        if fate == "kept":
            out.append(f"{face}")
        elif fate == "dropped":
            out.append(f"({face})")
        elif fate == "exploded":
            out.append(f"{face}!")
        else:
            out.append(f"({face} {fate})")
    return " ".join(out)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 round``, ``2 rounds``."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def article(word: str) -> str:
    """``a`` or ``an`` before ``word`` (accents count as their vowel: an Étourdi box)."""
    first = word[:1].lower()
    return "an" if first in "aeiouàâéèêëîïôöùûü" else "a"


def _signed(value: int) -> str:
    return f"+{value}" if value > 0 else f"{_MINUS}{-value}" if value < 0 else "0"


def duration(sec: float) -> str:
    """Simulated time since the start, as a game master says it: 9 s, 12 min 9 s, 48 h, 7 d 2 h."""
    if sec < 120:
        return f"{sec:g} s"
    s = int(sec)
    if s < 7200:
        return f"{s // 60} min {s % 60} s" if s % 60 else f"{s // 60} min"
    if s < 3 * 86400:
        h, m = s // 3600, s % 3600 // 60
        return f"{h} h {m} min" if m else f"{h} h"
    d, h = s // 86400, s % 86400 // 3600
    return f"{d} d {h} h" if h else f"{d} d"


def _minus(text: str) -> str:
    """A typographic minus before a number: ``-1D`` -> ``−1D`` (arrows ``->`` stay)."""
    return re.sub(r"(?<![\w-])-(?=\d)", _MINUS, text)


def _clean(text: str) -> str:
    """Logged wording read aloud: ``vs`` as ``against``, ``1 minutes`` as ``1 minute``."""
    text = text.replace(" vs ", " against ")
    return re.sub(r"\b1 (minute|round|day|hour|second|action)s\b", r"1 \1", text)


def _mods(mods: Iterable[E.Modifier]) -> str:
    """Modifiers as a reader says them: ``range 2 m: short; gloom +2; poor light +1D (+2)``.

    Rule IDs are left to the audit. A name that already says its value is not repeated.
    """
    shown = []
    for m in mods:
        if m.name == "margin of success":
            shown.append(f"{m.name} {_signed(m.value)}")
        elif not m.value or re.search(rf"[+-]{abs(m.value)}(?![\dD])", m.name):
            shown.append(m.name)
        elif re.search(r"[+-]\d+D", m.name):
            shown.append(f"{m.name} ({_signed(m.value)})")
        else:
            shown.append(f"{m.name} {_signed(m.value)}")
    return "; ".join(_minus(s).replace(" -> ", " \u2192 ") for s in shown)


def _ordinal_action(extra: int) -> str:
    return {1: "a second action", 2: "a third action", 3: "a fourth action"}.get(extra, f"{extra} extra actions")


def pool_text(skill: str) -> str:
    """A logged Z-Corps test label read aloud: ``firearms 4D+1 -1D 1 extra action(s)`` ->
    ``firearms 4D+1, −1D for a second action``; Point Zéro's ``handguns/PER +1 surpass`` ->
    ``handguns/PER, +1D for surpassing oneself``. Anything else is returned as it is."""
    if skill.endswith(" surpass"):
        head, _, n = skill[: -len(" surpass")].rpartition(" ")
        return f"{head.replace('_', ' ')}, +{n.lstrip('+')}D for surpassing oneself"
    m = _ZC_SKILL.match(skill)
    if m is None:
        return skill.replace("_", " ")
    parts = [f"{m.group('skill').replace('_', ' ')} {m.group('code')}"]
    mods = m.group("mods")
    reroll = mods.endswith(" (Cojones reroll)")
    if reroll:
        mods = mods[: -len(" (Cojones reroll)")]
    for pm in _POOL_MOD.finditer(mods):
        sign = "+" if pm.group("sign") == "+" else _MINUS
        what = pm.group("what")
        extra = re.fullmatch(r"(\d+) extra action\(s\)", what)
        reason = _ordinal_action(int(extra.group(1))) if extra else what
        if reason == "aimed":
            reason = "aiming"
        parts.append(f"{sign}{pm.group('dice')}D for {reason}")
    text = ", ".join(parts)
    return text + (" (Cojones reroll)" if reroll else "")


def verdict(test: E.SkillTested) -> str:
    """A test's outcome in words: its critical when it agrees with the outcome, or the outcome despite it.

    A Z-Corps Joker 1 cancels the highest die (ZC-WILD-2) and the rest may still succeed: that is a
    success despite a critical failure, never "critical failure, margin +2".
    """
    outcome = "success" if test.success else "failure"
    if not test.critical:
        return outcome
    if (test.critical == "success") == test.success:
        return f"critical {test.critical}"
    return f"{outcome} despite a critical {test.critical}"


#: A run of the characters an id is read within (an id is never part of a longer one).
_WORD = r"[\w'-]"
_WORD_RUN = re.compile(rf"(?<!{_WORD})({_WORD}+)")
_ALL_WORD = re.compile(rf"{_WORD}+")


def _id_pattern(ids: Iterable[str]) -> re.Pattern[str]:
    """What :meth:`Narrator.names_in` matches: each id standing alone (not inside a longer word).

    When every id is made of word characters (``z17``, ``mira``, ``jean-luc``), a run of them is an
    id exactly when it is one whole, so each run is looked up in the names: the same matches as
    an alternation of every id, at a cost that does not grow with the actors (a horde has a
    thousand ids, and every narrated line was tried against each of them). Any other id (``Dr. Hal``)
    needs the alternation, longest first.
    """
    ids = sorted(ids, key=len, reverse=True)
    if all(_ALL_WORD.fullmatch(i) for i in ids):
        return _WORD_RUN
    return re.compile(rf"(?<!{_WORD})(" + "|".join(re.escape(i) for i in ids) + rf")(?!{_WORD})")


class Narrator:
    """Turns events into sentences; remembers names, sides and monitor levels it has seen.

    ``colour``: ANSI colours for a terminal. ``only``: one of :data:`ONLY`, or None for everything.
    """

    def __init__(self, *, colour: bool = False, only: str | None = None) -> None:
        if only is not None and only not in ONLY:
            raise ValueError(f"--only: expected one of {', '.join(ONLY)}, got {only!r}")
        self.names: dict[str, str] = {}
        self.sides: dict[str, str] = {}
        self.levels: dict[str, dict[str, list[str]]] = {}
        self.colour = colour
        self.only = only
        self.system = ""
        self.round_ticks = 0
        self.rolls = 0  # DiceRolled events seen: the number audit --roll takes
        self.entered_faces = 0
        self.after = False  # the aftermath has started
        self._pending: tuple[E.DiceRolled, int, str, str] | None = None  # a Z-Corps roll waiting for its Joker
        self._ids: re.Pattern[str] | None = None
        #: purpose_text's phrases by logged purpose, for the names learnt so far (a horde logs 41,000 "tie roll-off")
        self._purposes: dict[str, str] = {}

    # ------------------------------------------------------------ names

    def name(self, actor: str | None, *, start: bool = True) -> str:
        """The actor's name; mid-sentence (``start=False``) ``The guard`` reads ``the guard``."""
        if actor is None:
            return "?"
        name = self.names.get(actor)
        if name is None:
            name = actor[:1].upper() + actor[1:]  # an id the log never introduced (a medic)
        if not start:
            first, _, rest = name.partition(" ")
            if first in ("The", "A", "An") and rest:
                return f"{first.lower()} {rest}"
        return name

    def side(self, side: str | None, *, start: bool = True) -> str:
        """A side by its display name (``Security guards``), else ``The red side``; ``the dead`` mid-sentence."""
        if side is None:
            return "nobody"
        name = self.sides.get(side) or f"The {side} side"
        if not start and name.startswith("The "):
            return "the " + name[4:]
        return name

    def level(self, actor: str, monitor: str, index: int) -> str:
        """A monitor level's name (Légère, Wounded...), or its number if the actor is unknown."""
        names = self.levels.get(actor, {}).get(monitor, [])
        return names[index] if 0 <= index < len(names) else f"level {index}"

    def learn(self, actor: str, name: str) -> None:
        """Name ``actor`` from now on (what is kept of the names read so far is read again)."""
        self.names[actor] = name
        self._ids = None
        self._purposes.clear()

    def names_in(self, text: str) -> str:
        """``text`` with every known actor id replaced by the actor's name (mid-sentence form)."""
        if not self.names:
            return text
        if self._ids is None:
            self._ids = _id_pattern(self.names)
        names = self.names
        return self._ids.sub(
            lambda m: self.name(m.group(1), start=m.start() == 0) if m.group(1) in names else m.group(1), text
        )

    def reason(self, reason: str) -> str:
        """An end reason with its side ids named: ``only side blue can still fight`` -> ``only Blue can...``."""
        for sid in sorted(self.sides, key=len, reverse=True):
            named = self.side(sid, start=False)
            reason = re.sub(rf"\bside {re.escape(sid)}\b", lambda _m: named, reason)  # noqa: B023 - used at once
        return reason

    def outcome(self, winner: str | None, reason: str) -> str:
        """How a fight ended, naming the winning side once: ``won by Mira, who escaped``."""
        if winner is None:
            return f"no winner ({self.reason(reason)})"
        name = self.side(winner, start=False)
        if reason == f"side {winner} escaped":
            return f"won by {name}, who escaped"
        if reason == f"only side {winner} can still fight":
            return f"won by {name}, the only side still able to fight"
        return f"won by {name} ({self.reason(reason)})"

    def declared(self, text: str) -> str:
        """A logged declaration read aloud: names for ids, ``with the pistol``, ``toward the service door``."""
        text = self.names_in(text)
        text = re.sub(r"\bwith (?!the |a |an |his |her |their )(?=[a-z0-9])", "with the ", text)
        text = re.sub(r"\btoward exit ", "toward the ", text)
        text = re.sub(r"^aim (?!at |and )", "aim at ", text)
        return _minus(text)

    # ------------------------------------------------------------ style

    def _c(self, style: str, text: str) -> str:
        if not self.colour:
            return text
        return f"\x1b[{_STYLE[style]}m{text}\x1b[0m"

    def _verdict(self, ev: E.SkillTested) -> str:
        return self._c("good" if ev.success else "bad", verdict(ev))

    # ------------------------------------------------------------ lines

    def _phase(self, rnd: int, count: int) -> str:
        """Where the clock stands: ``setup`` (round 0), ``after`` (the aftermath), ``end`` (a round's count 0: the
        last metres, what ends with the round), ``start`` (before anyone acts) or ``count``."""
        if rnd == 0:
            return "setup"
        if self.after:
            return "after"
        if count == 0:
            return "end"
        if self.round_ticks and count >= self.round_ticks:
            return "start"
        return "count"

    def prefix(self, rnd: int, count: int) -> str:
        """``R1 start`` before anyone acts (entrances, initiative, Point Zéro's declarations),
        ``R1 @11`` at initiative count 11, ``R1 end`` at its count 0, ``after`` in the aftermath."""
        phase = self._phase(rnd, count)
        if phase == "setup":
            return " " * 8
        if phase == "after":
            return f"{'after':<8}"
        return f"{f'R{rnd} @{count}' if phase == 'count' else f'R{rnd} {phase}':<8}"

    def moment(self, rnd: int, count: int) -> str:
        """The clock of :meth:`prefix` in words: ``round 1, before anyone acts``, ``round 1, initiative count 11``,
        ``round 1, as it ends``, ``in the aftermath``."""
        return {
            "setup": "before the fight",
            "after": "in the aftermath",
            "end": f"round {rnd}, as it ends",
            "start": f"round {rnd}, before anyone acts",
            "count": f"round {rnd}, initiative count {count}",
        }[self._phase(rnd, count)]

    def line(self, rnd: int, count: int, sec: float, ev: E.Event) -> str | None:
        text = self.text(ev, sec)
        if text is None:
            return None
        where = self.prefix(rnd, count)
        return "\n".join(f"{where} {t}" for t in text.split("\n"))

    def flush(self) -> str | None:
        """A roll still waiting for its Joker at the end of the stream (a truncated log)."""
        if self._pending is None:
            return None
        ev, number, _, _ = self._pending
        self._pending = None
        return self._roll_line(ev, number, None)

    def text(self, ev: E.Event, sec: float = 0.0) -> str | None:
        """The sentence for one event (None: nothing to say, or filtered out by ``only``).

        A Z-Corps roll waits for its Joker; when something else comes instead,
        the waiting roll's line comes first, on its own line.
        """
        held = None
        if self._pending is not None and not (isinstance(ev, E.DiceRolled) and self._joker_of(ev)):
            held_ev = self._pending[0]
            held = self.flush()
            if not self._kept(held_ev):
                held = None
        text = self._text(ev, sec)
        if text is not None and not self._kept(ev):
            text = None
        if held is not None:
            return held if text is None else f"{held}\n{text}"
        return text

    def _kept(self, ev: E.Event) -> bool:
        if self.only is None or isinstance(
            ev, E.EncounterStarted | E.EncounterEnded | E.AftermathStarted | E.RoundStarted
        ):
            return True
        if self.only == "rolls":
            return isinstance(ev, E.DiceRolled)
        if self.only == "hits":
            return (isinstance(ev, E.SkillTested) and ev.target is not None and ev.success) or isinstance(
                ev, E.DamageRolled
            )
        return isinstance(ev, E.WoundMarked | E.WoundHealed | E.WoundWorsened | E.HitPointsChanged | E.ActorDied)

    def _joker_of(self, ev: E.DiceRolled) -> bool:
        """Is ``ev`` the Joker of the Z-Corps roll waiting (zcorps.resolution.roll_purposes names both)?"""
        if self._pending is None or ev.actor != self._pending[0].actor:
            return False
        return ev.purpose in (f"{self._pending[2]}: Joker", f"{self._pending[0].purpose}: Joker")

    def _roll_line(
        self, ev: E.DiceRolled, number: int, joker: E.DiceRolled | None, code: str = "", base: str = ""
    ) -> str:
        who = self.name(ev.actor)
        src = "" if ev.source == "derived" else f", {ev.source}"
        if joker is not None:
            base = self.purpose_text(base)
            faces = f"{dice_text(ev)}, Joker {dice_text(joker)}"
            return f"{who} rolls {code} {base}: {faces} [roll {number}{src}, {joker.rule}]"
        purpose = ev.purpose
        if self.system == "zcorps" and purpose.endswith(": Joker"):
            return (
                f"{who} rolls 1D {self.purpose_text(purpose[: -len(': Joker')])}: Joker {dice_text(ev)}"
                f" [roll {number}{src}, {ev.rule}]"
            )
        return (
            f"{who} rolls {len(ev.faces)}d{ev.sides} {self.purpose_text(purpose)}: {dice_text(ev)}"
            f" [roll {number}{src}, {ev.rule}]"
        )

    def purpose_text(self, purpose: str) -> str:
        """Why a roll is made, as a phrase after "rolls 3d6": ``for the pistol attack on the guard``, ``to dodge``."""
        got = self._purposes.get(purpose)
        if got is None:
            got = self._purposes[purpose] = self._purpose_text(purpose)
        return got

    def _purpose_text(self, purpose: str) -> str:
        m = _PANNE.match(purpose)
        if m is not None:
            return f"for the {m.group('weapon')}'s Panne check (it may fail on {m.group('at')} or more)"
        if purpose == "Luck: does the weapon hold?":
            return "for a Luck roll: does the weapon hold?"
        purpose = _clean(_minus(self.names_in(purpose)).replace(": 1 CP dice", ": 1 CP die"))
        init = re.fullmatch(r"initiative (\d+D\d+ \+ .+)", purpose)
        if init is not None:
            return f"for initiative ({init.group(1)})"
        if purpose.split(" ", 1)[0] in ("dodge", "parry", "resist", "clear"):
            return "to " + purpose
        if purpose in ("save test", "minutes paralysed", "rounds to work on the serious jam") or re.search(
            r" (attack on|damage on|shot at|at) |^[\w ]+ damage\b", purpose
        ):
            return "for the " + purpose
        return "for " + purpose

    def _text(self, ev: E.Event, sec: float) -> str | None:
        n = self.name

        def o(actor: str | None) -> str:  # an actor named mid-sentence
            return n(actor, start=False)

        if isinstance(ev, E.DiceRolled):
            self.rolls += 1
            if ev.source == "entered":
                self.entered_faces += len(ev.faces)
            if self._pending is not None and self._joker_of(ev):
                plain, number, base, code = self._pending
                self._pending = None
                return self._roll_line(plain, number, ev, code, base)
            m = _ZC_CODE.match(ev.purpose) if self.system == "zcorps" else None
            if m is not None:
                self._pending = (ev, self.rolls, m.group("base"), m.group("code"))
                return None
            return self._roll_line(ev, self.rolls, None)
        if isinstance(ev, E.EncounterStarted):
            self.system = ev.system
            self.round_ticks = ev.round_ticks
            self.rolls = self.entered_faces = 0
            self.after = False
            for s in ev.scenario.get("sides", []) or []:
                if isinstance(s, dict) and isinstance(s.get("id"), str):
                    name = s.get("name")
                    self.sides[s["id"]] = name if isinstance(name, str) and name else ""
            for a in ev.scenario.get("actors", []) or []:
                if isinstance(a, dict) and isinstance(a.get("id"), str) and isinstance(a.get("name"), str):
                    self.learn(a["id"], a["name"])
            if ev.dice.source == "derived":
                # a seed drawn by `fracas commit` is secret until revealed; a typed (or the scenario's) is not
                dice = (
                    "derived from a secret seed (fracas commit), revealed at the end"
                    if ev.dice.secret
                    else "derived from a seed that is not secret, shown at the end"
                )
            else:
                dice = {"entered": "entered at the table"}.get(ev.dice.source, ev.dice.source)
            head = self._c("bold", f"=== {ev.scenario_name} ({_system_title(ev.system)}) ===")
            return (
                f"{head}\n"
                f"dice {dice} (commitment {ev.dice.commitment[:16]}…); "
                f"R1 start: before anyone acts, R1 @N: initiative count N, R1 end: as the round ends, after: the aftermath"
            )
        if isinstance(ev, E.RoundStarted):
            return self._c("bold", f"--- Round {ev.round} ---")
        if isinstance(ev, E.ActorEntered):
            self.learn(ev.actor, ev.name)
            self.levels[ev.actor] = {m.name: list(m.levels) for m in ev.monitors}
            who = "played at the table" if ev.policy == "human" else f"{ev.policy} AI" if ev.policy else ""
            side = f"side: {self.side(ev.side)}"
            return f"{ev.name} enters at ({ev.x}, {ev.y}) [{side}{', ' + who if who else ''}]"
        if isinstance(ev, E.InitiativeSet):
            extra = f", {ev.actions} actions" if ev.actions > 1 else ""
            return f"{n(ev.actor)}: initiative {ev.value}{extra} [{ev.rule}]"
        if isinstance(ev, E.TieBroken):
            return f"Ties broken, acting order: {', '.join(n(a) for a in ev.order)} [{ev.rule}]"
        if isinstance(ev, E.ActionDeclared):
            verb = "chooses" if ev.action == ROLL_CHOICE else "declares"
            return f"{n(ev.actor)} {verb}: {self.declared(ev.text)} [{ev.rule}]"
        if isinstance(ev, E.ActionLost):
            return f"{n(ev.actor)} loses the action: {self.names_in(ev.reason)} [{ev.rule}]"
        if isinstance(ev, E.Moved):
            return f"{n(ev.actor)} moves to ({ev.x}, {ev.y}), {ev.metres} m this round [{ev.rule}]"
        if isinstance(ev, E.SkillTested):
            against = f" against {o(ev.target)}" if ev.target else ""
            pool = "".join(f", {m}" for m in _mods(ev.pool_modifiers).split("; ") if m)
            mods = _mods(ev.modifiers)
            if self.system == "d100":
                need = f"{ev.total}, needing {ev.difficulty} or less"
                detail = f" (skill {ev.difficulty_base}; {mods})" if mods else ""
            else:
                need = f"{ev.total} against difficulty {ev.difficulty}"
                detail = f" (base {ev.difficulty_base}; {mods})" if mods else ""
            margin = f"margin {_signed(ev.margin)}"
            return (
                f"{n(ev.actor)} tests {pool_text(ev.skill)}{pool}{against}: {need}{detail}: "
                f"{self._verdict(ev)}, {margin} [{ev.rule}]"
            )
        if isinstance(ev, E.DamageRolled):
            mods = _mods(ev.modifiers)
            return (
                f"{n(ev.actor)} deals {ev.total} {ev.kind} damage to {o(ev.target)} "
                f"({ev.dice_total} rolled{'; ' + mods if mods else ''}) [{ev.rule}]"
            )
        if isinstance(ev, E.ThresholdComputed):
            parts = " + ".join(f"{p.name} {p.value}" for p in ev.parts)
            return f"{n(ev.actor)}: wound threshold {ev.value} ({parts}) [{ev.rule}]"
        if isinstance(ev, E.WoundMarked):
            cause = f" ({ev.damage} damage against {ev.threshold})" if ev.threshold else ""
            box = f"{article(ev.level_name)} {ev.level_name} box"
            return self._c("wound", f"{n(ev.actor)} marks {box} on the {ev.monitor} monitor{cause}") + f" [{ev.rule}]"
        if isinstance(ev, E.WoundHealed):
            lvl = self.level(ev.actor, ev.monitor, ev.level)
            boxes = f"{ev.boxes} {lvl} box{'es' if ev.boxes > 1 else ''} ({ev.monitor})"
            verb_s = "s" if ev.boxes == 1 else ""
            if ev.to_level < 0:
                return f"{n(ev.actor)}: {boxes} heal{verb_s} after {duration(sec)} [{ev.rule}]"
            to = self.level(ev.actor, ev.monitor, ev.to_level)
            return f"{n(ev.actor)}: {boxes} become{verb_s} {to} after {duration(sec)} [{ev.rule}]"
        if isinstance(ev, E.WoundWorsened):
            lvl = self.level(ev.actor, ev.monitor, ev.level)
            to = self.level(ev.actor, ev.monitor, ev.to_level)
            boxes = f"{ev.boxes} {lvl} box{'es' if ev.boxes > 1 else ''} ({ev.monitor})"
            verb_s = "s" if ev.boxes == 1 else ""
            return self._c(
                "wound", f"{n(ev.actor)}: untreated, {boxes} worsen{verb_s} to {to} after {duration(sec)}"
            ) + (f" [{ev.rule}]")
        if isinstance(ev, E.HitPointsChanged):
            change = f"loses {plural(-ev.delta, 'HP', 'HP')}" if ev.delta < 0 else f"regains {ev.delta} HP"
            return self._c("wound", f"{n(ev.actor)} {change} ({ev.hp} left)") + f" [{ev.rule}]"
        if isinstance(ev, E.ConditionSet):
            text = _condition_set(ev.condition, ev.value)
            return None if text is None else f"{n(ev.actor)} {text} [{ev.rule}]"
        if isinstance(ev, E.ConditionCleared):
            text = _condition_cleared(ev.condition)
            return None if text is None else f"{n(ev.actor)} {text} [{ev.rule}]"
        if isinstance(ev, E.AmmoSpent):
            return f"{n(ev.actor)} fires {plural(ev.rounds, 'round')} from the {ev.weapon} ({ev.left} left) [{ev.rule}]"
        if isinstance(ev, E.Reloaded):
            return (
                f"{n(ev.actor)} reloads the {ev.weapon} ({plural(ev.rounds, 'round')}, "
                f"{plural(ev.spare_left, 'spare magazine')} left) [{ev.rule}]"
            )
        if isinstance(ev, E.WeaponStateChanged):
            return f"{n(ev.actor)}'s {ev.weapon} is {ev.state} [{ev.rule}]"
        if isinstance(ev, E.ResourceSpent):
            res = _RESOURCES.get(ev.resource, ev.resource)
            return f"{n(ev.actor)} spends {ev.amount} {res} ({ev.left} left) [{ev.rule}]"
        if isinstance(ev, E.Noted):
            return f"{n(ev.actor)}: {_clean(self.names_in(ev.text))} [{ev.rule}]"
        if isinstance(ev, E.ActorFled):
            return f"{n(ev.actor)} escapes through the {ev.exit} [{ev.rule}]"
        if isinstance(ev, E.ActorSurrendered):
            return f"{n(ev.actor)} surrenders [{ev.rule}]"
        if isinstance(ev, E.ActorDied):
            return self._c("death", f"{n(ev.actor)} dies: {ev.cause}") + f" [{ev.rule}]"
        if isinstance(ev, E.AftermathStarted):
            self.after = True
            return self._c(
                "bold",
                f"=== The fight is over, {self.outcome(ev.winner, ev.reason)}. The aftermath: the clock runs on ===",
            )
        if isinstance(ev, E.EncounterEnded):
            who = f"won by {self.side(ev.winner, start=False)}" if ev.winner else "a draw"
            if self.entered_faces:
                dice = f"{plural(self.entered_faces, 'die', 'dice')} entered at the table"
            else:
                dice = f"seed revealed: {ev.seed}"
            return self._c(
                "bold", f"=== End after {plural(ev.rounds, 'round')}, {duration(sec)} simulated: {who}; {dice} ==="
            )
        return None


_RESOURCES = {"cp": "CP", "cojones": "Cojones"}


def _system_title(system: str) -> str:
    return {"point_zero": "Point Zéro", "zcorps": "Z-Corps", "d100": "d100"}.get(system, system)


def _condition_set(condition: str, value: Any) -> str | None:
    """``is sprinting (18 m)``; None for bookkeeping a reader does not need (whom one aims at)."""
    v = value if value else None
    if condition == "aim_target":
        return None
    if condition == "sprinting":
        return f"sprints ({v} m this round)" if v else "sprints"
    if condition == "extra_actions":
        return f"takes {plural(int(v or 1), 'extra action')} this round"
    if condition == "aiming":
        return f"aims (+{v}D)" if v else "aims"
    if condition == "busy":
        return f"is busy for {plural(int(v), 'more round')}" if v else "is busy"
    if condition == "hanging_on":
        return f"hangs on ({v})" if v else "hangs on"
    if condition == "partial_defence":
        return f"defends partially (difficulty {v})" if v else "defends partially"
    if condition == "active_defence":  # ZC-DEF-1: the roll is added to the difficulty until its next action
        return f"defends actively (+{v} to the difficulty to hit)" if v else "defends actively"
    if condition in ("paralysed", "unconscious") and v:
        return f"is {condition} for {v} min"
    words = condition.replace("_", " ")
    if condition.isalpha():
        return f"is {words}"
    return f"is {words} ({v})" if v else f"is {words}"


def _condition_cleared(condition: str) -> str | None:
    if condition in ("aim_target", "extra_actions"):
        return None
    if condition == "aiming":
        return "stops aiming"
    if condition == "sprinting":
        return "stops sprinting"
    if condition in ("active_defence", "partial_defence"):
        return f"stops defending {'actively' if condition == 'active_defence' else 'partially'}"
    return f"is no longer {condition.replace('_', ' ')}"


# ---------------------------------------------------------------- summary

_REACTIONS = ("dodge", "parry")
_TAKEN_OUT = ("paralysed", "unconscious", "incapacitated", "prone")
_MODES = "single auto|single|semi multi|semi|burst multi|long burst|burst|suppressive"
_WEAPON = re.compile(rf"^(?P<weapon>.+?)(?: (?:{_MODES}))? (?:attack on|shot at|at) ")


class Summary:
    """One line per action: who did what to whom, hit or miss, the wound it left (``--summary``).

    ``feed`` takes the events in order and returns the lines finished by this
    one; ``flush`` returns the last.
    """

    def __init__(self, narrator: Narrator | None = None) -> None:
        self.n = narrator or Narrator()
        self.action: dict[str, Any] | None = None
        self.where = ""
        self.weapon: dict[str, str] = {}

    def _close(self) -> list[str]:
        a, self.action = self.action, None
        if a is None:
            return []
        n = self.n
        who, whom = n.name(a["actor"]), n.name(a["target"], start=False)
        with_weapon = f" with the {a['weapon']}" if a.get("weapon") else ""
        if a["reaction"]:
            verb = f"tries to {a['skill']} {n.name(a['target'], start=False)}'s attack"
            result = "success" if a["success"] else "failure"
            return [f"{a['where']} {who} {verb}: {result}"]
        result = "hit" if a["success"] else "miss"
        tail = []
        if a["damage"] is not None:
            tail.append(f"{a['damage']} damage")
        tail.extend(a["wounds"])
        if a["died"]:
            tail.append("dies")
        more = f" ({', '.join(tail)})" if tail else ""
        return [f"{a['where']} {who} attacks {whom}{with_weapon}: {result}{more}"]

    def feed(self, rnd: int, count: int, ev: E.Event, sec: float = 0.0) -> list[str]:
        n = self.n
        out: list[str] = []
        if isinstance(ev, E.EncounterStarted | E.ActorEntered | E.AftermathStarted):
            n.text(ev, sec)  # names, sides, levels, the phase
        where = n.prefix(rnd, count)
        if isinstance(ev, E.DiceRolled):
            m = _WEAPON.match(ev.purpose)
            if m is not None:
                self.weapon[ev.actor] = m.group("weapon")
            return out
        if isinstance(ev, E.SkillTested) and ev.target is not None and ev.target != ev.actor and not n.after:
            out += self._close()
            reaction = ev.skill in _REACTIONS
            self.action = {
                "where": where,
                "actor": ev.actor,
                "target": ev.target,
                "skill": ev.skill,
                "reaction": reaction,
                "success": ev.success,
                "weapon": None if reaction else self.weapon.pop(ev.actor, None),
                "damage": None,
                "wounds": [],
                "died": False,
            }
            return out
        a = self.action
        if a is not None and not a["reaction"]:
            if isinstance(ev, E.DamageRolled) and ev.actor == a["actor"] and ev.target == a["target"]:
                a["damage"] = ev.total
                return out
            if isinstance(ev, E.WoundMarked) and ev.actor == a["target"]:
                a["wounds"].append(f"{article(ev.level_name)} {ev.level_name} box")
                return out
            if isinstance(ev, E.HitPointsChanged) and ev.actor == a["target"] and ev.delta < 0:
                a["wounds"].append(f"{-ev.delta} HP lost, {ev.hp} left")
                return out
            if isinstance(ev, E.ActorDied) and ev.actor == a["target"]:
                a["died"] = True
                return out
            if isinstance(ev, E.ConditionSet) and ev.actor == a["target"] and ev.condition in _TAKEN_OUT:
                a["wounds"].append(ev.condition)
                return out
        if isinstance(ev, E.ActionDeclared) and ev.action == ROLL_CHOICE:
            return out  # a choice about a roll (CP on it) belongs to the action under way
        if isinstance(ev, E.ActionDeclared | E.RoundStarted | E.Moved | E.AftermathStarted | E.EncounterEnded):
            out += self._close()
        if isinstance(ev, E.ActorFled):
            out += self._close()
            out.append(f"{where} {n.name(ev.actor)} escapes through the {ev.exit}")
        elif isinstance(ev, E.ActorSurrendered):
            out += self._close()
            out.append(f"{where} {n.name(ev.actor)} surrenders")
        elif isinstance(ev, E.ActorDied):
            out += self._close()
            out.append(f"{where} {n.name(ev.actor)} dies: {ev.cause}")
        elif isinstance(ev, E.AftermathStarted):
            out.append(f"{' ' * 8} The fight is over after round {rnd}, {n.outcome(ev.winner, ev.reason)}")
        elif isinstance(ev, E.EncounterStarted):
            out.append(f"{ev.scenario_name} ({_system_title(ev.system)})")
        return out

    def flush(self) -> list[str]:
        return self._close()
