"""Scenarios: TOML files validated by msgspec Structs.

The engine defines the parts every system shares (map, sides, the common
actor fields); a rule system subclasses :class:`ActorBase` and
:class:`ScenarioBase` with its own sheet fields and rules, so one
``msgspec.convert`` validates the whole file with exact ``$.paths``.
Unknown fields are errors everywhere (``forbid_unknown_fields``).

Every number, text and list has a documented range (the ``msgspec.Meta`` bounds
below and in each system's sheet; docs/scenario-limits.md is generated from
them), chosen so that the worst scenario that validates still runs in seconds:
validate is the gate, and ``run`` loads through the same :func:`load_scenario`.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
import rtoml
from fracas.core.controls import CONTROLS
from fracas.core.errors import ScenarioError, UnknownSystem
from fracas.core.files import check_input

# ------------------------------------------------------------- the limits
#: The largest scenario file read, in bytes.
MAX_SCENARIO_BYTES = 16 * 1024 * 1024
#: The deepest nesting of arrays and tables in a scenario file.
MAX_NESTING = 16
#: Actors in one scenario (a 10,000-actor file validates in well under a second).
MAX_ACTORS = 10_000
#: Rounds of one fight.
MAX_ROUNDS = 10_000
#: Actor-rounds of one fight (actors x round_limit): an AI of bounded decisions (d100 edition 5) costs
#: about the same per actor-round at any size, so the worst validated fight still ends in seconds
#: (10,000 d100 actors fight 3 rounds in about 15 s; docs/scenario-limits.md).
MAX_ACTOR_ROUNDS = 30_000
#: actors x actors x round_limit, unless the system's AI takes decisions of bounded work (its
#: ``bounded_decisions(rules)``: d100 edition 5): an AI that searches for the nearest foe in sight may
#: look at every foe for every decision (behind walls, say), so its rounds may cost the square of the
#: actors (docs/scenario-limits.md).
MAX_PAIR_ROUNDS = 20_000_000
#: Metres of map on each side.
MAX_MAP = 1000
#: Seconds of aftermath (90 days).
MAX_AFTERMATH_SECONDS = 90 * 86400
#: Dice in any one roll, and the largest flat bonus or die size of a damage code.
MAX_DICE = 60
MAX_FLAT = 1000
MAX_DIE_SIDES = 1000
#: Characters of a name, an id or a code; of a description.
MAX_NAME = 200
MAX_TEXT = 10_000
#: Entries of a short list or table (sides, weapons, skills, cover zones, script steps ...).
MAX_ITEMS = 1000

#: No name or text holds a control character or a bidirectional override (fracas.core.controls): a
#: terminal obeys the one, and the other reorders what is shown. A text may hold tabs and line breaks; a name not.
Name = Annotated[str, msgspec.Meta(max_length=MAX_NAME, pattern=rf"^[^{CONTROLS}\t\n]*\Z")]
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT, pattern=rf"^[^{CONTROLS}]*\Z")]
Coordinate = Annotated[int, msgspec.Meta(ge=0, le=MAX_MAP)]
Point = Annotated[list[Coordinate], msgspec.Meta(min_length=2, max_length=2)]
Extent = Annotated[int, msgspec.Meta(ge=1, le=MAX_MAP)]
Round = Annotated[int, msgspec.Meta(ge=1, le=MAX_ROUNDS)]
#: Magazines, rounds in a magazine, metres of a range band ...
Count = Annotated[int, msgspec.Meta(ge=0, le=10_000)]
Positive = Annotated[int, msgspec.Meta(ge=1, le=10_000)]
Percent = Annotated[int, msgspec.Meta(ge=0, le=200)]


class Spec(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """Base of every scenario Struct."""


class CoverZone(Spec, frozen=True, kw_only=True):
    """A rectangle of the map giving cover (and optionally its own light)."""

    name: Name
    x: Coordinate
    y: Coordinate
    w: Extent = 1
    h: Extent = 1
    level: Name = "half"
    light: Name | None = None

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


class WallSpec(Spec, frozen=True, kw_only=True):
    """A rectangle of wall cells: ``full`` blocks steps and sight, ``low`` blocks steps and gives
    ``cover`` (a cover level of the rule system) to whoever is behind it (fracas.core.battlefield)."""

    name: Name
    x: Coordinate
    y: Coordinate
    w: Extent = 1
    h: Extent = 1
    height: Name = "full"
    cover: Name = "half"

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


class ExitSpec(Spec, frozen=True, kw_only=True):
    name: Name
    x: Coordinate
    y: Coordinate


class MapSpec(Spec, frozen=True, kw_only=True):
    width: Extent = 30
    height: Extent = 20
    light: Name = "normal"
    cover: Annotated[list[CoverZone], msgspec.Meta(max_length=MAX_ITEMS)] = []
    exits: Annotated[list[ExitSpec], msgspec.Meta(max_length=MAX_ITEMS)] = []
    walls: Annotated[list[WallSpec], msgspec.Meta(max_length=MAX_ITEMS)] = []


class SideSpec(Spec, frozen=True, kw_only=True):
    """A side. ``objective = "escape"``: the side wins when one of its actors flees through an exit."""

    id: Name
    name: Name = ""
    objective: Name = "fight"


class ScriptStep(Spec, frozen=True, kw_only=True):
    """One scripted decision: an action with optional movement around it.

    ``before`` / ``after``: where to move before / after the action;
    ``to``: destination of a sprint or a flight.
    """

    action: Name
    target: Name | None = None
    weapon: Name | None = None
    before: Point | None = None
    after: Point | None = None
    to: Point | None = None
    mode: Name | None = None
    surpass: Annotated[int, msgspec.Meta(ge=0, le=10)] = 0


class ActorBase(Spec, frozen=True, kw_only=True):
    """The fields of an actor that every system shares."""

    id: Name
    name: Name = ""
    side: Name
    position: Point
    policy: Name = "aggressive"
    arrives: Round = 1
    script: Annotated[list[ScriptStep], msgspec.Meta(max_length=MAX_ITEMS)] = []


class AftermathSpec(Spec, frozen=True, kw_only=True):
    """How long the clock runs after the fight, and what care is available."""

    duration: Name = "1h"
    care: Name = "none"
    medic: Name | None = None
    medicine: Percent = 0
    cog: Annotated[int, msgspec.Meta(ge=0, le=20)] = 0
    intensive_care: bool = False
    #: the sides that get care (empty: every side)
    sides: Annotated[list[Name], msgspec.Meta(max_length=MAX_ITEMS)] = []

    def treats(self, side: str) -> bool:
        """Whether the care reaches an actor of ``side``."""
        return self.care != "none" and (not self.sides or side in self.sides)


class ScenarioBase(Spec, frozen=True, kw_only=True):
    system: Name
    name: Name = ""
    description: Text = ""
    seed: int | Name | None = None
    round_limit: Round = 20
    rules: Annotated[dict[str, Any], msgspec.Meta(max_length=MAX_ITEMS)] = {}
    map: MapSpec = MapSpec()
    sides: Annotated[list[SideSpec], msgspec.Meta(min_length=2, max_length=MAX_ITEMS)]
    #: a Sequence, so that a system narrows it to ``list[ItsActor]`` in a subclass (mypy accepts that override)
    actors: Annotated[Sequence[ActorBase], msgspec.Meta(min_length=1, max_length=MAX_ACTORS)]
    aftermath: AftermathSpec = AftermathSpec()


class LoadedScenario(msgspec.Struct, kw_only=True, dict=True):
    """A validated scenario with what the log header records about it.

    A loaded scenario is not changed once made (``play``'s human seats make a new one), so what every
    fight of it works out the same (the embedded scenario's hash, the effective rules) is worked out
    once and kept on it: in its ``__dict__`` (``dict=True``), never a field, so neither encoded nor
    pickled (a batch worker works them out again) nor compared.
    """

    path: str
    spec: Any
    raw: dict[str, Any]
    sha256: str

    @functools.cached_property
    def raw_sha256(self) -> str:
        """:func:`content_sha256` of ``raw``: the ``scenario_sha256`` of every header of this scenario."""
        return content_sha256(self.raw)

    @functools.cached_property
    def kept(self) -> dict[Any, Any]:
        """What the engine keeps for every fight of this scenario, by a key its user owns
        (fracas.core.encounter keeps the effective rules of a rule system and their header form)."""
        return {}


_DURATION = re.compile(r"^\s*(\d{1,12})\s*(s|min|m|h|d|w)\s*$")
_UNIT_SECONDS = {"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> int:
    """``"90s"``, ``"10min"``, ``"2h"``, ``"3d"``, ``"1w"`` -> seconds (at most 90 days)."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"expected a duration like 90s, 10min, 2h, 3d or 1w, got {text!r}")
    seconds = int(m.group(1)) * _UNIT_SECONDS[m.group(2)]
    if seconds > MAX_AFTERMATH_SECONDS:
        raise ValueError(f"expected a duration of at most {MAX_AFTERMATH_SECONDS // 86400}d, got {text!r}")
    return seconds


def near_miss(value: str, known: Iterable[str]) -> str | None:
    """The name of ``known`` closest to ``value`` (difflib), if one is close."""
    close = difflib.get_close_matches(value, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def did_you_mean(value: str, known: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a near miss among ``known``, else nothing."""
    close = near_miss(value, known)
    return f" (did you mean {close!r}?)" if close else ""


def unknown_name(kind: str, value: str, known: Sequence[str]) -> str:
    """The message for a name not among ``known``: what was found, what was expected, the near miss."""
    close = near_miss(value, known)
    hint = f"; did you mean {close!r}?" if close else ""
    return f"unknown {kind} {value!r} (expected one of {', '.join(known)}{hint})"


def _nesting_at(text: str) -> tuple[int, int] | None:
    """Line and column where arrays and inline tables nest deeper than MAX_NESTING (strings skipped)."""
    token = re.compile(r'"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}]')
    depth = 0
    for m in token.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, m.start()) + 1
                return line, m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        elif c in "]}":
            depth -= 1
    return None


def _too_deep(node: Any) -> str | None:
    """The ``$.path`` of a point nested deeper than MAX_NESTING in a parsed tree, else None (no recursion)."""
    stack: list[tuple[Any, int]] = [(node, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        children = item.values() if isinstance(item, dict) else item
        for child in children:
            if isinstance(child, dict | list):
                if depth + 1 > MAX_NESTING:
                    return _path_to(node, child)
                push((child, depth + 1))
    return None


def _path_to(root: Any, target: Any) -> str:
    """The ``$.path`` of ``target`` (by identity) in a tree; only on the error path."""
    stack: list[tuple[Any, str]] = [(root, "$")]
    while stack:
        item, path = stack.pop()
        if item is target:
            return path
        if isinstance(item, dict):
            stack.extend((v, f"{path}.{k}") for k, v in item.items() if isinstance(v, dict | list))
        elif isinstance(item, list):
            stack.extend((v, f"{path}[{i}]") for i, v in enumerate(item) if isinstance(v, dict | list))
    return "$"


def _parse(text: str) -> dict[str, Any]:
    """TOML text -> tree: rtoml (Rust, fast on a 10,000-actor file); tomllib names the error of a bad one."""
    try:
        parsed: dict[str, Any] = rtoml.loads(text)
        return parsed
    except rtoml.TomlParsingError:
        return tomllib.loads(text)  # raises the standard error, with its line and column


def read_toml(path: Path) -> tuple[dict[str, Any], bytes]:
    """Parse a TOML file; errors name the file, line and column (a byte offset for bytes that are not text)."""
    file = str(path)
    check_input(path, "scenario")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_SCENARIO_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(file, "", f"cannot read scenario: {exc.strerror or exc}") from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise ScenarioError(file, "", f"expected a scenario of at most {MAX_SCENARIO_BYTES} bytes, got more", offset=0)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            file, "", f"expected UTF-8 text, found byte 0x{data[exc.start]:02x} ({exc.reason})", offset=exc.start
        ) from None
    try:
        raw = _parse(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        if m:
            line, column = int(m.group(1)), int(m.group(2))
        else:  # "at end of document"
            line = text.count("\n") + (0 if text.endswith("\n") else 1) or 1
            column = len(text.rstrip("\n").rsplit("\n", 1)[-1]) + 1
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", msg)
        raise ScenarioError(file, "", f"invalid TOML (expected TOML syntax): {msg}", line=line, column=column) from None
    except RecursionError:
        line, column = _nesting_at(text) or (1, 1)
        raise ScenarioError(
            file, "$", f"expected arrays and tables nested at most {MAX_NESTING} deep, got deeper", line, column
        ) from None
    # the Structs fix the depth of every typed field; only [rules] (any TOML) can nest without end
    deep_path = _too_deep({"rules": raw["rules"]}) if isinstance(raw.get("rules"), dict | list) else None
    if deep_path is not None:
        line, column = _nesting_at(text) or where(text, deep_path)
        raise ScenarioError(
            file, "$", f"expected arrays and tables nested at most {MAX_NESTING} deep, got deeper", line, column
        )
    return raw, data


_MSGSPEC_AT = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"Object contains unknown field `([^`]+)`")
_MISSING = re.compile(r"Object missing required field `([^`]+)`")
_CONTROL = re.compile(rf"[{CONTROLS}]")
_NAME_BREAK = re.compile(r"[\t\n]")  # what a Name refuses besides, and a Text allows
_BOUND = re.compile(r"Expected `(?P<type>\w+)`(?: of length)? (?P<op>[<>]=?) (?P<limit>-?\d+)")
_PART = re.compile(r"\.([^.\[\]]+)|\[(\d+|\.\.\.)\]")


def _lookup(raw: Any, jpath: str) -> tuple[bool, Any]:
    """The value at a ``$.path`` of a parsed tree: (found, value)."""
    node = raw
    for name, index in _PART.findall(jpath):
        if name and isinstance(node, dict) and name in node:
            node = node[name]
        elif index.isdigit() and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
        else:
            return False, None
    return True, node


def _violates(value: Any, op: str, limit: int) -> bool:
    size = len(value) if isinstance(value, str | list | dict) else value
    if not isinstance(size, int) or isinstance(size, bool):
        return True
    return {"<": size >= limit, "<=": size > limit, ">": size <= limit, ">=": size < limit}[op]


def _shown(value: Any) -> str:
    if isinstance(value, str | list | dict) and len(value) > 40:
        return f"{type(value).__name__} of length {len(value)}"
    return repr(value)


def explain(raw: Any, jpath: str, msg: str) -> tuple[str, str]:
    """Name the dict key of a ``[...]`` path and say what was found for a bound or a control character."""
    if msg.startswith("Expected `str` matching regex"):  # Name's or Text's pattern: the only ones there are
        found, value = _lookup(raw, jpath)
        hit = (_CONTROL.search(value) or _NAME_BREAK.search(value)) if found and isinstance(value, str) else None
        bad = hit.group() if hit is not None else None  # a Text's tab is allowed: name its control character
        what = f"U+{ord(bad):04X}" if bad is not None else "one"
        return jpath, f"expected text without a control character (a terminal would obey it), found {what}"
    bound = _BOUND.match(msg)
    if jpath.endswith("[...]"):
        found, table = _lookup(raw, jpath[:-5])
        if found and isinstance(table, dict):
            for key, value in table.items():
                if bound is None or _violates(value, bound.group("op"), int(bound.group("limit"))):
                    jpath = f"{jpath[:-5]}.{key}"
                    break
    if bound is not None:
        found, value = _lookup(raw, jpath)
        if found:
            msg = f"{msg}, got {_shown(value)}"
    return jpath, msg


def convert(file: str, text: str, raw: Any, type_: Any) -> Any:
    """``msgspec.convert`` with errors rewritten as one line with file:line:column, $.path, expected, found."""
    try:
        return msgspec.convert(raw, type=type_)
    except msgspec.ValidationError as exc:
        m = _MSGSPEC_AT.match(str(exc))
        assert m is not None
        msg, jpath = m.group("msg"), m.group("path") or "$"
        key = None
        unknown = _UNKNOWN.match(msg)
        missing = _MISSING.match(msg)
        if unknown:
            key = unknown.group(1)
            known = [f for f in _fields_at(type_, jpath)]
            jpath = f"{jpath}.{key}"
            msg = f"unknown field `{key}`{did_you_mean(key, known)}"
        elif missing:  # located at the table that lacks it
            line, column = where(text, jpath)
            jpath = f"{jpath}.{missing.group(1)}"
            msg = f"missing required field `{missing.group(1)}`: expected it here"
            raise ScenarioError(file, jpath, msg, line=line, column=column) from None
        else:
            jpath, msg = explain(raw, jpath, msg)
            msg = msg[0].lower() + msg[1:]
        raise scenario_error(file, text, jpath, msg, key) from None


def _fields_at(type_: Any, jpath: str) -> list[str]:
    """The field names of the Struct found at ``jpath`` of ``type_`` (for "did you mean")."""
    info: Any = msgspec.inspect.type_info(type_)
    for name, _index in _PART.findall(jpath):
        while isinstance(info, msgspec.inspect.ListType | msgspec.inspect.UnionType | msgspec.inspect.DictType):
            if isinstance(info, msgspec.inspect.UnionType):
                structs = [t for t in info.types if isinstance(t, msgspec.inspect.StructType)]
                if not structs:
                    return []
                info = structs[0]
            elif isinstance(info, msgspec.inspect.ListType):
                info = info.item_type
            else:
                info = info.value_type
        if name:
            if not isinstance(info, msgspec.inspect.StructType):
                return []
            info = next((f.type for f in info.fields if f.encode_name == name), None)
    while isinstance(info, msgspec.inspect.ListType):
        info = info.item_type
    if isinstance(info, msgspec.inspect.UnionType):
        info = next((t for t in info.types if isinstance(t, msgspec.inspect.StructType)), None)
    return [f.encode_name for f in info.fields] if isinstance(info, msgspec.inspect.StructType) else []


def locate(text: str, jpath: str, key: str | None = None) -> int:
    """Line of a ``$.path`` in a TOML text: the path's own line, else its nearest ancestor's, else 1."""
    return where(text, jpath, key)[0]


def where(text: str, jpath: str, key: str | None = None) -> tuple[int, int]:
    """Line and column of a ``$.path`` in a TOML text (its nearest ancestor's when not written)."""
    lines = text.splitlines()
    line = _locate(lines, jpath, key)
    while line is None and jpath != "$":
        jpath = re.sub(r"(\.[^.\[\]]+|\[[^\]]*\])$", "", jpath) or "$"
        line = _locate(lines, jpath, None)
    if line is None:
        return 1, 1
    names = [n for n, _ in _PART.findall(jpath) if n]
    text_line = lines[line - 1] if line - 1 < len(lines) else ""
    for name in ([key] if key else []) + names[::-1]:
        hit = re.search(r"(^|[\s{,.\[])" + re.escape(name) + r"\s*[=\].]", text_line)
        if hit:
            return line, hit.start() + len(hit.group(1)) + 1
    return line, len(text_line) - len(text_line.lstrip()) + 1


def _locate(lines: list[str], jpath: str, key: str | None = None) -> int | None:
    parts = _PART.findall(jpath)
    start, end = 0, len(lines)
    table: list[str] = []
    best: int | None = None
    if jpath == "$":
        return None
    for name, index in parts:
        if name:
            table.append(name)
            header = re.compile(r"^\s*\[\[?\s*" + re.escape(".".join(table)) + r"\s*\]\]?\s*$")
            keyline = re.compile(r"^\s*" + re.escape(name) + r"\s*=|[{,]\s*" + re.escape(name) + r"\s*=")
            found = None
            for ln in range(start, end):
                if keyline.search(lines[ln]):  # a key, or an inline array of tables
                    found = ln
                    break
                if header.match(lines[ln]):
                    found = ln
                    break
            if found is None:
                return best if key is not None else None
            best = found + 1
            if not header.match(lines[found]):
                start = found
        elif index.isdigit():
            n = int(index)
            header = re.compile(r"^\s*\[\[\s*" + re.escape(".".join(table)) + r"\s*\]\]\s*$")
            hits = [ln for ln in range(start, end) if header.match(lines[ln])]
            if n < len(hits):
                start = hits[n]
                end = hits[n + 1] if n + 1 < len(hits) else end
                best = start + 1
                table = table[:]
            # else an inline array: the element is on the key's line or after it
    if key is not None and best is not None:
        pat = re.compile(r"(^|[{,\s])" + re.escape(key) + r"\s*=")
        for ln in range(best - 1, end):
            if pat.search(lines[ln]):
                return ln + 1
    return best


def scenario_error(file: str, text: str, jpath: str, message: str, key: str | None = None) -> ScenarioError:
    """A ScenarioError located at ``jpath``'s line and column (its nearest ancestor's when not written)."""
    line, column = where(text, jpath, key)
    return ScenarioError(file, jpath, message, line=line, column=column)


def scenario_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_sha256(value: Any) -> str:
    """Hex SHA-256 of a value's canonical JSON (keys sorted, no whitespace: the log's encoding).

    Format 2 headers: ``scenario_sha256`` is this of the embedded scenario,
    and the commitment binds this of the effective rules (docs/log-format.md).
    """
    return hashlib.sha256(msgspec.json.encode(value, order="deterministic")).hexdigest()


def load_scenario(path: Path | str) -> LoadedScenario:
    """Read, validate and return a scenario; every error is a ScenarioError.

    ``validate`` and ``run`` both load through here: what validates, runs.
    """
    return _load_scenario(path, work_bound=True)


def _load_scenario(path: Path | str, *, work_bound: bool) -> LoadedScenario:
    """:func:`load_scenario`; ``work_bound=False`` (internal: tools/bench.py's scale figures, whose 3,200 and
    10,000 actors the work bound refuses) leaves :func:`check_work` aside."""
    from fracas.core.system import get_system, system_names  # the registry needs nothing from here

    path = Path(path)
    file = str(path)
    raw, data = read_toml(path)
    text = data.decode("utf-8")
    system_name = raw.get("system")
    if not isinstance(system_name, str):
        found = "nothing" if system_name is None else type(system_name).__name__
        raise scenario_error(file, text, "$.system", f"expected the name of a rule system, got {found}")
    try:
        system = get_system(system_name)
    except UnknownSystem:  # keep the file and path in the message
        raise scenario_error(file, text, "$.system", unknown_name("rule system", system_name, system_names())) from None
    spec = convert(file, text, raw, system.scenario_type)
    rules_raw = msgspec.to_builtins(system.rules_type())
    rules_raw.update(spec.rules)
    rules = convert_rules(file, text, rules_raw, system.rules_type)
    system.validate(spec, file, text)
    if work_bound:
        bounded = getattr(system, "bounded_decisions", None)
        check_work(spec, file, text, bounded_decisions=bool(bounded(rules)) if bounded is not None else False)
    return LoadedScenario(path=file, spec=spec, raw=raw, sha256=scenario_sha256(data))


def convert_rules(file: str, text: str, rules_raw: dict[str, Any], type_: Any) -> Any:
    """Validate rules overrides, reporting paths under ``$.rules``."""
    try:
        return msgspec.convert(rules_raw, type=type_)
    except msgspec.ValidationError as exc:
        m = _MSGSPEC_AT.match(str(exc))
        assert m is not None
        sub = (m.group("path") or "$")[1:]
        msg = m.group("msg")
        unknown = _UNKNOWN.match(msg)
        if unknown:
            sub = f"{sub}.{unknown.group(1)}"
            known = [f.encode_name for f in msgspec.inspect.type_info(type_).fields]  # type: ignore[attr-defined]
            msg = f"unknown rules value `{unknown.group(1)}`{did_you_mean(unknown.group(1), known)}"
        else:
            sub, msg = explain(rules_raw, "$" + sub, msg)
            sub = sub[1:]
            msg = msg[0].lower() + msg[1:]
        raise scenario_error(file, text, "$.rules" + sub, msg) from None


def check_work(scenario: Any, file: str, text: str, *, bounded_decisions: bool = False) -> None:
    """The whole fight's work: bounded so that the worst scenario that validates runs in seconds.

    ``bounded_decisions``: the system's AI takes decisions of bounded work whatever the scenario (its
    ``bounded_decisions(rules)``), so only actor-rounds bound it; otherwise the pairs do too.
    """
    actors, rounds = len(scenario.actors), scenario.round_limit
    if actors * rounds > MAX_ACTOR_ROUNDS:
        raise scenario_error(
            file,
            text,
            "$.round_limit",
            f"expected actors x round_limit <= {MAX_ACTOR_ROUNDS:,} (docs/scenario-limits.md), "
            f"got {actors} x {rounds} = {actors * rounds:,}",
        )
    if not bounded_decisions and actors * actors * rounds > MAX_PAIR_ROUNDS:
        raise scenario_error(
            file,
            text,
            "$.actors",
            f"expected actors x actors x round_limit <= {MAX_PAIR_ROUNDS:,} (docs/scenario-limits.md), "
            f"got {actors} x {actors} x {rounds} = {actors * actors * rounds:,}",
        )


#: Care in the aftermath (PZ-HEAL-3, ZC-HEAL-1): none, or a kind of care.
CARE = ("none", "first_aid", "medicine", "hospital")


def check_common(
    scenario: Any,
    file: str,
    text: str,
    policies: Sequence[str],
    light_levels: Sequence[str] = (),
    care: Sequence[str] = CARE,
) -> None:
    """The checks every system's scenario needs: sides, round limit, light, aftermath, and each
    actor's id, side, policy, position and arrival round; each error names its $.path."""

    def fail(path: str, msg: str) -> None:
        raise scenario_error(file, text, path, msg)

    sides = [s.id for s in scenario.sides]
    if len(sides) < 2:
        fail("$.sides", f"expected at least two sides, got {len(sides)}")
    m = scenario.map
    if light_levels:
        if m.light not in light_levels:
            fail("$.map.light", unknown_name("light level", m.light, light_levels))
        for i, z in enumerate(m.cover):
            if z.light is not None and z.light not in light_levels:
                fail(f"$.map.cover[{i}].light", unknown_name("light level", z.light, light_levels))
    for i, side in enumerate(scenario.sides):
        if side.objective not in ("fight", "escape"):
            fail(f"$.sides[{i}].objective", unknown_name("objective", side.objective, ("fight", "escape")))
        if side.objective == "escape" and not m.exits:
            fail(f"$.sides[{i}].objective", "an escape objective needs an exit on the map ([[map.exits]])")
    after = scenario.aftermath
    try:
        parse_duration(after.duration)
    except ValueError as exc:
        fail("$.aftermath.duration", str(exc))
    if after.care not in care:
        fail("$.aftermath.care", unknown_name("care", after.care, care))
    for j, side_id in enumerate(after.sides):
        if side_id not in sides:
            fail(f"$.aftermath.sides[{j}]", unknown_name("side", side_id, sides))
    check_walls(scenario, fail)
    seen: set[str] = set()
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        if a.id in seen:
            fail(f"{p}.id", f"duplicate actor id {a.id!r}")
        seen.add(a.id)
        if a.side not in sides:
            fail(f"{p}.side", unknown_name("side", a.side, sides))
        if a.policy not in policies:
            fail(f"{p}.policy", unknown_name("policy", a.policy, policies))
        if not (a.position[0] < m.width and a.position[1] < m.height):
            fail(f"{p}.position", f"expected [x, y] inside the {m.width} x {m.height} map, got {a.position}")
        for k, step in enumerate(a.script):
            for field in ("before", "after", "to"):
                cell = getattr(step, field)
                if cell is not None and not (cell[0] < m.width and cell[1] < m.height):
                    fail(
                        f"{p}.script[{k}].{field}", f"expected [x, y] inside the {m.width} x {m.height} map, got {cell}"
                    )

        wall = next((w for w in m.walls if len(a.position) == 2 and w.contains(*a.position)), None)
        if wall is not None:
            fail(f"{p}.position", f"{a.id} stands on the wall {wall.name!r}: nobody stands on a wall cell")


def check_walls(scenario: Any, fail: Any) -> None:
    """Walls: a known height, a positive size, on the map, unique names, no exit on a wall."""
    m = scenario.map
    names: set[str] = set()
    for i, w in enumerate(m.walls):
        p = f"$.map.walls[{i}]"
        if w.name in names:
            fail(f"{p}.name", f"duplicate wall name {w.name!r}")
        names.add(w.name)
        if w.height not in ("full", "low"):
            fail(f"{p}.height", f"expected full or low, got {w.height!r}")
        if w.w < 1 or w.h < 1:
            fail(f"{p}.w" if w.w < 1 else f"{p}.h", f"expected a wall at least 1 x 1, got {w.w} x {w.h}")
        if not (w.x >= 0 and w.y >= 0 and w.x + w.w <= m.width and w.y + w.h <= m.height):
            fail(
                p,
                f"wall {w.name!r} ({w.x}, {w.y}, {w.w} x {w.h}) is not inside the {m.width} x {m.height} map",
            )
    for j, ex in enumerate(m.exits):
        wall = next((w for w in m.walls if w.contains(ex.x, ex.y)), None)
        if wall is not None:
            fail(f"$.map.exits[{j}]", f"exit {ex.name!r} is on the wall {wall.name!r}")


#: The largest magnitude of any number under ``[rules]`` without a range of its own.
MAX_RULES_NUMBER = 100_000


def check_rules(
    file: str,
    text: str,
    rules: dict[str, Any],
    ranges: Mapping[str, tuple[int, int]],
    names: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Bound the ``[rules]`` overrides: each number within its field's range (``ranges``, else
    +/- MAX_RULES_NUMBER, at any depth of a list or table), each named value among ``names``."""
    for key, value in rules.items():
        lo, hi = ranges.get(key, (-MAX_RULES_NUMBER, MAX_RULES_NUMBER))
        stack: list[tuple[str, Any]] = [(f"$.rules.{key}", value)]
        while stack:
            path, item = stack.pop()
            if isinstance(item, bool):
                continue
            if isinstance(item, int) and not lo <= item <= hi:
                raise scenario_error(file, text, path, f"expected a number in {lo}..{hi}, got {item}", key)
            if isinstance(item, list):
                stack.extend((f"{path}[{i}]", v) for i, v in enumerate(item))
            elif isinstance(item, dict):
                stack.extend((f"{path}.{k}", v) for k, v in item.items())
        if names and key in names and value not in names[key]:
            raise scenario_error(file, text, f"$.rules.{key}", unknown_name(key, str(value), names[key]), key)


def limits_table(scenario_type: Any) -> list[tuple[str, str, str]]:
    """Every field of a scenario Struct with its bounds: (``$.path``, kind, range), for docs/scenario-limits.md.

    A field without a bound shows ``unbounded`` (tests/fuzz/test_limits.py allows none but booleans,
    ``seed`` numbers and the ``[rules]`` table, bounded by :func:`check_rules`).
    """
    rows: list[tuple[str, str, str]] = []
    seen: set[Any] = set()

    def bound(lo: Any, hi: Any) -> str:
        if lo is None and hi is None:
            return "unbounded"
        return f"{'' if lo is None else f'{lo:,}'}..{'' if hi is None else f'{hi:,}'}"

    def walk(info: Any, path: str) -> None:
        mi = msgspec.inspect
        if isinstance(info, mi.StructType):
            if info.cls in seen and path.count(".") > 4:
                return
            seen.add(info.cls)
            for f in info.fields:
                walk(f.type, f"{path}.{f.encode_name}")
        elif isinstance(info, mi.UnionType):
            for t in info.types:
                if not isinstance(t, mi.NoneType):
                    walk(t, path)
        elif isinstance(info, mi.ListType):
            rows.append((path, "list", f"{bound(info.min_length, info.max_length)} items"))
            walk(info.item_type, f"{path}[]")
        elif isinstance(info, mi.DictType):
            rows.append((path, "table", f"{bound(info.min_length, info.max_length)} entries"))
            walk(info.value_type, f"{path}.*")
        elif isinstance(info, mi.IntType):
            rows.append((path, "integer", bound(info.ge, info.le)))
        elif isinstance(info, mi.StrType):
            rows.append((path, "text", f"{bound(info.min_length, info.max_length)} characters"))
        elif isinstance(info, mi.BoolType):
            rows.append((path, "boolean", "true, false"))
        elif isinstance(info, mi.AnyType):
            rows.append((path, "any", "checked by the system (check_rules)"))

    walk(msgspec.inspect.type_info(scenario_type), "$")
    out: list[tuple[str, str, str]] = []
    for row in rows:  # a union lists a path once per kind: keep each (path, kind) once
        if row not in out:
            out.append(row)
    return out
