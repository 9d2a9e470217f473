"""The scenarios shipped inside fracas (package data of ``fracas.scenarios``), found by name.

A bundled scenario is named ``SYSTEM/NAME`` (``point_zero/mira_vs_guard``),
or ``NAME`` alone when no other system ships a scenario of that name.
:func:`resolve_scenario` turns what a user typed into a file: an existing
path is taken as it is (a path always wins), otherwise a bundled name; an
unknown or ambiguous one is a :class:`ScenarioError` that says what it
could have meant. The files are read with :mod:`importlib.resources`, so
this works from a wheel, an editable install or a checkout alike.
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import tomllib
from collections.abc import Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import msgspec
from fracas.core.errors import ScenarioError

#: The package whose data the bundled scenarios are.
PACKAGE = "fracas.scenarios"
#: Shipped scenarios too big for an expected log and for the suites and figures that play every shipped
#: scenario many times (``SYSTEM/NAME``): the thousand-zombie horde writes about 100,000 events (27 MB) a
#: fight. tests/unit/test_walls.py checks that its replay is the live fight and that it verifies,
#: tests/contract runs it under ``-m slow``, tools/bench.py reports its run time and verify speed.
HEAVY = frozenset({"zcorps/horde"})
SUFFIX = ".toml"

#: Files extracted from a zipped install live until the process exits.
_EXTRACTED = contextlib.ExitStack()
atexit.register(_EXTRACTED.close)


class Bundled(msgspec.Struct, frozen=True):
    """One bundled scenario, as ``fracas scenarios`` lists it."""

    qualified: str  # SYSTEM/NAME, always unique
    name: str  # the shortest name that finds it: NAME, or SYSTEM/NAME when NAME is shared
    system: str
    title: str
    description: str
    sides: dict[str, list[str]]  # side id -> actor ids, in file order


def _files() -> Iterator[tuple[str, str, Traversable]]:
    """(folder, stem, file) of every bundled ``*/*.toml``, sorted by folder then stem."""
    root = resources.files(PACKAGE)
    found: list[tuple[str, str, Traversable]] = []
    for folder in root.iterdir():
        if not folder.is_dir() or folder.name.startswith(("_", ".")):
            continue
        for entry in folder.iterdir():
            if entry.is_file() and entry.name.endswith(SUFFIX):
                found.append((folder.name, entry.name[: -len(SUFFIX)], entry))
    return iter(sorted(found, key=lambda t: (t[0], t[1])))


def _names() -> dict[str, Traversable]:
    """SYSTEM/NAME -> file."""
    return {f"{folder}/{stem}": entry for folder, stem, entry in _files()}


def _short(qualified: list[str]) -> dict[str, str]:
    """SYSTEM/NAME -> the shortest unambiguous name."""
    stems = [q.split("/", 1)[1] for q in qualified]
    return {q: (s if stems.count(s) == 1 else q) for q, s in zip(qualified, stems, strict=True)}


def bundled_scenarios() -> list[Bundled]:
    """Every bundled scenario with its system, title, description and sides (files are parsed, not validated)."""
    names = _names()
    short = _short(list(names))
    out: list[Bundled] = []
    for qualified, entry in names.items():
        raw: dict[str, Any] = tomllib.loads(entry.read_text(encoding="utf-8"))
        sides: dict[str, list[str]] = {str(s.get("id")): [] for s in raw.get("sides", []) if isinstance(s, dict)}
        for actor in raw.get("actors", []):
            if isinstance(actor, dict):
                sides.setdefault(str(actor.get("side")), []).append(str(actor.get("id")))
        out.append(
            Bundled(
                qualified=qualified,
                name=short[qualified],
                system=str(raw.get("system", qualified.split("/", 1)[0])),
                title=str(raw.get("name") or qualified.split("/", 1)[1]),
                description=str(raw.get("description", "")),
                sides=sides,
            )
        )
    return out


def _as_path(entry: Traversable) -> Path:
    if isinstance(entry, Path):
        return entry
    return _EXTRACTED.enter_context(resources.as_file(entry))  # pragma: no cover - a zipped install


def bundled_path(name: str) -> Path | None:
    """The file of the bundled scenario ``name`` (``NAME``, ``SYSTEM/NAME``, either with ``.toml``), if exactly one.

    Raises :class:`ScenarioError` when ``NAME`` alone fits more than one system.
    """
    key = name.removesuffix(SUFFIX).strip("/")
    names = _names()
    if key in names:
        return _as_path(names[key])
    fits = [q for q in names if q.split("/", 1)[1] == key]
    if len(fits) > 1:
        raise ScenarioError(name, "", f"more than one bundled scenario has this name; did you mean {_either(fits)}?")
    return _as_path(names[fits[0]]) if fits else None


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def _is_name(text: str) -> bool:
    """``NAME`` or ``SYSTEM/NAME`` (``.toml`` allowed); anything longer, absolute or dotted is a path."""
    parts = Path(text).parts
    return 1 <= len(parts) <= 2 and not Path(text).is_absolute() and not any(p in (".", "..") for p in parts)


def resolve_scenario(arg: str | Path) -> Path:
    """The scenario file a user meant: an existing path, else a bundled scenario by name.

    A missing file or an unknown name is a :class:`ScenarioError` with the
    closest bundled names (``did you mean ...``) and where to list them.
    """
    path = Path(arg)
    text = str(arg)
    if path.exists():
        return path
    if _is_name(text):
        found = bundled_path(text)
        if found is not None:
            return found
    short = _short(list(_names()))  # suggest names as `fracas scenarios` shows them
    candidates = [*short, *short.values()]
    key = text.removesuffix(SUFFIX)
    tail = "/".join(Path(key).parts[-2:])  # a checkout's path typed elsewhere: scenarios/point_zero/duel.toml
    close = (
        [q for q in short if q == tail]
        or [c for c in candidates if key and key in c]  # a part of the name: mira
        or difflib.get_close_matches(key, candidates, n=3)
        or difflib.get_close_matches(Path(key).name, candidates, n=3)
    )
    close = list(dict.fromkeys(short.get(c, c) for c in close))[:3]
    if not _is_name(text):
        hint = f"; did you mean the bundled scenario {_either(close)}?" if close else ""
        raise ScenarioError(text, "", f"cannot read scenario: No such file or directory{hint}")
    hint = f"; did you mean {_either(close)}?" if close else ""
    raise ScenarioError(
        text, "", f"no such file, and no bundled scenario of this name{hint} (`fracas scenarios` lists them)"
    )
