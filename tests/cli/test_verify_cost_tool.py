"""``python tools/verify_cost.py``: the CPU cost of a verify per 10,000 events, alone and in turn with another install.

No timing is asserted (docs/performance.md): only that the tool verifies the log it is given, names the
figures it promises, and compares two installs in turn.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from fracas.core.scenario import load_scenario
from fracas.services.run import run_scenario

TOOL = ROOT / "tools" / "verify_cost.py"


def test_verify_cost_measures_a_log_in_turn_with_another_install(tmp_path: Path) -> None:
    log = tmp_path / "duel.jsonl"
    events = run_scenario(load_scenario(ROOT / "scenarios" / "zcorps" / "duel.toml"), seed="3", log_path=log).events
    argv = [sys.executable, str(TOOL), "--log", str(log), "--repeat", "1", "--against", sys.executable, "--rounds", "2"]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert f"({events} events)" in out
    # two rounds in turn, each install measured once a round, then the best of each and their ratio
    assert len(re.findall(r"^\S+: \d+ ms per 10,000 events$", out, re.M)) == 4, out
    assert len(re.findall(r"^best of \S+: \d+ ms of CPU per 10,000 events, [\d.]+ times the target$", out, re.M)) == 2
    assert re.search(r"^this install / the other: \d+\.\d{3}$", out, re.M), out


def test_verify_cost_refuses_a_log_that_does_not_verify(tmp_path: Path) -> None:
    log = tmp_path / "duel.jsonl"
    run_scenario(load_scenario(ROOT / "scenarios" / "zcorps" / "duel.toml"), seed="3", log_path=log)
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-3] + lines[-2:]))  # a line taken out: the chain breaks
    done = subprocess.run(
        [sys.executable, str(TOOL), "--log", str(log), "--repeat", "1"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    assert "does not verify" in done.stderr
