"""The driver: a plan's chunks through an executor, a bounded window in flight, rows in fight order."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec
from fracas.services.batch.accumulate import KEEP_MAX_DEFAULT, Acc
from fracas.services.batch.chunks import Chunk, ChunkResult, chunk_size, next_chunk_size
from fracas.services.batch.executors import Executor
from fracas.services.batch.fight import FightRecord
from fracas.services.batch.sweep import Override


class Point(msgspec.Struct):
    """One sweep point (the whole batch when there is no sweep) and its accumulator."""

    overrides: tuple[Override, ...]
    acc: Acc


#: Fights a point at most (``-n``): about four days at 3,000 fights a second; more is a typo's extra zeros.
MAX_FIGHTS = 1_000_000_000


class BatchPlan(msgspec.Struct, frozen=True):
    file: str
    text: str
    root: str
    n: int
    points: tuple[tuple[Override, ...], ...] = ((),)
    rows: bool = False
    keep: int = KEEP_MAX_DEFAULT
    chunk: int | None = None
    quality: bool = False


class BatchOutcome(msgspec.Struct):
    plan: BatchPlan
    points: list[Point]
    partial: bool
    elapsed: float
    executor: str
    workers: int

    @property
    def fights(self) -> int:
        return sum(p.acc.n for p in self.points)


def _chunks(plan: BatchPlan, size: Callable[[], int]) -> Iterator[Chunk]:
    """The plan's chunks in fight order; ``size()`` is asked for each (it may change as chunks finish)."""
    for p, overrides in enumerate(plan.points):
        start = 0
        while start < plan.n:
            stop = min(plan.n, start + size())
            yield Chunk(
                file=plan.file,
                text=plan.text,
                overrides=overrides,
                root=plan.root,
                point=p,
                start=start,
                stop=stop,
                rows=plan.rows,
                keep=plan.keep,
                quality=plan.quality,
            )
            start = stop


RowSink = Callable[[int, Sequence[FightRecord]], None]


def run_batch(
    plan: BatchPlan,
    executor: Executor,
    *,
    progress: Callable[[int], None] | None = None,
    rows: RowSink | None = None,
    window: int | None = None,
) -> BatchOutcome:
    """Run every chunk of the plan on the executor; Ctrl-C returns what is done, marked partial.

    At most ``window`` chunks are in flight (4 per worker by default), so
    memory stays flat in N. Rows reach ``rows(point, records)`` in fight
    order whatever order the chunks finish in.
    """
    size = plan.chunk or chunk_size(plan.n, executor.workers)
    window = window or max(2, 4 * executor.workers)
    points = [Point(overrides=o, acc=Acc(keep=plan.keep)) for o in plan.points]
    jobs = _chunks(plan, lambda: size)
    inflight: dict[Any, tuple[int, Chunk]] = {}
    order = itertools.count()
    pending_rows: dict[int, ChunkResult] = {}
    next_row = 0
    partial = False
    t0 = time.perf_counter()

    def take(fut: Any, next_row: int) -> int:
        """Merge one finished chunk; write rows that are now in order; return the next row's seq."""
        nonlocal size
        seq, job = inflight.pop(fut)
        res: ChunkResult = fut.result()
        points[res.point].acc.merge(res.acc)
        if not plan.chunk:  # a --chunk-size is kept as given
            size = next_chunk_size(job.stop - job.start, res.seconds, plan.n, executor.workers)
        if rows is not None and res.rows is not None:
            pending_rows[seq] = res
            while next_row in pending_rows:
                ready = pending_rows.pop(next_row)
                rows(ready.point, ready.rows or [])
                next_row += 1
        if progress is not None:
            progress(job.stop - job.start)
        return next_row

    try:
        exhausted = False
        while True:
            while not exhausted and len(inflight) < window:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                seq = next(order)
                inflight[executor.submit(job)] = (seq, job)
            if not inflight:
                break
            for fut in executor.wait_any(list(inflight)):
                next_row = take(fut, next_row)
    except KeyboardInterrupt:
        partial = True
        for fut in [f for f in inflight if f.done()]:  # chunks that finished: keep their fights
            try:
                next_row = take(fut, next_row)
            except Exception:  # cancelled or failed while stopping: its fights are not counted
                inflight.pop(fut, None)
    finally:
        executor.close(cancel=partial)
    if partial and rows is not None:  # rows of finished chunks, still in order
        for seq in sorted(pending_rows):
            rows(pending_rows[seq].point, pending_rows[seq].rows or [])
    return BatchOutcome(
        plan=plan,
        points=points,
        partial=partial,
        elapsed=time.perf_counter() - t0,
        executor=executor.label,
        workers=executor.workers,
    )
