"""Z-Corps scenario Structs: the character sheet (D codes) and weapons."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated

import msgspec
from fracas.core.scenario import (
    MAX_ACTORS,
    MAX_DICE,
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
from fracas.systems.zcorps.odds import DCode, parse_code
from fracas.systems.zcorps.rules import CLOSE, FIREARMS

POLICIES = ("aggressive", "cautious", "zombie", "scripted", "human")
#: what a script step may do (systems/zcorps/policies.py scripted)
SCRIPT_ACTIONS = (
    "fire",
    "shoot",
    "strike",
    "bite",
    "reload",
    "aim",
    "move",
    "stand",
    "escape",
    "hold",
    "grab",
    "knock_down",
    "push",
    "trip",
    "tackle",
)
#: The six attributes (the fields of :class:`Attributes`).
ATTRIBUTES = ("agilite", "adresse", "puissance", "perception", "connaissances", "charisme")
#: The attribute behind each skill (an absent skill rolls its attribute).
SKILL_ATTRIBUTE = {
    "firearms": "adresse",
    "heavy_weapons": "adresse",
    "dodge": "agilite",
    "brawl": "agilite",
    "melee": "agilite",
    "stamina": "puissance",
    "medicine": "connaissances",
}
#: Default range bands in metres (short, medium, long) per weapon type (ZC-RANGE-1).
DEFAULT_RANGES = {
    "handgun": [10, 25, 40],
    "rifle": [30, 100, 200],
    "shotgun": [10, 20, 40],
    "smg": [15, 40, 75],
    "assault_rifle": [30, 100, 200],
    "machine_gun": [40, 120, 250],
}
#: The light levels: normal, or poor light for ZC-COVER-1 (resolution.POOR_LIGHT).
LIGHT_LEVELS = ("normal", "poor", "gloom", "dark")
COVER_LEVELS = ("quarter", "half", "three_quarters")
#: The ranges of the [rules] numbers that bound work or divide (docs/scenario-limits.md).
RULES_RANGES = {
    "points_per_action": (1, 100),
    "max_cp": (0, 10),
    "multi_action_dice": (0, 10),
    "partial_defence_dice": (0, 10),
    "aim_dice": (0, 10),
    "aim_max_dice": (0, 10),
    "off_balance_dice": (0, 10),
    "poor_light_dice": (0, 10),
    "cover_dice": (0, 10),
    "unconscious_dice": (0, MAX_DICE),
    "fixed_per_die": (0, 100),
    "care_minutes": (1, 1440),
    "natural_healing": (1, 365),
    "semi_auto_max_rounds": (1, 10),
    "assault_rifle_burst": (1, 100),
    "min_damage_dice": (0, 10),
    "firing_modes": (-10, 10),
    "manoeuvres": (0, 10),
    "called_shots": (-100, 100),
}
RULES_NAMES = {
    "modifier_dice": ("rolled", "fixed"),
    "machine_gun_reading": ("difficulty", "attack_bonus"),
    "margin_damage": ("full", "fifth"),
    "mortal_unit": ("minutes", "rounds"),
}
_DAMAGE = re.compile(r"^\s*(PUI|\d+\s*[dD](\s*\+\s*\d+)?)(\s*\+\s*\d+\s*[dD](\s*\+\s*\d+)?)?\s*$")


class Attributes(Spec, frozen=True, kw_only=True):
    """The six attributes, as D codes ("3D+1")."""

    agilite: Name
    adresse: Name
    puissance: Name
    perception: Name = "2D"
    connaissances: Name = "2D"
    charisme: Name = "2D"


class Weapon(Spec, frozen=True, kw_only=True):
    name: Name
    type: Name
    damage: Name
    ranges: Annotated[list[Count], msgspec.Meta(max_length=3)] | None = None
    magazine: Positive | None = None
    spare: Count = 0
    burst: Positive | None = None


class Actor(ActorBase, frozen=True, kw_only=True):
    attributes: Attributes
    skills: Annotated[dict[Name, Name], msgspec.Meta(max_length=MAX_ITEMS)] = {}
    armour: Name = "0D"
    cp: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    cojones: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0
    #: metres per round
    move: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    undead: bool = False
    weapons: Annotated[list[Weapon], msgspec.Meta(max_length=MAX_ITEMS)] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    actors: Annotated[list[Actor], msgspec.Meta(min_length=1, max_length=MAX_ACTORS)]


def code_of(text: str) -> DCode:
    return parse_code(text)


@lru_cache(maxsize=256)
def parse_damage(text: str, puissance: DCode) -> DCode:
    """ZC-DMG-1: a damage code like ``4D+2``, ``PUI`` or ``PUI+1D`` (PUI = the wielder's Puissance).

    Cached: every hit reads its weapon's code again (a DCode is frozen).
    """
    dice, pips = 0, 0
    for term in text.replace(" ", "").split("+"):
        if term == "PUI":
            dice, pips = dice + puissance.dice, pips + puissance.pips
        elif term.upper().endswith("D"):
            dice += int(term[:-1])
        else:
            pips += int(term)
    return DCode.of(dice, pips)


def ranges_of(w: Weapon) -> list[int]:
    if w.ranges is not None:
        return w.ranges
    return DEFAULT_RANGES.get(w.type, [1, 1, 1])


def burst_size(w: Weapon, assault_rifle_burst: int) -> int:
    """ZC-FIRE-1: an SMG burst is 1/5 of the magazine; an assault rifle's 3 to 5 rounds."""
    if w.burst is not None:
        return w.burst
    if w.type == "smg" and w.magazine:
        return max(1, w.magazine // 5)
    return assault_rifle_burst


def validate(scenario: Scenario, file: str, text: str) -> None:
    """Checks the Structs cannot express; each error names its $.path."""

    def fail(path: str, msg: str) -> None:
        raise scenario_error(file, text, path, msg)

    def check_code(path: str, value: str) -> None:
        try:
            code = parse_code(value)
        except ValueError:
            fail(path, f"expected a D code like 4D+2 or 3D, got {value!r}")
        if code.dice > MAX_DICE:
            fail(path, f"expected at most {MAX_DICE}D, got {value!r}")

    check_rules(file, text, scenario.rules, RULES_RANGES, RULES_NAMES)
    check_common(scenario, file, text, (*POLICIES, *registered_policy_names("zcorps")), LIGHT_LEVELS)
    m = scenario.map
    ids = {a.id for a in scenario.actors}
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        for attr in ATTRIBUTES:
            check_code(f"{p}.attributes.{attr}", getattr(a.attributes, attr))
        for skill, value in a.skills.items():
            if skill not in SKILL_ATTRIBUTE:
                fail(f"{p}.skills.{skill}", unknown_name("skill", skill, list(SKILL_ATTRIBUTE)))
            check_code(f"{p}.skills.{skill}", value)
        check_code(f"{p}.armour", a.armour)
        if a.policy == "scripted" and not a.script:
            fail(f"{p}.script", "a scripted actor needs a script")
        for j, w in enumerate(a.weapons):
            wp = f"{p}.weapons[{j}]"
            if w.type not in FIREARMS + CLOSE:
                fail(f"{wp}.type", unknown_name("weapon type", w.type, FIREARMS + CLOSE))
            if not _DAMAGE.match(w.damage):
                fail(f"{wp}.damage", f"expected a damage code like 4D+2, PUI or PUI+1D, got {w.damage!r}")
            damage = parse_damage(w.damage, parse_code(a.attributes.puissance))
            if damage.dice > MAX_DICE:
                fail(f"{wp}.damage", f"expected at most {MAX_DICE}D of damage, got {w.damage!r}")
            if w.type in FIREARMS and not w.magazine:
                fail(f"{wp}.magazine", f"a firearm needs a magazine size (type {w.type})")
            if w.ranges is not None and (len(w.ranges) != 3 or sorted(w.ranges) != w.ranges):
                fail(f"{wp}.ranges", f"expected [short, medium, long] metres in increasing order, got {w.ranges}")
        weapons = [w.name for w in a.weapons]
        for k, step in enumerate(a.script):
            sp = f"{p}.script[{k}]"
            if step.action not in SCRIPT_ACTIONS:
                fail(f"{sp}.action", unknown_name("action", step.action, SCRIPT_ACTIONS))
            if step.target is not None and step.target not in ids:
                fail(f"{sp}.target", unknown_name("actor", step.target, sorted(ids)))
            if step.action in ("fire", "shoot", "reload") and step.weapon not in weapons:
                fail(f"{sp}.weapon", f"{step.action} needs one of {a.id}'s weapons ({', '.join(weapons) or 'none'})")
    for i, z in enumerate(m.cover):
        if z.level not in COVER_LEVELS:
            fail(f"$.map.cover[{i}].level", unknown_name("cover level", z.level, COVER_LEVELS))
    for i, wall in enumerate(m.walls):
        if wall.cover not in COVER_LEVELS:
            fail(f"$.map.walls[{i}].cover", unknown_name("cover level", wall.cover, COVER_LEVELS))
