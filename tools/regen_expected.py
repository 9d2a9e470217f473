"""Rewrite (or check) the committed expected log of every scenario, on purpose.

    python tools/regen_expected.py            # check: exit 1 and show the first difference
    python tools/regen_expected.py --write    # rewrite the expected logs after a deliberate change
    python tools/regen_expected.py scenarios/point_zero/mira_vs_guard.toml --write

A scenario's expected log is the log of a run with the scenario's own seed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from fracas.services.logdiff import expected_log_path, first_difference, run_to_bytes

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenarios", nargs="*", type=Path, help="default: every scenarios/*/*.toml")
    p.add_argument("--write", action="store_true", help="rewrite the expected logs")
    args = p.parse_args(argv)
    scenarios = args.scenarios or sorted((ROOT / "scenarios").glob("*/*.toml"))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in scenarios:
            actual = run_to_bytes(scenario, Path(tmp) / "run.jsonl")
            target = expected_log_path(scenario)
            if args.write:
                changed = not target.exists() or target.read_bytes() != actual
                target.write_bytes(actual)
                print(f"{target}: {'rewritten' if changed else 'unchanged'} ({len(actual.splitlines())} events)")
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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
