"""d100 scenario Structs: the character sheet, weapons, the map, and their checks."""

from __future__ import annotations

import re
from typing import Any

import msgspec
from fracas.core.errors import ScenarioError
from fracas.core.scenario import ActorBase, CoverZone, MapSpec, ScenarioBase, Spec, check_common, locate, parse_duration
from fracas.core.system import registered_policy_names

POLICIES = ("aggressive", "security", "raider", "passive", "human")
MODES = ("stun", "lethal")
CARE = ("none", "first_aid", "medicine")
_TERM = re.compile(r"^(\d+)d(\d+)$|^(\d+)$")


class Characteristics(Spec, frozen=True, kw_only=True):
    """DEX, CON, POU (3-18 for people)."""

    DEX: int
    CON: int
    POU: int = 10


class Weapon(Spec, frozen=True, kw_only=True):
    """A ranged weapon: its skill, damage dice, Panne value and modes.

    ``panne``: the malfunction check passes on a d100 below it (D100-JAM-1).
    ``energy``: a broken energy weapon overheats and burns its wielder.
    """

    name: str
    skill: str
    damage: str = "1d8"
    panne: int = 100
    modes: list[str] = msgspec.field(default_factory=lambda: ["lethal"])
    energy: bool = False
    ammo: int
    reloads: int = 0


class Actor(ActorBase, frozen=True, kw_only=True):
    characteristics: Characteristics
    hp: int
    luck: int | None = None  # [ref] POU x 5 when the sheet has none
    skills: dict[str, int] = {}
    armour: str = "none"
    sealed: bool = False  # sealed armour keeps stun out (D100-STUN-1)
    parry_object: str | None = None
    weapons: list[Weapon] = []


class D100Map(MapSpec, frozen=True, kw_only=True):
    """The map, with zones too cramped to dodge in (D100-REACT-1: dodging needs room)."""

    cramped: list[CoverZone] = []


class Scenario(ScenarioBase, frozen=True, kw_only=True):
    map: D100Map = D100Map()
    actors: list[Actor]


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
    return groups, flat


def luck_of(actor: Actor) -> int:
    """Luck (Chance): the sheet's, else [ref] POU x 5."""
    return actor.luck if actor.luck is not None else actor.characteristics.POU * 5


def validate(scenario: Scenario, file: str, text: str) -> None:
    """Checks the Structs cannot express; each error names its $.path."""
    from fracas.systems.d100.rules import D100Rules  # the rules table may be overridden by the scenario

    def fail(path: str, msg: str) -> None:
        raise ScenarioError(file, path, msg, line=locate(text, path))

    rules_raw: dict[str, Any] = {}
    for key in ("armour", "parry_reduction"):
        if isinstance(scenario.rules.get(key), dict):
            rules_raw[key] = scenario.rules[key]
    defaults = D100Rules()
    armour = rules_raw.get("armour", defaults.armour)
    parry = rules_raw.get("parry_reduction", defaults.parry_reduction)
    check_common(scenario, file, text, (*POLICIES, *registered_policy_names("d100")))
    ids = [a.id for a in scenario.actors]
    for i, a in enumerate(scenario.actors):
        p = f"$.actors[{i}]"
        for name in ("DEX", "CON", "POU"):
            if getattr(a.characteristics, name) < 1:
                fail(f"{p}.characteristics.{name}", f"expected at least 1, got {getattr(a.characteristics, name)}")
        if a.hp < 1:
            fail(f"{p}.hp", f"expected at least 1 hit point, got {a.hp}")
        if a.armour not in armour:
            fail(f"{p}.armour", f"unknown armour {a.armour!r} (expected one of {', '.join(armour)})")
        if a.parry_object is not None and a.parry_object not in parry:
            known = ", ".join(parry)
            fail(f"{p}.parry_object", f"unknown parrying object {a.parry_object!r} (expected one of {known})")
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
                fail(f"{wp}.skill", f"{a.id} has no skill {w.skill!r} (skills: {', '.join(a.skills) or 'none'})")
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
                fail(f"{p}.script[{k}].target", f"unknown actor {step.target!r}")
    after = scenario.aftermath
    try:
        parse_duration(after.duration)
    except ValueError as exc:
        fail("$.aftermath.duration", str(exc))
    if after.care not in CARE:
        fail("$.aftermath.care", f"expected one of {', '.join(CARE)}, got {after.care!r}")
