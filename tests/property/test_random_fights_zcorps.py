"""Hypothesis: any valid Z-Corps scenario ends, replays to its live state, round-trips and verifies."""

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
from fracas.systems.zcorps.rules import FIREARMS, ZCorpsRules
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LEGAL_MODES = ZCorpsRules().legal_modes
SKILLS = ("firearms", "heavy_weapons", "dodge", "brawl", "melee", "stamina", "medicine")
MANOEUVRES = ("grab", "knock_down", "push", "trip", "tackle")


def codes(low: int, high: int) -> st.SearchStrategy[str]:
    """A D code from lowD to highD+2 ("3D", "4D+1"...)."""
    return st.builds(lambda d, p: f"{d}D" + (f"+{p}" if p else ""), st.integers(low, high), st.integers(0, 2))


@st.composite
def firearms(draw: Any, index: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(FIREARMS))
    weapon: dict[str, Any] = {
        "name": f"{kind}-{index}",
        "type": kind,
        "damage": draw(codes(2, 6)),
        "magazine": draw(st.integers(1, 30)),
        "spare": draw(st.integers(0, 2)),
    }
    if draw(st.booleans()):
        short = draw(st.integers(1, 20))
        medium = short + draw(st.integers(0, 30))
        weapon["ranges"] = [short, medium, medium + draw(st.integers(0, 60))]
    if kind in ("smg", "assault_rifle") and draw(st.booleans()):
        weapon["burst"] = draw(st.integers(1, 6))
    return weapon


def melee_weapons(index: int) -> st.SearchStrategy[dict[str, Any]]:
    damage = st.sampled_from(["PUI", "PUI+1D", "PUI+1D+1", "2D+2", "3D"])
    return st.builds(lambda d: {"name": f"melee-{index}", "type": "melee", "damage": d}, damage)


@st.composite
def script_steps(draw: Any, weapons: list[dict[str, Any]], foes: list[str], width: int, height: int) -> dict[str, Any]:
    guns = [w for w in weapons if w["type"] in FIREARMS]
    blades = [w for w in weapons if w["type"] == "melee"]
    choices = ["move", "aim", "strike", *MANOEUVRES]
    if guns:
        choices += ["fire", "reload"]
    action = draw(st.sampled_from(choices))
    target = draw(st.sampled_from(foes))
    if action == "move":
        return {"action": "move", "to": [draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))]}
    if action == "fire":
        gun = draw(st.sampled_from(guns))
        mode = draw(st.sampled_from(LEGAL_MODES[gun["type"]]))
        return {"action": "fire", "target": target, "weapon": gun["name"], "mode": mode}
    if action == "reload":
        return {"action": "reload", "weapon": draw(st.sampled_from(guns))["name"]}
    if action == "strike":
        step = {"action": "strike", "target": target}
        if blades:
            step["weapon"] = blades[0]["name"]
        return step
    return {"action": action, "target": target}


@st.composite
def actors(draw: Any, side: str, index: int, foes: list[str], width: int, height: int) -> dict[str, Any]:
    actor: dict[str, Any] = {
        "id": f"{side}{index}",
        "side": side,
        "position": [draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))],
        "arrives": draw(st.integers(1, 3)),
        "move": draw(st.integers(1, 12)),
    }
    if draw(st.integers(0, 3)) == 0:  # one in four is a zombie
        actor |= {
            "policy": "zombie",
            "undead": True,
            "armour": draw(codes(0, 2)),
            "attributes": {"agilite": draw(codes(1, 2)), "adresse": "1D", "puissance": draw(codes(3, 5))},
            "skills": {"brawl": draw(codes(2, 5))},
        }
        return actor
    weapons = [draw(firearms(i)) for i in range(draw(st.integers(0, 2)))]
    if draw(st.booleans()):
        weapons.append(draw(melee_weapons(len(weapons))))
    actor |= {
        "policy": draw(st.sampled_from(["aggressive", "cautious", "scripted"])),
        "attributes": {
            "agilite": draw(codes(1, 4)),
            "adresse": draw(codes(1, 4)),
            "puissance": draw(codes(1, 4)),
            "perception": draw(codes(1, 4)),
            "connaissances": draw(codes(1, 4)),
        },
        "skills": {s: draw(codes(1, 6)) for s in draw(st.lists(st.sampled_from(SKILLS), unique=True, max_size=5))},
        "armour": draw(codes(0, 2)),
        "cp": draw(st.integers(0, 5)),
        "cojones": draw(st.integers(0, 2)),
        "weapons": weapons,
    }
    if actor["policy"] == "scripted":
        steps = script_steps(weapons, foes, width, height)
        actor["script"] = draw(st.lists(steps, min_size=1, max_size=4))
    return actor


@st.composite
def cover_zones(draw: Any, index: int, width: int, height: int) -> dict[str, Any]:
    zone = {
        "name": f"cover-{index}",
        "x": draw(st.integers(0, width - 1)),
        "y": draw(st.integers(0, height - 1)),
        "w": draw(st.integers(1, 4)),
        "h": draw(st.integers(1, 4)),
        "level": draw(st.sampled_from(["quarter", "half", "three_quarters"])),
    }
    if draw(st.booleans()):
        zone["light"] = draw(st.sampled_from(["normal", "poor", "dark"]))
    return zone


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    width, height = draw(st.integers(4, 40)), draw(st.integers(3, 20))
    counts = {"a": draw(st.integers(1, 3)), "b": draw(st.integers(1, 4))}
    ids = {side: [f"{side}{i}" for i in range(n)] for side, n in counts.items()}
    people = []
    for side, other in (("a", "b"), ("b", "a")):
        people += [draw(actors(side, i, ids[other], width, height)) for i in range(counts[side])]
    exits = draw(
        st.lists(st.builds(lambda x, y: (x, y), st.integers(0, width - 1), st.integers(0, height - 1)), max_size=2)
    )
    sides: list[dict[str, Any]] = [{"id": "a"}, {"id": "b"}]
    if exits and draw(st.booleans()):
        sides[0]["objective"] = "escape"
    aftermath: dict[str, Any] = {"duration": draw(st.sampled_from(["0s", "30s", "10min", "2h", "3d", "6w"]))}
    care = draw(st.sampled_from(["none", "first_aid_actor", "first_aid_dice"]))
    if care == "first_aid_actor":
        aftermath |= {"care": "first_aid", "medic": draw(st.sampled_from(ids["a"] + ids["b"]))}
    elif care == "first_aid_dice":
        aftermath |= {"care": "first_aid", "medic": "a paramedic", "medicine": draw(st.integers(0, 6))}
    return {
        "system": "zcorps",
        "round_limit": draw(st.integers(1, 8)),
        "map": {
            "width": width,
            "height": height,
            "light": draw(st.sampled_from(["normal", "poor", "gloom", "dark"])),
            "cover": [draw(cover_zones(i, width, height)) for i in range(draw(st.integers(0, 3)))],
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
def test_random_valid_zcorps_fights_end_replay_round_trip_and_verify(scenario: dict[str, Any], seed: str) -> None:
    check_fight(scenario, seed)
