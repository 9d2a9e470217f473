"""Z-Corps worked examples, one (or more) per ZC rule ID, with scripted dice.

Seed text 000_8667c09cf01a5ff4.txt; rule IDs: docs/rules.md; readings: docs/rules-notes.md.
Each test builds a two-actor encounter, scripts the faces in the order the
engine draws them (plain dice, then the Joker and its rerolls, then CP dice:
systems/zcorps/dice.py) and calls the rule's resolution function.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from fracas.core import events as E
from fracas.core.dice import ScriptedDice
from fracas.core.encounter import Encounter, play_turns
from fracas.core.scenario import load_scenario
from fracas.core.system import get_system
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, success_probability
from fracas.systems.zcorps.rules import INCAPACITATED, RULE_IDS, WOUNDED, WOUNDS

SCENARIO = """
system = "zcorps"
name = "worked example"
[map]
width = 40
height = 10
cover = [{ name = "wall", x = 30, y = 0, w = 2, h = 10, level = "half" }]
[[sides]]
id = "a"
[[sides]]
id = "b"
[[actors]]
id = "ann"
side = "a"
position = [1, 1]
attributes = { agilite = "3D+2", adresse = "3D", puissance = "3D", perception = "3D" }
skills = { firearms = "3D", dodge = "3D", brawl = "3D" }
armour = "1D+1"
cp = 5
cojones = 1
weapons = [
  { name = "smg", type = "smg", damage = "4D", magazine = 30, spare = 1 },
  { name = "shotgun", type = "shotgun", damage = "5D", magazine = 6 },
  { name = "rifle", type = "assault_rifle", damage = "5D", magazine = 30 },
  { name = "mg", type = "machine_gun", damage = "6D", magazine = 100 },
]
[[actors]]
id = "bob"
side = "b"
position = [2, 1]
attributes = { agilite = "3D", adresse = "3D", puissance = "4D+1", perception = "3D" }
skills = { dodge = "3D", brawl = "3D" }
weapons = [{ name = "pistol", type = "handgun", damage = "3D", magazine = 15 }]
"""


def encounter(
    tmp_path: Path, faces: Sequence[int], rules: str = "", human: str = ""
) -> tuple[Encounter, list[E.Event]]:
    text = SCENARIO.replace('name = "worked example"', f'name = "worked example"\n{rules}')
    if human:
        text = text.replace(f'id = "{human}"\n', f'id = "{human}"\npolicy = "human"\n', 1)
    path = tmp_path / "zc.toml"
    path.write_text(text, encoding="utf-8")
    seen: list[E.Event] = []
    enc = Encounter(
        get_system("zcorps"),
        load_scenario(path),
        seed="worked",
        dice=ScriptedDice(faces),
        listeners=[lambda seq, rnd, count, sec, ev: seen.append(ev)],
    )
    enc.emit(enc.header())
    enc.round = 1
    enc.emit(E.RoundStarted(round=1))
    for spec in enc.scenario.actors:
        enc.emit(enc.system.entered(enc, spec))
    seen.clear()
    return enc, seen


def of(seen: list[E.Event], kind: type[Any]) -> list[Any]:
    return [e for e in seen if isinstance(e, kind)]


ZC_RULES_OF_RULES_MD = [
    "ZC-DICE-1",
    "ZC-WILD-1",
    "ZC-WILD-2",
    "ZC-CP-1",
    "ZC-COJ-1",
    "ZC-DIFF-1",
    "ZC-INIT-1",
    "ZC-MULTI-1",
    "ZC-ATK-1",
    "ZC-DEF-1",
    "ZC-DEF-2",
    "ZC-RANGE-1",
    "ZC-COVER-1",
    "ZC-AIM-1",
    "ZC-FIRE-1",
    "ZC-FIRE-2",
    "ZC-MOVE-1",
    "ZC-BRAWL-1",
    "ZC-DMG-1",
    "ZC-RES-1",
    "ZC-WOUND-1",
    "ZC-HEAL-1",
]


def test_rule_ids_lists_every_zc_rule_of_rules_md_in_rulebook_order() -> None:
    assert list(RULE_IDS) == ZC_RULES_OF_RULES_MD


def test_every_zc_rule_id_has_a_worked_example_here() -> None:
    names = {n for n in globals() if n.startswith("test_zc_")}
    for rid in RULE_IDS:
        prefix = "test_" + rid.lower().replace("-", "_") + "_"
        assert any(n.startswith(prefix) for n in names), rid


# --------------------------------------------------------------- ZC-DICE-1


def test_zc_dice_1_3d_plus_1_rolls_two_plain_dice_a_joker_and_adds_the_pips(tmp_path: Path) -> None:
    enc, _seen = encounter(tmp_path, [4, 2, 5])
    roll = R.roll_code(enc, "ann", DCode(3, 1), purpose="test", rule="ZC-DICE-1")
    assert roll.total == 4 + 2 + 5 + 1


def test_zc_dice_1_three_pips_make_a_die_and_a_0d_pool_fails_automatically(tmp_path: Path) -> None:
    assert DCode.of(4, 3) == DCode(5, 0)
    enc, seen = encounter(tmp_path, [])
    roll = R.roll_code(enc, "ann", DCode(0, 2), purpose="test", rule="ZC-DICE-1")
    assert roll.automatic_failure and roll.total == 0
    assert [n.text for n in of(seen, E.Noted)] == ["test: a pool of 0D+2 has no dice: automatic failure"]
    assert not of(seen, E.DiceRolled)


# --------------------------------------------------------------- ZC-WILD-1


def test_zc_wild_1_3d_plus_1_with_4_2_and_joker_6_6_3_totals_22(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [4, 2, 6, 6, 3])
    roll = R.roll_code(enc, "ann", DCode(3, 1), purpose="test", rule="ZC-DICE-1")
    assert roll.total == 22
    plain, joker = of(seen, E.DiceRolled)
    assert (plain.faces, plain.fates, plain.first) == ([4, 2], ["kept", "kept"], 0)
    assert (joker.faces, joker.fates, joker.first, joker.rule) == (
        [6, 6, 3],
        ["exploded", "exploded", "kept"],
        2,
        "ZC-WILD-1",
    )


# --------------------------------------------------------------- ZC-WILD-2


def test_zc_wild_2_3d_with_5_3_and_joker_1_cancels_the_5_and_totals_4(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [5, 3, 1])
    roll = R.roll_code(enc, "ann", DCode(3, 0), purpose="shot", rule="ZC-ATK-1")
    assert roll.total == 4
    plain, joker = of(seen, E.DiceRolled)
    assert plain.fates == ["cancelled", "kept"] and plain.rule == "ZC-WILD-2"
    assert joker.faces == [1] and joker.rule == "ZC-WILD-2"
    assert [n.text for n in of(seen, E.Noted)] == ["shot: Joker 1 cancels the highest die (5); possible complication"]


def test_zc_wild_2_in_a_1d_pool_only_the_pips_remain(tmp_path: Path) -> None:
    """Seed 000: « L'Echec Critique annule le dé ayant obtenu le résultat le plus haut. »

    On a one-die pool the Joker is the die with the highest result: its 1 is cancelled, the pips remain.
    """
    enc, seen = encounter(tmp_path, [1])
    roll = R.roll_code(enc, "ann", DCode(1, 2), purpose="t", rule="ZC-DICE-1")
    assert roll.total == 2
    (joker,) = of(seen, E.DiceRolled)
    assert (joker.faces, joker.fates, joker.rule) == ([1], ["cancelled"], "ZC-WILD-2")
    (note,) = of(seen, E.Noted)
    assert note.text == "t: Joker 1 cancels itself, the highest die (1D pool); possible complication"


def test_zc_wild_2_in_a_1d_pool_cp_dice_bought_later_stay(tmp_path: Path) -> None:
    """Seed 000: « L'Echec Critique annule le dé ayant obtenu le résultat le plus haut »; CP dice are never removed."""
    enc, _ = encounter(tmp_path, [1, 4])
    roll = R.roll_code(enc, "ann", DCode(1, 1), purpose="t", rule="ZC-DICE-1")
    R.spend_cp(enc, "ann", roll, 1, purpose="t")
    assert roll.total == 4 + 1


