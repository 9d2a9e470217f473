"""Scenarios: TOML files validated by msgspec Structs.

The engine defines the parts every system shares (map, sides, the common
actor fields); a rule system subclasses :class:`ActorBase` and
:class:`ScenarioBase` with its own sheet fields and rules, so one
``msgspec.convert`` validates the whole file with exact ``$.paths``.
Unknown fields are errors everywhere (``forbid_unknown_fields``).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from fracas.core.errors import ScenarioError, UnknownSystem


class Spec(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, frozen=True):
    """Base of every scenario Struct."""


class CoverZone(Spec, frozen=True, kw_only=True):
    """A rectangle of the map giving cover (and optionally its own light)."""

    name: str
    x: int
    y: int
    w: int = 1
    h: int = 1
    level: str = "half"
    light: str | None = None

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


class WallSpec(Spec, frozen=True, kw_only=True):
    """A rectangle of wall cells: ``full`` blocks steps and sight, ``low`` blocks steps and gives
    ``cover`` (a cover level of the rule system) to whoever is behind it (fracas.core.battlefield)."""

    name: str
    x: int
    y: int
    w: int = 1
    h: int = 1
    height: str = "full"
    cover: str = "half"

    def contains(self, x: int, y: int) -> bool:
        return self.x <= x < self.x + self.w and self.y <= y < self.y + self.h


class ExitSpec(Spec, frozen=True, kw_only=True):
    name: str
    x: int
    y: int


class MapSpec(Spec, frozen=True, kw_only=True):
    width: int = 30
    height: int = 20
    light: str = "normal"
    cover: list[CoverZone] = []
    exits: list[ExitSpec] = []
    walls: list[WallSpec] = []


class SideSpec(Spec, frozen=True, kw_only=True):
    """A side. ``objective = "escape"``: the side wins when one of its actors flees through an exit."""

    id: str
    name: str = ""
    objective: str = "fight"


class ScriptStep(Spec, frozen=True, kw_only=True):
    """One scripted decision: an action with optional movement around it.

    ``before`` / ``after``: where to move before / after the action;
    ``to``: destination of a sprint or a flight.
    """

    action: str
    target: str | None = None
    weapon: str | None = None
    before: list[int] | None = None
    after: list[int] | None = None
    to: list[int] | None = None
    mode: str | None = None
    surpass: int = 0


class ActorBase(Spec, frozen=True, kw_only=True):
    """The fields of an actor that every system shares."""

    id: str
    name: str = ""
    side: str
    position: list[int]
    policy: str = "aggressive"
    arrives: int = 1
    script: list[ScriptStep] = []


class AftermathSpec(Spec, frozen=True, kw_only=True):
    """How long the clock runs after the fight, and what care is available."""

    duration: str = "1h"
    care: str = "none"
    medic: str | None = None
    medicine: int = 0
    cog: int = 0
    intensive_care: bool = False
    #: the sides that get care (empty: every side)
    sides: list[str] = []

    def treats(self, side: str) -> bool:
        """Whether the care reaches an actor of ``side``."""
        return self.care != "none" and (not self.sides or side in self.sides)


class ScenarioBase(Spec, frozen=True, kw_only=True):
    system: str
    name: str = ""
    description: str = ""
    seed: int | str | None = None
    round_limit: int = 20
    rules: dict[str, Any] = {}
    map: MapSpec = MapSpec()
    sides: list[SideSpec]
    #: a Sequence, so that a system narrows it to ``list[ItsActor]`` in a subclass (mypy accepts that override)
    actors: Sequence[ActorBase]
    aftermath: AftermathSpec = AftermathSpec()


class LoadedScenario(msgspec.Struct, kw_only=True):
    """A validated scenario with what the log header records about it."""

    path: str
    spec: Any
    raw: dict[str, Any]
    sha256: str


_DURATION = re.compile(r"^\s*(\d+)\s*(s|min|m|h|d|w)\s*$")
_UNIT_SECONDS = {"s": 1, "min": 60, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> int:
    """``"90s"``, ``"10min"``, ``"2h"``, ``"3d"``, ``"1w"`` -> seconds."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"expected a duration like 90s, 10min, 2h, 3d or 1w, got {text!r}")
    return int(m.group(1)) * _UNIT_SECONDS[m.group(2)]


