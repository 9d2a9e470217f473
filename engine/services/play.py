"""``fracas play SCENARIO --human ID``: a real table's fight, decided and (optionally) rolled by people.

Actors with ``policy = "human"`` (or named with ``--human ID``, which the log
header then records as human) are asked at the terminal when their rule
system asks for their decision (Point Zéro: at the declaration; Z-Corps and
d100: at their initiative count): first a compact view of the map around
them (actors, full and low walls, cover, exits) and the round's initiative with what was
declared so far, then a numbered list of the legal actions, named with
names, the cover they lead into, and their odds. The other actors follow
their AI policy. With ``dice="entered"`` every roll is asked for too, by
character name and purpose (``Mira rolls 5d6 for the pistol attack on the
guard``): ``346``, ``3 4 6`` or ``3,4,6``; a typo is asked again, never a
crash. Entered faces are logged with ``source = "entered"``; the log
replays, audits and verifies like any other (the dice step counts entered
dice instead of re-deriving them).

Input and output are plain text streams, so tests drive a whole fight with a
script of answers.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import msgspec
from fracas.core import events as E
from fracas.core.battlefield import FULL, LOW
from fracas.core.decide import HUMAN, ROLL_CHOICE, Choice, attach_chooser
from fracas.core.dice import DiceSource, EnteredDice
from fracas.core.encounter import Encounter, Listener, RunResult
from fracas.core.errors import FracasError
from fracas.core.files import check_output
from fracas.core.scenario import LoadedScenario, load_scenario
from fracas.core.system import get_system
from fracas.services.narrate import Narrator
from fracas.services.run import default_log_path, resolve_seed

if TYPE_CHECKING:
    from fracas.core.encounter import Encounter as _Enc

_SPLIT = re.compile(r"[\s,;]+")
#: the target of an offered action, as its text names it (an actor id)
_ACTS_ON = "attack|shoot|strike|aim at|aim|tackle|push|grab|bite"
_TARGETED = re.compile(rf"\b(?:{_ACTS_ON}) ([^\s,()]+)")
#: whom an offered action is about: its target, or the actor a move goes toward
_ABOUT = re.compile(rf"\b(?:{_ACTS_ON}|toward) ([^\s,()]+)")
#: Of a crowd off the map, the actions about this many of its nearest actors are offered all the same.
NEAREST_OFF_THE_MAP = 3
#: What a player types to see every legal action when a crowd's are folded.
ALL = "all"


class InputEnded(FracasError):
    """The person at the table stopped answering (end of input)."""


class Prompter:
    """Asks questions on ``out`` and reads answers from ``inp``, line by line."""

    def __init__(self, inp: TextIO, out: TextIO) -> None:
        self.inp = inp
        self.out = out

    def ask(self, prompt: str, what: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line:
            raise InputEnded(f"input ended while waiting for {what}")
        return line.strip()


class Table:
    """What the person at the table has seen this round: initiative values and declarations."""

    def __init__(self, narrator: Narrator) -> None:
        self.narrator = narrator
        self.round = 0
        self.initiative: dict[str, int] = {}
        self.declared: list[tuple[str, str]] = []

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if isinstance(ev, E.RoundStarted):
            self.round, self.initiative, self.declared = ev.round, {}, []
        elif isinstance(ev, E.InitiativeSet):
            self.initiative[ev.actor] = ev.value
        elif isinstance(ev, E.ActionDeclared) and ev.action != ROLL_CHOICE:
            self.declared.append((ev.actor, ev.text))
        elif isinstance(ev, E.EncounterStarted | E.ActorEntered):
            self.narrator.text(ev)  # learn names and sides


def _cover_zones(enc: _Enc) -> list[Any]:
    return list(getattr(enc.scenario.map, "cover", []) or [])


def cover_at(enc: _Enc, x: int, y: int) -> Any | None:
    """The cover zone holding (x, y), if any."""
    for zone in _cover_zones(enc):
        if zone.x <= x < zone.x + zone.w and zone.y <= y < zone.y + zone.h:
            return zone
    return None


#: how the map view ranks cover levels it names (any system's levels; an unknown one counts least)
_COVER_ORDER = ("quarter", "partial", "half", "heavy", "three_quarters", "full")


def _cover_rank(level: str) -> int:
    return _COVER_ORDER.index(level) + 1 if level in _COVER_ORDER else 1


def _level(level: str) -> str:
    return level.replace("_", " ")


def wall_cover(enc: _Enc, viewer: tuple[int, int], target: tuple[int, int]) -> Any | None:
    """The low wall that covers ``target`` from ``viewer`` (fracas.core.battlefield's line of fire), if any."""
    bf = getattr(enc, "battlefield", None)
    if bf is None or not bf.walls:
        return None
    cover = bf.cover_between(viewer, target, _cover_rank)
    return cover if cover is not None and cover.kind == "wall" else None


def wall_beside(enc: _Enc, x: int, y: int) -> Any | None:
    """A low wall next to (x, y) (a cell one step away), the first in the map's order: somewhere to duck behind."""
    for w in getattr(enc.scenario.map, "walls", []) or []:
        if w.height == LOW and w.x - 1 <= x <= w.x + w.w and w.y - 1 <= y <= w.y + w.h and not w.contains(x, y):
            return w
    return None


#: How far the prompt's map reaches around the actor deciding, in metres (a square of 17 × 17).
MAP_RADIUS = 8
#: A side of more actors than this is a crowd: a prompt names the crowd's actors its map shows and counts the others.
CROWD = 20


def map_view(enc: _Enc, actor: str, radius: int = MAP_RADIUS, narrator: Narrator | None = None) -> list[str]:
    """A compact text map around ``actor``: one character a metre, with its legend.

    ``@`` the actor, ``A``-``Z`` the others (legend below), ``#`` a full wall (blocks sight and steps),
    ``=`` a low wall (cover, blocks steps), ``:`` a cover zone, ``E`` an exit, ``.`` open ground,
    ``x`` an actor out of the fight. An actor behind a low wall as seen from ``actor``, or out of sight
    behind a full wall, says so.
    """
    me = enc.state.actors[actor]
    m = enc.scenario.map
    width, height = int(getattr(m, "width", 0) or 0), int(getattr(m, "height", 0) or 0)
    x0, x1 = max(0, me.x - radius), min(width - 1, me.x + radius) if width else me.x + radius
    y0, y1 = max(0, me.y - radius), min(height - 1, me.y + radius) if height else me.y + radius
    grid = {(x, y): "." for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)}
    for zone in _cover_zones(enc):
        for x in range(zone.x, zone.x + zone.w):
            for y in range(zone.y, zone.y + zone.h):
                if (x, y) in grid:
                    grid[(x, y)] = ":"
    walls = list(getattr(m, "walls", []) or [])
    for wall in reversed(walls):  # the first wall listed wins where two overlap, as on the battlefield
        for x in range(wall.x, wall.x + wall.w):
            for y in range(wall.y, wall.y + wall.h):
                if (x, y) in grid:
                    grid[(x, y)] = "#" if wall.height == FULL else "="
    for ex in getattr(m, "exits", []) or []:
        if (ex.x, ex.y) in grid:
            grid[(ex.x, ex.y)] = "E"
    legend: list[str] = []
    letters = iter("ABCDFGHIJKLMNOPQRSTUVWYZ")
    name = _name_of(enc)
    bf = getattr(enc, "battlefield", None)
    for aid, a in enc.state.actors.items():
        if aid == actor:
            continue
        if (a.x, a.y) in grid:
            fighting = a.can_act()
            mark = next(letters, "?") if fighting else "x"
            grid[(a.x, a.y)] = mark
            where = cover_at(enc, a.x, a.y)
            state = "" if fighting else f", {a.status()}"
            cover = f", in cover: {where.name} ({_level(where.level)})" if where is not None else ""
            blocker = bf.sight_blocker((me.x, me.y), (a.x, a.y)) if bf is not None and bf.walls else None
            if blocker is not None:
                cover += f", out of sight behind the {blocker.name}"
            else:
                low = wall_cover(enc, (me.x, me.y), (a.x, a.y))
                if low is not None:
                    cover += f", {_level(low.level)} cover behind the {low.name}"
            dist = max(abs(a.x - me.x), abs(a.y - me.y))
            side = narrator.side(a.side) if narrator is not None else _side(enc, a.side)
            legend.append(f"{mark} {name(aid)} ({side}, {dist} m{cover}{state})")
    grid[(me.x, me.y)] = "@"
    rows = ["".join(grid[(x, y)] for x in range(x0, x1 + 1)) for y in range(y0, y1 + 1)]
    here = cover_at(enc, me.x, me.y)
    me_cover = f", in cover: {here.name} ({_level(here.level)})" if here is not None else ""
    beside = wall_beside(enc, me.x, me.y)
    if beside is not None:
        me_cover += f", beside the {beside.name} (low wall, {_level(beside.cover)} cover)"
    shown_walls = [
        f"# {w.name} (full wall: blocks sight and movement)"
        if w.height == FULL
        else f"= {w.name} (low wall: {_level(w.cover)} cover, blocks movement)"
        for w in walls
        if _seen(grid, w)
    ]
    covers = [f": {z.name} (cover, {_level(z.level)})" for z in _cover_zones(enc) if _seen(grid, z)]
    exits = [f"E {ex.name} at ({ex.x}, {ex.y})" for ex in getattr(m, "exits", []) or []]
    return [
        f"Map around {name(actor)} at ({me.x}, {me.y}){me_cover}, 1 character = 1 m:",
        *(f"  {r}" for r in rows),
        f"  @ {name(actor)}",
        *(f"  {line}" for line in legend),
        *(f"  {line}" for line in shown_walls + covers + exits),
    ]


