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


def _big(actors: int) -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from scenario_limits import big_scenario  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return str(big_scenario(actors))


def test_a_10000_actor_scenario_is_checked_actor_by_actor_then_bounded_by_its_work(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    text = _big(MAX_ACTORS)  # its time: python tools/scenario_limits.py --actors 10000
    last = text.rfind('skill = "handguns"')
    path.write_text(text[:last] + 'skill = "handgun"' + text[last + 18 :], encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"actors\[9999\]\.weapons\[0\]\.skill: unknown weapon skill 'handgun'"):
        load_scenario(path)  # the last actor's typo is found: every actor is checked
    # Point Zéro's edition 5 AI weighs the nearest foes (test_point_zero_bounded.py): actor-rounds bound it
    path.write_text(text, encoding="utf-8")
    assert len(load_scenario(path).spec.actors) == MAX_ACTORS
    path.write_text(text.replace("round_limit = 1", "round_limit = 4"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\$\.round_limit: expected actors x round_limit <= 30,000"):
        load_scenario(path)
    # edition 4's AI weighs every foe at every firing cell: the pairs bound it
    path.write_text(text + "[rules]\nedition = 4\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\$\.actors: expected actors x actors x round_limit <= 20,000,000"):
        load_scenario(path)
    path.write_text(_big(4472) + "[rules]\nedition = 4\n", encoding="utf-8")
    assert len(load_scenario(path).spec.actors) == 4472


def test_d100_edition_5_decisions_are_bounded_so_only_actor_rounds_bound_its_work(tmp_path: Path) -> None:
    # the attack: two 5,000-actor armies on either side of a full wall, so no foe is ever in sight. d100
    # edition 5's AI draws a bounded number of sight lines a decision (test_d100_tactics.py): only
    # actor-rounds bound it; edition 4's draws one to every foe, so the pairs bound it
    ranks = [
        'system = "d100"',
        'name = "walled d100"',
        "round_limit = 3",
        "[map]",
        "width = 21",
        "height = 500",
        'walls = [{ name = "wall", x = 10, y = 0, w = 1, h = 500, height = "full" }]',
        '[[sides]]\nid = "a"\n[[sides]]\nid = "b"',
    ]
    for i in range(MAX_ACTORS):
        x, y = (i % 20 if i % 20 < 10 else 1 + i % 20), i // 20
        ranks.append(
            f'[[actors]]\nid = "x{i}"\nside = "{"ab"[i % 20 // 10]}"\nposition = [{x}, {y}]\n'
            "characteristics = { DEX = 12, CON = 12 }\nhp = 12\nskills = { handgun = 50 }\n"
            'weapons = [{ name = "pistol", skill = "handgun", ammo = 8 }]'
        )
    text = "\n".join(ranks) + "\n"
    path = tmp_path / "d100.toml"
    path.write_text(text, encoding="utf-8")
    assert len(load_scenario(path).spec.actors) == MAX_ACTORS
    path.write_text(text.replace("round_limit = 3", "round_limit = 4"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\$\.round_limit: expected actors x round_limit <= 30,000"):
        load_scenario(path)
    path.write_text(text + "[rules]\nedition = 4\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"\$\.actors: expected actors x actors x round_limit <= 20,000,000"):
        load_scenario(path)