def test_zc_wild_2_edition_1_keeps_the_1_in_a_1d_pool(tmp_path: Path) -> None:
    """Logs of fracas 0.1.0 (rules edition 1) re-simulate with the 1 kept: 1 + pips."""
    enc, _ = encounter(tmp_path, [1], rules="[rules]\nedition = 1")
    assert R.roll_code(enc, "ann", DCode(1, 2), purpose="t", rule="ZC-DICE-1").total == 3


# ----------------------------------------------------------------- ZC-CP-1


def test_zc_cp_1_a_cp_joker_showing_1_is_a_plain_1(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [3, 4, 1])
    roll = R.roll_code(enc, "ann", DCode(2, 0), purpose="shot", rule="ZC-ATK-1")
    R.spend_cp(enc, "ann", roll, 1, purpose="shot")
    assert roll.total == 8
    assert roll.cancelled is None
    spent = of(seen, E.ResourceSpent)
    assert [(s.resource, s.amount, s.left, s.rule) for s in spent] == [("cp", 1, 4, "ZC-CP-1")]
    cp_die = of(seen, E.DiceRolled)[-1]
    assert (cp_die.faces, cp_die.fates, cp_die.rule) == ([1], ["kept"], "ZC-CP-1")


def test_zc_cp_1_three_cp_one_joker_that_explodes(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [2, 2, 4, 5, 6, 2])
    roll = R.roll_code(enc, "ann", DCode(2, 0), purpose="shot", rule="ZC-ATK-1")
    R.spend_cp(enc, "ann", roll, 3, purpose="shot")
    assert roll.total == 2 + 2 + 4 + 5 + 6 + 2
    assert [d.fates for d in of(seen, E.DiceRolled)[2:]] == [["kept", "kept"], ["exploded", "kept"]]


def test_zc_cp_1_policy_buys_cp_only_with_stakes_and_at_most_three(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [])
    assert R.cp_wanted(enc, "ann", 2, stakes=1) == 1
    assert R.cp_wanted(enc, "ann", 9, stakes=1) == 3
    assert R.cp_wanted(enc, "ann", 10, stakes=1) == 0
    assert R.cp_wanted(enc, "ann", 2, stakes=0) == 0


def test_zc_cp_1_character_points_on_initiative(tmp_path: Path) -> None:
    """Seed 000: « Chaque fois qu'un joueur effectue un jet de dés, il a la possibilité de dépenser des Points de
    Personnage pour augmenter le total de dés à lancer. »

    Ann's Agilité 3D+2 rolls 5, 5, Joker 5 = 17: 3 short of a second action, she buys one CP die (4): 21.
    """
    enc, seen = encounter(tmp_path, [5, 5, 5, 4])
    assert R.roll_initiative(enc, "ann") == 21
    assert of(seen, E.InitiativeSet)[0].actions == 2
    assert [(s.resource, s.amount) for s in of(seen, E.ResourceSpent)] == [("cp", 1)]