def _mapped(enc: _Enc, actor: str) -> Callable[[str], bool]:
    """Whether a prompt names an actor: every actor of a side of :data:`CROWD` or fewer; of a crowd (the horde's
    thousand dead), those the prompt's map shows (within :data:`MAP_RADIUS` metres of ``actor`` each way)."""
    actors = enc.state.actors
    sizes = Counter(a.side for a in actors.values())
    me = actors.get(actor)

    def mapped(aid: str) -> bool:
        a = actors.get(aid)
        if a is None or me is None or sizes[a.side] <= CROWD:
            return True
        return max(abs(a.x - me.x), abs(a.y - me.y)) <= MAP_RADIUS

    return mapped


def _offered(enc: _Enc, actor: str, choices: Sequence[Choice], mapped: Callable[[str], bool]) -> list[int]:
    """The indices of the choices a prompt lists: each about nobody, about an actor :func:`_mapped` names, or about
    one of the :data:`NEAREST_OFF_THE_MAP` nearest of the others (so a crowd far off can still be shot at)."""
    actors = enc.state.actors
    about = [m.group(1) if (m := _ABOUT.search(c.text)) else None for c in choices]
    off = {aid for aid in about if aid is not None and aid in actors and not mapped(aid)}
    me = actors.get(actor)
    if not off or me is None:
        return list(range(len(choices)))

    def metres(aid: str) -> tuple[int, str]:
        a = actors[aid]
        return max(abs(a.x - me.x), abs(a.y - me.y)), aid

    nearest = set(sorted(off, key=metres)[:NEAREST_OFF_THE_MAP])
    return [i for i, aid in enumerate(about) if aid is None or aid not in off or aid in nearest]


