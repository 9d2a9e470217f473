"""What `fracas verify` of the Z-Corps horde's log costs (issue 17): CPU per 10,000 events, and instructions.

    python tools/verify_cost.py                          # seed 1's horde log, verified 5 times: the best CPU time
    python tools/verify_cost.py --log LOG --repeat 9     # another log, more tries
    python tools/verify_cost.py --instructions           # and the instructions of one warm verify (needs valgrind)
    python tools/verify_cost.py --against OTHER/bin/python --rounds 4
                                                         # in turn with another install (another checkout's venv)

The target is 100 ms of CPU per 10,000 events (docs/performance.md). CPU time moves with the
machine's load, by half from one minute to the next on a shared machine: compare two versions only
in turn, in the same minutes (``--against``), and trust instruction counts for small changes. The
instructions of one warm verify are valgrind's (``--tool=cachegrind --cache-sim=no``, with
``PYTHONHASHSEED=0``) for two verifies in one process less those for one: the imports and the
first call's set-up cancel out. Nothing here is asserted: the figures are for people.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HORDE = ROOT / "scenarios" / "zcorps" / "horde.toml"
TARGET_MS = 100

#: Run by each Python measured (this one or ``--against``'s): the best CPU time of ``repeat`` verifies, after one
#: not counted (the imports and the caches a first verify fills).
_TIMED = """
import sys
from fracas.services.verify import bench_verify
bench_verify([sys.argv[1]], repeat=1)
r = bench_verify([sys.argv[1]], repeat=int(sys.argv[2]))
print(r["seconds"], int(r["events"]))
"""
#: Run under valgrind: ``n`` verifies in one process.
_COUNTED = """
import sys
from fracas.services.verify import verify_log
for _ in range(int(sys.argv[2])):
    assert verify_log(sys.argv[1]).ok
"""


class CostError(Exception):
    """A measure that could not be taken: the tool says why and exits 2."""


def write_horde_log(directory: Path, seed: str) -> Path:
    """The horde's log for ``seed`` (about 100,000 events, 27 MB)."""
    from fracas.core.scenario import load_scenario
    from fracas.services.run import run_scenario

    path = directory / f"horde-{seed}.jsonl"
    run_scenario(load_scenario(HORDE), seed=seed, log_path=path)
    return path


def timed(python: str, log: Path, repeat: int) -> tuple[float, int]:
    """(best CPU seconds of ``repeat`` verifies, events) measured by ``python`` in a process of its own."""
    out = subprocess.run([python, "-c", _TIMED, str(log), str(repeat)], capture_output=True, text=True, check=False)
    if out.returncode != 0:  # the log does not verify, or that python has no fracas: its last line says why
        why = out.stderr.strip().splitlines()[-1:] or [f"exit {out.returncode}"]
        raise CostError(f"{python}: {why[0]}")
    seconds, events = out.stdout.split()
    return float(seconds), int(events)


def instructions(python: str, log: Path) -> int:
    """Instructions of one warm verify: valgrind's count for two verifies in one process less that for one."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    counts = []
    for n in (1, 2):
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
        out = subprocess.run(
            [*cmd, python, "-c", _COUNTED, str(log), str(n)], capture_output=True, text=True, env=env, check=False
        )
        found = re.search(r"I\s+refs:\s+([\d,]+)", out.stderr)
        if out.returncode != 0 or found is None:
            raise CostError(f"{python} under valgrind: exit {out.returncode}, no instruction count")
        counts.append(int(found.group(1).replace(",", "")))
    return counts[1] - counts[0]


def ms_per_10k(seconds: float, events: int) -> float:
    return 1e7 * seconds / events


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log", type=Path, help="the log to verify (default: the horde's, written for --seed)")
    p.add_argument("--seed", default="1", help="the horde's seed when no --log is given (default 1)")
    p.add_argument("--repeat", type=int, default=5, help="verifies per measure; the best is kept (default 5)")
    p.add_argument("--against", metavar="PYTHON", help="another install's python, measured in turn with this one")
    p.add_argument("--rounds", type=int, default=3, help="with --against: measures of each, in turn (default 3)")
    p.add_argument("--instructions", action="store_true", help="also count one warm verify's instructions")
    args = p.parse_args(argv)
    if args.instructions and shutil.which("valgrind") is None:
        print("verify_cost: --instructions needs valgrind on the PATH", file=sys.stderr)
        return 2
    try:
        return measure(args)
    except CostError as exc:
        print(f"verify_cost: {exc}", file=sys.stderr)
        return 2


def measure(args: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="fracas-verify-cost-") as tmp:
        log = args.log if args.log is not None else write_horde_log(Path(tmp), args.seed)
        pythons = [sys.executable] if args.against is None else [sys.executable, args.against]
        best = dict.fromkeys(pythons, float("inf"))
        events = 0
        for _ in range(args.rounds if args.against else 1):
            for python in pythons:
                seconds, events = timed(python, log, args.repeat)
                best[python] = min(best[python], seconds)
                print(f"{python}: {ms_per_10k(seconds, events):.0f} ms per 10,000 events")
        print(f"log: {log} ({events} events)")
        for python in pythons:
            ms = ms_per_10k(best[python], events)
            print(f"best of {python}: {ms:.0f} ms of CPU per 10,000 events, {ms / TARGET_MS:.2f} times the target")
        if args.against:
            mine, theirs = (ms_per_10k(best[p], events) for p in pythons)
            print(f"this install / the other: {mine / theirs:.3f}")
        if args.instructions:
            for python in pythons:
                print(f"instructions of one warm verify, {python}: {instructions(python, log) / 1e9:.3f} G")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