def test_zc_cp_1_character_points_on_the_stamina_roll(tmp_path: Path) -> None:
    """Seed 000: « Chaque fois qu'un joueur effectue un jet de dés [...] Points de Personnage »: the stamina roll
    too. Ann's 3D rolls 4, 4, Joker 4 = 12 vs 15: one CP die (3) makes 15, she hangs on."""
    enc, seen = encounter(tmp_path, [4, 4, 4, 3])
    R.wound_effects(enc, "ann", INCAPACITATED)
    (test,) = of(seen, E.SkillTested)
    assert (test.total, test.success, test.kept) == (15, True, 4)
    assert "hanging_on" in enc.state.actors["ann"].conditions


def test_zc_cp_1_character_points_on_damage_with_critical_stakes(tmp_path: Path) -> None:
    """Seed 000: « Chaque fois qu'un joueur effectue un jet de dés [...] Points de Personnage »: the damage roll
    too (policy: one CP die when the attack's stakes are critical). The smg's 4D: 2, 2, 2, Joker 2 + CP 3 = 11;
    Bob resists with 4D+1: 6, 6, 6, Joker 5 + 1 = 24 and shrugs it off."""
    enc, seen = encounter(tmp_path, [2, 2, 2, 2, 3, 6, 6, 6, 5])
    R.damage(enc, "ann", "bob", R.weapon_of(enc, "ann", "smg"), 0, 0, 0, None, 2)
    (dmg,) = of(seen, E.DamageRolled)
    assert dmg.total == 11
    assert [(s.actor, s.resource, s.amount) for s in of(seen, E.ResourceSpent)] == [("ann", "cp", 1)]


def test_zc_res_1_cojones_on_the_resistance_roll(tmp_path: Path) -> None:
    """Seed 000: « Le point dépensé permet de relancer un Test échoué »; RULES ZC-RES-1: CP or Cojones may be spent
    on resistance. Ann (3D + armour 1D+1) rolls 1, 1, 1, Joker 2 + 1 = 6 against 30 (mortal or worse, too far
    for CP): Cojones reroll 6, 6, 6, Joker 5 + 1 = 24: Wounded."""
    enc, seen = encounter(tmp_path, [1, 1, 1, 2, 6, 6, 6, 5])
    R.resist(enc, "ann", 30, stakes=0)
    assert [(s.resource, s.left) for s in of(seen, E.ResourceSpent)] == [("cojones", 0)]
    assert of(seen, E.ThresholdComputed)[0].value == 24
    assert [w.level for w in of(seen, E.WoundMarked)] == [WOUNDED]


class Answers:
    """A person at the table answering by the text of the choice wanted; records each question."""

    def __init__(self, *wanted: str) -> None:
        self.wanted = list(wanted)
        self.questions: list[str] = []
        self.given: list[str] = []

    def choose(self, enc: Encounter, actor: str, choices: Sequence[Any]) -> int:
        self.questions.append(choices[0].question)
        texts = [c.text for c in choices]
        self.given.append(self.wanted.pop(0))
        return texts.index(self.given[-1])


def human_encounter(tmp_path: Path, faces: Sequence[int], answers: Answers) -> tuple[Encounter, list[E.Event]]:
    """The worked example with Ann played by a person (rules edition 4, the default)."""
    from fracas.core.decide import attach_chooser

    enc, seen = encounter(tmp_path, faces, rules="", human="ann")
    attach_chooser(enc, answers)
    return enc, seen


def test_zc_cp_1_a_human_is_asked_after_the_stamina_roll(tmp_path: Path) -> None:
    """Seed 000: « Chaque fois qu'un joueur effectue un jet de dés, il a la possibilité de dépenser des Points de
    Personnage [...] avant et après avoir jeté les dés, mais toujours avant que le Meneur de jeu ne détermine le
    résultat de l'action. » A human Ann sees her stamina roll (4, 4, Joker 4 = 12 vs 15) and buys one CP die (3)."""
    answers = Answers("spend 1 CP on stamina vs 15 (Incapacitated)")
    enc, seen = human_encounter(tmp_path, [4, 4, 4, 3], answers)
    R.wound_effects(enc, "ann", INCAPACITATED)
    assert answers.questions == [
        "ann rolled 12 for stamina vs 15 (Incapacitated): needs 15 or more. "
        "Character Points (5 left): one more die each, at most 3 [ZC-CP-1]"
    ]
    (chosen,) = of(seen, E.ActionDeclared)
    assert (chosen.action, chosen.policy, chosen.rule) == ("roll_choice", "human", "ZC-CP-1")
    (test,) = of(seen, E.SkillTested)
    assert (test.total, test.success, test.kept) == (15, True, 4)


