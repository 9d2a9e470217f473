"""Hypothesis: any valid d100 scenario ends, replays to its live state, round-trips and verifies."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import tomli_w
from fracas.core.events import EncounterEnded
from fracas.core.log import read_log, to_binary
from fracas.core.state import replay
from fracas.services.run import run_scenario
from fracas.services.verify import verify_log
from fracas.systems.d100.rules import D100Rules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

RULES = D100Rules()
ARMOUR = sorted(RULES.armour)
PARRY_OBJECTS = sorted(RULES.parry_reduction)
POLICIES = ("aggressive", "security", "raider", "passive")
DAMAGE = ("1d3", "1d8", "1d10", "1d10+2", "2d6+2", "4d6", "1d10+1d4", "1d6+1d6+1")


@st.composite
def weapons(draw: Any, index: int) -> dict[str, Any]:
    """A stunner (an energy weapon with stun and lethal modes) or a lethal firearm."""
    stunner = draw(st.booleans())
    return {
        "name": f"{'stunner' if stunner else 'gun'}-{index}",
        "skill": "stunner" if stunner else draw(st.sampled_from(["handgun", "rifle", "shotgun"])),
        "damage": draw(st.sampled_from(DAMAGE)),
        "panne": draw(st.integers(1, 100)),
        "modes": draw(st.sampled_from([["stun", "lethal"], ["stun"], ["lethal", "stun"]])) if stunner else ["lethal"],
        "energy": stunner and draw(st.booleans()),
        "ammo": draw(st.integers(1, 12)),
        "reloads": draw(st.integers(0, 3)),
    }


@st.composite
def actors(draw: Any, side: str, index: int, width: int, height: int) -> dict[str, Any]:
    arms = [draw(weapons(i)) for i in range(draw(st.integers(0, 2)))]
    skill = st.integers(0, 100)
    skills = {w["skill"]: draw(skill) for w in arms}
    for extra in draw(st.lists(st.sampled_from(["parry", "dodge", "mechanics", "first_aid", "medicine"]), unique=True)):
        skills[extra] = draw(skill)
    actor: dict[str, Any] = {
        "id": f"{side}{index}",
        "side": side,
        "position": [draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))],
        "policy": draw(st.sampled_from(POLICIES)),
        "arrives": draw(st.integers(1, 3)),
        "characteristics": {
            "DEX": draw(st.integers(3, 18)),
            "CON": draw(st.integers(3, 18)),
            "POU": draw(st.integers(3, 18)),
        },
        "hp": draw(st.integers(1, 20)),
        "skills": skills,
        "armour": draw(st.sampled_from(ARMOUR)),
        "sealed": draw(st.booleans()),
        "weapons": arms,
    }
    if draw(st.booleans()):
        actor["luck"] = draw(st.integers(0, 90))
    if draw(st.booleans()):
        actor["parry_object"] = draw(st.sampled_from(PARRY_OBJECTS))
    return actor


def zones(prefix: str, width: int, height: int) -> st.SearchStrategy[list[dict[str, Any]]]:
    zone = st.fixed_dictionaries(
        {
            "x": st.integers(0, width - 1),
            "y": st.integers(0, height - 1),
            "w": st.integers(1, 4),
            "h": st.integers(1, 4),
            "level": st.sampled_from(["partial", "half", "heavy"]),
        }
    )
    return st.lists(zone, max_size=2).map(lambda zs: [{"name": f"{prefix}-{i}", **z} for i, z in enumerate(zs)])


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    width, height = draw(st.integers(3, 30)), draw(st.integers(2, 15))
    counts = {"a": draw(st.integers(1, 3)), "b": draw(st.integers(1, 3))}
    people = [draw(actors(side, i, width, height)) for side, n in counts.items() for i in range(n)]
    exits = draw(
        st.lists(st.builds(lambda x, y: (x, y), st.integers(0, width - 1), st.integers(0, height - 1)), max_size=2)
    )
    sides: list[dict[str, Any]] = [{"id": "a"}, {"id": "b"}]
    if exits and draw(st.booleans()):
        sides[1]["objective"] = "escape"
    aftermath: dict[str, Any] = {
        "duration": draw(st.sampled_from(["0s", "30s", "10min", "2h", "3d", "1w"])),
        "care": draw(st.sampled_from(["none", "first_aid", "medicine"])),
        "medic": draw(st.sampled_from(["a0", "b0", "station medic"])),
        "medicine": draw(st.integers(0, 90)),
    }
    if draw(st.booleans()):
        aftermath["sides"] = [draw(st.sampled_from(["a", "b"]))]
    return {
        "system": "d100",
        "round_limit": draw(st.integers(1, 8)),
        "map": {
            "width": width,
            "height": height,
            "light": draw(st.sampled_from(["normal", "gloom", "dark"])),
            "cover": draw(zones("cover", width, height)),
            "cramped": draw(zones("cramped", width, height)),
            "exits": [{"name": f"exit-{i}", "x": x, "y": y} for i, (x, y) in enumerate(exits)],
        },
        "sides": sides,
        "actors": people,
        "aftermath": aftermath,
    }


def check_fight(scenario: dict[str, Any], seed: str) -> None:
    """Run ``scenario`` and check the log ends, replays, round-trips and verifies."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        path.write_text(tomli_w.dumps(scenario), encoding="utf-8")
        log = Path(tmp) / "f.jsonl"
        result = run_scenario(path, seed=seed, log_path=log)
        read = read_log(log)
        entries = read.entries
        assert read.torn is None
        assert isinstance(entries[-1].ev, EncounterEnded)
        assert result.rounds <= scenario["round_limit"]
        assert msgspec.to_builtins(replay(entries)) == msgspec.to_builtins(result.state)
        binary = Path(tmp) / "f.bin"
        binary.write_bytes(to_binary(entries))
        assert read_log(binary).entries == entries
        report = verify_log(log)
        assert report.ok, report.problem


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), seed=st.text(min_size=1, max_size=12))
def test_random_valid_d100_fights_end_replay_round_trip_and_verify(scenario: dict[str, Any], seed: str) -> None:
    check_fight(scenario, seed)