def _seen(grid: dict[tuple[int, int], str], zone: Any) -> bool:
    return any((x, y) in grid for x in range(zone.x, zone.x + zone.w) for y in range(zone.y, zone.y + zone.h))


def _name_of(enc: _Enc) -> Any:
    def name(aid: str) -> str:
        a = enc.state.actors.get(aid)
        return a.name if a is not None and a.name else aid

    return name


def _side(enc: _Enc, side: str) -> str:
    for s in getattr(enc.scenario, "sides", []) or []:
        if getattr(s, "id", None) == side and getattr(s, "name", None):
            return str(s.name)
    return f"side {side}"


class TerminalChooser:
    """The human at the table picks from a numbered list of legal actions, seeing the map and the round."""

    def __init__(self, prompter: Prompter, table: Table | None = None) -> None:
        self.p = prompter
        self.table = table or Table(Narrator())

    def option_text(self, enc: _Enc, text: str, actor: str = "") -> str:
        """A choice as the player reads it: names for ids, the cover a move ends in, and the low wall
        that covers the target from where the action is taken."""
        shown = self.table.narrator.declared(text)
        m = re.search(r"to \((\d+), (\d+)\)", text)
        if m is not None:
            zone = cover_at(enc, int(m.group(1)), int(m.group(2)))
            x, y = int(m.group(1)), int(m.group(2))
            wall = wall_beside(enc, x, y)
            if zone is not None:
                shown = shown.replace(m.group(0), f"{m.group(0)} into cover ({zone.name}, {_level(zone.level)})", 1)
            elif wall is not None:
                where = f"{m.group(0)} beside the {wall.name} (low wall, {_level(wall.cover)} cover)"
                shown = shown.replace(m.group(0), where, 1)
        target = _TARGETED.search(text)
        me = enc.state.actors.get(actor)
        if target is not None and target.group(1) in enc.state.actors and me is not None:
            t = enc.state.actors[target.group(1)]
            viewer = (int(m.group(1)), int(m.group(2))) if m is not None else (me.x, me.y)
            wall = wall_cover(enc, viewer, (t.x, t.y))
            if wall is not None:
                shown += f" ({self.table.narrator.name(t.id)}: {_level(wall.level)} cover behind the {wall.name})"
        return shown

    def choose(self, enc: _Enc, actor: str, choices: Sequence[Choice]) -> int:
        out = self.p.out
        name = enc.state.actors[actor].name if actor in enc.state.actors else actor
        t = self.table
        if choices and choices[0].question:  # a choice about a roll: the roll, not the map
            out.write(f"{t.narrator.names_in(choices[0].question)}\nYour choices:\n")
            for i, c in enumerate(choices, start=1):
                out.write(f"  {i:>2}. {t.narrator.declared(c.text)}\n")
            return self._number(name, len(choices))
        out.write(f"\nRound {enc.round}: {name} decides.\n")
        for line in map_view(enc, actor, narrator=t.narrator):
            out.write(line + "\n")
        mapped = _mapped(enc, actor)
        if t.initiative:
            order = sorted(t.initiative.items(), key=lambda kv: -kv[1])
            named = [f"{t.narrator.name(a)} {v}" for a, v in order if mapped(a)]
            off = [v for a, v in order if not mapped(a)]
            rest = f" (and {len(off)} more off the map, initiative {min(off)} to {max(off)})" if off else ""
            out.write("Initiative: " + ", ".join(named) + rest + "\n")
        if t.declared:
            out.write("Declared so far this round:\n")
            kinds: Counter[str] = Counter()
            for who, text in t.declared:
                if mapped(who):
                    out.write(f"  {t.narrator.name(who)}: {t.narrator.declared(text)}\n")
                else:
                    kinds[text.split(" ", 1)[0]] += 1
            if kinds:
                said = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))
                out.write(f"  (and {kinds.total()} more off the map: {said})\n")
        offered = _offered(enc, actor, choices, mapped)
        self._list(enc, actor, choices, offered)
        folded = len(choices) - len(offered)
        if folded:
            out.write(f"  (and {folded} more about actors off the map: type {ALL} to list every action)\n")
        pick = self._answer(name, len(offered), more=folded > 0)
        if pick is not None:
            return offered[pick]
        self._list(enc, actor, choices, range(len(choices)))
        return self._number(name, len(choices))

    def _list(self, enc: _Enc, actor: str, choices: Sequence[Choice], offered: Sequence[int]) -> None:
        out = self.p.out
        out.write("Your choices:\n")
        for n, i in enumerate(offered, start=1):
            c = choices[i]
            odds = f"  [{c.odds:.1%} to succeed]" if c.odds is not None else ""
            out.write(f"  {n:>2}. {self.option_text(enc, c.text, actor)}{odds}\n")

    def _number(self, name: str, n: int) -> int:
        """The index of the choice typed, every choice listed (nothing to ask ``all`` for)."""
        pick = self._answer(name, n)
        return 0 if pick is None else pick  # (None only when more are folded)

    def _answer(self, name: str, n: int, *, more: bool = False) -> int | None:
        """The index of the choice typed (1 to ``n`` on the screen); None for :data:`ALL` when ``more`` are folded."""
        out = self.p.out
        while True:
            answer = self.p.ask(f"{name}'s choice [1-{n}{', ' + ALL if more else ''}]: ", f"{name}'s action")
            if answer.isdecimal() and 1 <= int(answer) <= n:
                return int(answer) - 1
            if more and answer.lower() == ALL:
                return None
            also = f", or {ALL}" if more else ""
            # Enter alone takes nothing: no action at the table is chosen for the player by a slip of the finger
            said = "nothing typed" if not answer else f"not a choice number: {answer!r}"
            out.write(f"  {said}; type a number from 1 to {n}{also}\n")


