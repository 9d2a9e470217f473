"""Visual replay: one self-contained HTML page of a logged fight.

:func:`render_html` reads a log, folds it with the engine's own projection
(:func:`fracas.core.state.apply_entry`) and writes everything the page shows as
compact JSON inside one HTML file (no network, no external file):

- ``meta``: the header (scenario, system, dice commitment, revealed seed,
  clock), ``verify``: whether the log verifies (see :func:`verification`);
- ``map``, ``sides``, ``actors``: the static layout (map of the scenario
  recorded in the header, side colours, each actor's monitors as entered);
- ``steps``: one row per log entry ``[seq, round, count, sec, type]``,
  ``text``: the narrated line of each entry (:class:`fracas.services.narrate.Narrator`);
- ``deltas``: for each entry, the fields of the actors whose projected view
  (:func:`fracas.core.state.state_to_builtins`) changed, so the page rebuilds the
  state at any step by overwriting fields, with no rule logic in JavaScript;
- ``events``: the events as logged (``Moved`` excepted: the deltas carry
  them), for the roll audit;
- ``groups``: the rolls grouped with their consequences (:func:`roll_groups`),
  and ``attacks``: tests aimed at another actor, drawn on the map as lines.

The viewer itself (HTML, CSS, JavaScript) is ``engine/services/templates/viewer.html``.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import msgspec
from fracas.core import events as E
from fracas.core.battlefield import Battlefield
from fracas.core.controls import may_hold_controls, visible_all
from fracas.core.encounter import header_commitment
from fracas.core.errors import FracasError
from fracas.core.files import write_atomic
from fracas.core.log import GENESIS, LogError, TornLine, encode_entry, iter_log
from fracas.core.state import State, actor_to_builtins, apply_entry
from fracas.services.narrate import Narrator
from fracas.services.sides import side_colours

#: Where the data goes in the template.
DATA_MARK = "/*__FRACAS_DATA__*/null"

#: Side colours, in the order the scenario lists its sides.

#: Events that frame a fight rather than resolve an action: a roll group never spans one.
_FRAME = (
    E.EncounterStarted,
    E.EncounterEnded,
    E.RoundStarted,
    E.StateChecked,
    E.AftermathStarted,
    E.ActorEntered,
    E.TieBroken,
    E.ActionDeclared,
    E.ActionLost,
    E.Moved,
)
_ROLLS = (E.DiceRolled, E.SkillTested, E.DamageRolled)

#: Declared actions that answer someone else's attack: not drawn as an attack on the map.
REACTIONS = frozenset({"parry", "dodge", "block", "defend", "defence", "defense", "evade", "cover"})

_builtins_encoder = msgspec.json.Encoder(order="deterministic")


class Rendered(msgspec.Struct, kw_only=True):
    """What :func:`render_html` wrote."""

    html: str
    entries: int
    size: int
    verified: str
    torn: TornLine | None = None


def _event_builtins(ev: E.Event) -> dict[str, Any]:
    out: dict[str, Any] = msgspec.to_builtins(ev)
    return out


def read_entries(path: Path) -> tuple[list[E.Entry], TornLine | None]:
    """The valid entries of a log and its torn last line, if any; errors as FracasError."""
    entries: list[E.Entry] = []
    torn: TornLine | None = None
    try:
        for item in iter_log(path):
            if isinstance(item, TornLine):
                torn = item
                break
            entries.append(item)
    except LogError as exc:
        raise FracasError(str(exc)) from None
    if not entries:
        raise FracasError(f"{path}: empty log: no entry could be read")
    if not isinstance(entries[0].ev, E.EncounterStarted):
        raise FracasError(f"{path}: line 1: the first entry is not an EncounterStarted header")
    return entries, torn


# ------------------------------------------------------------------ verify


def chain_check(entries: Sequence[E.Entry]) -> dict[str, Any]:
    """What engine/log.py alone can check: seqs, the hash chain, the seed commitment.

    The chain is recomputed over the canonical bytes of each decoded entry
    (``h_i = SHA-256(h_{i-1} || entry bytes)``), which is how both the JSONL
    and the binary forms verify. The dice themselves are not re-derived here.
    """
    checks: list[str] = []
    problems: list[str] = []
    prev = GENESIS
    for i, e in enumerate(entries):
        if e.seq != i:
            problems.append(f"entry {i + 1}: seq {e.seq}, expected {i} (seqs must be gapless from 0)")
            break
        _, digest = encode_entry(e.seq, e.round, e.count, e.sec, e.ev, prev)
        if digest.hex() != e.h:
            problems.append(f"seq {e.seq}: hash chain broken (h does not match the entry and its predecessor)")
            break
        prev = digest
    else:
        checks.append(f"hash chain intact over {len(entries)} entries")
    head = entries[0].ev
    last = entries[-1].ev
    if isinstance(head, E.EncounterStarted) and isinstance(last, E.EncounterEnded):
        if header_commitment(head, last.seed) == head.dice.commitment:
            checks.append("revealed seed matches the commitment")
        else:
            problems.append("the revealed seed does not match the commitment in the header")
    else:
        checks.append("no revealed seed (the log does not end with EncounterEnded)")
    return {
        "status": "failed" if problems else "ok",
        "by": "hash chain (engine/log.py)",
        "summary": problems[0] if problems else "hash chain intact; dice not re-derived",
        "details": problems + checks,
    }


def _verify_hook() -> Callable[..., Any] | None:
    """``fracas.services.verify.verify_log`` (the full six-step audit) when it is installed, else None."""
    try:
        mod = importlib.import_module("fracas.services.verify")
    except ImportError:
        return None
    fn = getattr(mod, "verify_log", None)
    return fn if callable(fn) else None


def _report_status(report: Any) -> dict[str, Any] | None:
    """The page's view of an ``fracas.services.verify`` Report: ok, its first problem, one line per step."""
    try:
        data = msgspec.to_builtins(report)
    except TypeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("ok"), bool):
        return None
    details: list[str] = []
    for step in data.get("steps") or []:
        if not isinstance(step, dict):
            continue
        problem = step.get("problem")
        why = problem.get("message", "") if isinstance(problem, dict) else step.get("detail", "")
        where = ""
        if isinstance(problem, dict) and problem.get("seq") is not None:
            where = f" (seq {problem['seq']})"
        details.append(f"{step.get('name', '?')}: {step.get('status', '?')}{where}{' - ' + why if why else ''}")
    problem = data.get("problem")
    if not problem and data.get("unverified"):
        return {"status": "unverified", "by": "fracas verify", "summary": data["unverified"], "details": details}
    faces = data.get("faces", "proven")
    # three states: proven / entered, rules checked (entered or scripted faces: nothing proves them) / failed
    status = "ok" if data["ok"] and faces not in ("entered", "scripted") else "entered" if data["ok"] else "failed"
    if data["ok"]:
        names = ", ".join(
            str(s.get("name")) for s in data.get("steps") or [] if isinstance(s, dict) and s.get("status") == "ok"
        )
        summary = f"verified: {names}" if names else "verified"
        if status == "entered":
            summary = f"{faces} faces, rules checked: {names}; the faces cannot be proven"
        details.extend(f"note: {note}" for note in data.get("notes") or [])
    elif isinstance(problem, dict):
        where = f"seq {problem['seq']}: " if problem.get("seq") is not None else ""
        summary = f"{problem.get('step', '?')}: {where}{problem.get('message', '')}"
    else:
        summary = "verification failed"
    return {"status": status, "by": "fracas verify", "summary": summary, "details": details}