def test_zc_coj_1_a_human_declines_the_doubling_then_rerolls_a_failed_test(tmp_path: Path) -> None:
    """Seed 000: « On peut les utiliser de deux façons. C'est le joueur qui décide de cet usage » and « il est
    impossible de cumuler les deux méthodes ». Asked before the roll (double 3D?), after it (CP? none), and after
    the failure (reroll?): 1, 1, Joker 2 = 4 vs 8 fails; the reroll 4, 4, Joker 3 = 11 succeeds."""
    answers = Answers("roll 3D for shot", "no CP on shot", "reroll shot with Cojones")
    enc, seen = human_encounter(tmp_path, [1, 1, 2, 4, 4, 3], answers)
    R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(3, 0),
        pool_mods=[],
        base=8,
        modifiers=[],
        purpose="shot",
        rule="ZC-ATK-1",
        stakes=2,  # the stakes a human's plan carries are ignored: she is asked
    )
    assert [(t.total, t.success) for t in of(seen, E.SkillTested)] == [(4, False), (11, True)]
    assert [(s.resource, s.left) for s in of(seen, E.ResourceSpent)] == [("cojones", 0)]
    assert [d.text for d in of(seen, E.ActionDeclared)] == answers.given
    assert (
        answers.questions[2]
        == "ann's roll for shot: 4, failed: needs 8 or more (difficulty 8). Cojones (1 left) [ZC-COJ-1]"
    )


def test_zc_res_1_a_human_doubles_the_resistance_pool_with_cojones(tmp_path: Path) -> None:
    """Seed 000: « 1ere option : Le point dépensé permet de doubler son pool de D lancé »; RULES ZC-RES-1: CP or
    Cojones on resistance. Ann's 3D + armour 1D+1 = 4D+1 doubled is 8D+2: 1 x 7, Joker 2 + 2 = 11 against 12:
    1 over, Stunned; no CP question after a doubling (one or the other)."""
    answers = Answers("double the pool with Cojones: 8D+2 for resistance (4D+1)")
    enc, seen = human_encounter(tmp_path, [1] * 7 + [2], answers)
    R.resist(enc, "ann", 12, stakes=0)
    assert answers.questions == [
        "ann is about to roll 4D+1 for resistance (4D+1) (against 12 damage). Cojones (1 left) [ZC-COJ-1]"
    ]
    assert of(seen, E.ThresholdComputed)[0].value == 11
    assert [(s.resource, s.left) for s in of(seen, E.ResourceSpent)] == [("cojones", 0)]


# ---------------------------------------------------------------- ZC-COJ-1


def test_zc_coj_1_cojones_turn_3d_plus_2_into_6d_plus_4_with_one_joker(tmp_path: Path) -> None:
    # 6D+4 normalises to 7D+1 (ZC-DICE-1): six plain dice and one Joker. Edition 4: doubled whatever it adds.
    enc, seen = encounter(tmp_path, [1, 1, 1, 1, 1, 1, 2], rules="[rules]\nedition = 4")
    ev, roll = R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(3, 2),
        pool_mods=[],
        base=40,
        modifiers=[],
        purpose="shot",
        rule="ZC-ATK-1",
        stakes=2,
    )
    assert roll.code == DCode(7, 1)
    assert ev.skill == "firearms 3D+2 doubled by Cojones = 7D+1"
    assert ev.total == 6 + 2 + 1
    plain, joker = of(seen, E.DiceRolled)
    assert len(plain.faces) == 6 and len(joker.faces) == 1
    assert [(s.resource, s.left) for s in of(seen, E.ResourceSpent)] == [("cojones", 0)]


def test_zc_coj_1_cojones_double_the_pool_actually_rolled_after_penalties(tmp_path: Path) -> None:
    """Seed 000: « Le point dépensé permet de doubler son pool de D lancé (y compris les tiers). »

    The pool rolled by a 4D+1 at -3D (wounds, extra actions) is 1D+1: doubled, 2D+2, not 5D+2 (edition 4, which
    doubles whatever it adds; edition 5 would not spend Cojones on these odds, see below).
    """
    enc, seen = encounter(tmp_path, [3, 4], rules="[rules]\nedition = 4")
    ev, roll = R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(4, 1),
        pool_mods=[("incapacitated", -3, "ZC-WOUND-1")],
        base=20,
        modifiers=[],
        purpose="shot",
        rule="ZC-ATK-1",
        stakes=2,
    )
    assert roll.code == DCode(2, 2)
    assert ev.skill == "firearms 4D+1 -3D incapacitated doubled by Cojones = 2D+2"
    assert ev.total == 3 + 4 + 2
    assert [(s.resource, s.left) for s in of(seen, E.ResourceSpent)] == [("cojones", 0)]


@pytest.mark.parametrize(
    ("code", "vs", "doubles"),
    [
        (DCode(3, 2), 40, False),  # 7D+1 vs 40: from 0.02 % to 1.4 %, under 10 points
        (DCode(1, 1), 20, False),  # 2D+2 vs 20: from 0.5 % to 2.0 %
        (DCode(3, 0), 16, True),  # 6D vs 16: from 12.5 % to 81.6 %
        (DCode(2, 0), 12, True),  # 4D vs 12: from 12.0 % to 68.8 %
    ],
)
def test_zc_coj_1_edition_5_doubles_only_for_10_points_of_odds(
    tmp_path: Path, code: DCode, vs: int, doubles: bool
) -> None:
    """Policy (edition 5, docs/rules-notes.md): Cojones double a critical roll only when that adds 10 points or more
    (and more than a reroll of a failure would); a failed roll is rerolled only at 10 % odds or better."""
    plain = float(success_probability(code, vs))
    twice = float(success_probability(DCode.of(2 * code.dice, 2 * code.pips), vs))
    assert (twice - plain >= 0.10) == doubles
    assert R.cojones_doubling_worth(code, vs, plain) == doubles
    enc, seen = encounter(tmp_path, [1] * 40)
    ev, _ = R.skill_test(
        enc, "ann", skill="firearms", code=code, pool_mods=[], base=vs, modifiers=[], purpose="shot",
        rule="ZC-ATK-1", stakes=2,
    )  # fmt: skip
    spent = [s.resource for s in of(seen, E.ResourceSpent)]
    if doubles:
        assert "doubled by Cojones" in ev.skill and spent == ["cojones"]
    else:
        # all ones fail: a reroll only when the plain odds reach 10 points
        assert "doubled" not in ev.skill
        assert ("cojones" in spent) == (plain >= 0.10)