def parse_faces(text: str, n: int, sides: int) -> list[int] | str:
    """The faces typed (``346``, ``3 4 6`` or ``3,4,6``), or why they are not ``n`` faces of a d``sides``."""
    tokens = [t for t in _SPLIT.split(text) if t]
    if len(tokens) == 1 and n > 1 and sides <= 9 and tokens[0].isdecimal() and len(tokens[0]) == n:
        tokens = list(tokens[0])  # one digit a die: 346
    if len(tokens) != n:
        return f"expected {n} face{'s' if n != 1 else ''}, got {len(tokens)}"
    faces = []
    for t in tokens:
        if not t.isdecimal():
            return f"{t!r} is not a number"
        face = int(t)
        if not 1 <= face <= sides:
            return f"{face} is not a face of a d{sides} (1 to {sides})"
        faces.append(face)
    return faces


def entered_dice(prompter: Prompter, narrator: Narrator | None = None) -> EnteredDice:
    """A dice source that asks the table for every roll, by character name and purpose; asks again on a typo."""
    nar = narrator or Narrator()

    def ask(n: int, sides: int, actor: str, purpose: str) -> list[int]:
        forms = ", typed as 346, 3 4 6 or 3,4,6" if sides <= 9 and n > 1 else ", as 12 34 or 12,34" if n > 1 else ""
        while True:
            answer = prompter.ask(
                f"{nar.name(actor)} rolls {n}d{sides} {nar.purpose_text(purpose)}: "
                f"enter {n} face{'s' if n != 1 else ''} from 1 to {sides}{forms}: ",
                f"the dice of {nar.name(actor)} ({purpose})",
            )
            parsed = parse_faces(answer, n, sides)
            if isinstance(parsed, list):
                return parsed
            prompter.out.write(f"  {parsed}; roll again or retype\n")

    return EnteredDice(ask)


