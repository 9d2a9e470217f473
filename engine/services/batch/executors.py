"""Executors: in-process, a local process pool, Dask; the driver needs only submit, wait_any, close."""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import os
import signal
from collections.abc import Sequence
from typing import Any, Protocol

from fracas.core.errors import FracasError
from fracas.services.batch.chunks import Chunk, ChunkResult, run_chunk

#: How long ``--scheduler`` waits for the Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = "10s"


class Executor(Protocol):
    """What the driver needs: submit a chunk, wait for some, close. Pool and Dask alike."""

    workers: int
    label: str

    def submit(self, chunk: Chunk) -> Any: ...

    def wait_any(self, futures: Sequence[Any]) -> list[Any]: ...

    def close(self, cancel: bool = False) -> None: ...


class InlineExecutor:
    """Runs each chunk in this process when submitted (``--workers 1``)."""

    workers = 1
    label = "in-process"

    def submit(self, chunk: Chunk) -> cf.Future[ChunkResult]:
        fut: cf.Future[ChunkResult] = cf.Future()
        fut.set_result(run_chunk(chunk))
        return fut

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        return list(futures)

    def close(self, cancel: bool = False) -> None:
        return None


def _worker_init() -> None:
    """Pool workers ignore Ctrl-C: the driver stops them, so a stop is always clean."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PoolExecutor:
    """A local process pool (the default for ``--workers K``, K > 1)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.label = f"process pool of {workers}"
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)

    def submit(self, chunk: Chunk) -> cf.Future[ChunkResult]:
        return self.pool.submit(run_chunk, chunk)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


def dask_missing() -> FracasError:
    return FracasError("Dask is not installed: install the extra with pip install 'fracas[dask]'")


class DaskExecutor:
    """A Dask distributed client: an existing scheduler, or a LocalCluster it starts."""

    def __init__(
        self,
        scheduler: str | None = None,
        local_workers: int | None = None,
        *,
        processes: bool = True,
        client: Any = None,
    ) -> None:
        try:
            distributed = importlib.import_module("distributed")
        except ImportError:
            raise dask_missing() from None
        self._distributed = distributed
        self.cluster: Any = None
        self.own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler is not None:
            try:
                self.client = distributed.Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
            except OSError as exc:
                raise FracasError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc})") from None
        else:
            k = local_workers or 1
            self.cluster = distributed.LocalCluster(
                n_workers=k, threads_per_worker=1, processes=processes, dashboard_address=None
            )
            self.client = distributed.Client(self.cluster)
        info = self.client.scheduler_info()
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        where = scheduler or ("local cluster" if self.cluster is not None else "client")
        self.label = f"Dask ({where}, {self.workers} worker threads)"

    def submit(self, chunk: Chunk) -> Any:
        return self.client.submit(run_chunk, chunk, pure=False)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        done = self._distributed.wait(list(futures), return_when="FIRST_COMPLETED").done
        return list(done)

    def close(self, cancel: bool = False) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(workers: int, scheduler: str | None = None, dask_local: int | None = None) -> Executor:
    if scheduler is not None or dask_local is not None:
        return DaskExecutor(scheduler, dask_local)
    if workers <= 1:
        return InlineExecutor()
    return PoolExecutor(workers)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
