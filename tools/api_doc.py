"""The public API as docs/api.md documents it: every exported name, with its signature.

    python tools/api_doc.py            # print each module's names and signatures (to write docs/api.md)
    python tools/api_doc.py --check    # exit 1 when docs/api.md and the modules' __all__ drift apart
    python tools/api_doc.py --update   # rewrite the signatures docs/api.md shows (names still by hand)

docs/api.md has one ``## `MODULE` `` section per public module (``fracas``,
``fracas.plugin``) and, inside it, one ``### `NAME` `` heading per name of the
module's ``__all__``. The entry of a function or of a class with a
signature (its constructor) holds that signature exactly as
:func:`signature_line` writes it. tests/contract/test_api_doc.py runs the check.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import msgspec

ROOT = Path(__file__).resolve().parent.parent
API_DOC = ROOT / "docs" / "api.md"
MODULES = ("fracas", "fracas.plugin")

_MODULE_PATH = re.compile(r"\b(?:[a-z_][a-z0-9_]*\.)+(?=[A-Za-z_])")
_SECTION = re.compile(r"^## `([\w.]+)`\s*$", re.M)
_ENTRY = re.compile(r"^### `(\w+)`", re.M)
_EVENTS_ALIAS = re.compile(r"\bE\.")  # fracas.core modules import the events as ``E``


def _aliases() -> dict[str, str]:
    """The scenario's text types by their names: their bounds and pattern are said once, in the doc's prose."""
    from fracas.core import scenario

    # spelled as inside another annotation (Optional[...]), where typing leaves out its own module
    return {inspect.formatannotation(getattr(scenario, n)).removeprefix("typing."): n for n in ("Name", "Text")}


def _type_text(annotation: Any) -> str:
    """An annotation as a reader writes it: no quotes, no module paths (``fracas.core.events.Entry`` -> ``Entry``),
    ``Name`` and ``Text`` for the scenario's text types."""
    text = annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)
    for spelled, alias in _aliases().items():
        text = text.replace(spelled, alias)
    return _MODULE_PATH.sub("", _EVENTS_ALIAS.sub("", text))


def signature_line(name: str, obj: Any) -> str | None:
    """``name(params) -> result`` for a function or a constructible class; None for anything else."""
    is_protocol = getattr(obj, "_is_protocol", False)
    if not (inspect.isfunction(obj) or (inspect.isclass(obj) and not is_protocol)):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # an exception class without its own __init__
        return None
    parts: list[str] = []
    star = False
    for p in sig.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        text = ("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
        star = star or p.kind is p.VAR_POSITIONAL
        if p.annotation is not p.empty:
            text += f": {_type_text(p.annotation)}"
        if p.default is not p.empty:
            default = p.default
            if repr(default) == "<factory>":
                shown = "<factory>"
            elif isinstance(default, msgspec.Struct):  # its defaults, not its fields' values: MapSpec()
                shown = f"{type(default).__name__}()"
            else:
                shown = repr(default)
            text += f" = {_MODULE_PATH.sub('', shown)}"
        parts.append(text)
    line = f"{name}({', '.join(parts)})"
    if inspect.isfunction(obj) and sig.return_annotation is not sig.empty:
        line += f" -> {_type_text(sig.return_annotation)}"
    return line


def exported(module: str) -> dict[str, Any]:
    mod = importlib.import_module(module)
    return {name: getattr(mod, name) for name in mod.__all__}


def documented(text: str) -> dict[str, dict[str, str]]:
    """Section -> entry name -> the entry's text, from docs/api.md."""
    out: dict[str, dict[str, str]] = {}
    sections = list(_SECTION.finditer(text))
    for i, sec in enumerate(sections):
        body = text[sec.end() : sections[i + 1].start() if i + 1 < len(sections) else len(text)]
        entries = list(_ENTRY.finditer(body))
        out[sec.group(1)] = {
            e.group(1): body[e.start() : entries[j + 1].start() if j + 1 < len(entries) else len(body)]
            for j, e in enumerate(entries)
        }
    return out


def drift(text: str) -> list[str]:
    """What docs/api.md misses or has too many, and every signature it shows wrong."""
    problems: list[str] = []
    doc = documented(text)
    for module in MODULES:
        names = exported(module)
        entries = doc.get(module)
        if entries is None:
            problems.append(f"docs/api.md: no section ## `{module}`")
            continue
        problems += [f"{module}.{n}: exported but not in docs/api.md" for n in sorted(set(names) - set(entries))]
        problems += [f"{module}.{n}: in docs/api.md but not exported" for n in sorted(set(entries) - set(names))]
        for name, obj in names.items():
            line = signature_line(name, obj)
            if name in entries and line is not None and f"`{line}`" not in entries[name]:
                problems.append(f"{module}.{name}: docs/api.md should show `{line}` (python tools/api_doc.py --update)")
    return problems


def updated(text: str) -> str:
    """``text`` with each entry's signature line replaced by the real one (entries are added or removed by hand)."""
    doc = documented(text)
    for module in MODULES:
        for name, obj in exported(module).items():
            entry = doc.get(module, {}).get(name)
            line = signature_line(name, obj)
            if entry is None or line is None:
                continue
            old = re.search(rf"^`{name}\(.*`$", entry, re.M)
            new_entry = entry[: old.start()] + f"`{line}`" + entry[old.end() :] if old else entry
            text = text.replace(entry, new_entry, 1)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with docs/api.md; exit 1 on drift")
    parser.add_argument("--update", action="store_true", help="rewrite the signatures shown in docs/api.md")
    args = parser.parse_args(argv)
    if args.update:
        API_DOC.write_text(updated(API_DOC.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    if args.check:
        problems = drift(API_DOC.read_text(encoding="utf-8"))
        for problem in problems:
            print(problem)
        return 1 if problems else 0
    for module in MODULES:
        print(f"## `{module}`\n")
        for name, obj in sorted(exported(module).items(), key=lambda kv: kv[0].lower()):
            line = signature_line(name, obj)
            print(f"### `{name}`\n")
            print(f"`{line}`\n" if line else f"{type(obj).__name__}: `{obj!r}`\n"[:200])
    return 0


if __name__ == "__main__":
    sys.exit(main())
