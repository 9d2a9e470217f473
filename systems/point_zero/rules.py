"""Point Zéro: rule IDs and every [ref]/[default] value, in one overridable Struct.

Seed text 003_bc2a140c3a977501.txt; rule IDs: docs/rules.md; readings: docs/rules-notes.md.
A scenario overrides any value under ``[rules]``; the effective values are
recorded in the log header, so a replay never depends on these defaults.
"""

from __future__ import annotations

import msgspec

PHYSICAL = "physical"
SHOCK = "shock"


class PointZeroRules(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Defaults for every Point Zéro value the seed leaves open."""

    # Rules edition (docs/rules-notes.md, "Rules editions"): 1 = the readings of fracas 0.1.0 (a log
    # header without this field is edition 1, so its fight re-simulates as it was played); 2 to 4 =
    # the rules-as-written readings of issue 13, landed in steps; 5 = the competent AI weighs only the
    # nearest foes (bounded decisions, tactics.NEAREST_FOES); 6 = it reads its initiative and the
    # slower actors' declarations (PZ-INIT-3, tactics.known). A scenario may pin an older one.
    edition: int = 6

    # PZ-MON-1: boxes per level, on both monitors.
    monitor_boxes: list[int] = msgspec.field(default_factory=lambda: [3, 2, 1, 1])
    physical_levels: list[str] = msgspec.field(default_factory=lambda: ["Légère", "Grave", "Critique", "Fatale"])
    shock_levels: list[str] = msgspec.field(default_factory=lambda: ["Secoué", "Étourdi", "Sonné", "Inconscient"])
    # PZ-SB-1: natural wound threshold: "vig+3" or "2vig".
    natural_sb: str = "vig+3"
    # PZ-DIFF-1: base difficulty per range band (V1 scale).
    range_difficulty: dict[str, int] = msgspec.field(
        default_factory=lambda: {
            "point_blank": 5,
            "short": 10,
            "medium": 15,
            "long": 20,
            "extreme": 25,
        }
    )
    # PZ-DIFF-2: melee base difficulty = melee_base + defender's Brawl/Melee level.
    melee_base: int = 10
    # PZ-DIFF-3: named modifiers.
    light_modifiers: dict[str, int] = msgspec.field(default_factory=lambda: {"normal": 0, "gloom": 2, "dark": 5})
    moving_target: int = 2
    sprinting_target: int = 5
    cover_modifiers: dict[str, int] = msgspec.field(default_factory=lambda: {"partial": 2, "half": 5, "heavy": 10})
    aim_bonus: int = -2
    # PZ-CRIT-2: what a critical failure does, ranged / melee.
    fumble_ranged: str = "jammed"
    fumble_melee: str = "dropped"
    # PZ-SURP-1: at most this many extra dice.
    surpass_max: int = 2
    # PZ-SAVE-1.
    save_difficulty: int = 10
    # PZ-ARMOR-1: SB bonus per armour; vests give half against blades and blunt weapons.
    armour_sb: dict[str, int] = msgspec.field(
        default_factory=lambda: {
            "none": 0,
            "reinforced_clothing": 1,
            "light_vest": 3,
            "bulletproof_vest": 4,
            "tactical": 6,
            "heavy_combat": 8,
        }
    )
    vests: list[str] = msgspec.field(
        default_factory=lambda: ["light_vest", "bulletproof_vest", "tactical", "heavy_combat"]
    )
    # PZ-MON-3: physical damage at this multiple of SB kills outright.
    lethal_multiple: int = 5
    # PZ-HEAL-1: one shock box clears per this many seconds.
    shock_heal_seconds: int = 60
    # PZ-HEAL-2: hours per healing step, per level (Légère, Grave, Critique); -1 never.
    heal_hours_care: list[int] = msgspec.field(default_factory=lambda: [48, 168, 720])
    heal_hours_no_care: list[int] = msgspec.field(default_factory=lambda: [168, 720, -1])
    # PZ-HEAL-3: Medicine difficulty per worst physical level; self-treatment penalty.
    medicine_difficulty: list[int] = msgspec.field(default_factory=lambda: [5, 10, 15, 20])
    self_treatment: int = 2
    # Unarmed attack when an actor has no melee weapon ([default]).
    fists_pu: str = "1d6"
    fists_damage: str = "shock"


RULE_IDS: dict[str, str] = {
    "PZ-ROUND-1": "a round is 3 seconds; longer actions span rounds",
    "PZ-INIT-1": "acting actors roll INIT d6 each round",
    "PZ-INIT-2": "an actor that declares only a move has initiative = DEP",
    "PZ-INIT-3": "roll first, declare ascending seeing slower declarations, resolve descending",
    "PZ-INIT-4": "an action impossible at resolution is lost (a dead target: nothing spent)",
    "PZ-TIE-1": "ties: higher ADR, then DEP, then roll-off",
    "PZ-MOVE-1": "free move of DEP/3 metres besides the action, none while aiming",
    "PZ-MOVE-2": "each metre before the action lowers initiative by 1; the round ends at 0",
    "PZ-MOVE-3": "sprint: no action, up to DEP metres (the last at initiative 0)",
    "PZ-MOVE-4": "Critique/Sonné: at most 1 m per round",
    "PZ-TEST-1": "roll skill d6, keep the best attribute dice",
    "PZ-TEST-2": "ranged skills with PER, melee with ADR",
    "PZ-TEST-3": "success if total >= difficulty; MR = total - difficulty",
    "PZ-DIFF-1": "ranged base difficulty from the weapon's range bands",
    "PZ-DIFF-2": "melee base difficulty 10 + defender's level",
    "PZ-DIFF-3": "named difficulty modifiers",
    "PZ-CRIT-1": "critical success doubles the MR",
    "PZ-CRIT-2": "critical failure: jam, drop or fall",
    "PZ-SURP-1": "se surpasser: extra dice, one Shock box each",
    "PZ-DMG-1": "damage = PU + MR",
    "PZ-DMG-2": "physical, shock [C], or both",
    "PZ-SB-1": "wound threshold: natural SB + armour + save MR",
    "PZ-SAVE-1": "save test: Resistance keep VIG vs 10",
    "PZ-ARMOR-1": "armour SB bonus",
    "PZ-MON-1": "two monitors, four levels",
    "PZ-MON-2": "below SB: shock nothing, physical marks a Shock box",
    "PZ-MON-3": "level = floor(damage / SB); 5x SB kills",
    "PZ-MON-4": "a full level overflows upward",
    "PZ-MON-5": "effects of the worst level; Critique/Sonné may act with attributes at 1",
    "PZ-MON-6": "Critique untreated VIG hours -> Fatale; Fatale VIG minutes -> death",
    "PZ-HEAL-1": "shock clears one box per minute from when marked, fight included",
    "PZ-HEAL-2": "physical boxes heal one level per step, all at once",
    "PZ-HEAL-3": "care: Medicine test with COG, by a conscious carer",
}
