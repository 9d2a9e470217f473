"""Walls in the scenario format: validation with one clear line each, and what walls do in a fight."""

from __future__ import annotations

from pathlib import Path

import pytest
from fracas.core.errors import ScenarioError
from fracas.core.scenario import load_scenario

PZ_HEAD = """\
system = "point_zero"
[map]
width = 12
height = 8
{walls}
[[sides]]
id = "a"
[[sides]]
id = "b"
[[actors]]
id = "ann"
side = "a"
position = [{ann}]
attributes = {{ PER = 3, ADR = 3, VIG = 3, COG = 3, INIT = 3, DEP = 18 }}
skills = {{ handguns = 4, resistance = 3 }}
weapons = [{{ name = "revolver", skill = "handguns", pu = "4d6", ammo = 6, reloads = 3 }}]
[[actors]]
id = "bob"
side = "b"
position = [{bob}]
attributes = {{ PER = 3, ADR = 3, VIG = 3, COG = 3, INIT = 3, DEP = 18 }}
skills = {{ handguns = 4, resistance = 3 }}
weapons = [{{ name = "revolver", skill = "handguns", pu = "4d6", ammo = 6, reloads = 3 }}]
"""


def pz(tmp_path: Path, walls: str, ann: str = "1, 4", bob: str = "10, 4", name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(PZ_HEAD.format(walls=walls, ann=ann, bob=bob), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("walls", "where", "why"),
    [
        ('walls = [{ name = "w", x = 5, y = 0, h = 8, height = "tall" }]', "$.map.walls[0].height", "full or low"),
        ('walls = [{ name = "w", x = 5, y = 0, h = 9 }]', "$.map.walls[0]", "not inside the 12 x 8 map"),
        ('walls = [{ name = "w", x = -1, y = 0 }]', "$.map.walls[0]", "not inside"),
        ('walls = [{ name = "w", x = 5, y = 0, w = 0 }]', "$.map.walls[0].w", "at least 1 x 1"),
        (
            'walls = [{ name = "w", x = 5, y = 0 }, { name = "w", x = 6, y = 0 }]',
            "$.map.walls[1].name",
            "duplicate wall name 'w'",
        ),
        ('walls = [{ name = "w", x = 1, y = 4 }]', "$.actors[0].position", "stands on the wall 'w'"),
        ('walls = [{ name = "w", x = 5, y = 0, height = "low", cover = "total" }]', "$.map.walls[0].cover", "half"),
        ('walls = [{ name = "w", x = 5, y = 0, colour = "red" }]', "$.map.walls[0].colour", "unknown field"),
        (
            'exits = [{ name = "door", x = 5, y = 0 }]\nwalls = [{ name = "w", x = 5, y = 0 }]',
            "$.map.exits[0]",
            "on the wall 'w'",
        ),
    ],
)
def test_a_bad_wall_is_one_clear_line(tmp_path: Path, walls: str, where: str, why: str) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(pz(tmp_path, walls))
    text = str(err.value)
    assert where in text and why in text, text
    assert "\n" not in text
    assert "s.toml" in text


def test_good_walls_load(tmp_path: Path) -> None:
    spec = load_scenario(
        pz(tmp_path, 'walls = [{ name = "w", x = 5, y = 0, h = 3 }, { name = "crates", x = 5, y = 5, height = "low" }]')
    ).spec
    assert [(w.name, w.height, w.cover) for w in spec.map.walls] == [("w", "full", "half"), ("crates", "low", "half")]
