"""Batch AI-versus-AI: many seeded fights of one scenario, aggregated in constant memory.

The shape (docs/batch.md):

- fight ``i`` (0-based) of a batch with root seed ``ROOT`` uses the seed text
  :func:`fight_seed` ``(ROOT, i) = f"{ROOT}-{i}"``; so ``fracas run SCENARIO
  --seed ROOT-i`` replays it, and the results never depend on how fights are
  split between workers, chunks or executors;
- fights run in *chunks* (:class:`Chunk`), a picklable job that any executor
  (in-process, a local process pool, Dask) runs with the same function
  :func:`run_chunk`; a worker loads the scenario once and keeps it;
- a chunk returns an :class:`Acc`, a mergeable accumulator of integer
  counts (merging is exact, associative and commutative, so the order in
  which chunks come back changes nothing), and optionally one row per fight
  for ``--out``;
- the driver (:func:`run_batch`) keeps a bounded window of chunks in flight,
  so memory does not grow with N.

The modules, by concern: :mod:`.stats` (seeds, intervals, quantiles),
:mod:`.sweep` (overrides and the grid of points), :mod:`.fight` (one fight
summarised), :mod:`.accumulate` (mergeable counts), :mod:`.chunks` (the job
every executor runs), :mod:`.executors` (in-process, pool, Dask),
:mod:`.driver` (:func:`run_batch`), :mod:`.keep` (keep-logs), :mod:`.report`
(JSON, table, rows, plots) and :mod:`.bench`. This module re-exports their
public names.

Everything here is system-agnostic: it reads the final :class:`State`, the
state at the end of the fight (a shadow fold of the live events up to
``AftermathStarted``) and ``AmmoSpent`` events.
"""

from __future__ import annotations

from fracas.services.batch.accumulate import KEEP_MAX_DEFAULT, MAX_REASONS, Acc, ActorAcc
from fracas.services.batch.bench import bench_batch, bench_dask_vs_pool
from fracas.services.batch.chunks import (
    CHUNK_SECONDS,
    Chunk,
    ChunkResult,
    chunk_size,
    monitor_levels,
    next_chunk_size,
    run_chunk,
)
from fracas.services.batch.driver import MAX_FIGHTS, BatchOutcome, BatchPlan, Point, RowSink, run_batch
from fracas.services.batch.executors import (
    DASK_CONNECT_TIMEOUT,
    DaskExecutor,
    Executor,
    InlineExecutor,
    PoolExecutor,
    dask_missing,
    default_workers,
    make_executor,
    max_workers,
    workers_for,
)
from fracas.services.batch.fight import ActorFight, FightRecord, run_fight
from fracas.services.batch.keep import UPSET_BELOW_DEFAULT, keep_candidates, keep_logs
from fracas.services.batch.stats import Z95, fight_seed, nearest_rank, wilson
from fracas.services.batch.sweep import (
    Override,
    apply_overrides,
    build_scenario,
    parse_sweep,
    plan_points,
    read_scenario_text,
    resolve_path,
)

__all__ = [
    "CHUNK_SECONDS",
    "DASK_CONNECT_TIMEOUT",
    "KEEP_MAX_DEFAULT",
    "MAX_FIGHTS",
    "MAX_REASONS",
    "UPSET_BELOW_DEFAULT",
    "Z95",
    "Acc",
    "ActorAcc",
    "ActorFight",
    "BatchOutcome",
    "BatchPlan",
    "Chunk",
    "ChunkResult",
    "DaskExecutor",
    "Executor",
    "FightRecord",
    "InlineExecutor",
    "Override",
    "Point",
    "PoolExecutor",
    "RowSink",
    "apply_overrides",
    "bench_batch",
    "bench_dask_vs_pool",
    "build_scenario",
    "chunk_size",
    "dask_missing",
    "default_workers",
    "fight_seed",
    "keep_candidates",
    "keep_logs",
    "make_executor",
    "max_workers",
    "monitor_levels",
    "nearest_rank",
    "next_chunk_size",
    "parse_sweep",
    "plan_points",
    "read_scenario_text",
    "resolve_path",
    "run_batch",
    "run_chunk",
    "run_fight",
    "wilson",
    "workers_for",
]
