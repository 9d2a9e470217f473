"""A run killed mid-way leaves a readable log; the engine never imports systems/."""

from __future__ import annotations

import ast
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import DATA, ROOT

from engine import events as E
from engine.log import chained_bytes, read_log
from engine.state import replay


def test_kill_9_mid_run_leaves_a_prefix_that_reads_back_with_an_intact_chain(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            str(DATA / "pz_endless.toml"),
            "--seed",
            "1",
            "--quiet",
            "--log",
            str(log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not log.exists() or log.stat().st_size < 200_000):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it was killed"
    read = read_log(log)
    entries = read.entries
    assert len(entries) > 100
    assert [e.seq for e in entries] == list(range(len(entries)))
    prev = bytes(32)
    for line in log.read_bytes().splitlines()[: len(entries)]:
        prev = hashlib.sha256(prev + chained_bytes(line)).digest()
    assert entries[-1].h == prev.hex()
    assert not isinstance(entries[-1].ev, E.EncounterEnded)
    assert replay(entries).round >= 1


def test_engine_never_imports_systems() -> None:
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n == "systems" or n.startswith("systems.")]
    assert offenders == []
