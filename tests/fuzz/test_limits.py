"""Every number of a scenario has a documented range (docs/scenario-limits.md, issue 15)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from fracas.core.errors import ScenarioError
from fracas.core.scenario import MAX_ACTORS, limits_table, load_scenario
from fracas.core.system import get_system, system_names

DOC = ROOT / "docs" / "scenario-limits.md"
#: Fields that may stay unbounded: a TOML integer seed is a 64-bit number already.
FREE = {"$.seed"}


@pytest.mark.parametrize("name", system_names())
def test_every_field_of_a_scenario_has_a_range(name: str) -> None:
    rows = limits_table(get_system(name).scenario_type)
    assert len(rows) > 40
    loose = [(path, kind) for path, kind, rng in rows if "unbounded" in rng and path not in FREE]
    assert loose == []
    texts = [path for path, kind, rng in rows if kind == "text" and not rng.endswith("characters")]
    assert texts == []


def test_the_limits_document_is_current() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "scenario_limits.py")], capture_output=True, text=True, check=True
    )
    assert proc.stdout in DOC.read_text(encoding="utf-8"), "run: python tools/scenario_limits.py --write"


def test_a_10000_actor_scenario_is_checked_actor_by_actor_then_bounded_by_its_work(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from scenario_limits import big_scenario  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "tools"))
    path = tmp_path / "big.toml"
    text = big_scenario(MAX_ACTORS)  # its time: python tools/scenario_limits.py --actors 10000
    last = text.rfind('skill = "handguns"')
    path.write_text(text[:last] + 'skill = "handgun"' + text[last + 18 :], encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"actors\[9999\]\.weapons\[0\]\.skill: unknown weapon skill 'handgun'"):
        load_scenario(path)  # the last actor's typo is found: every actor is checked
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\$\.actors: expected actors x actors x round_limit <= 20,000,000"):
        load_scenario(path)
    path.write_text(big_scenario(4472), encoding="utf-8")
    assert len(load_scenario(path).spec.actors) == 4472