def verification(path: Path, entries: Sequence[E.Entry]) -> dict[str, Any]:
    """Whether the log verifies, for the page header.

    Hook: when ``fracas.services.verify.verify_log(path)`` exists (structure, chain,
    dice re-derived, rules re-simulated, state digests) its report is shown;
    otherwise, or if its report cannot be read, :func:`chain_check`.
    """
    fn = _verify_hook()
    if fn is not None:
        try:
            status = _report_status(fn(path))
        except FracasError as exc:
            return {"status": "failed", "by": "fracas verify", "summary": str(exc), "details": [str(exc)]}
        if status is not None:
            return status
    return chain_check(entries)


# ------------------------------------------------------------------ groups


def _actor_of(ev: E.Event) -> str | None:
    actor = getattr(ev, "actor", None)
    return actor if isinstance(actor, str) else None


def roll_groups(entries: Sequence[E.Entry]) -> list[dict[str, Any]]:
    """Rolls with their consequences, for the audit panel and the attack lines.

    A *test aimed at someone* (a ``SkillTested`` with a ``target``) opens a
    group together with the dice its actor rolled just before it (and the
    ammunition spent just before those). Any other roll opens a group unless
    it belongs to the open one (rolled by its actor or its target). A group
    takes every following event ("consequences": damage, saves, thresholds,
    wounds, conditions...) until the next group opens, the clock moves to
    another initiative count, or a framing event (a declaration, a move, a
    new round...) comes. Returned as ``{"start", "end", "actor", "target",
    "test", "hit", "shot", "action"}`` with indices into ``entries`` (end
    inclusive); ``action`` is what the tester declared this round against the
    same target (a reaction such as ``parry`` is not drawn as an attack). The
    target's own dice join the group only after damage was rolled (a save);
    before that they are its own action.
    """
    n = len(entries)
    opens: set[int] = set()
    for i, e in enumerate(entries):
        ev = e.ev
        if isinstance(ev, E.SkillTested) and ev.target is not None:
            start = i
            while start > 0:
                p = entries[start - 1]
                same = (p.round, p.count) == (e.round, e.count) and _actor_of(p.ev) == ev.actor
                if same and isinstance(p.ev, E.DiceRolled | E.AmmoSpent | E.ResourceSpent):
                    start -= 1
                    if isinstance(p.ev, E.AmmoSpent):
                        break
                else:
                    break
            opens.add(start)
    groups: list[dict[str, Any]] = []
    cur: dict[str, Any] | None = None
    declared: dict[str, tuple[int, str, str | None]] = {}  # actor -> (round, action, target)

    def close() -> None:
        nonlocal cur
        if cur is not None and cur["rolls"]:
            del cur["rolls"]
            groups.append(cur)
        cur = None

    for i in range(n):
        e = entries[i]
        ev = e.ev
        if isinstance(ev, E.ActionDeclared):
            declared[ev.actor] = (e.round, ev.action, ev.target)
        if isinstance(ev, _FRAME) or (cur is not None and (e.round, e.count) != cur["time"]):
            close()
            if isinstance(ev, _FRAME):
                continue
        actor = _actor_of(ev)
        if i in opens or (
            isinstance(ev, _ROLLS)
            and (
                cur is None
                or actor not in (cur["actor"], cur["target"])
                # the target rolls inside the group only once damage came (a save), not before (its own action)
                or (actor == cur["target"] != cur["actor"] and cur["test"] is not None and not cur["damage"])
            )
        ):
            close()
            cur = {
                "start": i,
                "end": i,
                "actor": actor,
                "target": None,
                "time": (e.round, e.count),
                "test": None,
                "hit": None,
                "shot": False,
                "rolls": False,
                "damage": False,
                "action": None,
            }
        if cur is None:
            continue
        cur["end"] = i
        if isinstance(ev, _ROLLS):
            cur["rolls"] = True
        if isinstance(ev, E.AmmoSpent) and actor == cur["actor"]:
            cur["shot"] = True
        if isinstance(ev, E.DamageRolled):
            cur["damage"] = True
        if isinstance(ev, E.SkillTested) and cur["test"] is None and ev.actor == cur["actor"]:
            cur["test"] = i
            cur["target"] = ev.target
            cur["hit"] = ev.success
            decl = declared.get(ev.actor)
            if ev.target is not None and decl is not None and decl[0] == e.round and decl[2] == ev.target:
                cur["action"] = decl[1]
    close()
    for g in groups:
        del g["time"], g["damage"]
    return groups


