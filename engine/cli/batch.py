"""``fracas batch``: many seeded AI-versus-AI fights of a scenario, with confidence intervals.

Registered in :data:`fracas.cli.main.EXTENSIONS`; the work is done by
:mod:`fracas.services.batch` (fights, accumulators, executors) and
:mod:`fracas.services.batch.report` (JSON, table, rows, plot). docs/batch.md.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.cli.terminal import json_text
from fracas.core.errors import EXIT_OK, FracasError

if TYPE_CHECKING:
    from fracas.services import batch as B

EXIT_INTERRUPTED = 130
#: fracas.services.batch.KEEP_MAX_DEFAULT, repeated so that `fracas --help` needs no service (a test checks)
KEEP_MAX_DEFAULT = 10
#: fracas.services.batch.executors.DASK_WORKER_TIMEOUT, repeated for the same reason (the same test checks)
DASK_WORKER_TIMEOUT = 30.0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "batch",
        help="run many seeded AI-versus-AI fights and report win rates with confidence intervals",
        description="Fight i uses the seed ROOT-i: the results are the same for any --workers, chunking "
        "and executor, and `fracas run SCENARIO --seed ROOT-i` replays any one fight.",
    )
    p.add_argument("scenario", help="scenario TOML file, or the name of a bundled one (fracas scenarios lists them)")
    p.add_argument("-n", "--fights", type=int, default=1000, metavar="N", help="fights per point (default 1000)")
    p.add_argument("--seed", help="root seed (default: the scenario's, else random)")
    p.add_argument("--workers", type=int, metavar="K", help="local worker processes (default: the usable CPUs)")
    p.add_argument("--json", action="store_true", help="print one JSON document (no progress bar)")
    p.add_argument("--out", metavar="FILE", help="one row per fight: FILE.csv, or FILE.parquet (extra: parquet)")
    p.add_argument("--keep-logs", metavar="DIR", help="re-run the interesting fights with a log into DIR")
    p.add_argument(
        "--keep-if",
        choices=("upset", "draw", "longest"),
        default="upset",
        help="which fights --keep-logs keeps (default upset: a side winning < 20%% of fights won)",
    )
    p.add_argument(
        "--keep-max",
        type=int,
        default=KEEP_MAX_DEFAULT,
        metavar="K",
        help=f"at most K kept logs per point (default {KEEP_MAX_DEFAULT})",
    )
    p.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="PATH=V1,V2,...",
        help="vary a numeric scenario field (list elements by id: actors.mira.skills.handguns=3,4,5); once or twice",
    )
    p.add_argument("--plot", metavar="PNG", help="draw win rates, rounds and the sweep curve (extra: plot)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask cluster, e.g. tcp://host:8786 (extra: dask)")
    p.add_argument("--dask-local", type=int, metavar="K", help="start a local Dask cluster of K workers (extra: dask)")
    p.add_argument(
        "--worker-timeout",
        type=float,
        default=DASK_WORKER_TIMEOUT,
        metavar="S",
        help=f"Dask: stop when no worker is there for S seconds, at start or mid-run (default {DASK_WORKER_TIMEOUT:g})",
    )
    p.add_argument("--chunk-size", type=int, metavar="C", help="fights per chunk (default: sized to the batch)")
    p.add_argument(
        "--quality",
        action="store_true",
        help="also report each policy's decision quality: attacks at 0 %% odds, mean odds, extra efforts, their worth",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true", help="replace --out, --plot and kept logs if they exist")
    p.set_defaults(handler=cmd_batch)


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise FracasError(message)


def cmd_batch(args: argparse.Namespace) -> int:
    # imported here: keeps `fracas --help` fast
    from fracas.core.bundled import resolve_scenario
    from fracas.core.scenario import load_scenario
    from fracas.services import batch as B
    from fracas.services.batch import report as R
    from fracas.services.run import resolve_seed

    _check(args.fights >= 1, f"-n {args.fights}: expected at least 1 fight")
    _check(args.fights <= B.MAX_FIGHTS, f"-n {args.fights}: expected at most {B.MAX_FIGHTS:,} fights per point")
    _check(args.workers is None or args.workers >= 1, f"--workers {args.workers}: expected at least 1")
    _check(args.dask_local is None or args.dask_local >= 1, f"--dask-local {args.dask_local}: expected at least 1")
    _check(args.chunk_size is None or args.chunk_size >= 1, f"--chunk-size {args.chunk_size}: expected at least 1")
    _check(args.keep_max >= 1, f"--keep-max {args.keep_max}: expected at least 1")
    _check(len(args.sweep) <= 2, f"--sweep: at most two at a time, got {len(args.sweep)}")
    _check(not (args.scheduler and args.dask_local), "--scheduler and --dask-local: choose one")
    _check(args.worker_timeout > 0, f"--worker-timeout {args.worker_timeout:g}: expected more than 0 seconds")
    scenario = resolve_scenario(args.scenario)  # a file, or a bundled scenario by name
    _check_outputs(args, scenario)
    loaded = load_scenario(scenario)
    text = B.read_scenario_text(scenario)
    spec = loaded.spec
    root = resolve_seed(args.seed, loaded)
    sweeps = [B.parse_sweep(s) for s in args.sweep]
    if len(sweeps) == 2 and sweeps[0][0] == sweeps[1][0]:
        raise FracasError(f"--sweep: the same path twice ({sweeps[0][0]})")
    points = B.plan_points(sweeps)
    for overrides in points:  # every point must load before any fight runs
        B.build_scenario(str(scenario), text, overrides)
    if args.plot:
        _require_matplotlib(args.plot)
    sides = [s.id for s in spec.sides]
    names = {s.id: s.name or s.id for s in spec.sides}
    actors = [(a.id, a.side) for a in spec.actors]
    writer: R.RowWriter | None = None
    if args.out:
        levels = B.monitor_levels(loaded)
        writer = R.RowWriter(
            Path(args.out),
            [p for p, _ in sweeps],
            [a for a, _ in actors],
            {a: list(m) for a, m in levels.items()},
            force=args.force,
            inputs=[scenario],
        )
    plan = B.BatchPlan(
        file=str(scenario),
        text=text,
        root=root,
        n=args.fights,
        points=points,
        rows=writer is not None,
        keep=args.keep_max,
        chunk=args.chunk_size,
        quality=args.quality,
    )
    executor = B.make_executor(
        B.workers_for(args.workers, plan.n * len(points)),
        args.scheduler,
        None if args.dask_local is None else B.workers_for(args.dask_local, plan.n * len(points)),
        system=spec.system,
        worker_timeout=args.worker_timeout,
    )
    bar = _progress(plan.n * len(points), quiet=args.json or args.no_progress)

    def sink(point: int, records: Any) -> None:
        assert writer is not None
        writer.write(points[point], records)

    outcome = None
    try:
        outcome = B.run_batch(plan, executor, progress=bar.update if bar else None, rows=sink if writer else None)
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:  # an interrupted batch leaves its rows marked NAME.partial
            writer.close(complete=outcome is not None and not outcome.partial)
    meta = {
        "scenario": str(args.scenario),
        "name": spec.name or scenario.stem,
        "system": spec.system,
        "root_seed": root,
        "fight_seed": f"{root}-<i> for fight i = 0..{plan.n - 1}",
    }
    doc = R.to_json(outcome, meta, sides, actors)
    kept: list[Path] = []
    if args.keep_logs and not outcome.partial:
        kept = B.keep_logs(outcome, Path(args.keep_logs), args.keep_if, force=args.force)
        doc["kept_logs"] = [str(p) for p in kept]
    if args.plot:
        R.plot(doc, Path(args.plot), names, str(meta["name"]), force=args.force, inputs=[scenario])
    if args.json:
        print(json_text(doc, indent=2))
    else:
        _print_text(doc, outcome, names, args, kept)
    return EXIT_INTERRUPTED if outcome.partial else EXIT_OK


def _check_outputs(args: argparse.Namespace, scenario: Any) -> None:
    """Every output is checked before any fight runs: names, kinds, and --force (fracas.core.files)."""
    from fracas.core.files import check_output, check_plot

    if args.out:
        _check(
            Path(args.out).suffix.lower() in (".csv", ".parquet"),
            f"--out {args.out}: expected a .csv or .parquet file name",
        )
        check_output(args.out, force=args.force, inputs=[scenario])
        check_output(args.out + ".partial", force=True, inputs=[scenario])
    if args.plot:
        check_plot(args.plot, force=args.force, inputs=[scenario])
    if args.keep_logs:
        folder = Path(args.keep_logs)
        _check(
            not folder.exists() or (folder.is_dir() and not folder.is_symlink()),
            f"--keep-logs {folder}: expected a folder (or a name for a new one), found a file",
        )


def _require_matplotlib(path: str) -> None:
    from fracas.services.batch import report as R

    try:
        importlib.import_module("matplotlib")
    except ImportError:
        raise R.plot_missing(path) from None


def _progress(total: int, *, quiet: bool) -> Any:
    """A tqdm bar on stderr with fights/s and ETA, only when stderr is a terminal."""
    if quiet or not sys.stderr.isatty():
        return None
    tqdm = importlib.import_module("tqdm").tqdm
    tqdm.monitor_interval = 0  # no monitor thread: worker processes fork from a single-threaded parent
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        size = os.terminal_size((0, 0))
    # a pty that reports a 0 x 0 size (script, some CI runners) would hide the bar: assume 80 x 24
    sized: dict[str, Any] = {"dynamic_ncols": True} if size.columns and size.lines else {"ncols": 80, "nrows": 24}
    return tqdm(total=total, unit="fight", file=sys.stderr, smoothing=0.1, **sized)


def _print_text(
    doc: dict[str, Any], outcome: B.BatchOutcome, names: dict[str, str], args: argparse.Namespace, kept: list[Path]
) -> None:
    from fracas.services.batch import report as R

    fps = outcome.fights / outcome.elapsed if outcome.elapsed > 0 else 0.0
    state = "PARTIAL (interrupted): " if outcome.partial else ""
    print(
        f"{doc['name']} ({doc['system']}): {state}{outcome.fights:,} of {doc['requested']:,} fights, "
        f"root seed {doc['root_seed']} (fight i: seed {doc['root_seed']}-i)"
    )
    print(f"{outcome.executor}, {outcome.elapsed:.1f} s, {fps:,.0f} fights/s")
    print()
    lines = R.render_result(doc["result"], names) if "result" in doc else R.render_sweep(doc, names)
    for line in lines:
        print(line)
    from fracas.core.quality import render as render_quality

    for p, point in enumerate(outcome.points):
        if point.acc.quality:
            print()
            where = f" (point {p})" if len(outcome.points) > 1 else ""
            print(f"decision quality{where}, per policy (attack tests; exact odds as rolled):")
            for line in render_quality(point.acc.quality):
                print(f"  {line}")
    if kept:
        print()
        print(f"kept {len(kept)} log(s) ({args.keep_if}) in {args.keep_logs}: replay with fracas replay LOG")
    elif args.keep_logs and not outcome.partial:
        print()
        print(f"no fight matched --keep-if {args.keep_if}: no log kept")
    if args.out:
        print(f"rows: {args.out}")
    if args.plot:
        print(f"plot: {args.plot}")
