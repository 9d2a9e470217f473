"""Point Zéro scenario Structs: the character sheet and weapons."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Annotated

import msgspec
from fracas.core.scenario import (
    MAX_ACTORS,
    MAX_DICE,
    MAX_FLAT,
    MAX_ITEMS,
    ActorBase,
    Count,
    Name,
    Positive,
    ScenarioBase,
    Spec,
    check_common,
    check_rules,
    scenario_error,
    unknown_name,
)
from fracas.core.system import registered_policy_names

RANGED_SKILLS = ("handguns", "bows_thrown", "shoulder_arms", "heavy_weapons")
MELEE_SKILLS = ("brawl", "melee")
#: Every skill the rules read: the weapon skills, Resistance (PZ-SAVE-1) and Medicine (PZ-HEAL-3).
SKILLS = (*RANGED_SKILLS, *MELEE_SKILLS, "resistance", "medicine")
#: The light levels of PZ-DIFF-3 (the keys of the default light_modifiers).
LIGHT_LEVELS = ("normal", "gloom", "dark")
DAMAGE_TYPES = ("physical", "shock", "both")
COVER_LEVELS = ("partial", "half", "heavy")
#: The ranges of the [rules] numbers that bound work or divide (docs/scenario-limits.md).
RULES_RANGES = {
    "monitor_boxes": (1, 10),
    "surpass_max": (0, 10),
    "shock_heal_seconds": (1, 86_400),
    "lethal_multiple": (1, 100),
    "heal_hours_care": (-1, 8760),
    "heal_hours_no_care": (-1, 8760),
}
RULES_NAMES = {
    "fumble_ranged": ("jammed", "dropped"),
    "fumble_melee": ("jammed", "dropped"),
    "fists_damage": DAMAGE_TYPES,
    "natural_sb": ("vig+3", "2vig"),
}
#: An attribute: dice rolled or kept (PZ-TEST-1, PZ-INIT-1), 1..20.
Attribute = Annotated[int, msgspec.Meta(ge=1, le=20)]
#: A skill level: dice rolled (PZ-TEST-1), 0..20.
Level = Annotated[int, msgspec.Meta(ge=0, le=20)]
BANDS = ("point_blank", "short", "medium", "long", "extreme")
POLICIES = ("aggressive", "cautious", "scripted", "human")
_PU = re.compile(r"^\s*(\d+d6|VIG|\d+)(\s*\+\s*(\d+d6|VIG|\d+))*\s*$")


class Attributes(Spec, frozen=True, kw_only=True):
    PER: Attribute
    ADR: Attribute
    VIG: Attribute
    COG: Attribute = 2
    INIT: Attribute
    #: metres a sprint covers (PZ-MOVE-3)
    DEP: Annotated[int, msgspec.Meta(ge=1, le=100)]


class Bands(Spec, frozen=True, kw_only=True):
    """Upper limit in metres of each range band (PZ-DIFF-1)."""

    point_blank: Count = 1
    short: Count = 10
    medium: Count = 25
    long: Count = 50
    extreme: Count = 100


class Weapon(Spec, frozen=True, kw_only=True):
    name: Name
    skill: Name
    pu: Name
    damage: Name = "physical"
    type: Name = "firearm"
    bands: Bands = Bands()
    ammo: Positive | None = None
    reloads: Count = 0
    #: PZ-ROUND-1: Tours a reload takes (a revolver loaded round by round: more than 1); the seed gives none
    reload_rounds: Annotated[int, msgspec.Meta(ge=1, le=100)] = 1


class Actor(ActorBase, frozen=True, kw_only=True):
    attributes: Attributes
    skills: Annotated[dict[Name, Level], msgspec.Meta(max_length=MAX_ITEMS)] = {}
    armour: Name = "none"
    sb: Annotated[int, msgspec.Meta(ge=1, le=100)] | None = None
    weapons: Annotated[list[Weapon], msgspec.Meta(max_length=MAX_ITEMS)] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    actors: Annotated[list[Actor], msgspec.Meta(min_length=1, max_length=MAX_ACTORS)]


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
        raise scenario_error(file, text, path, msg)

    check_rules(file, text, scenario.rules, RULES_RANGES, RULES_NAMES)
    if isinstance(scenario.rules.get("fists_pu"), str):
        check_pu(fail, "$.rules.fists_pu", scenario.rules["fists_pu"], 20)
    light = scenario.rules.get("light_modifiers")
    check_common(
        scenario,
        file,
        text,
        (*POLICIES, *registered_policy_names("point_zero")),
        tuple(light) if isinstance(light, dict) else LIGHT_LEVELS,
    )
    m = scenario.map
    armours = list(scenario_rules_armour(scenario))
    ids = [x.id for x in scenario.actors]
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        if a.armour not in armours:
            fail(f"{p}.armour", unknown_name("armour", a.armour, armours))
        if a.policy == "scripted" and not a.script:
            fail(f"{p}.script", "a scripted actor needs a script")
        for skill in a.skills:
            if skill not in SKILLS:
                fail(f"{p}.skills.{skill}", unknown_name("skill", skill, SKILLS))
        for j, w in enumerate(a.weapons):
            wp = f"{p}.weapons[{j}]"
            if w.skill not in RANGED_SKILLS + MELEE_SKILLS:
                fail(f"{wp}.skill", unknown_name("weapon skill", w.skill, RANGED_SKILLS + MELEE_SKILLS))
            check_pu(fail, f"{wp}.pu", w.pu, a.attributes.VIG)
            if w.damage not in DAMAGE_TYPES:
                fail(f"{wp}.damage", unknown_name("damage type", w.damage, DAMAGE_TYPES))
            if w.skill in RANGED_SKILLS and w.ammo is None:
                fail(f"{wp}.ammo", f"a ranged weapon needs a magazine size (skill {w.skill})")
        for k, step in enumerate(a.script):
            if step.target is not None and step.target not in ids:
                fail(f"{p}.script[{k}].target", unknown_name("actor", step.target, ids))
    for i, z in enumerate(m.cover):
        if z.level not in COVER_LEVELS:
            fail(f"$.map.cover[{i}].level", unknown_name("cover level", z.level, COVER_LEVELS))
    for i, wall in enumerate(m.walls):
        if wall.cover not in COVER_LEVELS:
            fail(f"$.map.walls[{i}].cover", unknown_name("cover level", wall.cover, COVER_LEVELS))


def check_pu(fail: Callable[[str, str], None], path: str, pu: str, vig: int) -> None:
    """PZ-DMG-1: a PU that parses, with at most MAX_DICE dice and a flat bonus of at most MAX_FLAT."""
    problem = _pu_problem(pu, vig)
    if problem is not None:
        fail(path, problem)


@lru_cache(maxsize=1024)
def _pu_problem(pu: str, vig: int) -> str | None:
    """What is wrong with a PU, or None (cached: 10,000 actors share a few weapons)."""
    if not _PU.match(pu):
        return f"expected a PU like 4d6, 2d6+2 or VIG+1d6, got {pu!r}"
    terms = pu.replace(" ", "").split("+")
    if len(terms) > 8 or any(len(t) > 6 for t in terms):
        return f"expected a PU of at most 8 short terms, got {pu!r}"
    dice, flat = parse_pu(pu, vig)
    if dice > MAX_DICE or flat > MAX_FLAT:
        return f"expected at most {MAX_DICE} dice and a bonus of at most {MAX_FLAT}, got {pu!r}"
    return None


def scenario_rules_armour(scenario: Scenario) -> dict[str, int]:
    from fracas.systems.point_zero.rules import PointZeroRules

    table = scenario.rules.get("armour_sb")
    return dict(table) if isinstance(table, dict) else PointZeroRules().armour_sb
