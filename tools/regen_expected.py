"""Rewrite (or check) the committed expected log of every scenario, on purpose.

    python tools/regen_expected.py            # check: exit 1 and show the first difference
    python tools/regen_expected.py --write    # rewrite the expected logs after a deliberate change
    python tools/regen_expected.py scenarios/point_zero/mira_vs_guard.toml --write

A scenario's expected log is the log of a run with the scenario's own seed.
The same command keeps the golden narration of each expected log in step
(tests/golden/narration/SYSTEM/NAME.txt, the play-by-play of
``fracas replay LOG --narrate``, and NAME.summary.txt, its ``--summary``):
``--write`` rewrites them too, so a change to a fight or to the narration is
one command away from its reviewed text. ``--narration-only`` leaves the logs alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from fracas.cli.narration import narration_lines
from fracas.core.bundled import HEAVY
from fracas.services.logdiff import expected_log_path, first_difference, run_to_bytes

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "narration"


def golden_paths(scenario: Path) -> dict[str, Path]:
    """The golden narration files of a scenario: ``{"narrate": ..., "summary": ...}``."""
    base = GOLDEN / scenario.parent.name / scenario.stem
    return {"narrate": base.with_suffix(".txt"), "summary": base.with_suffix(".summary.txt")}


def golden_texts(log: Path) -> dict[str, str]:
    """The narration and the summary of a log, as the golden files hold them."""
    return {
        "narrate": "\n".join(narration_lines(log)) + "\n",
        "summary": "\n".join(narration_lines(log, summary=True)) + "\n",
    }


def _narration(scenario: Path, write: bool) -> int:
    """Check (or rewrite) the golden narration of ``scenario``'s expected log; the number of mismatches."""
    texts = golden_texts(expected_log_path(scenario))
    failed = 0
    for kind, path in golden_paths(scenario).items():
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            changed = not path.exists() or path.read_text(encoding="utf-8") != texts[kind]
            path.write_text(texts[kind], encoding="utf-8")
            print(f"{path.relative_to(ROOT)}: {'rewritten' if changed else 'unchanged'}")
        elif not path.exists() or path.read_text(encoding="utf-8") != texts[kind]:
            print(f"{path.relative_to(ROOT)}: differs from the narration of the expected log (run with --write)")
            failed += 1
    return failed


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenarios", nargs="*", type=Path, help="default: every scenarios/*/*.toml")
    p.add_argument("--write", action="store_true", help="rewrite the expected logs and their golden narration")
    p.add_argument("--narration-only", action="store_true", help="only the golden narration, not the logs")
    args = p.parse_args(argv)
    scenarios = args.scenarios or [
        p for p in sorted((ROOT / "scenarios").glob("*/*.toml")) if f"{p.parent.name}/{p.stem}" not in HEAVY
    ]  # a heavy scenario (fracas.scenarios.HEAVY) has no expected log
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in scenarios:
            if args.narration_only:
                failed += _narration(scenario, args.write)
                continue
            actual = run_to_bytes(scenario, Path(tmp) / "run.jsonl")
            target = expected_log_path(scenario)
            if args.write:
                changed = not target.exists() or target.read_bytes() != actual
                target.write_bytes(actual)
                print(f"{target}: {'rewritten' if changed else 'unchanged'} ({len(actual.splitlines())} events)")
                _narration(scenario, write=True)
                continue
            if not target.exists():
                print(f"{target}: missing (run with --write)")
                failed += 1
                continue
            diff = first_difference(target.read_bytes(), actual)
            if diff:
                print(f"{target}: differs: {diff}")
                failed += 1
            else:
                print(f"{target}: ok")
                failed += _narration(scenario, write=False)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
