"""Write (or check) docs/rules.md, the rule catalogue, from what ``fracas systems`` reports.

    python tools/rules_catalogue.py            # check: exit 1 and name the first line that differs
    python tools/rules_catalogue.py --write    # rewrite docs/rules.md after changing a rule ID or a default

The catalogue lists the common rule IDs and, for each rule system shipped with
fracas, its rule IDs with their one-line statements and its default values
(the readings chosen where a rule text gives no value). Plugins installed
beside fracas are left out: the catalogue documents this repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fracas.core.catalogue import COMMON_RULE_IDS, describe_system
from fracas.core.system import get_system, system_names

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "docs" / "rules.md"

HEAD = """\
# Rule catalogue

<!-- Written by tools/rules_catalogue.py from what `fracas systems` reports; do not edit by hand:
     run `python tools/rules_catalogue.py --write` (tests/contract/test_rules_catalogue.py checks it). -->

Every rule fracas applies has an ID. The events cite it (`"rule":"PZ-DMG-1"`),
the play-by-play prints it, and `fracas audit` explains a roll by it. Each rule
system implements a French rule text (its *seed text*, named below; the texts
are not shipped with fracas): the statements here are one-line summaries of
those rules as fracas applies them.

Where a rule text is silent or ambiguous, the reading we chose is in
[rules-notes.md](rules-notes.md), by rule ID. Where it gives no value (a
table it refers to, a modifier it leaves out), the value we chose is a
default, listed under each system: a scenario's `[rules]` table overrides any
of them, and every log records the values it ran with. `fracas systems`
prints the same catalogue (`--json` for machines).
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(rules: dict[str, str]) -> list[str]:
    return ["| ID | Rule |", "|---|---|", *(f"| `{rid}` | {_cell(summary)} |" for rid, summary in rules.items())]


def shipped_systems() -> dict[str, dict[str, Any]]:
    """The rule systems shipped with fracas (not plugins), as ``fracas systems --json`` reports them."""
    out: dict[str, dict[str, Any]] = {}
    for name in system_names():
        system = get_system(name)
        if type(system).__module__.startswith("fracas.systems."):
            out[name] = describe_system(system)
    return out


def render() -> str:
    lines = [HEAD, "## Common to every system", "", *_table(COMMON_RULE_IDS), ""]
    for name, s in shipped_systems().items():
        lines += [
            f"## `{name}`: {s['title']}",
            "",
            f"Seed text `{s['seed']}`; a round is {s['round_seconds']} s; AI policies: "
            + ", ".join(f"`{p}`" for p in s["policies"])
            + ".",
            "",
            *_table(s["rules"]),
            "",
            "Default values (`[rules]` in a scenario overrides any of them):",
            "",
            "| Key | Default |",
            "|---|---|",
            *(f"| `{key}` | `{_cell(json.dumps(v, ensure_ascii=False))}` |" for key, v in s["defaults"].items()),
            "",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--write", action="store_true", help="rewrite the catalogue")
    p.add_argument("--path", type=Path, default=CATALOGUE, help="the catalogue file (default: docs/rules.md)")
    args = p.parse_args(argv)
    text = render()
    if args.write:
        changed = not args.path.exists() or args.path.read_text(encoding="utf-8") != text
        args.path.write_text(text, encoding="utf-8")
        print(f"{args.path}: {'rewritten' if changed else 'unchanged'}")
        return 0
    if not args.path.exists():
        print(f"{args.path}: missing (run python tools/rules_catalogue.py --write)")
        return 1
    old = args.path.read_text(encoding="utf-8").splitlines()
    new = text.splitlines()
    for i, (a, b) in enumerate(zip(old, new, strict=False), start=1):
        if a != b:
            print(f"{args.path}:{i}: differs from what fracas systems reports:\n  file:   {a}\n  fracas: {b}")
            return 1
    if len(old) != len(new):
        print(f"{args.path}: {len(old)} lines, fracas systems reports {len(new)}")
        return 1
    print(f"{args.path}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
