"""Z-Corps (D6 System): rule IDs and every [ref]/[default] value, in one overridable Struct.

Seed text 000_8667c09cf01a5ff4.txt; rule IDs: docs/rules.md; readings: docs/rules-notes.md.
A scenario overrides any value under ``[rules]``; the effective values are
recorded in the log header, so a replay never depends on these defaults.
"""

from __future__ import annotations

import msgspec

WOUNDS = "wounds"
#: ZC-WOUND-1: the wound ladder, one monitor, one box per level.
WOUND_LEVELS = ["Stunned", "Wounded", "Severely Wounded", "Incapacitated", "Mortally Wounded", "Dead"]
STUNNED, WOUNDED, SEVERELY, INCAPACITATED, MORTALLY, DEAD = range(6)

#: ZC-FIRE-1: weapon types.
FIREARMS = ("handgun", "rifle", "shotgun", "smg", "assault_rifle", "machine_gun")
CLOSE = ("brawl", "melee")


class ZCorpsRules(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Defaults for every Z-Corps value the seed leaves open."""

    # Rules edition (docs/rules-notes.md, "Rules editions"): 1 = the readings of fracas 0.1.0 (a log
    # header without this field is edition 1, so its fight re-simulates as it was played); 2 to 4 =
    # the rules-as-written readings of issue 13, landed in steps; 5 = the competent AI of issue 16
    # (systems/zcorps/tactics.py), Cojones only when they add 10 points, and the dead spread round the
    # living (ZC-MOVE-1, policy); 6 = active and partial defences (ZC-DEF-1, ZC-DEF-2) chosen by the
    # expected harm they prevent against the worth of what they cost (systems/zcorps/tactics.py).
    # A scenario may pin an older one.
    edition: int = 6

    # ZC-CP-1: at most this many CP per roll; option: every CP die a Joker (OpenD6).
    max_cp: int = 3
    all_cp_wild: bool = False
    # ZC-DIFF-1: combat difficulty never below this.
    min_difficulty: int = 3
    # ZC-COVER-1 and every other "+ND" difficulty modifier: "rolled" (dice, no Joker,
    # logged) or "fixed" (fixed_per_die points per die, as the +1D (fixed +3) reading).
    modifier_dice: str = "rolled"
    fixed_per_die: int = 3
    # ZC-INIT-1: one action per full `points_per_action` of initiative, at least one.
    points_per_action: int = 10
    # ZC-MULTI-1: dice lost per action beyond those granted.
    multi_action_dice: int = 1
    # ZC-ATK-1: passive defence.
    passive_defence: int = 10
    # ZC-DEF-2: partial defence dice penalty and the value it must exceed to count.
    partial_defence_dice: int = 1
    partial_defence_floor: int = 10
    # ZC-RANGE-1: range band difficulty modifiers; point blank is 0..point_blank_m metres.
    point_blank_m: int = 3
    range_modifiers: dict[str, int] = msgspec.field(
        default_factory=lambda: {"point_blank": -5, "short": 0, "medium": 5, "long": 10}
    )
    machine_gun_modifiers: dict[str, int] = msgspec.field(
        default_factory=lambda: {"point_blank": 10, "short": 5, "medium": 0, "long": -5}
    )
    # "difficulty": the machine-gun line modifies the difficulty; "attack_bonus": it is
    # added to the attack total with the opposite sign.
    machine_gun_reading: str = "difficulty"
    # ZC-COVER-1: difficulty dice per cover level, and for poor light.
    cover_dice: dict[str, int] = msgspec.field(default_factory=lambda: {"quarter": 1, "half": 2, "three_quarters": 4})
    poor_light_dice: int = 1
    # ZC-AIM-1: aiming dice per round, at most max; called shots [difficulty dice, damage points].
    aim_dice: int = 1
    aim_max_dice: int = 3
    called_shots: dict[str, list[int]] = msgspec.field(
        default_factory=lambda: {"head": [1, 12], "arm": [1, -2], "leg": [1, -1]}
    )
    # ZC-FIRE-1: legal modes per weapon type.
    legal_modes: dict[str, list[str]] = msgspec.field(
        default_factory=lambda: {
            "handgun": ["single", "semi", "semi_multi", "suppressive"],
            "rifle": ["single", "semi", "semi_multi", "suppressive"],
            "shotgun": ["single"],
            "smg": ["burst", "burst_multi", "long_burst", "suppressive"],
            "assault_rifle": ["single_auto", "burst", "burst_multi", "long_burst", "suppressive"],
            "machine_gun": ["long_burst", "single_auto"],
        }
    )
    # ZC-FIRE-2: [difficulty dice, damage dice] per mode ("semi": per extra round,
    # "semi_multi" and "burst_multi": per further target).
    firing_modes: dict[str, list[int]] = msgspec.field(
        default_factory=lambda: {
            "single": [0, 0],
            "single_auto": [0, -2],
            "long_burst": [-2, 2],
            "semi": [-1, 1],
            "semi_multi": [1, 0],
            "suppressive": [-2, -3],
            "burst": [-1, 3],
            "burst_multi": [1, 1],
        }
    )
    # ZC-FIRE-2: suppressive fire (« Tir de barrage (semi-automatique) ») from SMGs and assault
    # rifles too (one burst), an option (edition 1 allowed it as legal_modes lists it); the dice its
    # targets lose on skill rolls, this round and the next.
    suppressive_automatic: bool = False
    suppressed_dice: int = 1
    semi_auto_max_rounds: int = 2
    assault_rifle_burst: int = 3
    # ZC-FIRE-2: damage codes never drop below this many dice.
    min_damage_dice: int = 1
    # ZC-BRAWL-1: difficulty dice per manoeuvre; Agilité dice lost by the target.
    manoeuvres: dict[str, int] = msgspec.field(
        default_factory=lambda: {"grab": 2, "knock_down": 2, "push": 2, "trip": 2, "tackle": 1}
    )
    off_balance_dice: int = 2
    # ZC-DMG-1: "full" margin added to damage, or "fifth" (margin // 5, OpenD6).
    margin_damage: str = "full"
    # ZC-WOUND-1: upper bound of damage - resistance for Stunned, Wounded,
    # Incapacitated, Mortally Wounded; above the last: Dead.
    wound_bands: list[int] = msgspec.field(default_factory=lambda: [3, 8, 12, 15])
    # ZC-WOUND-1: dice penalty per level (Stunned, Wounded, Severely, Incapacitated).
    wound_penalties: list[int] = msgspec.field(default_factory=lambda: [1, 1, 2, 3])
    stamina_difficulty: int = 15
    unconscious_dice: int = 10
    # ZC-WOUND-1: a Mortally Wounded actor dies when its Puissance roll is below the
    # time spent mortally wounded, counted in "minutes" (our reading) or "rounds" (OpenD6).
    mortal_unit: str = "minutes"
    # ZC-HEAL-1: Medicine difficulty per level (Stunned..Mortally Wounded).
    medicine_difficulty: list[int] = msgspec.field(default_factory=lambda: [10, 15, 15, 20, 30])
    care_minutes: int = 10
    # ZC-HEAL-1: natural healing per level (Wounded..Mortally Wounded): [days of rest, Puissance difficulty].
    natural_healing: list[list[int]] = msgspec.field(default_factory=lambda: [[3, 6], [3, 6], [14, 8], [35, 8]])


RULE_IDS: dict[str, str] = {
    "ZC-DICE-1": "a D code rolls N d6 plus pips; 3 pips = 1D; 0D fails",
    "ZC-WILD-1": "the Joker explodes on 6 on every roll",
    "ZC-WILD-2": "a first Joker 1 removes the highest other die, on 1D the Joker itself (complication)",
    "ZC-CP-1": "Character Points: +1D each, max +3D, one CP Joker whose 1 is plain",
    "ZC-COJ-1": "Cojones: double the pool rolled (after penalties) or reroll a failed test, one per test, no CP",
    "ZC-DIFF-1": "difficulty scale; combat difficulty never below 3",
    "ZC-INIT-1": "initiative: Agilité roll, one action per full 10, acting at total, total-10...",
    "ZC-MULTI-1": "-1D per action beyond those granted, on skill and attribute rolls",
    "ZC-ATK-1": "base difficulty to hit 10 (passive defence)",
    "ZC-DEF-1": "active defence: spend an action, add the roll to the difficulty",
    "ZC-DEF-2": "partial defence: attack and defend at -1D, counts only above 10",
    "ZC-RANGE-1": "range modifiers; the machine-gun line",
    "ZC-COVER-1": "cover and light add dice to the difficulty",
    "ZC-AIM-1": "aiming +1D per round (max +3D); called shots",
    "ZC-FIRE-1": "weapon types, legal modes, ammunition, reloading",
    "ZC-FIRE-2": "firing-mode difficulty and damage modifiers; damage >= 1D; suppressive fire pins (-1D)",
    "ZC-MOVE-1": "[default] a move is an action: up to Move (at most 10) metres, one per count from its count",
    "ZC-BRAWL-1": "grab, knock down, push, trip, tackle",
    "ZC-DMG-1": "damage = weapon code + margin of success",
    "ZC-RES-1": "resistance = Puissance + armour",
    "ZC-WOUND-1": "the wound ladder, its penalties, stamina and mortal rolls",
    "ZC-HEAL-1": "medicine and natural healing",
}