def test_zc_coj_1_the_audit_reads_the_doubled_pool_of_either_edition() -> None:
    from fracas.systems.zcorps import logged_pool

    def test(skill: str, kept: int) -> E.SkillTested:
        return E.SkillTested(
            actor="ann", rule="ZC-ATK-1", skill=skill, kept=kept, dice_total=7, modifiers=[], difficulty=20,
            difficulty_base=20, total=9, success=False, margin=-11, critical="", target=None,
        )  # fmt: skip

    assert logged_pool(test("firearms 4D+1 -3D incapacitated doubled by Cojones = 2D+2", 2)) == (DCode(2, 2), 0)
    # edition 1 wrote the doubled sheet code, then the pool modifiers
    assert logged_pool(test("firearms 4D+1 doubled by Cojones = 8D+2 -3D incapacitated", 5)) == (DCode(5, 2), 0)


def test_zc_coj_1_cojones_reroll_a_failed_test_and_the_new_roll_counts(tmp_path: Path) -> None:
    """Seed 000: « 2ème option : Le point dépensé permet de relancer un Test échoué. »"""
    # odds of 3D vs 8 are above one half: no doubling; the failed roll is rerolled.
    enc, seen = encounter(tmp_path, [1, 1, 2, 4, 4, 3])
    enc.emit(E.ResourceSpent(actor="ann", resource="cp", amount=5, left=0, rule="ZC-CP-1"))  # no CP left
    seen.clear()
    ev, _roll = R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(3, 0),
        pool_mods=[],
        base=8,
        modifiers=[],
        purpose="shot",
        rule="ZC-ATK-1",
        stakes=2,
    )
    tests = of(seen, E.SkillTested)
    assert [(t.total, t.success) for t in tests] == [(4, False), (11, True)]
    assert ev.skill == "firearms 3D (Cojones reroll)"
    assert [s.resource for s in of(seen, E.ResourceSpent)] == ["cojones"]


# --------------------------------------------------------------- ZC-DIFF-1


def test_zc_diff_1_combat_difficulty_never_drops_below_3(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [2, 2, 2])
    mod = E.Modifier(name="point blank", value=-9, rule="ZC-RANGE-1")
    ev, _ = R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(3, 0),
        pool_mods=[],
        base=10,
        modifiers=[mod],
        purpose="shot",
        rule="ZC-ATK-1",
    )
    assert ev.difficulty == 3
    assert ev.modifiers[-1] == E.Modifier(name="never below 3", value=2, rule="ZC-DIFF-1")
    assert ev.difficulty == ev.difficulty_base + sum(m.value for m in ev.modifiers)


# --------------------------------------------------------------- ZC-INIT-1


def test_zc_init_1_initiative_23_acts_at_23_and_13(tmp_path: Path) -> None:
    # Agilité 3D+2: plain 6, 5; Joker 6 -> 4: 6 + 5 + 6 + 4 + 2 = 23.
    enc, seen = encounter(tmp_path, [6, 5, 6, 4])
    assert R.roll_initiative(enc, "ann") == 23
    assert of(seen, E.InitiativeSet)[0].actions == 2
    assert R.action_counts(enc, "ann", 23, 0) == [23, 13]


# -------------------------------------------------------------- ZC-MULTI-1


def test_zc_multi_1_an_extra_action_costs_1d_on_skill_rolls_not_resistance(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [])
    assert R.action_counts(enc, "ann", 13, 1) == [13, 3]
    assert R.pool_penalties(enc, "ann", agility=False) == [("1 extra action(s)", -1, "ZC-MULTI-1")]
    assert R.pool_penalties(enc, "ann", agility=False, skill_roll=False) == []


# ---------------------------------------------------------------- ZC-ATK-1


def test_zc_atk_1_passive_defence_is_10_and_a_hit_meets_it(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [4, 3, 3])
    base, mods = R.base_difficulty(enc, "bob")
    assert (base, mods) == (10, [])
    ev, _ = R.skill_test(
        enc,
        "ann",
        skill="firearms",
        code=DCode(3, 0),
        pool_mods=[],
        base=base,
        modifiers=mods,
        purpose="shot",
        rule="ZC-ATK-1",
    )
    assert (ev.total, ev.success, ev.margin) == (10, True, 0)


# ---------------------------------------------------------------- ZC-DEF-1


def test_zc_def_1_active_defence_of_8_makes_18_until_the_defenders_next_action(tmp_path: Path) -> None:
    enc, _seen = encounter(tmp_path, [3, 2, 3])  # bob's dodge 3D: 3 + 2 + Joker 3 = 8
    R.book(enc).pending["bob"] = [12, 2]
    R.active_defence(enc, "bob", "ann", melee=False, defend=lambda e, d, a: True)
    assert R.book(enc).pending["bob"] == [12]  # the last pending action is spent
    base, mods = R.base_difficulty(enc, "bob")
    assert base + sum(m.value for m in mods) == 18
    R.action_begins(enc, "bob")
    base, mods = R.base_difficulty(enc, "bob")
    assert base + sum(m.value for m in mods) == 10