def with_humans(loaded: LoadedScenario, humans: Sequence[str], scenario_type: Any) -> LoadedScenario:
    """The scenario with the actors named in ``humans`` played by a human (the header records it)."""
    if not humans:
        return loaded
    raw = copy.deepcopy(loaded.raw)
    actors = raw.get("actors", [])
    known = {a.get("id"): a for a in actors if isinstance(a, dict)}
    for aid in humans:
        if aid not in known:
            listing = ", ".join(f"{i} ({a.get('name', i)})" for i, a in known.items())
            raise FracasError(f"--human {aid}: {loaded.path} has no actor {aid!r} (actors: {listing})")
        known[aid]["policy"] = HUMAN
    spec = msgspec.convert(raw, scenario_type)
    return LoadedScenario(path=loaded.path, spec=spec, raw=raw, sha256=loaded.sha256)


def play_scenario(
    scenario: str | Path,
    *,
    inp: TextIO,
    out: TextIO,
    dice: str = "derived",
    seed: str | None = None,
    log_path: Path | None = None,
    player_seeds: Sequence[str] = (),
    listeners: Sequence[Listener] = (),
    humans: Sequence[str] = (),
    force: bool = False,
) -> RunResult:
    """Run a fight with humans deciding (and, with ``dice="entered"``, rolling) at the terminal.

    ``humans``: actor ids played by a human for this fight (``--human ID``), on top of the
    scenario's ``policy = "human"`` actors; without any, the fight would ask nobody: refused.
    The log is checked before anyone is asked anything: an existing file is replaced only with
    ``force`` (the log of an earlier evening at the table is not lost to a second one).
    """
    if dice not in ("derived", "entered"):
        raise FracasError(f"--dice: expected derived or entered, got {dice!r}")
    loaded = load_scenario(scenario)
    system = get_system(loaded.spec.system)
    if "human" not in system.policies:
        raise FracasError(f"{loaded.path}: rule system {system.name} has no human policy")
    loaded = with_humans(loaded, humans, system.scenario_type)
    if not any(a.policy == HUMAN for a in loaded.spec.actors):
        listing = ", ".join(f"{a.id} ({a.name})" for a in loaded.spec.actors)
        raise FracasError(f"{loaded.path}: no actor is played by a human: pick one with --human ID (actors: {listing})")
    seed_text = resolve_seed(seed, loaded)
    log_path = check_output(log_path or default_log_path(loaded, seed_text), force=force, inputs=[loaded.path])
    prompter = Prompter(inp, out)
    narrator = Narrator()
    for a in loaded.spec.actors:
        narrator.learn(a.id, a.name)
    table = Table(narrator)
    source: DiceSource | None = entered_dice(prompter, narrator) if dice == "entered" else None
    enc = Encounter(
        system,
        loaded,
        seed=seed_text,
        dice=source,
        log_path=log_path,
        player_seeds=player_seeds,
        listeners=[table, *listeners],
    )
    attach_chooser(enc, TerminalChooser(prompter, table))
    return enc.run()