def read_toml(path: Path) -> tuple[dict[str, Any], bytes]:
    """Parse a TOML file; errors name the file and line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(str(path), "", f"cannot read scenario: {exc.strerror or exc}") from None
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ScenarioError(str(path), "", f"not UTF-8 text: {exc.reason}") from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column \d+\)", msg)
        line = int(m.group(1)) if m else None
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg)
        raise ScenarioError(str(path), "", f"invalid TOML: {msg}", line=line) from None
    return raw, data


_MSGSPEC_AT = re.compile(r"^(?P<msg>.*?)(?: - at `(?P<path>\$[^`]*)`)?$", re.S)
_UNKNOWN = re.compile(r"Object contains unknown field `([^`]+)`")
_MISSING = re.compile(r"Object missing required field `([^`]+)`")


def convert(file: str, text: str, raw: Any, type_: Any) -> Any:
    """``msgspec.convert`` with errors rewritten as one line with file, line, $.path."""
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
            jpath = f"{jpath}.{key}"
            msg = f"unknown field `{key}`"
        elif missing:
            msg = f"missing required field `{missing.group(1)}`"
        else:
            msg = msg[0].lower() + msg[1:]
        raise ScenarioError(file, jpath, msg, line=locate(text, jpath, key)) from None


def locate(text: str, jpath: str, key: str | None = None) -> int | None:
    """Best-effort line number of a ``$.path`` in a TOML text (None if not found)."""
    parts = re.findall(r"\.([A-Za-z0-9_\-]+)|\[(\d+)\]", jpath)
    lines = text.splitlines()
    start, end = 0, len(lines)
    table: list[str] = []
    best: int | None = None
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
            if found is not None:
                best = found + 1
                if not header.match(lines[found]):
                    start = found
        else:
            n = int(index)
            header = re.compile(r"^\s*\[\[\s*" + re.escape(".".join(table)) + r"\s*\]\]\s*$")
            hits = [ln for ln in range(start, end) if header.match(lines[ln])]
            if n < len(hits):
                start = hits[n]
                end = hits[n + 1] if n + 1 < len(hits) else end
                best = start + 1
                table = table[:]
            else:
                # an inline array: the element is on the key's line or after it
                continue
    if key is not None and best is not None:
        pat = re.compile(r"(^|[{,\s])" + re.escape(key) + r"\s*=")
        for ln in range(best - 1, end):
            if pat.search(lines[ln]):
                return ln + 1
    return best


def scenario_sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def content_sha256(value: Any) -> str:
    """Hex SHA-256 of a value's canonical JSON (keys sorted, no whitespace: the log's encoding).

    Format 2 headers: ``scenario_sha256`` is this of the embedded scenario,
    and the commitment binds this of the effective rules (docs/log-format.md).
    """
    return hashlib.sha256(msgspec.json.encode(value, order="deterministic")).hexdigest()


def load_scenario(path: Path | str) -> LoadedScenario:
    """Read, validate and return a scenario; every error is a ScenarioError."""
    from fracas.core.system import get_system  # the registry needs nothing from here

    path = Path(path)
    file = str(path)
    raw, data = read_toml(path)
    text = data.decode("utf-8")
    system_name = raw.get("system")
    if not isinstance(system_name, str):
        found = "nothing" if system_name is None else type(system_name).__name__
        raise ScenarioError(
            file,
            "$.system",
            f"expected the name of a rule system, got {found}",
            line=locate(text, "$.system"),
        )
    try:
        system = get_system(system_name)
    except UnknownSystem as exc:  # keep the file and path in the message
        raise ScenarioError(file, "$.system", str(exc), line=locate(text, "$.system")) from None
    spec = convert(file, text, raw, system.scenario_type)
    rules_raw = msgspec.to_builtins(system.rules_type())
    rules_raw.update(spec.rules)
    convert_rules(file, text, rules_raw, system.rules_type)
    system.validate(spec, file, text)
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
            msg = f"unknown rules value `{unknown.group(1)}`"
        else:
            msg = msg[0].lower() + msg[1:]
        jpath = "$.rules" + sub
        raise ScenarioError(file, jpath, msg, line=locate(text, jpath)) from None


def check_common(scenario: Any, file: str, text: str, policies: Sequence[str]) -> None:
    """The checks every system's scenario needs: sides, round limit, and each actor's
    id, side, policy, position and arrival round; each error names its $.path."""

    def fail(path: str, msg: str) -> None:
        raise ScenarioError(file, path, msg, line=locate(text, path))

    sides = [s.id for s in scenario.sides]
    if len(sides) < 2:
        fail("$.sides", f"expected at least two sides, got {len(sides)}")
    if scenario.round_limit < 1:
        fail("$.round_limit", f"expected at least 1 round, got {scenario.round_limit}")
    m = scenario.map
    for i, side in enumerate(scenario.sides):
        if side.objective not in ("fight", "escape"):
            fail(f"$.sides[{i}].objective", f"expected fight or escape, got {side.objective!r}")
        if side.objective == "escape" and not m.exits:
            fail(f"$.sides[{i}].objective", "an escape objective needs an exit on the map ([[map.exits]])")
    for j, side_id in enumerate(scenario.aftermath.sides):
        if side_id not in sides:
            fail(f"$.aftermath.sides[{j}]", f"unknown side {side_id!r} (sides: {', '.join(sides)})")
    check_walls(scenario, fail)
    seen: set[str] = set()
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        if a.id in seen:
            fail(f"{p}.id", f"duplicate actor id {a.id!r}")
        seen.add(a.id)
        if a.side not in sides:
            fail(f"{p}.side", f"unknown side {a.side!r} (sides: {', '.join(sides)})")
        if a.policy not in policies:
            fail(f"{p}.policy", f"unknown policy {a.policy!r} (expected one of {', '.join(policies)})")
        if len(a.position) != 2 or not (0 <= a.position[0] < m.width and 0 <= a.position[1] < m.height):
            fail(f"{p}.position", f"expected [x, y] inside the {m.width} x {m.height} map, got {a.position}")
        if a.arrives < 1:
            fail(f"{p}.arrives", f"expected a round >= 1, got {a.arrives}")
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
