"""d100 scenario Structs: the character sheet, weapons, the map, and their checks."""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec
from fracas.core.scenario import (
    MAX_ACTORS,
    MAX_DICE,
    MAX_DIE_SIDES,
    MAX_FLAT,
    MAX_ITEMS,
    ActorBase,
    Count,
    CoverZone,
    MapSpec,
    Name,
    Percent,
    Positive,
    ScenarioBase,
    Spec,
    check_common,
    check_rules,
    did_you_mean,
    scenario_error,
    unknown_name,
)
from fracas.core.system import registered_policy_names

POLICIES = ("aggressive", "security", "raider", "passive", "human")
MODES = ("stun", "lethal")
CARE = ("none", "first_aid", "medicine")
_TERM = re.compile(r"^(\d{1,6})d(\d{1,6})$|^(\d{1,6})$")
#: The light levels a d100 map may name (light changes no d100 roll).
LIGHT_LEVELS = ("normal", "poor", "gloom", "dark")
#: The ranges of the [rules] numbers that bound work or divide (docs/scenario-limits.md).
RULES_RANGES = {
    "dex_bonus_step": (1, 100),
    "heal_per_day": (0, 1000),
    "heal_medicine_multiplier": (0, 100),
    "major_wound_multiplier": (1, 100),
}
#: The [rules] values that are dice expressions.
DICE_RULES = ("serious_jam_rounds", "overheat_damage", "stun_rounds", "paralysis_minutes", "knockout_minutes")
#: A characteristic (3-18 for people; creatures go higher).
Characteristic = Annotated[int, msgspec.Meta(ge=1, le=100)]


class Characteristics(Spec, frozen=True, kw_only=True):
    """DEX, CON, POU (3-18 for people)."""

    DEX: Characteristic
    CON: Characteristic
    POU: Characteristic = 10


class Weapon(Spec, frozen=True, kw_only=True):
    """A ranged weapon: its skill, damage dice, Panne value and modes.

    ``panne``: the malfunction check passes on a d100 below it (D100-JAM-1).
    ``energy``: a broken energy weapon overheats and burns its wielder.
    """

    name: Name
    skill: Name
    damage: Name = "1d8"
    panne: Annotated[int, msgspec.Meta(ge=1, le=100)] = 100
    modes: Annotated[list[Name], msgspec.Meta(max_length=2)] = msgspec.field(default_factory=lambda: ["lethal"])
    energy: bool = False
    ammo: Positive
    reloads: Count = 0


class Actor(ActorBase, frozen=True, kw_only=True):
    characteristics: Characteristics
    hp: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    luck: Percent | None = None  # [ref] POU x 5 when the sheet has none
    skills: Annotated[dict[Name, Percent], msgspec.Meta(max_length=MAX_ITEMS)] = {}
    armour: Name = "none"
    sealed: bool = False  # sealed armour keeps stun out (D100-STUN-1)
    parry_object: Name | None = None
    weapons: Annotated[list[Weapon], msgspec.Meta(max_length=MAX_ITEMS)] = []


class D100Map(MapSpec, frozen=True, kw_only=True):
    """The map, with zones too cramped to dodge in (D100-REACT-1: dodging needs room)."""

    cramped: Annotated[list[CoverZone], msgspec.Meta(max_length=MAX_ITEMS)] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    map: D100Map = D100Map()
    actors: Annotated[list[Actor], msgspec.Meta(min_length=1, max_length=MAX_ACTORS)]


def parse_dice(text: str) -> tuple[list[tuple[int, int]], int]:
    """``"2d6+2"`` -> ([(2, 6)], 2); ``"1d10+1d4"`` -> ([(1, 10), (1, 4)], 0). ValueError if malformed."""
    groups: list[tuple[int, int]] = []
    flat = 0
    for term in text.replace(" ", "").lower().split("+"):
        m = _TERM.match(term)
        if not m:
            raise ValueError(f"expected dice like 1d8, 2d6+2 or 1d10+1d4, got {text!r}")
        if m.group(3) is not None:
            flat += int(m.group(3))
        else:
            n, sides = int(m.group(1)), int(m.group(2))
            if n < 1 or sides < 1:
                raise ValueError(f"expected dice like 1d8, 2d6+2 or 1d10+1d4, got {text!r}")
            groups.append((n, sides))
    if sum(n for n, _ in groups) > MAX_DICE or any(s > MAX_DIE_SIDES for _, s in groups) or flat > MAX_FLAT:
        raise ValueError(
            f"expected at most {MAX_DICE} dice of at most {MAX_DIE_SIDES} faces and a bonus of at most "
            f"{MAX_FLAT}, got {text!r}"
        )
    return groups, flat


