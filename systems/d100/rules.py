"""The d100 system: rule IDs and every [ref]/[default] value, in one overridable Struct.

Seed text 002_95e69bea9d096fe0.txt; rule IDs: docs/rules.md; readings: docs/rules-notes.md.
A scenario overrides any value under ``[rules]``; the effective values are
recorded in the log header, so a replay never depends on these defaults.

Tables are lists of ``[highest face, outcome]`` rows, read top to bottom:
the first row whose face is >= the roll applies.
"""

from __future__ import annotations

import msgspec

# Outcomes of the malfunction table (D100-JAM-1).
MISFIRE = "misfire"
JAM = "jam"
SERIOUS_JAM = "serious_jam"
BROKEN = "broken"
MALFUNCTIONS = (MISFIRE, JAM, SERIOUS_JAM, BROKEN)

# Outcomes of the fumble table (D100-ATK-2).
OFF_BALANCE = "off_balance"
DROPPED = "dropped"
PRONE = "prone"
STRAY_SHOT = "stray_shot"
HITS_SELF = "hits_self"
FUMBLES = (OFF_BALANCE, DROPPED, JAM, PRONE, STRAY_SHOT, HITS_SELF)

#: A parry reduction that stops all the damage (a force shield).
ALL_DAMAGE = -1


class D100Rules(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Defaults for every d100 value the seed leaves open."""

    # Rules edition (docs/rules-notes.md, "Rules editions"): 1 = the readings of fracas 0.1.0 (a log
    # header without this field is edition 1, so its fight re-simulates as it was played); 2 to 4 =
    # the rules-as-written readings of issue 13, landed in steps; 5 = the competent AI of issue 16
    # (systems/d100/tactics.py: shots and reactions by their exact expected worth). A scenario may
    # pin an older one.
    edition: int = 5

    # D100-INIT-1: DEX bonus by DEX, [highest DEX, bonus]; above the last row
    # +1 per `dex_bonus_step` more points.
    dex_bonus: list[list[int]] = msgspec.field(
        default_factory=lambda: [[5, -2], [8, -1], [12, 0], [15, 1], [18, 2], [21, 3]]
    )
    dex_bonus_step: int = 3
    # D100-REACT-1: the first reaction in a round is free, each further one costs this, cumulative.
    further_reaction: int = -20
    # D100-DODGE-1: the attacker's modifier by the dodge band.
    dodge_modifiers: dict[str, int] = msgspec.field(
        default_factory=lambda: {"critical_success": -50, "success": -30, "failure": 0, "critical_failure": 10}
    )
    # D100-PARRY-1: damage reduction by parrying object; -1 stops all damage.
    parry_reduction: dict[str, int] = msgspec.field(
        default_factory=lambda: {
            "improvised": 2,
            "knife": 3,
            "melee_weapon": 6,
            "club": 6,
            "small_shield": 8,
            "large_shield": 12,
            "riot_shield": 12,
            "force_shield": ALL_DAMAGE,
        }
    )
    # D100-PARRY-1: against gunfire only these objects reduce anything.
    shields: list[str] = msgspec.field(
        default_factory=lambda: ["small_shield", "large_shield", "riot_shield", "force_shield"]
    )
    parry_critical_multiplier: list[int] = msgspec.field(default_factory=lambda: [3, 2])  # x 1.5, rounded down
    parry_fumble_bonus: int = 10
    # D100-JAM-1: the malfunction table (1D10).
    malfunction_table: list[list[int | str]] = msgspec.field(
        default_factory=lambda: [[4, MISFIRE], [7, JAM], [9, SERIOUS_JAM], [10, BROKEN]]
    )
    serious_jam_rounds: str = "1d6"
    serious_jam_modifier: int = -20
    overheat_damage: str = "1d3"
    # D100-ATK-2: the fumble table (1D10).
    fumble_table: list[list[int | str]] = msgspec.field(
        default_factory=lambda: [[3, OFF_BALANCE], [5, DROPPED], [7, JAM], [8, PRONE], [9, STRAY_SHOT], [10, HITS_SELF]]
    )
    off_balance_modifier: int = -20
    prone_dodge_modifier: int = -20
    stray_shot_metres: int = 2
    # D100-STUN-1.
    stun_dex_penalty: int = -5
    stun_skill_penalty: int = -10
    stun_rounds: str = "1d3+1"
    stun_resets: bool = True
    paralysis_minutes: str = "10d6"
    # D100-LETHAL-1: armour against gunfire by name.
    armour: dict[str, int] = msgspec.field(
        default_factory=lambda: {
            "none": 0,
            "heavy_clothing": 1,
            "stab_vest": 3,
            "kevlar": 8,
            "kevlar_plates": 12,
            "combat_armour": 15,
        }
    )
    critical_max_damage: bool = True
    # D100-HP-1: effects by HP remaining, in percent of the maximum.
    hp_wounded_percent: int = 50
    hp_wounded_modifier: int = -10
    hp_badly_percent: int = 25
    hp_badly_modifier: int = -20
    hp_badly_min: int = 3
    major_wound_multiplier: int = 5
    knockout_minutes: str = "1d10"
    first_aid_hp: int = 1
    # D100-HEAL-1.
    heal_per_day: int = 1
    heal_medicine_multiplier: int = 2


RULE_IDS: dict[str, str] = {
    "D100-ROLL-1": "success on d100 <= modified skill; 01 always succeeds, 100 always fails",
    "D100-CRIT-1": "critical: a double, or a margin of 41+, on success or failure",
    "D100-INIT-1": "order 1D12 + DEX + DEX bonus, descending; ties DEX then 1D12",
    "D100-TURN-1": "on its turn: nothing, reload (the rest of the round, in at its end), or aim and shoot",
    "D100-REACT-1": "the target reacts first: nothing, parry or dodge; further reactions -20",
    "D100-DODGE-1": "dodge band sets the attacker's modifier: -50 / -30 / 0 / +10",
    "D100-PARRY-1": "parry band: reduction x1.5 / reduction / none / attacker +10",
    "D100-JAM-1": "malfunction check (Panne), Luck roll, malfunction table",
    "D100-ATK-1": "attack: d100 under the weapon skill with every modifier",
    "D100-ATK-2": "a natural double above the skill: fumble table",
    "D100-ATK-3": "above the skill: miss",
    "D100-STUN-1": "stun: CON x (4 - 1D4) or paralysed 10D6 minutes; success tetanised",
    "D100-LETHAL-1": "lethal: damage - armour - parry reduction = HP lost",
    "D100-HP-1": "effects of HP remaining: penalties, unconscious, dying, dead, major wound",
    "D100-HEAL-1": "1 HP per day, doubled with Medicine",
}


def table_lookup(table: list[list[int | str]], face: int) -> str:
    """The outcome of the first ``[highest face, outcome]`` row covering ``face``."""
    for row in table:
        if face <= int(row[0]):
            return str(row[1])
    return str(table[-1][1])


def dex_bonus(rules: D100Rules, dex: int) -> int:
    """D100-INIT-1: the DEX bonus/malus of the table, +1 per step above its last row."""
    for top, bonus in rules.dex_bonus:
        if dex <= top:
            return bonus
    top, bonus = rules.dex_bonus[-1]
    return bonus + (dex - top + rules.dex_bonus_step - 1) // rules.dex_bonus_step