def test_zc_def_1_no_action_left_no_active_defence(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [])
    R.book(enc).pending["bob"] = []
    R.active_defence(enc, "bob", "ann", melee=False, defend=lambda e, d, a: True)
    assert seen == []


# ---------------------------------------------------------------- ZC-DEF-2


def test_zc_def_2_a_partial_defence_of_9_changes_nothing(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [5, 4])  # dodge 3D -1D = 2D: 5 + Joker 4 = 9
    R.partial_defence(enc, "ann")
    assert [n.text for n in of(seen, E.Noted)] == ["partial defence 9 is not above 10: it changes nothing"]
    assert R.base_difficulty(enc, "ann") == (10, [])


def test_zc_def_2_a_partial_defence_of_12_replaces_the_base_10(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [5, 6, 1])  # dodge 3D -1D = 2D: 5 + Joker 6 -> 1 = 12
    R.partial_defence(enc, "ann")
    base, mods = R.base_difficulty(enc, "ann")
    assert base + sum(m.value for m in mods) == 12


# -------------------------------------------------------------- ZC-RANGE-1


def test_zc_range_1_bands_and_the_machine_gun_line(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [])
    smg = R.weapon_of(enc, "ann", "smg")
    mg = R.weapon_of(enc, "ann", "mg")
    assert [R.range_band(enc, smg, m) for m in (3, 4, 16, 76)] == ["point_blank", "short", "medium", None]
    assert R.range_modifier(enc, smg, "point_blank", 2)[0].value == -5
    assert R.range_modifier(enc, mg, "point_blank", 2)[0].value == 10
    assert R.range_modifier(enc, mg, "long", 200)[0].value == -5


def test_zc_range_1_machine_gun_attack_bonus_option(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [], rules='[rules]\nmachine_gun_reading = "attack_bonus"')
    mg = R.weapon_of(enc, "ann", "mg")
    mod, bonus = R.range_modifier(enc, mg, "long", 200)
    assert (mod.value, bonus) == (0, 5)


# -------------------------------------------------------------- ZC-COVER-1


def test_zc_cover_1_half_cover_adds_2d_rolled_and_logged(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [3, 4])
    enc.emit(E.Moved(actor="bob", x=30, y=1, metres=1, initiative=1, rule="C-CLOCK-1"))
    mods = R.cover_modifiers(enc, "ann", "bob")
    assert [(m.value, m.rule) for m in mods] == [(7, "ZC-COVER-1")]
    dice = of(seen, E.DiceRolled)[0]
    assert (dice.faces, dice.rule) == ([3, 4], "ZC-COVER-1")


def test_zc_cover_1_fixed_option_counts_3_per_die(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [], rules='[rules]\nmodifier_dice = "fixed"')
    enc.emit(E.Moved(actor="bob", x=30, y=1, metres=1, initiative=1, rule="C-CLOCK-1"))
    assert [m.value for m in R.cover_modifiers(enc, "ann", "bob")] == [6]


# ---------------------------------------------------------------- ZC-AIM-1


def test_zc_aim_1_aiming_adds_1d_per_round_at_most_3d_and_a_head_shot_adds_12(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [2])
    for _ in range(4):
        R.aim(enc, "ann", "bob")
    assert R.aim_bonus(enc, "ann", "bob") == [("aimed", 3, "ZC-AIM-1")]
    assert "aiming" not in enc.state.actors["ann"].conditions
    mods, damage = R.called_shot(enc, "ann", "head")
    assert ([m.value for m in mods], damage) == ([2], 12)


# --------------------------------------------------------------- ZC-FIRE-1


def test_zc_fire_1_legal_modes_ammunition_and_reloading(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [])
    smg, shotgun = R.weapon_of(enc, "ann", "smg"), R.weapon_of(enc, "ann", "shotgun")
    assert R.mode_legal(enc, "ann", shotgun, "burst", 1) == "shotgun (shotgun) cannot fire burst"
    assert R.rounds_needed(enc, "ann", smg, "burst", 1) == 6  # 1/5 of 30
    assert R.rounds_needed(enc, "ann", smg, "long_burst", 1) == 30
    enc.emit(E.AmmoSpent(actor="ann", weapon="smg", rounds=26, left=4, rule="ZC-FIRE-1"))
    assert R.mode_legal(enc, "ann", smg, "burst", 1) == "smg has 4 round(s), burst needs 6"
    R.reload(enc, "ann", "smg")
    assert (enc.state.actors["ann"].ammo["smg"], enc.state.actors["ann"].spare["smg"]) == (30, 0)


# --------------------------------------------------------------- ZC-FIRE-2


def test_zc_fire_2_long_burst_lowers_the_difficulty_by_2d_rolled_and_adds_2d_damage(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [2, 5])
    mods, damage_dice = R.mode_modifiers(enc, "ann", "long_burst", 0, 30)
    assert [(m.value, m.rule) for m in mods] == [(-7, "ZC-FIRE-2")]
    assert damage_dice == 2
    dice = of(seen, E.DiceRolled)[0]
    assert (dice.faces, dice.rule, dice.purpose) == ([2, 5], "ZC-FIRE-2", "long burst: difficulty -2D")