# ------------------------------------------------------------------- build


def _diff(old: dict[str, Any] | None, new: dict[str, Any]) -> dict[str, Any]:
    if old is None:
        return dict(new)
    return {k: v for k, v in new.items() if old.get(k) != v}


def _changed_actors(ev: E.Event, actors: dict[str, Any], rank: dict[str, int]) -> list[str]:
    """The actors whose sheet an event's projection can change (fracas.core.state's handlers), in the state's order.

    A new round resets every actor's initiative and metres; any other event changes at most the actor it
    names and its target. ``rank``: each actor's place in the state (the order of their entries). Looking
    at every sheet after every event, the horde's page (1,005 actors, 103,353 events) took over ten minutes.
    """
    if type(ev) is E.RoundStarted:
        return list(actors)
    actor, target = getattr(ev, "actor", None), getattr(ev, "target", None)
    named = [n for n in (actor, target) if isinstance(n, str) and n in actors]
    if len(named) == 2:
        if named[0] == named[1]:
            return named[:1]
        named.sort(key=rank.__getitem__)  # the state's order, as the page always listed them
    return named


def _view(actor: dict[str, Any]) -> dict[str, Any]:
    """The per-actor fields the page shows, from ``actor_to_builtins``."""
    keep = (
        "status",
        "position",
        "initiative",
        "monitors",
        "hp",
        "hp_max",
        "conditions",
        "ammo",
        "spare",
        "weapons",
        "resources",
    )
    return {k: actor[k] for k in keep}


