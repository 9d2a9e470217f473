"""Point Zéro: the worked examples of the seed text (003_bc2a140c3a977501.txt).

Each test is named by the rule ID it checks and uses the faces the text names
(ScriptedDice), run through the whole engine: clock, events, projections.
"""

from __future__ import annotations

from pathlib import Path

from conftest import DATA, Fight, run_fight
from fracas.core import events as E
from fracas.core.state import replay

#: Mira's INIT 4+4+5 = 13, the guard's 3+3+4 = 10; Mira's 5d6 shot 2,2,4,4,6; her
#: pistol's 4d6 = 17; the guard's save 4,4,4 = 12 (MR 2); the guard's shot 1,1,1.
MIRA_DICE = [4, 4, 5, 3, 3, 4, 2, 2, 4, 4, 6, 5, 5, 4, 3, 4, 4, 4, 1, 1, 1]


def mira_fight(tmp_path: Path, dice: list[int] = MIRA_DICE) -> Fight:
    return run_fight(DATA / "pz_worked.toml", tmp_path, dice)


def test_pz_init_1_initiative_is_the_sum_of_init_d6(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    inits = {e.actor: e.value for e in fight.events(E.InitiativeSet)}
    assert inits == {"mira": 13, "guard": 10}


def test_pz_init_3_declarations_slowest_first(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    declared = [e.actor for e in fight.events(E.ActionDeclared)]
    assert declared == ["guard", "mira"]


def test_pz_move_2_mira_moves_2_m_acts_at_11_before_the_guard_then_4_m(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    mira_moves = [(x.count, x.ev.x, x.ev.y) for x in fight.entries_of(E.Moved) if x.ev.actor == "mira"]
    assert mira_moves == [(12, 7, 8), (11, 8, 8), (10, 8, 9), (9, 8, 10), (8, 8, 11), (7, 8, 12)]
    tests = [(x.count, x.ev.actor) for x in fight.entries_of(E.SkillTested) if x.ev.skill.startswith("handguns")]
    assert tests == [(11, "mira"), (10, "guard")]


def test_pz_test_1_mira_keeps_the_best_three_of_2_2_4_4_6_for_14_vs_12_mr_2(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    shot = next(e for e in fight.events(E.DiceRolled) if e.purpose.startswith("pistol attack"))
    assert shot.faces == [2, 2, 4, 4, 6]
    assert shot.fates == ["dropped", "dropped", "kept", "kept", "kept"]
    test = next(e for e in fight.events(E.SkillTested) if e.actor == "mira")
    assert (test.total, test.difficulty, test.success, test.margin) == (14, 12, True, 2)
    assert [(m.name, m.value, m.rule) for m in test.modifiers] == [
        ("range 6 m: short", 0, "PZ-DIFF-1"),
        ("gloom", 2, "PZ-DIFF-3"),
    ]


def test_pz_dmg_1_pu_17_plus_mr_2_is_19(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    dmg = fight.events(E.DamageRolled)[0]
    assert (dmg.dice_total, dmg.bonus, dmg.total, dmg.kind) == (17, 2, 19, "physical")


def test_pz_save_1_and_pz_mon_3_guard_sb_6_plus_save_2_takes_a_grave(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    sb = fight.events(E.ThresholdComputed)[0]
    assert sb.value == 8
    assert [(p.name, p.value) for p in sb.parts] == [("natural SB", 6), ("save MR", 2)]
    wound = fight.events(E.WoundMarked)[0]
    assert (wound.actor, wound.monitor, wound.level_name) == ("guard", "physical", "Grave")
    state = replay(fight.entries)
    assert state.actors["guard"].monitors["physical"].marked == [0, 1, 0, 0]


def test_pz_mon_3_without_the_save_the_guard_takes_a_critique(tmp_path: Path) -> None:
    dice = list(MIRA_DICE)
    dice[15:18] = [1, 2, 2]  # the save fails: SB stays 6, 19 // 6 = 3
    fight = mira_fight(tmp_path, dice[:18])
    wound = fight.events(E.WoundMarked)[0]
    assert wound.level_name == "Critique"
    assert "incapacitated" in replay(fight.entries).actors["guard"].conditions


def test_pz_mon_5_the_wounded_guard_keeps_one_die_less(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    guard_test = next(e for e in fight.events(E.SkillTested) if e.actor == "guard" and e.skill.startswith("handguns"))
    assert guard_test.kept == 1
    assert [m.rule for m in guard_test.pool_modifiers] == ["PZ-MON-5"]


def test_pz_crit_2_three_ones_jam_the_guards_pistol(tmp_path: Path) -> None:
    fight = mira_fight(tmp_path)
    guard_test = next(e for e in fight.events(E.SkillTested) if e.actor == "guard" and e.skill.startswith("handguns"))
    assert guard_test.critical == "failure"
    assert replay(fight.entries).actors["guard"].weapons["pistol"] == "jammed"
