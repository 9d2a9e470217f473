"""Benchmarks of the batch executors (tools/bench.py prints them; no test asserts a speed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fracas.services.batch.chunks import Chunk
from fracas.services.batch.driver import BatchPlan, run_batch
from fracas.services.batch.executors import DaskExecutor, Executor, make_executor
from fracas.services.batch.sweep import read_scenario_text


def bench_batch(
    scenario: str | Path, n: int = 400, workers: Sequence[int] = (1, 2), root: str = "bench"
) -> dict[str, Any]:
    """Fights/s of a batch with each worker count, and the scaling efficiency.

    ``efficiency[k] = fps[k] / (k * fps[1])``; the first worker count is the
    baseline. Returns ``{"n": n, "fights_per_s": {k: fps}, "efficiency": {k: e}}``.
    Process start-up is inside the timing (it is what a user waits for).
    """
    text = read_scenario_text(scenario)
    fps: dict[int, float] = {}
    for k in workers:
        plan = BatchPlan(file=str(scenario), text=text, root=root, n=n)
        out = run_batch(plan, make_executor(k))
        fps[k] = out.fights / out.elapsed
    base_k = workers[0]
    eff = {k: fps[k] / ((k / base_k) * fps[base_k]) for k in workers}
    return {"n": n, "fights_per_s": fps, "efficiency": eff}


def bench_dask_vs_pool(scenario: str | Path, n: int = 400, workers: int = 2, root: str = "bench") -> dict[str, Any]:
    """Fights/s of the process pool and of a Dask LocalCluster with the same worker count.

    ``ratio = dask / pool`` (the target is >= 0.85). Cluster start-up is outside
    the Dask timing (a cluster is started once and reused across batches).
    Needs the ``dask`` extra.
    """
    text = read_scenario_text(scenario)
    plan = BatchPlan(file=str(scenario), text=text, root=root, n=n)
    pool = run_batch(plan, make_executor(workers))
    dask = DaskExecutor(local_workers=workers)
    try:
        run_batch(BatchPlan(file=str(scenario), text=text, root=root, n=min(n, 64)), _Borrowed(dask))  # warm up
        out = run_batch(plan, _Borrowed(dask))
    finally:
        dask.close()
    pool_fps = pool.fights / pool.elapsed
    dask_fps = out.fights / out.elapsed
    return {
        "n": n,
        "workers": workers,
        "pool_fights_per_s": pool_fps,
        "dask_fights_per_s": dask_fps,
        "ratio": dask_fps / pool_fps,
    }


class _Borrowed:
    """An executor that does not close the one it wraps (to reuse a Dask cluster)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.workers = inner.workers
        self.label = inner.label

    def submit(self, chunk: Chunk) -> Any:
        return self.inner.submit(chunk)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        return self.inner.wait_any(futures)

    def close(self, cancel: bool = False) -> None:
        return None