def luck_of(actor: Actor) -> int:
    """Luck (Chance): the sheet's, else [ref] POU x 5."""
    return actor.luck if actor.luck is not None else actor.characteristics.POU * 5


def validate(scenario: Scenario, file: str, text: str) -> None:
    """Checks the Structs cannot express; each error names its $.path."""
    from fracas.systems.d100.rules import D100Rules  # the rules table may be overridden by the scenario

    def fail(path: str, msg: str) -> None:
        raise scenario_error(file, text, path, msg)

    rules_raw: dict[str, Any] = {}
    for key in ("armour", "parry_reduction"):
        if isinstance(scenario.rules.get(key), dict):
            rules_raw[key] = scenario.rules[key]
    defaults = D100Rules()
    armour = rules_raw.get("armour", defaults.armour)
    parry = rules_raw.get("parry_reduction", defaults.parry_reduction)
    check_rules(file, text, scenario.rules, RULES_RANGES)
    for key in DICE_RULES:
        if isinstance(scenario.rules.get(key), str):
            try:
                parse_dice(scenario.rules[key])
            except ValueError as exc:
                fail(f"$.rules.{key}", str(exc))
    check_common(scenario, file, text, (*POLICIES, *registered_policy_names("d100")), LIGHT_LEVELS, CARE)
    ids = [a.id for a in scenario.actors]
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        for name in ("DEX", "CON", "POU"):
            if getattr(a.characteristics, name) < 1:
                fail(f"{p}.characteristics.{name}", f"expected at least 1, got {getattr(a.characteristics, name)}")
        if a.hp < 1:
            fail(f"{p}.hp", f"expected at least 1 hit point, got {a.hp}")
        if a.armour not in armour:
            fail(f"{p}.armour", unknown_name("armour", a.armour, list(armour)))
        if a.parry_object is not None and a.parry_object not in parry:
            fail(f"{p}.parry_object", unknown_name("parrying object", a.parry_object, list(parry)))
        for skill, value in a.skills.items():
            if value < 0:
                fail(f"{p}.skills.{skill}", f"expected a percentage >= 0, got {value}")
        names: set[str] = set()
        for j, w in enumerate(a.weapons):
            wp = f"{p}.weapons[{j}]"
            if w.name in names:
                fail(f"{wp}.name", f"duplicate weapon name {w.name!r}")
            names.add(w.name)
            if w.skill not in a.skills:
                known = ", ".join(a.skills) or "none"
                hint = did_you_mean(w.skill, a.skills)
                fail(f"{wp}.skill", f"expected one of {a.id}'s skills ({known}), got {w.skill!r}{hint}")
            try:
                parse_dice(w.damage)
            except ValueError as exc:
                fail(f"{wp}.damage", str(exc))
            if not 1 <= w.panne <= 100:
                fail(f"{wp}.panne", f"expected a Panne value 1..100, got {w.panne}")
            if not w.modes or any(mode not in MODES for mode in w.modes):
                fail(f"{wp}.modes", f"expected modes among stun, lethal, got {w.modes}")
            if w.ammo < 1:
                fail(f"{wp}.ammo", f"expected a magazine of at least 1, got {w.ammo}")
            if w.reloads < 0:
                fail(f"{wp}.reloads", f"expected 0 or more spare magazines, got {w.reloads}")
        for k, step in enumerate(a.script):
            if step.target is not None and step.target not in ids:
                fail(f"{p}.script[{k}].target", unknown_name("actor", step.target, ids))
