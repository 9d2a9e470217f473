"""Hypothesis: any valid scenario ends, replays to its live state, and round-trips both log forms."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import msgspec
import tomli_w
from fracas.core.events import EncounterEnded
from fracas.core.log import read_log, to_binary, write_entries
from fracas.core.state import replay, state_to_builtins
from fracas.services.run import run_scenario
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

WEAPONS = [
    {"name": "pistol", "skill": "handguns", "pu": "4d6", "ammo": 6, "reloads": 1},
    {"name": "rifle", "skill": "shoulder_arms", "pu": "5d6", "ammo": 3, "reloads": 1},
    {"name": "taser", "skill": "handguns", "pu": "3d6", "damage": "shock", "ammo": 2},
    {"name": "baton", "skill": "melee", "pu": "VIG+1d6", "damage": "both", "type": "blunt"},
    {"name": "knife", "skill": "melee", "pu": "VIG", "type": "blade"},
]


@st.composite
def actors(draw: Any, side: str, index: int) -> dict[str, Any]:
    attr = st.integers(1, 5)
    return {
        "id": f"{side}{index}",
        "side": side,
        "position": [draw(st.integers(0, 19)), draw(st.integers(0, 11))],
        "policy": draw(st.sampled_from(["aggressive", "cautious"])),
        "arrives": draw(st.integers(1, 3)),
        "attributes": {
            "PER": draw(attr),
            "ADR": draw(attr),
            "VIG": draw(attr),
            "COG": draw(attr),
            "INIT": draw(attr),
            "DEP": draw(st.integers(6, 24)),
        },
        "skills": {
            "handguns": draw(attr),
            "shoulder_arms": draw(attr),
            "melee": draw(attr),
            "brawl": draw(attr),
            "resistance": draw(attr),
        },
        "armour": draw(st.sampled_from(["none", "light_vest", "tactical"])),
        "weapons": draw(st.lists(st.sampled_from(WEAPONS), max_size=2, unique_by=lambda w: w["name"])),
    }


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    people = [draw(actors("a", i)) for i in range(draw(st.integers(1, 3)))]
    people += [draw(actors("b", i)) for i in range(draw(st.integers(1, 3)))]
    return {
        "system": "point_zero",
        "round_limit": draw(st.integers(1, 8)),
        "map": {
            "width": 20,
            "height": 12,
            "light": draw(st.sampled_from(["normal", "gloom", "dark"])),
            "cover": [
                {
                    "name": "crates",
                    "x": 8,
                    "y": 4,
                    "w": 3,
                    "h": 3,
                    "level": draw(st.sampled_from(["partial", "half", "heavy"])),
                }
            ],
            "exits": draw(st.sampled_from([[], [{"name": "door", "x": 0, "y": 6}]])),
        },
        "sides": [{"id": "a"}, {"id": "b"}],
        "actors": people,
        "aftermath": {
            "duration": draw(st.sampled_from(["0s", "5min", "3d"])),
            "care": draw(st.sampled_from(["none", "hospital"])),
            "medicine": 3,
            "cog": 3,
        },
    }


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), seed=st.text(min_size=1, max_size=12))
def test_random_valid_fights_end_replay_to_live_state_and_round_trip(scenario: dict[str, Any], seed: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "s.toml"
        path.write_text(tomli_w.dumps(scenario), encoding="utf-8")
        log = Path(tmp) / "f.jsonl"
        result = run_scenario(path, seed=seed, log_path=log)
        entries = read_log(log).entries
        assert isinstance(entries[-1].ev, EncounterEnded)
        assert result.rounds <= scenario["round_limit"]
        assert msgspec.to_builtins(replay(entries)) == msgspec.to_builtins(result.state)
        assert state_to_builtins(replay(entries)) == state_to_builtins(result.state)
        binary = Path(tmp) / "f.bin"
        binary.write_bytes(to_binary(entries))
        assert read_log(binary).entries == entries
        again = Path(tmp) / "g.jsonl"
        write_entries(again, read_log(binary).entries)
        assert again.read_bytes() == log.read_bytes()
