"""Sweeps: ``--sweep PATH=V1,V2`` parsed, applied to a raw scenario, and the grid of points planned.

:func:`build_scenario` loads a scenario from its text (with overrides), so a
worker that cannot see the file (a Dask cluster) loads the same scenario.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
from fracas.core.errors import FracasError
from fracas.core.scenario import LoadedScenario, convert, convert_rules, read_toml, scenario_sha256
from fracas.core.system import get_system


class Override(msgspec.Struct, frozen=True):
    """One swept value: a dotted path into the scenario and the number it takes."""

    path: str
    value: int | float


def _describe(node: Any) -> str:
    if isinstance(node, dict):
        return f"keys: {', '.join(map(str, node)) or 'none'}"
    if isinstance(node, list):
        ids = [str(x["id"]) for x in node if isinstance(x, dict) and "id" in x]
        return f"ids: {', '.join(ids)}" if ids else f"{len(node)} elements, addressed 0..{len(node) - 1}"
    return f"a {type(node).__name__}"


def resolve_path(
    raw: dict[str, Any], dotted: str, optional_top: Sequence[str] = (), optional_rules: Sequence[str] = ()
) -> tuple[Any, str | int, str]:
    """Find ``dotted`` in a raw scenario: (container, key, ``$.json.path``).

    A list element is addressed by its ``id`` (``actors.mira``) or, for lists
    without ids, by its index. The leaf must exist, except a top-level field
    or a ``rules`` value that the system knows but the file leaves at its default.
    """
    parts = dotted.split(".")
    if not dotted or any(not p for p in parts):
        raise FracasError(f"--sweep {dotted!r}: expected a dotted path like actors.mira.skills.handguns")
    node: Any = raw
    jpath = "$"
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict):
            if part not in node:
                creatable = (i == 0 and part in optional_top) or (
                    i == 1 and parts[0] == "rules" and part in optional_rules
                )
                if i == 0 and part == "rules" and not last and parts[1] in optional_rules:
                    node["rules"] = {}
                elif not (last and creatable):
                    raise FracasError(f"--sweep {dotted}: no `{part}` at {jpath} ({_describe(node)})")
            if last:
                return node, part, f"{jpath}.{part}"
            node = node[part]
            jpath = f"{jpath}.{part}"
        elif isinstance(node, list):
            idx = next((k for k, x in enumerate(node) if isinstance(x, dict) and str(x.get("id")) == part), None)
            if idx is None and part.isdecimal() and int(part) < len(node):
                idx = int(part)
            if idx is None:
                raise FracasError(f"--sweep {dotted}: no element with id `{part}` at {jpath} ({_describe(node)})")
            if last:
                return node, idx, f"{jpath}[{idx}]"
            node = node[idx]
            jpath = f"{jpath}[{idx}]"
        else:
            raise FracasError(f"--sweep {dotted}: {jpath} is {_describe(node)}, not a table or a list")
    raise AssertionError("unreachable")  # pragma: no cover


#: Values of one --sweep at most (each is a full batch of fights).
MAX_SWEEP_VALUES = 1000


def parse_sweep(text: str) -> tuple[str, list[int | float]]:
    """``actors.mira.skills.handguns=3,4,5`` -> (path, [3, 4, 5]); a range ``3..7`` works too."""
    path, sep, values = text.partition("=")
    path = path.strip()
    if not sep or not path or not values.strip():
        raise FracasError(f"--sweep {text!r}: expected PATH=V1,V2,... (e.g. actors.mira.skills.handguns=3,4,5)")
    out: list[int | float] = []
    for item in values.split(","):
        item = item.strip()
        lo, dots, hi = item.partition("..")
        try:
            if dots:
                first, last = int(lo), int(hi)
                if not 0 <= last - first < MAX_SWEEP_VALUES:
                    raise FracasError(
                        f"--sweep {path}: {item!r}: expected a range LOW..HIGH with LOW <= HIGH "
                        f"and at most {MAX_SWEEP_VALUES} values"
                    )
                out.extend(range(first, last + 1))
            else:
                out.append(int(item) if item.lstrip("+-").isdecimal() else float(item))
        except ValueError:
            raise FracasError(
                f"--sweep {path}: {item!r} is not a number (expected numbers like 3,4,5 or 3..7)"
            ) from None
        if not dots and isinstance(out[-1], float) and not math.isfinite(out[-1]):
            raise FracasError(f"--sweep {path}: {item!r} is not a finite number")
    if len(out) > MAX_SWEEP_VALUES:
        raise FracasError(f"--sweep {path}: expected at most {MAX_SWEEP_VALUES} values, got {len(out)}")
    if len(set(out)) != len(out):
        raise FracasError(f"--sweep {path}: a value appears twice in {values.strip()}")
    return path, out


def apply_overrides(raw: dict[str, Any], overrides: Sequence[Override], system_name: str) -> dict[str, Any]:
    """A deep copy of ``raw`` with each override set; errors name the path and why."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(raw))
    if not overrides:
        return out
    system = get_system(system_name)
    top = tuple(f.encode_name for f in msgspec.structs.fields(system.scenario_type))
    rules = tuple(f.encode_name for f in msgspec.structs.fields(system.rules_type))
    for ov in overrides:
        container, key, jpath = resolve_path(out, ov.path, top, rules)
        old = container[key] if (isinstance(container, list) or key in container) else None  # type: ignore[index]
        if isinstance(old, bool) or not (old is None or isinstance(old, int | float)):
            shown = json.dumps(old, ensure_ascii=False)
            raise FracasError(f"--sweep {ov.path}: {jpath} is not a number (it is {shown})")
        value = ov.value
        if isinstance(old, int) and not isinstance(value, int):
            if not float(value).is_integer():
                raise FracasError(f"--sweep {ov.path}: {jpath} is an integer, got {value}")
            value = int(value)
        container[key] = value
    return out