def test_zc_fire_2_single_shot_from_an_automatic_never_below_1d_damage(tmp_path: Path) -> None:
    # a 2D weapon firing single from an automatic (-2D) still rolls 1D (Joker 4), + margin 0
    enc, seen = encounter(tmp_path, [4, 2, 2, 2, 2])
    weak = R.Weapon(name="zip", type="assault_rifle", damage="2D", magazine=10)
    R.damage(enc, "ann", "bob", weak, 0, -2, 0, None, 0)
    dmg = of(seen, E.DamageRolled)[0]
    assert (dmg.total, dmg.modifiers[1].name) == (4, "firing mode -2D -> 1D")


def test_zc_fire_2_suppressive_fire_is_semi_automatic_smgs_and_assault_rifles_only_by_option(tmp_path: Path) -> None:
    """Seed 000: « Tir de barrage (semi-automatique) : Diff -2D, Dégâts -3D »."""
    enc, _ = encounter(tmp_path, [])
    pistol, smg, rifle = (R.weapon_of(enc, who, w) for who, w in (("bob", "pistol"), ("ann", "smg"), ("ann", "rifle")))
    assert R.mode_legal(enc, "bob", pistol, "suppressive", 1) is None
    assert R.mode_legal(enc, "ann", smg, "suppressive", 1) == "smg (smg) cannot fire suppressive"
    assert R.mode_legal(enc, "ann", rifle, "suppressive", 1) == "rifle (assault_rifle) cannot fire suppressive"
    enc, _ = encounter(tmp_path, [], rules="[rules]\nsuppressive_automatic = true")
    assert R.mode_legal(enc, "ann", R.weapon_of(enc, "ann", "smg"), "suppressive", 1) is None
    assert R.rounds_needed(enc, "ann", R.weapon_of(enc, "ann", "smg"), "suppressive", 1) == 6  # one burst


def test_zc_fire_2_suppressive_fire_pins_its_target_hit_or_miss(tmp_path: Path) -> None:
    """Seed 000: « Tir de barrage (semi-automatique) »: a barrage keeps heads down, hit or miss.

    Bob's barrage at Ann misses (-2D rolled 1, 1: difficulty 3; 3D: 1, 1, Joker 1 = 2); Ann is
    suppressed: -1D on her skill rolls this round and the next, not on resistance.
    """
    enc, seen = encounter(tmp_path, [1, 1, 1, 1, 1])
    plan = R.Plan(kind="shoot", targets=["ann"], weapon="pistol", mode="suppressive")
    R.shoot(enc, "bob", plan, lambda e, d, a: False)
    assert not of(seen, E.SkillTested)[0].success
    assert of(seen, E.AmmoSpent)[0].rounds == 2
    assert [(c.actor, c.condition, c.rule) for c in of(seen, E.ConditionSet)] == [("ann", "suppressed", "ZC-FIRE-2")]
    assert R.pool_penalties(enc, "ann", agility=False) == [("suppressed", -1, "ZC-FIRE-2")]
    assert R.pool_penalties(enc, "ann", agility=False, skill_roll=False) == []
    R.end_of_round(enc, 1)
    assert "suppressed" in enc.state.actors["ann"].conditions
    R.end_of_round(enc, 2)
    assert "suppressed" not in enc.state.actors["ann"].conditions


# --------------------------------------------------------------- ZC-MOVE-1


def test_zc_move_1_a_move_is_an_action_one_metre_per_count_from_its_count(tmp_path: Path) -> None:
    """Seed 000 says nothing of movement (« Initiative : Jet d'agilité, par tranche de 10 points, un
    personnage gagne une action »): a move is one of those actions, a metre per count from its count."""
    enc, seen = encounter(tmp_path, [])
    plan = R.Plan(kind="move", path=[(1, 2), (1, 3), (1, 4)])
    enc.env.process(play_turns(enc.env, [enc.system._move(enc, "ann", plan, 13, 0)]))  # type: ignore[attr-defined]
    enc.env.run()
    moves = [(m.metres, m.initiative, (m.x, m.y), m.rule) for m in of(seen, E.Moved)]
    assert moves == [(1, 13, (1, 2), "ZC-MOVE-1"), (2, 12, (1, 3), "ZC-MOVE-1"), (3, 11, (1, 4), "ZC-MOVE-1")]


# -------------------------------------------------------------- ZC-BRAWL-1


def test_zc_brawl_1_grab_holds_and_later_rounds_deal_strength_damage(tmp_path: Path) -> None:
    # grab: +2D difficulty (3 + 3 = 6): 16; brawl 3D: 6, 6, Joker 4 = 16 -> held
    enc, seen = encounter(tmp_path, [3, 3, 6, 6, 4])
    plan = R.Plan(kind="manoeuvre", manoeuvre="grab", targets=["ann"])
    R.strike(enc, "bob", plan, lambda e, d, a: False)
    assert enc.state.actors["ann"].conditions["grabbed"] == 1
    assert enc.state.actors["bob"].conditions["grabbing"] == 0
    assert not of(seen, E.DamageRolled)
    # Strength Damage: Puissance 4D+1 -> 4 dice halved = 2D (plain 3, Joker 2 = 5)
    seen.clear()
    # then ann resists with Puissance 3D + armour 1D+1 = 4D+1: 1, 1, 1, Joker 2, + 1 = 6
    enc.dice = ScriptedDice([3, 2, 1, 1, 1, 2])
    R.bite(enc, "bob", "ann")
    assert of(seen, E.DamageRolled)[0].total == 5
    assert of(seen, E.ThresholdComputed)[0].value == 1 + 1 + 1 + 2 + 1


