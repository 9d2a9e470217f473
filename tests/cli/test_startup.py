"""Start-up: ``fracas --help`` and ``fracas COMMAND --help`` load no simulation machinery.

Each command imports what it needs when it runs (issue 11, item 8): asking for
help must not import SimPy, structlog, msgspec or the event types. Checked in
a fresh interpreter, the way a user starts ``fracas``.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from fracas.cli import batch as cli_batch
from fracas.cli.main import build_parser

#: What `--help` must never load: the clock, the diagnostics, the serialiser and what is built on them.
HEAVY = ("simpy", "structlog", "msgspec", "fracas.core.events", "fracas.core.encounter", "fracas.services")

PROBE = """
import runpy, sys
sys.argv = ["fracas", *sys.argv[1:]]
try:
    runpy.run_module("fracas", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    code = exc.code
else:
    code = None
loaded = sorted(m for m in sys.modules if m in HEAVY or any(m.startswith(h + ".") for h in HEAVY))
sys.stderr.write(f"exit={code} loaded={','.join(loaded)}\\n")
"""


def _commands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return sorted(sub.choices or ())


def _probe(*argv: str) -> str:
    code = f"HEAVY = {HEAVY!r}\n{PROBE}"
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, check=False)
    return done.stderr.strip().splitlines()[-1]


def test_the_probe_sees_heavy_modules_when_a_command_really_runs() -> None:
    """The check can fail: `fracas systems` loads the registry and msgspec, and the probe reports it."""
    line = _probe("systems", "--json")
    assert line.startswith("exit=0 loaded="), line
    assert "msgspec" in line.split("loaded=")[1].split(","), line


@pytest.mark.parametrize("argv", [["--help"], *[[c, "--help"] for c in _commands()]], ids=" ".join)
def test_help_imports_no_simulation_machinery(argv: list[str]) -> None:
    assert _probe(*argv) == "exit=0 loaded=", f"fracas {' '.join(argv)} imported heavy modules"


def test_every_command_is_probed() -> None:
    assert {"run", "replay", "validate", "systems", "batch", "verify", "render", "audit", "odds", "play"} <= set(
        _commands()
    )


def test_the_batch_help_default_matches_the_service() -> None:
    from fracas.services import batch as services_batch

    assert cli_batch.KEEP_MAX_DEFAULT == services_batch.KEEP_MAX_DEFAULT
    assert cli_batch.DASK_WORKER_TIMEOUT == services_batch.executors.DASK_WORKER_TIMEOUT