def _battlefield(raw_map: dict[str, Any]) -> Battlefield | None:
    """The map's geometry from the scenario recorded in the header (None when it cannot be read)."""

    def spec(item: Any, **defaults: Any) -> SimpleNamespace:
        return SimpleNamespace(**{**defaults, **item})

    try:
        walls = [spec(w, w=1, h=1, height="full", cover="half") for w in raw_map.get("walls", []) or []]
        zones = [spec(z, w=1, h=1, level="half", light=None) for z in raw_map.get("cover", []) or []]
        return Battlefield(
            SimpleNamespace(width=raw_map.get("width", 30), height=raw_map.get("height", 20), walls=walls, cover=zones)
        )
    except (TypeError, AttributeError, ValueError):
        return None


def _sight(field: Battlefield | None, ends: tuple[tuple[int, int], tuple[int, int]] | None) -> dict[str, Any] | None:
    """The line of sight of one aimed test: the cells the line crosses, and the wall that blocks it if any."""
    if field is None or ends is None:
        return None
    a, b = ends
    cells: list[list[int]] = []
    for left, right in field.line(a, b):
        cells.append(list(left))
        if right != left:
            cells.append(list(right))
    wall = field.sight_blocker(a, b)
    return {"cells": cells, "clear": wall is None, "blocked_by": None if wall is None else wall.name}


