"""``python tools/bench.py --quick --json`` runs end to end and reports every figure.

Slow (a benchmark run, about 10 s on 2 cores): not in the default suite, run
it with ``python -m pytest -m slow tests/cli/test_bench_smoke.py``. No timing
is asserted: only that each figure is there and positive, that every bare
loop agrees with the engine, and that the report still ends with the line
``overhead_vs_bare: X`` for the Point Zéro duel.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

SYSTEMS = ("point_zero", "zcorps", "d100")
DUEL_FIGURES = (
    "fights_per_s",
    "events_per_s",
    "bytes_per_event",
    "replay_events_per_s",
    "rolls_per_s",
    "verify_events_per_s",
    "verify_ms_per_10k_events",
    "engine_fights_per_s",
    "bare_fights_per_s",
    "overhead_vs_bare",
)
WAREHOUSE_FIGURES = ("fights_per_s", "events_per_s", "bytes_per_event")
LONG_LOG_FIGURES = (
    "events",
    "bytes_per_event",
    "replay_events_per_s",
    "replay_peak_rss_mb",
)
VERIFY_LONG_FIGURES = ("events", "events_per_s", "ms_per_10k_events")


def positive(doc: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    missing = [k for k in keys if k not in doc]
    assert missing == [], f"{where}: missing {missing}"
    bad = {k: doc[k] for k in keys if isinstance(doc[k], bool) or not isinstance(doc[k], int | float) or doc[k] <= 0}
    assert bad == {}, f"{where}: not positive numbers: {bad}"


@pytest.fixture(scope="module")
def bench() -> tuple[dict[str, Any], list[str]]:
    done = subprocess.run(
        [sys.executable, "tools/bench.py", "--quick", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads(done.stdout)
    return report, done.stderr.splitlines()


@pytest.mark.slow
def test_bench_quick_json_has_every_duel_figure_positive_for_each_system(
    bench: tuple[dict[str, Any], list[str]],
) -> None:
    report, _ = bench
    assert sorted(report["systems"]) == sorted(SYSTEMS)
    for system in SYSTEMS:
        positive(report["systems"][system], DUEL_FIGURES, f"systems.{system}")
        long = report["systems"][system]["verify_long_log"]
        positive(long, VERIFY_LONG_FIGURES, f"systems.{system}.verify_long_log")
        assert long["events"] >= 10_000, system


@pytest.mark.slow
def test_bench_bare_loops_agree_with_the_engine_on_win_rates_and_rounds(
    bench: tuple[dict[str, Any], list[str]],
) -> None:
    report, lines = bench
    for system in SYSTEMS:
        check = report["systems"][system]["sanity"]
        assert check["seeds"] >= 300, system
        assert check["ok"] is True, f"{system}: {check}"
    assert sum(1 for line in lines if line.startswith("sanity (")) == len(SYSTEMS)


@pytest.mark.slow
def test_bench_quick_json_has_warehouse_long_log_and_batch_figures(
    bench: tuple[dict[str, Any], list[str]],
) -> None:
    report, _ = bench
    positive(report["warehouse"], WAREHOUSE_FIGURES, "warehouse")
    positive(report["long_log"], LONG_LOG_FIGURES, "long_log")
    batch = report["batch"]
    positive(batch, ("n",), "batch")
    positive(batch["fights_per_s"], ("1", "2"), "batch.fights_per_s")
    positive(batch["efficiency"], ("1", "2"), "batch.efficiency")
    assert batch["efficiency"]["1"] == 1.0
    assert report["dask_vs_pool"] is None  # --quick leaves Dask out
    positive(report, ("own_peak_rss_mb", "cpus"), "report")


@pytest.mark.slow
def test_bench_report_ends_with_the_point_zero_overhead_line(bench: tuple[dict[str, Any], list[str]]) -> None:
    report, lines = bench
    quality = report["decision_quality"]
    assert sorted(quality) == sorted(SYSTEMS)
    for system in SYSTEMS:
        assert quality[system]["attack_tests"] > 0, system
        assert 0 < quality[system]["mean_odds"] < 1, system
    overhead = report["systems"]["point_zero"]["overhead_vs_bare"]
    assert report["overhead_vs_bare"] == overhead
    assert lines[-1] == f"overhead_vs_bare: {overhead:.2f}"
