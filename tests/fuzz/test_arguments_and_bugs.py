"""Arguments accepted that should not be, and the one exit code for bugs (issue 15)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import SCENARIOS
from fracas.cli import main as cli_main
from fracas.core.errors import EXIT_BUG
from fuzz_harness import error_lines, fracas

MIRA = SCENARIOS / "point_zero" / "mira_vs_guard.toml"
MIRA_LOG = SCENARIOS / "point_zero" / "mira_vs_guard.expected.jsonl"
DUEL = SCENARIOS / "zcorps" / "duel.toml"


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["replay", str(MIRA_LOG), "--at", "-1"], "--at -1"),
        (["odds", "d100", "-50"], "-50"),
        (["odds", "d100", "1000"], "1000"),
        (["batch", str(DUEL), "-n", "3", "--sweep", "round_limit=1..0", "--no-progress"], "--sweep"),
        (["batch", str(DUEL), "-n", "3", "--plot", "p.txt", "--no-progress"], "--plot"),
        (["batch", str(DUEL), "-n", "3", "--keep-logs", str(MIRA), "--no-progress"], "--keep-logs"),
        (["batch", str(DUEL), "-n", "3", "--out", "rows.txt", "--no-progress"], "--out"),
        # "²" and "①" are digits to str.isdigit() and not to int(): each crashed with a traceback
        (["batch", str(DUEL), "-n", "3", "--sweep", "actors.².x=1,2", "--no-progress"], "no element with id `²`"),
        (["odds", "point_zero", "²", "--keep", "2"], "'²' is not a Point Zéro roll"),
        (["odds", "point_zero", "①d6k2"], "①"),
        (["batch", str(DUEL), "-n", "3", "--scheduler", "garbage", "--no-progress"], "--scheduler garbage"),
        # ran for ever (3,000 fights a second): a typo's extra zeros, most likely
        (["batch", str(DUEL), "-n", "99999999999999999999", "--no-progress"], "at most 1,000,000,000 fights"),
        # a NUL byte cannot come from a shell, but can from a caller in Python or a log's own names: exit 70 before
        (["verify", "a\x00b.jsonl"], "NUL"),
        (["run", str(DUEL), "--log", "a\x00b.jsonl"], "NUL"),
        (["render", str(MIRA_LOG), "-o", "a\x00b.html"], "NUL"),
        (["commit", str(MIRA), "--seed-out", "a\x00b.seed"], "NUL"),
        (["odds", "zcorps", "1000D"], "at most 60D"),  # worked on for minutes: no bound on the pool
        (["odds", "zcorps", "4D", "--plot", "p.txt"], "--plot p.txt: expected a .png, .svg, .pdf"),  # was exit 70
    ],
)
def test_a_bad_argument_is_refused_in_one_line_before_any_work(argv: list[str], word: str) -> None:
    ended = fracas(argv)
    assert ended.rc == 2, ended.describe()
    lines = error_lines(ended.err)
    assert len(lines) == 1 and word in lines[0], ended.describe()


def test_batch_workers_are_capped_by_the_fights(monkeypatch: pytest.MonkeyPatch) -> None:
    from fracas.services import batch as B

    started: list[int] = []
    real = B.make_executor

    def spy(workers: int, *rest: object, **options: object) -> object:
        started.append(workers)
        return real(workers, *rest, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(B, "make_executor", spy)
    ended = fracas(["batch", str(DUEL), "-n", "3", "--workers", "1000", "--no-progress", "--json"])
    assert ended.rc == 0, ended.describe()
    assert started == [min(3, B.max_workers())]


def test_a_local_dask_cluster_is_capped_like_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """--dask-local 9999 started 9,999 worker processes (the machine ground to a halt); capped as --workers is."""
    from fracas.services import batch as B

    class Stop(Exception):
        pass

    asked: list[object] = []

    def spy(workers: int, scheduler: object, dask_local: object, **options: object) -> object:
        asked.append(dask_local)
        raise Stop  # no cluster started: the number asked for is what is checked

    monkeypatch.setattr(B, "make_executor", spy)
    ended = fracas(["batch", str(DUEL), "-n", "3", "--dask-local", "9999", "--no-progress"])
    assert ended.rc == EXIT_BUG and "Stop" in ended.err, ended.describe()  # the spy's stop, reported as any bug
    assert asked == [min(3, B.max_workers())]


def test_a_local_dask_cluster_that_does_not_start_is_the_machine_s_fault(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask's "Nanny failed to start" (no ports, no processes left) was reported as a bug in fracas (exit 70)."""
    distributed = pytest.importorskip("distributed")

    def refuse(*args: object, **options: object) -> None:
        raise RuntimeError("Nanny failed to start.")

    monkeypatch.setattr(distributed, "LocalCluster", refuse)
    ended = fracas(["batch", str(DUEL), "-n", "3", "--dask-local", "2", "--no-progress"])
    assert ended.rc == 2, ended.describe()
    assert error_lines(ended.err) == [
        "fracas: error: --dask-local 2: the local Dask cluster did not start (Nanny failed to start.)"
    ]


def test_a_bug_is_a_short_traceback_a_request_to_report_and_its_own_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        return {}["missing"]  # type: ignore[no-any-return]

    monkeypatch.setattr(cli_main, "cmd_validate", broken)
    rc = cli_main.main(["validate", str(MIRA)])
    err = capsys.readouterr().err
    assert rc == EXIT_BUG == 70
    assert "Traceback" in err and "KeyError: 'missing'" in err
    assert "a bug in fracas" in err and "please report" in err
    assert err.count("\n") < 25


def test_an_os_error_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "x.toml"
    ended = fracas(["validate", str(missing)])
    assert ended.rc == 2 and len(error_lines(ended.err)) == 1, ended.describe()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().split(")")[-1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def test_kill_9_of_batch_leaves_no_worker_and_a_partial_csv(tmp_path: Path) -> None:
    rows = tmp_path / "rows.csv"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fracas",
            "batch",
            str(DUEL),
            "-n",
            "200000",
            "--workers",
            "2",
            "--no-progress",
            "--out",
            str(rows),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    partial = tmp_path / "rows.csv.partial"
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and not (len(workers) >= 2 and partial.exists() and partial.stat().st_size):
        workers = _children(proc.pid)
        time.sleep(0.1)
    assert workers, "batch started no worker"
    assert partial.exists(), "rows are not streamed to NAME.partial"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    survivors = [w for w in workers if _alive(w)]
    for w in survivors:
        os.kill(w, signal.SIGKILL)
    assert not survivors, f"workers alive 5 s after kill -9 of batch: {survivors}"
    assert not rows.exists(), "an unfinished CSV carries the final name"
    assert partial.exists()
