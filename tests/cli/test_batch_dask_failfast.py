"""``fracas batch`` on Dask fails fast, with one line, instead of hanging (issue 11, item 6).

Every cluster here is started by the test, on loopback only: a scheduler with no
worker, workers started as separate processes (``python -m distributed.cli.dask_worker``),
one of them with another fracas version installed, one killed mid-run. Each wait is
bounded by a short ``--worker-timeout``; the messages are checked word for word.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, need
from fracas.cli.main import main
from fracas.core.errors import FracasError
from fracas.services import batch as B
from fracas.services.batch import executors

distributed = need("distributed")

DUEL = str(ROOT / "scenarios" / "point_zero" / "duel.toml")
HERE = executors.fracas_version()


@pytest.fixture
def scheduler() -> Iterator[str]:
    """A scheduler on 127.0.0.1 with no worker of its own."""
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        yield cluster.scheduler_address


@contextmanager
def worker(address: str, cwd: Path, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """One worker process (no nanny: killed, it stays dead), joined to the scheduler before this yields.

    It runs in ``cwd``, away from the checkout (whose fracas.egg-info it would otherwise find first).
    """
    argv = ["-m", "distributed.cli.dask_worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny"]
    proc = subprocess.Popen(
        [sys.executable, *argv, "--no-dashboard"],
        env=env or dict(os.environ),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with distributed.Client(address, timeout="20s") as client:
            client.wait_for_workers(1, timeout=120)
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)


def test_a_scheduler_without_workers_is_one_line_and_exit_2(scheduler: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", DUEL, "-n", "5", "--scheduler", scheduler, "--worker-timeout", "1", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"fracas: error: --scheduler {scheduler}: no Dask worker joined within 1 s "
        f"(start one with: dask worker {scheduler})\n"
    )


def test_a_worker_with_another_fracas_version_stops_the_batch(
    scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker's interpreter finds a fracas 0.0.1 distribution first (a dist-info on its PYTHONPATH)."""
    old = tmp_path / "fracas-0.0.1.dist-info"
    old.mkdir()
    (old / "METADATA").write_text("Metadata-Version: 2.1\nName: fracas\nVersion: 0.0.1\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    assert HERE != "0.0.1"
    with worker(scheduler, tmp_path, env):
        with distributed.Client(scheduler) as client:
            (addr,) = client.scheduler_info()["workers"]
        assert main(["batch", DUEL, "-n", "5", "--scheduler", scheduler, "--worker-timeout", "5"]) == 2
    assert capsys.readouterr().err == (
        f"fracas: error: --scheduler {scheduler}: worker {addr} runs fracas 0.0.1, this is fracas {HERE}: "
        "every worker needs the same version\n"
    )


def test_a_worker_without_the_scenario_system_stops_the_batch(scheduler: str, tmp_path: Path) -> None:
    with worker(scheduler, tmp_path):
        with distributed.Client(scheduler) as client:
            (addr,) = client.scheduler_info()["workers"]
        with pytest.raises(FracasError) as caught:
            B.DaskExecutor(scheduler, system="coinflip", worker_timeout=5)
    known = "d100, point_zero, zcorps"
    assert str(caught.value) == (
        f"--scheduler {scheduler}: worker {addr} cannot load the rule system 'coinflip' "
        f"(UnknownSystem: unknown system 'coinflip' (known: {known})): install its package on every worker"
    )


def test_a_worker_without_fracas_is_named() -> None:
    """What the scheduler returns for a worker where importlib.metadata finds no fracas."""
    with pytest.raises(FracasError) as caught:
        executors.check_workers("--scheduler tcp://h:1", {"tcp://w:2": PackageNotFoundError("fracas")}, {}, "d100")
    assert str(caught.value) == (
        "--scheduler tcp://h:1: worker tcp://w:2 cannot import fracas "
        "(PackageNotFoundError: No package metadata was found for fracas): "
        f"install fracas {HERE} on every worker"
    )
    executors.check_workers("--scheduler tcp://h:1", {"tcp://w:2": HERE}, {"tcp://w:2": ""}, "d100")  # all well


def test_losing_every_worker_mid_run_stops_the_batch(scheduler: str, tmp_path: Path) -> None:
    plan = B.BatchPlan(file=DUEL, text=B.read_scenario_text(DUEL), root="lost", n=400, chunk=2)
    killed: list[int] = []
    with worker(scheduler, tmp_path) as proc:
        executor = B.DaskExecutor(scheduler, system="point_zero", worker_timeout=2)

        def kill_on_first_chunk(fights: int) -> None:
            if not killed:
                os.kill(proc.pid, signal.SIGKILL)
                killed.append(fights)

        with pytest.raises(FracasError) as caught:
            B.run_batch(plan, executor, progress=kill_on_first_chunk)
    assert killed, "no chunk finished before the worker was killed"
    assert str(caught.value) == (
        f"--scheduler {scheduler}: the cluster lost all its workers mid-run and none came back within 2 s; "
        "restart workers and run the batch again"
    )


def test_live_workers_still_give_the_same_results(scheduler: str, tmp_path: Path) -> None:
    plan = B.BatchPlan(file=DUEL, text=B.read_scenario_text(DUEL), root="ok", n=30, chunk=7)
    with worker(scheduler, tmp_path):
        dask = B.run_batch(plan, B.DaskExecutor(scheduler, system="point_zero", worker_timeout=5))
    inline = B.run_batch(plan, B.InlineExecutor())
    assert dask.points == inline.points and not dask.partial


def test_results_handed_to_the_driver_survive_the_death_of_their_worker(scheduler: str, tmp_path: Path) -> None:
    """The race behind a hang seen once: wait_any hands over two finished chunks; the driver merges the
    first, whose progress callback kills the only worker; the second's result lived on that worker, and
    Dask would wait forever to compute it again. wait_any fetches every result before handing it over."""
    from fracas.services.batch.driver import _chunks

    plan = B.BatchPlan(file=DUEL, text=B.read_scenario_text(DUEL), root="race", n=4, chunk=2)
    jobs = list(_chunks(plan, lambda: 2))
    assert len(jobs) == 2
    results: list[BaseException | list[Any]] = []
    with worker(scheduler, tmp_path) as proc:
        executor = B.DaskExecutor(scheduler, system="point_zero", worker_timeout=2)
        chunks = [executor.submit(job) for job in jobs]
        distributed.wait([c.future for c in chunks], timeout=120)  # both finished on the worker
        handed: list[Any] = []
        while len(handed) < len(chunks):
            handed += executor.wait_any([c for c in chunks if c not in handed])
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

        def merge() -> None:
            try:
                results.append([c.result() for c in handed])
            except BaseException as exc:
                results.append(exc)

        merger = threading.Thread(target=merge, daemon=True)
        merger.start()
        merger.join(timeout=60)
        executor.close()
    assert results, "a handed-over result was still on the dead worker: the driver would wait forever"
    (merged,) = results
    assert isinstance(merged, list) and sorted((r.start, r.acc.n) for r in merged) == [(0, 2), (2, 2)], merged