def build_scenario(file: str, text: str, overrides: Sequence[Override] = ()) -> LoadedScenario:
    """A LoadedScenario from a TOML text, with sweep overrides applied and validated.

    Mirrors :func:`fracas.core.scenario.load_scenario` on a text instead of a file,
    so a worker that cannot see the file (a Dask cluster) loads the same
    scenario. Without overrides the hash is the file's; with overrides it is
    the SHA-256 of the canonical JSON of the effective raw scenario, which is
    what the log header records.
    """
    try:
        raw0 = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FracasError(f"{file}: invalid TOML: {exc}") from None
    system_name = raw0.get("system")
    if not isinstance(system_name, str):
        raise FracasError(f"{file}: $.system: expected the name of a rule system")
    system = get_system(system_name)
    raw = apply_overrides(raw0, overrides, system_name) if overrides else raw0
    spec = convert(file, text, raw, system.scenario_type)
    rules_raw = msgspec.to_builtins(system.rules_type())
    rules_raw.update(spec.rules)
    convert_rules(file, text, rules_raw, system.rules_type)
    system.validate(spec, file, text)
    if overrides:
        sha = hashlib.sha256(msgspec.json.encode(raw, order="deterministic")).hexdigest()
    else:
        sha = scenario_sha256(text.encode("utf-8"))
    return LoadedScenario(path=file, spec=spec, raw=raw, sha256=sha)


def read_scenario_text(path: str | Path) -> str:
    """The scenario file's text (errors name the file)."""
    _, data = read_toml(Path(path))
    return data.decode("utf-8")


def plan_points(sweeps: Sequence[tuple[str, Sequence[int | float]]]) -> tuple[tuple[Override, ...], ...]:
    """The grid of sweep points: one sweep is a line, two are a grid (first varies slowest)."""
    if not sweeps:
        return ((),)
    grids = [[Override(path, v) for v in values] for path, values in sweeps]
    return tuple(tuple(combo) for combo in itertools.product(*grids))
