"""``fracas batch`` on Dask: the same chunk function, the same JSON as the process pool.

Needs the ``dask`` extra (``pip install 'fracas[dask]'``); skipped without it.
The cluster is in-process (threads), so the test is quick and leaves nothing behind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import need
from fracas.cli.main import main
from fracas.services import batch as B
from fracas.services.batch import executors

distributed = need("distributed")

ROOT = Path(__file__).resolve().parents[2]
DUEL = str(ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as c:
        yield c


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["batch", DUEL, "-n", "40", "--seed", "d", "--json", *argv]) == 0
    doc: dict[str, Any] = json.loads(capsys.readouterr().out)
    return doc


def test_dask_scheduler_gives_the_same_json_as_one_and_two_workers(
    cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _json(capsys, "--workers", "1")
    two = _json(capsys, "--workers", "2", "--chunk-size", "6")
    dask = _json(capsys, "--scheduler", cluster.scheduler_address, "--chunk-size", "9")
    assert one == two == dask
    assert dask["fights"] == 40


def test_dask_executor_runs_the_same_chunks_with_a_client(cluster: Any) -> None:
    plan = B.BatchPlan(file=DUEL, text=B.read_scenario_text(DUEL), root="e", n=30, chunk=7)
    with distributed.Client(cluster) as client:
        ex = B.DaskExecutor(client=client)
        assert ex.workers == 2
        dask = B.run_batch(plan, ex)
    inline = B.run_batch(plan, B.InlineExecutor())
    assert dask.points == inline.points and not dask.partial


def test_unreachable_scheduler_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(executors, "DASK_CONNECT_TIMEOUT", "1s")
    assert main(["batch", DUEL, "-n", "5", "--scheduler", "tcp://127.0.0.1:9", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fracas: error: --scheduler tcp://127.0.0.1:9: cannot reach the Dask scheduler (")
