"""Executors: in-process, a local process pool, Dask; the driver needs only submit, wait_any, close."""

from __future__ import annotations

import concurrent.futures as cf
import ctypes
import importlib
import importlib.metadata
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from fracas.core.errors import FracasError
from fracas.services.batch.chunks import Chunk, ChunkResult, run_chunk

#: How long ``--scheduler`` waits for the Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = "10s"
#: How long a Dask batch waits for a first worker, and for one to come back when all are gone (``--worker-timeout``).
DASK_WORKER_TIMEOUT = 30.0
#: How often a Dask batch with nothing finished looks whether the cluster still has workers.
DASK_POLL_SECONDS = 1.0


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


#: Workers per usable CPU at most: more only queue for the same cores.
WORKERS_PER_CPU = 4
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with_parent(parent: int) -> None:
    """Linux: the kernel kills this worker when the batch process dies, even by kill -9."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux: the watchdog below still ends it
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="fracas-parent-watch").start()


def _watch_parent(parent: int) -> None:
    """Elsewhere (and as a second guard): leave once the parent is gone (re-parented)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _worker_init(parent: int) -> None:
    """Pool workers ignore Ctrl-C (the driver stops them, so a stop is always clean) and end with their parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)


class PoolExecutor:
    """A local process pool (the default for ``--workers K``, K > 1)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.label = f"process pool of {workers}"
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),))

    def submit(self, chunk: Chunk) -> cf.Future[ChunkResult]:
        return self.pool.submit(run_chunk, chunk)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


def dask_missing() -> FracasError:
    return FracasError("Dask is not installed: install the extra with pip install 'fracas[dask]'")


def fracas_version() -> str:
    """The installed fracas distribution's version: what a Dask worker must have too."""
    try:
        return importlib.metadata.version("fracas")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a bare source tree
        from fracas.core.version import __version__

        return __version__


def worker_report(system: str | None) -> str:
    """Run on each Dask worker (fracas importable there): ``""`` when it can load ``system``, else why not."""
    if system is None:
        return ""
    from fracas.core.system import get_system

    try:
        get_system(system)
    except Exception as exc:  # an uninstalled system, or one that fails to import: reported, not raised
        return f"{type(exc).__name__}: {exc}"
    return ""


def check_workers(where: str, versions: Mapping[str, Any], systems: Mapping[str, Any], system: str | None) -> None:
    """Stop with one line naming the first worker that has no fracas, another version, or not the system.

    ``versions``: worker address -> its ``importlib.metadata.version("fracas")`` (or the exception it raised);
    ``systems``: worker address -> :func:`worker_report` (or the exception it raised).
    """
    here = fracas_version()
    for addr in sorted(versions):
        found = versions[addr]
        if isinstance(found, BaseException):
            raise FracasError(
                f"{where}: worker {addr} cannot import fracas ({type(found).__name__}: {found}): "
                f"install fracas {here} on every worker"
            )
        if found != here:
            raise FracasError(
                f"{where}: worker {addr} runs fracas {found}, this is fracas {here}: "
                "every worker needs the same version"
            )
    for addr in sorted(systems):
        problem = systems[addr]
        if isinstance(problem, BaseException):
            problem = f"{type(problem).__name__}: {problem}"
        if problem:
            raise FracasError(
                f"{where}: worker {addr} cannot load the rule system {system!r} ({problem}): "
                "install its package on every worker"
            )


