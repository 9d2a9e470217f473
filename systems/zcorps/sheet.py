"""Z-Corps scenario Structs: the character sheet (D codes) and weapons."""

from __future__ import annotations

import re
from functools import lru_cache

from fracas.core.errors import ScenarioError
from fracas.core.scenario import ActorBase, ScenarioBase, Spec, check_common, locate
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
_DAMAGE = re.compile(r"^\s*(PUI|\d+\s*[dD](\s*\+\s*\d+)?)(\s*\+\s*\d+\s*[dD](\s*\+\s*\d+)?)?\s*$")


class Attributes(Spec, frozen=True, kw_only=True):
    """The six attributes, as D codes ("3D+1")."""

    agilite: str
    adresse: str
    puissance: str
    perception: str = "2D"
    connaissances: str = "2D"
    charisme: str = "2D"


class Weapon(Spec, frozen=True, kw_only=True):
    name: str
    type: str
    damage: str
    ranges: list[int] | None = None
    magazine: int | None = None
    spare: int = 0
    burst: int | None = None


class Actor(ActorBase, frozen=True, kw_only=True):
    attributes: Attributes
    skills: dict[str, str] = {}
    armour: str = "0D"
    cp: int = 0
    cojones: int = 0
    move: int = 10
    undead: bool = False
    weapons: list[Weapon] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    actors: list[Actor]


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
        raise ScenarioError(file, path, msg, line=locate(text, path))

    def check_code(path: str, value: str) -> None:
        try:
            parse_code(value)
        except ValueError:
            fail(path, f"expected a D code like 4D+2 or 3D, got {value!r}")

    check_common(scenario, file, text, (*POLICIES, *registered_policy_names("zcorps")))
    m = scenario.map
    ids = {a.id for a in scenario.actors}
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        for attr in ATTRIBUTES:
            check_code(f"{p}.attributes.{attr}", getattr(a.attributes, attr))
        for skill, value in a.skills.items():
            if skill not in SKILL_ATTRIBUTE:
                fail(f"{p}.skills.{skill}", f"unknown skill {skill!r} (expected one of {', '.join(SKILL_ATTRIBUTE)})")
            check_code(f"{p}.skills.{skill}", value)
        check_code(f"{p}.armour", a.armour)
        if a.cp < 0 or a.cojones < 0:
            fail(f"{p}.cp", "character points and cojones cannot be negative")
        if a.move < 1:
            fail(f"{p}.move", f"expected at least 1 metre, got {a.move}")
        if a.policy == "scripted" and not a.script:
            fail(f"{p}.script", "a scripted actor needs a script")
        for j, w in enumerate(a.weapons):
            wp = f"{p}.weapons[{j}]"
            if w.type not in FIREARMS + CLOSE:
                fail(f"{wp}.type", f"unknown weapon type {w.type!r} (expected one of {', '.join(FIREARMS + CLOSE)})")
            if not _DAMAGE.match(w.damage):
                fail(f"{wp}.damage", f"expected a damage code like 4D+2, PUI or PUI+1D, got {w.damage!r}")
            if w.type in FIREARMS and not w.magazine:
                fail(f"{wp}.magazine", f"a firearm needs a magazine size (type {w.type})")
            if w.ranges is not None and (len(w.ranges) != 3 or sorted(w.ranges) != w.ranges):
                fail(f"{wp}.ranges", f"expected [short, medium, long] metres in increasing order, got {w.ranges}")
        weapons = [w.name for w in a.weapons]
        for k, step in enumerate(a.script):
            sp = f"{p}.script[{k}]"
            if step.action not in SCRIPT_ACTIONS:
                fail(f"{sp}.action", f"unknown action {step.action!r} (expected one of {', '.join(SCRIPT_ACTIONS)})")
            if step.target is not None and step.target not in ids:
                fail(f"{sp}.target", f"unknown actor {step.target!r}")
            if step.action in ("fire", "shoot", "reload") and step.weapon not in weapons:
                fail(f"{sp}.weapon", f"{step.action} needs one of {a.id}'s weapons ({', '.join(weapons) or 'none'})")
    for i, z in enumerate(m.cover):
        if z.level not in ("quarter", "half", "three_quarters"):
            fail(f"$.map.cover[{i}].level", f"expected quarter, half or three_quarters, got {z.level!r}")
    for i, wall in enumerate(m.walls):
        if wall.cover not in ("quarter", "half", "three_quarters"):
            fail(f"$.map.walls[{i}].cover", f"expected quarter, half or three_quarters, got {wall.cover!r}")
