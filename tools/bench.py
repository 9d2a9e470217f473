"""Benchmark: speed and memory figures, as ratios measured in one run.

    python tools/bench.py            # full figures (about a minute on 2 cores)
    python tools/bench.py --quick    # smaller counts, for a smoke check

The last line is ``overhead_vs_bare: X``: the engine's time per duel over the
time of the same duel's rules written as a plain Python loop (no events, no
SimPy, no log), both drawing the same derived dice. Nothing here is asserted:
the figures are for people (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engine.api import replay_log, run_scenario
from engine.dice import DerivedDice
from engine.encounter import Encounter
from engine.scenario import load_scenario
from engine.system import get_system

ROOT = Path(__file__).resolve().parent.parent
DUEL = ROOT / "scenarios" / "point_zero" / "duel.toml"
TEAMS = ROOT / "scenarios" / "point_zero" / "warehouse.toml"
ENDLESS = ROOT / "tests" / "data" / "pz_endless.toml"


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --------------------------------------------------------------- the bare loop


def bare_duel(seed: str) -> str | None:
    """The duel's Point Zéro rules as a plain loop (same dice stream, no events, no SimPy).

    Mirrors scenarios/point_zero/duel.toml under the aggressive policy: both
    shoot at 2 m (short range 10, gloom +2) every round until one is down.
    """
    dice = DerivedDice(seed)

    def d6(n: int) -> list[int]:
        return dice.draw(n, 6, actor="", purpose="")

    people = {
        "red": {"PER": 3, "ADR": 3, "VIG": 3, "INIT": 3, "DEP": 18, "skill": 4, "res": 3, "ammo": 12, "spare": 2},
        "blue": {"PER": 3, "ADR": 2, "VIG": 3, "INIT": 3, "DEP": 15, "skill": 4, "res": 3, "ammo": 12, "spare": 2},
    }
    marks = {k: {"physical": [0, 0, 0, 0], "shock": [0, 0, 0, 0]} for k in people}
    jammed = dict.fromkeys(people, False)
    dead = dict.fromkeys(people, False)
    boxes = [3, 2, 1, 1]

    def worst(k: str) -> int:
        w = -1
        for m in marks[k].values():
            for i in range(3, -1, -1):
                if m[i]:
                    w = max(w, i)
                    break
        return w

    def able(k: str) -> bool:
        return not dead[k] and worst(k) < 2

    def attr(k: str, name: str) -> int:
        w, base = worst(k), people[k][name]
        return 1 if w >= 2 else (max(1, base - 1) if w == 1 else base)

    def mark(k: str, monitor: str, level: int) -> None:
        m = marks[k][monitor]
        while level < 4 and m[level] >= boxes[level]:
            level += 1
        if level >= 4:
            if monitor == "physical":
                dead[k] = True
            return
        m[level] += 1

    for _ in range(20):
        acting = [k for k in people if able(k)]
        if len(acting) < 2:
            break
        init = {k: sum(d6(people[k]["INIT"])) for k in acting}
        order = sorted(acting, key=lambda k: (-init[k], -people[k]["ADR"], -people[k]["DEP"]))
        for k in order:
            foe = "blue" if k == "red" else "red"
            if not able(k) or not able(foe):
                continue
            p = people[k]
            if jammed[k]:
                jammed[k] = False
                continue
            if p["ammo"] == 0:
                if p["spare"]:
                    p["spare"] -= 1
                    p["ammo"] = 12
                continue
            p["ammo"] -= 1
            n, keep = p["skill"], attr(k, "PER")
            faces = d6(n)
            total = sum(sorted(faces, reverse=True)[:keep])
            margin = total - 12
            if margin < 0:
                if 2 * faces.count(1) > n:
                    jammed[k] = True
                continue
            if 2 * faces.count(6) > n:
                margin *= 2
            damage = sum(d6(4)) + margin
            sb = people[foe]["VIG"] + 3
            save = sorted(d6(people[foe]["res"]), reverse=True)[: attr(foe, "VIG")]
            if sum(save) >= 10:
                sb += sum(save) - 10
            if damage < sb:
                mark(foe, "shock", 0)
            elif damage // sb >= 5:
                dead[foe] = True
            else:
                mark(foe, "physical", min(damage // sb, 4) - 1)
    standing = [k for k in people if able(k)]
    return standing[0] if len(standing) == 1 else None


# ------------------------------------------------------------------ figures


def bench_run(path: Path, fights: int) -> dict[str, float]:
    loaded = load_scenario(path)
    events = 0
    nbytes = 0
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        for i in range(fights):
            result = run_scenario(loaded, seed=str(i), log_path=Path(tmp) / "f.jsonl")
            events += result.events
            nbytes += result.log_bytes
        elapsed = time.perf_counter() - start
    return {"fights_per_s": fights / elapsed, "events_per_s": events / elapsed, "bytes_per_event": nbytes / events}


def bench_engine_vs_bare(fights: int) -> tuple[float, float]:
    loaded = load_scenario(DUEL)
    engine = timed(lambda: [run_scenario(loaded, seed=str(i), log_path=None) for i in range(fights)])
    bare = timed(lambda: [bare_duel(str(i)) for i in range(fights)])
    return engine / fights, bare / fights


def bench_rolls(n: int) -> float:
    loaded = load_scenario(DUEL)
    with tempfile.TemporaryDirectory() as tmp:
        enc = Encounter(get_system("point_zero"), loaded, seed="1", log_path=Path(tmp) / "r.jsonl")
        enc.emit(enc.header())
        start = time.perf_counter()
        for _ in range(n):
            enc.roll(3, 6, actor="rook", purpose="bench", rule="PZ-TEST-1", keep_best=2)
        elapsed = time.perf_counter() - start
        enc.writer.close()
    return n / elapsed


def make_long_log(path: Path, events: int) -> int:
    """A log of at least ``events`` events (the endless brawl, cut by its round limit)."""
    text = ENDLESS.read_text(encoding="utf-8").replace("round_limit = 100000", f"round_limit = {events // 9 + 1}")
    scenario = path.with_suffix(".toml")
    scenario.write_text(text, encoding="utf-8")
    return run_scenario(scenario, seed="1", log_path=path).events


def bench_replay(path: Path, repeat: int = 3) -> float:
    n = replay_log(path).entries
    best = min(timed(lambda: replay_log(path)) for _ in range(repeat))
    return n / best


def replay_peak_rss_mb(path: Path) -> float:
    """Peak RSS of a fresh process that replays the log (includes the interpreter)."""
    code = (
        "import resource,sys; from pathlib import Path; from engine.api import replay_log;"
        "replay_log(Path(sys.argv[1])); print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.strip()) / 1024


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="smaller counts")
    args = p.parse_args(argv)
    scale = 0.2 if args.quick else 1.0
    fights = max(20, int(400 * scale))
    print(f"fracas bench (python {sys.version.split()[0]}, {os.cpu_count()} cpus)")
    for label, path in (("duel 1v1", DUEL), ("warehouse 3v3", TEAMS)):
        n = fights if path == DUEL else max(10, fights // 4)
        r = bench_run(path, n)
        print(
            f"run {label:<14} {r['fights_per_s']:9.1f} fights/s {r['events_per_s']:11.0f} events/s "
            f"{r['bytes_per_event']:7.1f} bytes/event  (with JSONL log)"
        )
    print(f"recorded rolls          {bench_rolls(max(2000, int(50000 * scale))):11.0f} rolls/s (3d6 keep 2, logged)")
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "long.jsonl"
        events = make_long_log(log, int(100_000 * scale) if args.quick else 100_000)
        size = log.stat().st_size
        print(
            f"replay JSONL            {bench_replay(log):11.0f} events/s "
            f"({events} events, {size / events:.0f} bytes/event)"
        )
        print(f"replay peak memory      {replay_peak_rss_mb(log):11.1f} MB for {events} events (whole process)")
    engine_s, bare_s = bench_engine_vs_bare(fights)
    print(f"duel engine (no log)    {1 / engine_s:11.1f} fights/s")
    print(f"duel bare loop          {1 / bare_s:11.1f} fights/s")
    print(f"own peak memory         {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:11.1f} MB")
    print(f"overhead_vs_bare: {engine_s / bare_s:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
