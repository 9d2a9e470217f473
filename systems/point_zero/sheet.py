"""Point Zéro scenario Structs: the character sheet and weapons."""

from __future__ import annotations

import re

from fracas.core.errors import ScenarioError
from fracas.core.scenario import ActorBase, ScenarioBase, Spec, check_common, locate
from fracas.core.system import registered_policy_names

RANGED_SKILLS = ("handguns", "bows_thrown", "shoulder_arms", "heavy_weapons")
MELEE_SKILLS = ("brawl", "melee")
BANDS = ("point_blank", "short", "medium", "long", "extreme")
POLICIES = ("aggressive", "cautious", "scripted", "human")
_PU = re.compile(r"^\s*(\d+d6|VIG|\d+)(\s*\+\s*(\d+d6|VIG|\d+))*\s*$")


class Attributes(Spec, frozen=True, kw_only=True):
    PER: int
    ADR: int
    VIG: int
    COG: int = 2
    INIT: int
    DEP: int


class Bands(Spec, frozen=True, kw_only=True):
    """Upper limit in metres of each range band (PZ-DIFF-1)."""

    point_blank: int = 1
    short: int = 10
    medium: int = 25
    long: int = 50
    extreme: int = 100


class Weapon(Spec, frozen=True, kw_only=True):
    name: str
    skill: str
    pu: str
    damage: str = "physical"
    type: str = "firearm"
    bands: Bands = Bands()
    ammo: int | None = None
    reloads: int = 0


class Actor(ActorBase, frozen=True, kw_only=True):
    attributes: Attributes
    skills: dict[str, int] = {}
    armour: str = "none"
    sb: int | None = None
    weapons: list[Weapon] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    actors: list[Actor]


def parse_pu(text: str, vig: int) -> tuple[int, int]:
    """PZ-DMG-1: a PU like ``4d6``, ``2d6+2`` or ``VIG+1d6`` -> (d6 count, flat bonus).

    ``VIG`` stands for as many d6 as the wielder's VIG.
    """
    dice, flat = 0, 0
    for term in text.replace(" ", "").split("+"):
        if term == "VIG":
            dice += vig
        elif term.endswith("d6"):
            dice += int(term[:-2])
        else:
            flat += int(term)
    return dice, flat


def validate(scenario: Scenario, file: str, text: str) -> None:
    """Checks the Structs cannot express; each error names its $.path."""

    def fail(path: str, msg: str) -> None:
        raise ScenarioError(file, path, msg, line=locate(text, path))

    check_common(scenario, file, text, (*POLICIES, *registered_policy_names("point_zero")))
    m = scenario.map
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        if a.armour not in scenario_rules_armour(scenario):
            fail(f"{p}.armour", f"unknown armour {a.armour!r}")
        if a.policy == "scripted" and not a.script:
            fail(f"{p}.script", "a scripted actor needs a script")
        for j, w in enumerate(a.weapons):
            wp = f"{p}.weapons[{j}]"
            if w.skill not in RANGED_SKILLS + MELEE_SKILLS:
                fail(
                    f"{wp}.skill",
                    f"unknown skill {w.skill!r} (expected one of {', '.join(RANGED_SKILLS + MELEE_SKILLS)})",
                )
            if not _PU.match(w.pu):
                fail(f"{wp}.pu", f"expected a PU like 4d6, 2d6+2 or VIG+1d6, got {w.pu!r}")
            if w.damage not in ("physical", "shock", "both"):
                fail(f"{wp}.damage", f"expected physical, shock or both, got {w.damage!r}")
            if w.skill in RANGED_SKILLS and w.ammo is None:
                fail(f"{wp}.ammo", f"a ranged weapon needs a magazine size (skill {w.skill})")
        for k, step in enumerate(a.script):
            if step.target is not None and step.target not in {x.id for x in scenario.actors}:
                fail(f"{p}.script[{k}].target", f"unknown actor {step.target!r}")
    for i, z in enumerate(m.cover):
        if z.level not in ("partial", "half", "heavy"):
            fail(f"$.map.cover[{i}].level", f"expected partial, half or heavy, got {z.level!r}")
    for i, wall in enumerate(m.walls):
        if wall.cover not in ("partial", "half", "heavy"):
            fail(f"$.map.walls[{i}].cover", f"expected partial, half or heavy, got {wall.cover!r}")


def scenario_rules_armour(scenario: Scenario) -> dict[str, int]:
    from fracas.systems.point_zero.rules import PointZeroRules

    table = scenario.rules.get("armour_sb")
    return dict(table) if isinstance(table, dict) else PointZeroRules().armour_sb
