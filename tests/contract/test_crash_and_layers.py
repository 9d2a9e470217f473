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
from fracas.core import events as E
from fracas.core.log import chained_bytes, read_log
from fracas.core.state import replay


def test_kill_9_mid_run_leaves_a_prefix_that_reads_back_with_an_intact_chain(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fracas",
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


def _imports(path: Path) -> list[str]:
    """Every module a file imports, absolute (``from . import x`` is resolved against the file's package)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top, *inner = path.relative_to(ROOT).parent.parts
    package = ["fracas", *([] if top == "engine" else [top]), *inner]
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            names.append(module)
            names += [f"{module}.{a.name}" for a in node.names]
    return names


#: The engine's layers, lowest first: a module may import its own layer and those below it.
LAYERS = ["fracas.core", "fracas.services", "fracas.cli"]


def _layer(module: str) -> int | None:
    for rank, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return rank
    return None


def test_engine_never_imports_systems() -> None:
    offenders = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        offenders += [
            f"{path.relative_to(ROOT)}: {n}"
            for n in _imports(path)
            if n in ("systems", "fracas.systems") or n.startswith(("systems.", "fracas.systems."))
        ]
    assert offenders == []


def test_engine_layers_only_import_downwards() -> None:
    """core <- services <- cli: the folder shows the architecture (docs/api.md)."""
    offenders = []
    for layer_rank, layer in enumerate(LAYERS):
        folder = ROOT / "engine" / layer.split(".")[1]
        for path in sorted(folder.rglob("*.py")):
            for module in _imports(path):
                rank = _layer(module)
                if rank is not None and rank > layer_rank:
                    offenders.append(f"{path.relative_to(ROOT)} ({layer}) imports {module}")
    assert offenders == []


def test_systems_import_only_the_core_and_the_public_api() -> None:
    """A rule system is a plugin: it sees what an outside plugin sees (docs/plugins.md), never a service or the CLI."""
    offenders = []
    for path in sorted((ROOT / "systems").rglob("*.py")):
        for module in _imports(path):
            rank = _layer(module)
            if rank is not None and rank > 0:
                offenders.append(f"{path.relative_to(ROOT)} imports {module}")
    assert offenders == []