def build_data(path: Path, entries: Sequence[E.Entry], torn: TornLine | None = None) -> dict[str, Any]:
    """Everything the page needs, as JSON-ready builtins."""
    head = entries[0].ev
    assert isinstance(head, E.EncounterStarted)
    scenario = head.scenario
    raw_map = scenario.get("map") if isinstance(scenario.get("map"), dict) else {}
    assert isinstance(raw_map, dict)
    sides: list[dict[str, Any]] = []
    for s in scenario.get("sides", []) or []:
        if isinstance(s, dict) and "id" in s:
            sides.append({"id": s["id"], "name": s.get("name") or s["id"]})
    known = {s["id"] for s in sides}

    narrator = Narrator()
    state = State()
    views: dict[str, dict[str, Any]] = {}
    steps: list[list[Any]] = []
    text: list[str | None] = []
    deltas: list[dict[str, Any] | int] = []
    events: dict[str, dict[str, Any]] = {}
    actors: dict[str, dict[str, Any]] = {}
    ended: E.EncounterEnded | None = None
    #: where the attacker and the target of each aimed test stood (the line of sight drawn for a shot)
    aimed_from: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
    rank: dict[str, int] = {}
    for e in entries:
        ev = e.ev
        apply_entry(state, e)
        if isinstance(ev, E.SkillTested) and ev.target in state.actors and ev.actor in state.actors:
            a, t = state.actors[ev.actor], state.actors[ev.target]
            aimed_from[len(steps)] = ((a.x, a.y), (t.x, t.y))
        steps.append([e.seq, e.round, e.count, e.sec, type(ev).__name__])
        text.append(narrator.text(ev, e.sec))
        if isinstance(ev, E.ActorEntered):
            actors[ev.actor] = {
                "name": ev.name,
                "side": ev.side,
                "policy": ev.policy,
                "monitors": [{"name": m.name, "levels": list(m.levels), "boxes": list(m.boxes)} for m in ev.monitors],
                "entered": e.seq,
            }
            if ev.side not in known:
                known.add(ev.side)
                sides.append({"id": ev.side, "name": ev.side})
        if isinstance(ev, E.EncounterEnded):
            ended = ev
        if not isinstance(ev, E.Moved | E.EncounterStarted):
            events[str(e.seq)] = _event_builtins(ev)
            if isinstance(ev, E.DiceRolled):  # the roll's purpose as the narration says it: names, not ids
                events[str(e.seq)]["said"] = narrator.purpose_text(ev.purpose)
        delta: dict[str, Any] = {}
        if type(ev) is E.ActorEntered:
            rank.setdefault(ev.actor, len(rank))
        for aid in _changed_actors(ev, state.actors, rank):
            v = _view(actor_to_builtins(state.actors[aid]))
            d = _diff(views.get(aid), v)
            if d:
                delta[aid] = d
                views[aid] = v
        deltas.append(delta or 0)
    colours = side_colours([s["id"] for s in sides], {s["id"]: s["name"] for s in sides})
    for s in sides:
        s["color"] = colours[s["id"]]
    groups = roll_groups(entries)
    field = _battlefield(raw_map)
    attacks = []
    for gi, g in enumerate(groups):
        if g["action"] in REACTIONS:
            continue
        if g["test"] is not None and g["target"] is not None and g["actor"] in actors and g["target"] in actors:
            test = entries[g["test"]].ev
            assert isinstance(test, E.SkillTested)
            attacks.append(
                {
                    "g": gi,
                    "from": g["actor"],
                    "to": g["target"],
                    "at": g["test"],
                    "hit": g["hit"],
                    "shot": g["shot"],
                    "label": test.skill,
                    "sight": _sight(field, aimed_from.get(g["test"])),
                    "wound_at": next(
                        (
                            j
                            for j in range(g["start"], g["end"] + 1)
                            if isinstance(entries[j].ev, E.WoundMarked | E.HitPointsChanged)
                        ),
                        -1,
                    ),
                }
            )
    meta = {
        "log": path.name,
        "log_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "scenario": head.scenario_name,
        "description": scenario.get("description", ""),
        "system": head.system,
        "fracas_version": head.fracas_version,
        "format": head.format,
        "dice_source": head.dice.source,
        "dice_method": head.dice.method,
        "commitment": head.dice.commitment,
        "player_seeds": list(head.dice.player_seeds),
        "seed": ended.seed if ended else None,
        "winner": state.winner,
        "reason": state.reason,
        "rounds": ended.rounds if ended else state.round,
        "round_ticks": head.round_ticks,
        "round_seconds": head.round_seconds,
        "ticks_per_second": head.ticks_per_second,
        "torn": None
        if torn is None
        else f"line {torn.line} is torn ({torn.length} bytes): replayed the entries before it",
        "parent": None if head.parent is None else msgspec.to_builtins(head.parent),
    }
    return {
        "meta": meta,
        "verify": verification(path, entries),
        "map": {
            "width": raw_map.get("width", 30),
            "height": raw_map.get("height", 20),
            "light": raw_map.get("light", "normal"),
            "cover": raw_map.get("cover", []),
            "exits": raw_map.get("exits", []),
            "walls": raw_map.get("walls", []),
        },
        "sides": sides,
        "actors": actors,
        "steps": steps,
        "text": text,
        "deltas": deltas,
        "events": events,
        "groups": groups,
        "attacks": attacks,
    }


def template() -> str:
    """The viewer page (package data next to this module, see pyproject's package-data)."""
    path = Path(__file__).with_name("templates") / "viewer.html"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FracasError(f"{path}: cannot read the viewer template (broken install): {exc.strerror or exc}") from None


def page(data: dict[str, Any]) -> str:
    """The template with the data embedded (``<`` escaped so no string can close the script; a control character
    or a bidirectional override of a forged log written out, fracas.core.controls, so none reorders the page)."""
    encoded = _builtins_encoder.encode(data)
    if may_hold_controls(encoded):  # a forged log's: walked only then (a horde's data is a million values)
        encoded = _builtins_encoder.encode(visible_all(data))
    blob = encoded.decode("utf-8").replace("<", "\\u003c")
    tpl = template()
    if DATA_MARK not in tpl:
        raise FracasError("engine/services/templates/viewer.html: the data mark is missing (broken install)")
    return tpl.replace(DATA_MARK, blob, 1)


def render_html(log: Path, out: Path | None = None) -> Rendered:
    """Render a log to one self-contained HTML file (or just return it when ``out`` is None)."""
    entries, torn = read_entries(log)
    data = build_data(log, entries, torn)
    html = page(data)
    raw = html.encode("utf-8")
    if out is not None:  # the caller decided --force; links, devices and the log itself stay refused
        try:
            write_atomic(out, raw, force=True, inputs=[log])
        except OSError as exc:
            raise FracasError(f"{out}: cannot write: {exc.strerror or exc}") from None
    return Rendered(html=html, entries=len(entries), size=len(raw), verified=data["verify"]["status"], torn=torn)