def test_zc_brawl_1_knock_down_leaves_the_target_prone_and_off_balance(tmp_path: Path) -> None:
    enc, _ = encounter(tmp_path, [])
    R.manoeuvre_effect(enc, "ann", "bob", "knock_down")
    assert enc.state.actors["bob"].conditions == {"off_balance": 2, "prone": 0}
    assert R.pool_penalties(enc, "bob", agility=True) == [("off balance", -2, "ZC-BRAWL-1")]
    assert "off_balance" not in enc.state.actors["bob"].conditions


# ---------------------------------------------------------------- ZC-DMG-1


def test_zc_dmg_1_damage_is_the_weapon_code_plus_the_full_margin(tmp_path: Path) -> None:
    # smg 4D: 3, 3, 3, Joker 3 = 12, + margin 5 = 17; bob resists 4D+1: 2, 2, 2, Joker 2 + 1 = 9
    enc, seen = encounter(tmp_path, [3, 3, 3, 3, 2, 2, 2, 2])
    R.damage(enc, "ann", "bob", R.weapon_of(enc, "ann", "smg"), 5, 0, 0, None, 0)
    assert of(seen, E.DamageRolled)[0].total == 17
    wound = of(seen, E.WoundMarked)[0]
    assert (wound.level_name, wound.damage, wound.threshold) == ("Wounded", 17, 9)


def test_zc_dmg_1_option_margin_over_5(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [3, 3, 3, 3, 2, 2, 2, 2], rules='[rules]\nmargin_damage = "fifth"')
    R.damage(enc, "ann", "bob", R.weapon_of(enc, "ann", "smg"), 12, 0, 0, None, 0)
    assert of(seen, E.DamageRolled)[0].total == 12 + 2


# ---------------------------------------------------------------- ZC-RES-1


def test_zc_res_1_resistance_is_puissance_plus_armour(tmp_path: Path) -> None:
    # ann: Puissance 3D + armour 1D+1 = 4D+1: 1, 2, 3, Joker 4 + 1 = 11
    enc, seen = encounter(tmp_path, [1, 2, 3, 4])
    R.resist(enc, "ann", 11, stakes=0)
    assert of(seen, E.ThresholdComputed)[0].value == 11
    assert [n.text for n in of(seen, E.Noted)] == ["shrugs off 11 damage (resistance 11)"]


# -------------------------------------------------------------- ZC-WOUND-1


@pytest.mark.parametrize(
    ("excess", "level"), [(1, 0), (3, 0), (4, 1), (8, 1), (9, 3), (12, 3), (13, 4), (15, 4), (16, 5)]
)
def test_zc_wound_1_damage_over_resistance_sets_the_level(tmp_path: Path, excess: int, level: int) -> None:
    enc, _ = encounter(tmp_path, [])
    assert R.level_for(enc, excess) == level


def test_zc_wound_1_wounded_again_is_severely_wounded_at_minus_2d(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [])
    R.wound(enc, "ann", 10, 5)
    R.wound(enc, "ann", 2 + 5, 5)  # a Stunned hit below Wounded still raises one level
    assert [w.level_name for w in of(seen, E.WoundMarked)] == ["Wounded", "Severely Wounded"]
    assert R.wound_penalty(enc, "ann") == [("severely wounded", -2, "ZC-WOUND-1")]


def test_zc_wound_1_incapacitated_stamina_roll_vs_15_or_out_for_10d_minutes(tmp_path: Path) -> None:
    # stamina = Puissance 3D: 1, 2, Joker 3 = 6 < 15; 3 CP (ZC-CP-1: 9 short, 3 a die) 1, 1, 1: 9 < 15
    # -> unconscious for 10D minutes (all 2s: 20)
    enc, seen = encounter(tmp_path, [1, 2, 3, 1, 1, 1] + [2] * 10)
    R.wound(enc, "ann", 20, 10)
    cond = next(c for c in of(seen, E.ConditionSet) if c.condition == "unconscious")
    assert (cond.value, cond.until) == (20, 1200.0)
    assert not enc.state.actors["ann"].can_act()


def test_zc_wound_1_mortally_wounded_dies_when_puissance_is_below_the_time_spent(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [1, 1, 1], rules='[rules]\nmortal_unit = "rounds"')
    R.wound(enc, "ann", 24, 10)
    assert "mortally_wounded" in enc.state.actors["ann"].conditions
    enc.round = 5  # four rounds later: 3D rolls 1, 1, Joker 1 -> 1 + 1 (the other 1 cancelled) = 2 < 4
    assert R.mortal_roll(enc, "ann") is True
    assert of(seen, E.ActorDied)[0].cause == "mortal wound: Puissance 2 below 4 rounds"


# --------------------------------------------------------------- ZC-HEAL-1


def test_zc_heal_1_medicine_vs_15_heals_a_wounded_level(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [5, 5, 5])
    R.wound(enc, "ann", 10, 5)
    assert R.medicine_test(enc, "ann", "doc", DCode(3, 0)) is True
    assert of(seen, E.SkillTested)[0].difficulty == 15
    assert R.worst_level(enc.state.actors["ann"]) == -1
    assert enc.state.actors["ann"].monitors[WOUNDS].marked == [0, 0, 0, 0, 0, 0]


def test_zc_heal_1_natural_healing_puissance_vs_6_after_rest(tmp_path: Path) -> None:
    enc, seen = encounter(tmp_path, [1, 2, 2])
    R.wound(enc, "ann", 10, 5)
    assert R.natural_healing_roll(enc, "ann") is False  # Puissance 3D: 1 + 2 + Joker 2 = 5 < 6
    assert of(seen, E.SkillTested)[-1].difficulty == 6