class DaskExecutor:
    """A Dask distributed client: an existing scheduler, or a LocalCluster it starts.

    Fails fast instead of hanging (docs/batch.md): it waits at most ``worker_timeout``
    seconds for a first worker, checks that every worker runs this fracas version and
    can load the scenario's ``system``, and stops when the cluster has had no worker for
    ``worker_timeout`` seconds mid-run.
    """

    def __init__(
        self,
        scheduler: str | None = None,
        local_workers: int | None = None,
        *,
        processes: bool = True,
        client: Any = None,
        system: str | None = None,
        worker_timeout: float = DASK_WORKER_TIMEOUT,
    ) -> None:
        try:
            distributed = importlib.import_module("distributed")
        except ImportError:
            raise dask_missing() from None
        self._distributed = distributed
        self.cluster: Any = None
        self.own_client = client is None
        self.worker_timeout = worker_timeout
        self.where = f"--scheduler {scheduler}" if scheduler else "--dask-local" if local_workers else "Dask"
        if client is not None:
            self.client = client
        elif scheduler is not None:
            _check_address(scheduler)
            try:
                self.client = distributed.Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
            except OSError as exc:
                raise FracasError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc})") from None
        else:
            k = local_workers or 1
            try:
                self.cluster = distributed.LocalCluster(
                    n_workers=k, threads_per_worker=1, processes=processes, dashboard_address=None
                )
            except (RuntimeError, OSError) as exc:  # the machine's, not fracas's: "Nanny failed to start", no ports
                raise FracasError(f"--dask-local {k}: the local Dask cluster did not start ({exc})") from None
            self.client = distributed.Client(self.cluster)
        try:
            self._check_cluster(scheduler, system)
        except BaseException:
            self.close()
            raise
        info = self.client.scheduler_info()
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        where = scheduler or ("local cluster" if self.cluster is not None else "client")
        self.label = f"Dask ({where}, {self.workers} worker threads)"

    def _check_cluster(self, scheduler: str | None, system: str | None) -> None:
        try:
            self.client.wait_for_workers(1, timeout=self.worker_timeout)
        except TimeoutError:
            hint = f" (start one with: dask worker {scheduler})" if scheduler else ""
            raise FracasError(f"{self.where}: no Dask worker joined within {self.worker_timeout:g} s{hint}") from None
        # importlib.metadata.version runs on a worker without fracas too (a standard-library function):
        # only then is worker_report, which needs fracas there, sent.
        versions = self.client.run(importlib.metadata.version, "fracas", on_error="return")
        check_workers(self.where, versions, {}, system)
        systems = self.client.run(worker_report, system, on_error="return")
        check_workers(self.where, versions, systems, system)

    def _has_workers(self) -> bool:
        info = self.client.scheduler_info()
        return bool(info.get("workers"))

    def submit(self, chunk: Chunk) -> DaskChunk:
        return DaskChunk(self.client.submit(run_chunk, chunk, pure=False), self.worker_timeout)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        """Chunks that finished, their results fetched; a chunk that failed, or no worker left, stops the batch.

        A result is fetched here, a second at a time, and not by the driver: a chunk that
        finished on a worker killed before its result came back is computed again by Dask,
        which never happens when no worker is left.
        """
        alone_since: float | None = None
        by_future: dict[Any, DaskChunk] = {c.future: c for c in futures}
        while True:
            try:
                done = self._distributed.wait(
                    list(by_future), timeout=DASK_POLL_SECONDS, return_when="FIRST_COMPLETED"
                ).done
            except TimeoutError:
                done = set()
            ready = [by_future[fut] for fut in done if self._fetch(by_future[fut])]
            if ready:
                return ready
            if self._has_workers():
                alone_since = None
                continue
            now = time.monotonic()
            alone_since = alone_since if alone_since is not None else now
            if now - alone_since >= self.worker_timeout:
                raise FracasError(
                    f"{self.where}: the cluster lost all its workers mid-run and none came back within "
                    f"{self.worker_timeout:g} s; restart workers and run the batch again"
                )

    def _fetch(self, chunk: DaskChunk) -> bool:
        """Fetch a finished chunk's result within a second; False when it is not there (its worker died)."""
        try:
            chunk.value = chunk.future.result(timeout=DASK_POLL_SECONDS)
        except TimeoutError:
            return False
        except Exception as exc:
            raise FracasError(
                f"{self.where}: a chunk of fights failed on the cluster ({type(exc).__name__}: {exc})"
            ) from None
        chunk.fetched = True
        return True

    def close(self, cancel: bool = False) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


class DaskChunk:
    """A chunk submitted to Dask: its future, and its result once :meth:`DaskExecutor.wait_any` fetched it."""

    def __init__(self, future: Any, timeout: float) -> None:
        self.future = future
        self.timeout = timeout
        self.value: ChunkResult | None = None
        self.fetched = False

    def done(self) -> bool:
        return self.fetched or bool(self.future.done())

    def result(self) -> ChunkResult:
        """The fetched result (after Ctrl-C, fetched now: at most ``timeout`` seconds, else TimeoutError)."""
        if not self.fetched:
            self.value = self.future.result(timeout=self.timeout)
            self.fetched = True
        assert self.value is not None
        return self.value


def make_executor(
    workers: int,
    scheduler: str | None = None,
    dask_local: int | None = None,
    *,
    system: str | None = None,
    worker_timeout: float = DASK_WORKER_TIMEOUT,
) -> Executor:
    """The executor for ``--workers``, ``--scheduler`` or ``--dask-local``; Dask checks its workers for ``system``."""
    if scheduler is not None or dask_local is not None:
        return DaskExecutor(scheduler, dask_local, system=system, worker_timeout=worker_timeout)
    if workers <= 1:
        return InlineExecutor()
    return PoolExecutor(workers)


def _check_address(scheduler: str) -> None:
    """A scheduler address Dask can read, before a client tries it (a client given ``garbage`` retries for its
    whole timeout, then leaves its threads behind)."""
    comm = importlib.import_module("distributed.comm")
    addressing = importlib.import_module("distributed.comm.addressing")
    try:
        scheme, location = comm.parse_address(scheduler)
        if scheme in ("tcp", "tls"):
            addressing.parse_host_port(location)
    except ValueError as exc:  # "missing port number in address 'garbage'"
        raise FracasError(
            f"--scheduler {scheduler}: not a Dask scheduler address ({exc}); expected tcp://HOST:PORT"
        ) from None


def max_workers() -> int:
    """The most local workers a batch starts: WORKERS_PER_CPU per usable CPU."""
    return WORKERS_PER_CPU * default_workers()


def workers_for(requested: int | None, fights: int) -> int:
    """``--workers`` capped by the fights to run and by :func:`max_workers` (default: the usable CPUs)."""
    return max(1, min(requested or default_workers(), fights, max_workers()))


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
