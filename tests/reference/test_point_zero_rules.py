"""Point Zéro: every other PZ rule ID, one worked example each, with fixed dice.

The examples the seed text itself works through are in
test_point_zero_seed_examples.py; these use the same engine calls on small
set-ups built in a line or two.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import encounter_for, run_fight
from fracas.core import events as E
from fracas.core.encounter import Encounter
from fracas.core.state import replay
from fracas.systems.point_zero import SYSTEM
from fracas.systems.point_zero import resolution as R
from fracas.systems.point_zero.rules import RULE_IDS

DUEL = """
system = "point_zero"
round_limit = {limit}
[map]
width = 40
height = 20
light = "{light}"
exits = [{{ name = "door", x = 0, y = 5 }}]
cover = [{{ name = "wall", x = 20, y = 10, w = 2, h = 2, level = "heavy" }}]
[[sides]]
id = "a"
[[sides]]
id = "b"
[[actors]]
id = "ann"
side = "a"
position = [{ax}, 5]
policy = "{apolicy}"
script = {ascript}
attributes = {{ PER = 3, ADR = 3, VIG = 3, COG = 3, INIT = 3, DEP = 18 }}
skills = {{ handguns = 4, melee = 3, brawl = 2, resistance = 3, medicine = 3 }}
armour = "{aarmour}"
weapons = [
  {{ name = "pistol", skill = "handguns", pu = "4d6", ammo = 12, reloads = 1 }},
  {{ name = "knife", skill = "melee", pu = "VIG", type = "blade" }},
  {{ name = "taser", skill = "handguns", pu = "3d6", damage = "shock", ammo = 2 }},
  {{ name = "shock baton", skill = "melee", pu = "2d6", damage = "both", type = "blunt" }},
]
[[actors]]
id = "bob"
side = "b"
position = [{bx}, 5]
policy = "{bpolicy}"
script = {bscript}
attributes = {{ PER = 3, ADR = {badr}, VIG = 3, COG = 2, INIT = 3, DEP = {bdep} }}
skills = {{ handguns = 3, melee = 2, resistance = 3 }}
armour = "{barmour}"
weapons = [{{ name = "pistol", skill = "handguns", pu = "4d6", ammo = 12 }}]
[aftermath]
duration = "{duration}"
care = "{care}"
medic = "ann"
"""


def duel(tmp_path: Path, **kw: object) -> Path:
    values: dict[str, object] = {
        "limit": 3,
        "light": "normal",
        "ax": 5,
        "bx": 10,
        "apolicy": "aggressive",
        "bpolicy": "aggressive",
        "ascript": "[]",
        "bscript": "[]",
        "aarmour": "none",
        "barmour": "none",
        "bdep": 15,
        "badr": 2,
        "duration": "0s",
        "care": "none",
    }
    values.update(kw)
    path = tmp_path / "duel.toml"
    path.write_text(DUEL.format(**values), encoding="utf-8")
    return path


def enc_for(tmp_path: Path, dice: list[int] | None = None, **kw: object) -> Encounter:
    return encounter_for(duel(tmp_path, **kw), dice or [])


def recording(enc: Encounter) -> list[E.Event]:
    seen: list[E.Event] = []
    enc.listeners.append(lambda seq, rnd, count, sec, ev: seen.append(ev))
    return seen


#: The PZ rule IDs of RULES.md, in its order (a test never reads a file outside the repository).
PZ_RULES_OF_RULES_MD = [
    "PZ-ROUND-1",
    "PZ-INIT-1",
    "PZ-INIT-2",
    "PZ-INIT-3",
    "PZ-INIT-4",
    "PZ-TIE-1",
    "PZ-MOVE-1",
    "PZ-MOVE-2",
    "PZ-MOVE-3",
    "PZ-MOVE-4",
    "PZ-TEST-1",
    "PZ-TEST-2",
    "PZ-TEST-3",
    "PZ-DIFF-1",
    "PZ-DIFF-2",
    "PZ-DIFF-3",
    "PZ-CRIT-1",
    "PZ-CRIT-2",
    "PZ-SURP-1",
    "PZ-DMG-1",
    "PZ-DMG-2",
    "PZ-SB-1",
    "PZ-SAVE-1",
    "PZ-ARMOR-1",
    "PZ-MON-1",
    "PZ-MON-2",
    "PZ-MON-3",
    "PZ-MON-4",
    "PZ-MON-5",
    "PZ-MON-6",
    "PZ-HEAL-1",
    "PZ-HEAL-2",
    "PZ-HEAL-3",
]


def test_every_pz_rule_id_of_rules_md_is_registered() -> None:
    assert list(RULE_IDS) == PZ_RULES_OF_RULES_MD


def test_pz_round_1_a_round_is_three_seconds(tmp_path: Path) -> None:
    fight = run_fight(duel(tmp_path, ax=1, bx=39, limit=2), tmp_path, seed="3")
    starts = [x.sec for x in fight.entries_of(E.RoundStarted)]
    assert starts == [0.0, 3.0]


def test_pz_init_2_an_actor_that_only_moves_has_initiative_dep(tmp_path: Path) -> None:
    script = '[{ action = "sprint", to = [30, 5] }]'
    # everyone rolls (PZ-INIT-3: whether one only moves is known once declared); Bob's sprint then takes DEP
    fight = run_fight(
        duel(tmp_path, bpolicy="scripted", bscript=script, limit=1),
        tmp_path,
        dice=[3, 3, 3, 1, 1, 1, 1, 1, 1, 1],
        seed="1",
    )
    bob = [e for e in fight.events(E.InitiativeSet) if e.actor == "bob"][-1]
    assert (bob.value, bob.rule) == (15, "PZ-INIT-2")


def test_pz_init_4_an_attack_on_a_target_that_fled_is_lost(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    seen = recording(enc)
    enc.emit(E.ActorFled(actor="bob", exit="door", rule="C-END-1"))
    R.attack(enc, "ann", "bob", "pistol", 0)
    lost = [e for e in seen if isinstance(e, E.ActionLost)]
    assert [(e.rule, e.reason) for e in lost] == [("PZ-INIT-4", "bob is no longer a target")]


def test_pz_tie_1_equal_initiative_goes_to_higher_adr(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    assert R.resolution_order(enc, {"bob": 10, "ann": 10}) == ["ann", "bob"]


def test_c_tie_1_equal_adr_and_dep_roll_off_with_logged_dice(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[2, 2, 1, 5], bdep=18, badr=3)
    seen = recording(enc)
    assert R.resolution_order(enc, {"ann": 9, "bob": 9}) == ["bob", "ann"]
    rolls = [e for e in seen if isinstance(e, E.DiceRolled)]
    assert [(e.actor, e.faces, e.rule) for e in rolls] == [
        ("ann", [2], "C-TIE-1"),
        ("bob", [2], "C-TIE-1"),
        ("ann", [1], "C-TIE-1"),
        ("bob", [5], "C-TIE-1"),
    ]
    assert [e.order for e in seen if isinstance(e, E.TieBroken)] == [["bob", "ann"]]


def test_pz_move_1_free_move_is_a_third_of_dep(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    assert (R.free_move(enc, "ann"), R.free_move(enc, "bob")) == (6, 5)


def test_pz_move_3_a_sprinter_is_shot_where_its_run_has_taken_it(tmp_path: Path) -> None:
    # ann (init 3+4+5 = 12) shoots bob, who sprints from x=10 (rolled 1+1+1, declared a sprint: init = DEP 15,
    # one metre per count)
    script = '[{ action = "sprint", to = [30, 5] }]'
    shoot = '[{ action = "shoot", target = "bob", weapon = "pistol" }]'  # the AI would move first
    dice = [3, 4, 5, 1, 1, 1, 1, 1, 1, 1]
    scenario = duel(tmp_path, apolicy="scripted", ascript=shoot, bpolicy="scripted", bscript=script, limit=1)
    fight = run_fight(scenario, tmp_path, dice=dice)
    shot = next(x for x in fight.entries_of(E.SkillTested))
    assert shot.count == 12
    state = replay([x for x in fight.entries if x.seq < shot.seq])
    assert (state.actors["bob"].x, state.actors["bob"].initiative) == (13, 12)
    bob_moves = [(x.count, x.ev.x) for x in fight.entries_of(E.Moved) if x.ev.actor == "bob"]
    assert bob_moves[:3] == [(14, 11), (13, 12), (12, 13)]
    assert all(x.ev.rule == "PZ-MOVE-3" for x in fight.entries_of(E.Moved) if x.ev.actor == "bob")


def test_pz_move_4_critique_moves_at_most_one_metre(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    enc.emit(
        E.WoundMarked(
            actor="ann", monitor="physical", level=2, level_name="Critique", damage=9, threshold=3, rule="PZ-MON-3"
        )
    )
    assert (R.free_move(enc, "ann"), R.sprint_distance(enc, "ann")) == (1, 1)


def test_pz_test_2_melee_is_tested_with_adr_and_pz_diff_2_against_10_plus_defender_level(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[6, 6, 5, 1, 1, 1, 1, 1, 1], bx=6)
    seen = recording(enc)
    R.attack(enc, "ann", "bob", "knife", 0)
    test = next(e for e in seen if isinstance(e, E.SkillTested))
    assert (test.skill, test.kept, test.difficulty_base, test.difficulty) == ("melee/ADR", 3, 10, 12)
    assert [(m.name, m.value, m.rule) for m in test.modifiers] == [("defender's melee 2", 2, "PZ-DIFF-2")]


def test_pz_test_3_a_total_equal_to_the_difficulty_succeeds_with_mr_0(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[4, 3, 3, 1])
    test = R.skill_test(enc, "ann", skill="handguns", attribute="PER", base=10, modifiers=[], purpose="t")
    assert (test.total, test.success, test.margin) == (10, True, 0)


@pytest.mark.parametrize(("bx", "band", "base"), [(6, "point blank", 5), (15, "short", 10), (30, "medium", 15)])
def test_pz_diff_1_range_bands_set_the_base_difficulty(tmp_path: Path, bx: int, band: str, base: int) -> None:
    enc = enc_for(tmp_path, bx=bx)
    weapon = R.weapon_of(enc, "ann", "pistol")
    got = R.ranged_difficulty(enc, "ann", "bob", weapon)
    assert got is not None
    assert got[0] == base
    assert got[1][0].name.endswith(band)


def test_pz_diff_1_beyond_extreme_range_the_shot_is_impossible(tmp_path: Path) -> None:
    text = duel(tmp_path, ax=0, bx=39).read_text().replace("width = 40", "width = 200")
    far = tmp_path / "far.toml"
    far.write_text(text.replace("position = [39, 5]", "position = [150, 5]"))
    enc = encounter_for(far)
    seen = recording(enc)
    R.attack(enc, "ann", "bob", "pistol", 0)
    assert [(e.rule, e.reason) for e in seen if isinstance(e, E.ActionLost)] == [
        ("PZ-DIFF-1", "bob is 150 m away, beyond pistol's extreme range")
    ]


def test_pz_diff_3_gloom_heavy_cover_and_aiming_modify_the_difficulty(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, light="gloom", bx=20)
    enc.emit(E.Moved(actor="bob", x=20, y=10, metres=0, initiative=0, rule="PZ-MOVE-2"))
    R.aim(enc, "ann", "bob")
    got = R.ranged_difficulty(enc, "ann", "bob", R.weapon_of(enc, "ann", "pistol"))
    assert got is not None
    assert [(m.name, m.value) for m in got[1][1:]] == [
        ("gloom", 2),
        ("heavy cover (wall)", 10),
        ("aimed a full round", -2),
    ]


def test_pz_crit_1_a_majority_of_sixes_doubles_the_mr_in_the_damage(tmp_path: Path) -> None:
    # 6,6,6,1 keep 3 = 18 vs 10: MR 8, doubled; PU 4d6 = 4; bob's save 1,1,1 fails
    enc = enc_for(tmp_path, dice=[6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1])
    seen = recording(enc)
    R.attack(enc, "ann", "bob", "pistol", 0)
    test = next(e for e in seen if isinstance(e, E.SkillTested))
    dmg = next(e for e in seen if isinstance(e, E.DamageRolled))
    assert test.critical == "success"
    assert (dmg.dice_total, dmg.bonus, dmg.total) == (4, 16, 20)
    assert [m.rule for m in dmg.modifiers] == ["PZ-DMG-1", "PZ-CRIT-1"]


def test_pz_surp_1_surpassing_rolls_extra_dice_and_marks_shock_boxes(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[1, 1, 2, 2, 2, 2])
    seen = recording(enc)
    R.attack(enc, "ann", "bob", "pistol", 2)
    roll = next(e for e in seen if isinstance(e, E.DiceRolled))
    assert len(roll.faces) == 6 and roll.fates.count("kept") == 3
    marks = [(e.monitor, e.level_name, e.rule) for e in seen if isinstance(e, E.WoundMarked)]
    assert marks == [("shock", "Secoué", "PZ-SURP-1"), ("shock", "Secoué", "PZ-SURP-1")]


def test_pz_dmg_2_a_c_weapon_marks_the_shock_monitor_only(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")
    R.take_hit(enc, "bob", 13, R.weapon_of(enc, "ann", "taser"))
    m = enc.state.actors["bob"].monitors
    assert (m["physical"].marked, m["shock"].marked) == ([0, 0, 0, 0], [0, 1, 0, 0])


def test_pz_mon_1_both_monitors_have_3_2_1_1_boxes(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    a = enc.state.actors["ann"]
    assert {m.name: (m.levels, m.boxes) for m in a.monitors.values()} == {
        "physical": (["Légère", "Grave", "Critique", "Fatale"], [3, 2, 1, 1]),
        "shock": (["Secoué", "Étourdi", "Sonné", "Inconscient"], [3, 2, 1, 1]),
    }


def test_pz_sb_1_and_pz_armor_1_a_vest_gives_half_against_blades(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, barmour="bulletproof_vest")
    assert R.natural_sb(enc, "bob") == 6
    assert R.armour_bonus(enc, "bob", R.weapon_of(enc, "ann", "pistol")) == 4
    assert R.armour_bonus(enc, "bob", R.weapon_of(enc, "ann", "knife")) == 2


def _unconscious(enc: Encounter, actor: str) -> None:
    enc.emit(E.ConditionSet(actor=actor, condition="unconscious", rule="PZ-MON-5"))


def test_pz_mon_2_physical_damage_below_sb_marks_the_lowest_shock_box(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")  # no save test while unconscious (PZ-SAVE-1)
    R.take_hit(enc, "bob", 5, R.weapon_of(enc, "ann", "pistol"))
    m = enc.state.actors["bob"].monitors
    assert (m["physical"].marked, m["shock"].marked) == ([0, 0, 0, 0], [1, 0, 0, 0])


def test_pz_mon_2_shock_damage_below_sb_does_nothing(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")
    R.take_hit(enc, "bob", 5, R.weapon_of(enc, "ann", "taser"))
    assert enc.state.actors["bob"].monitors["shock"].marked == [0, 0, 0, 0]


def test_pz_dmg_2_both_marks_each_monitor_with_one_total(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")
    R.take_hit(enc, "bob", 13, R.weapon_of(enc, "ann", "shock baton"))
    m = enc.state.actors["bob"].monitors
    assert (m["physical"].marked, m["shock"].marked) == ([0, 1, 0, 0], [0, 1, 0, 0])


def test_pz_mon_3_five_times_sb_kills_outright(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")
    R.take_hit(enc, "bob", 30, R.weapon_of(enc, "ann", "pistol"))
    assert "dead" in enc.state.actors["bob"].conditions


def test_pz_mon_4_a_full_level_marks_the_next_one_up(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[1] * 9)  # three failed saves
    seen = recording(enc)
    for _ in range(3):
        R.take_hit(enc, "bob", 13, R.weapon_of(enc, "ann", "pistol"))  # 13 // 6 = 2: Grave
    assert [e.level_name for e in seen if isinstance(e, E.WoundMarked)] == ["Grave", "Grave", "Critique"]
    assert [e.rule for e in seen if isinstance(e, E.WoundMarked)] == ["PZ-MON-3", "PZ-MON-3", "PZ-MON-4"]


def test_pz_mon_4_past_fatale_is_death(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    _unconscious(enc, "bob")
    for _ in range(2):
        R.take_hit(enc, "bob", 24, R.weapon_of(enc, "ann", "pistol"))  # 24 // 6 = 4: Fatale, then past it
    assert "dead" in enc.state.actors["bob"].conditions


def test_pz_mon_5_effects_of_the_worst_level(tmp_path: Path) -> None:
    enc = enc_for(tmp_path)
    for level, conditions in [(0, set()), (1, {"impaired"}), (2, {"impaired", "incapacitated"})]:
        enc.emit(
            E.WoundMarked(
                actor="ann", monitor="shock", level=level, level_name="x", damage=0, threshold=0, rule="PZ-MON-3"
            )
        )
        R.update_conditions(enc, "ann")
        assert set(enc.state.actors["ann"].conditions) == conditions
    assert R.effective_attribute(enc, "ann", "PER")[0] == 1


def run_aftermath(enc: Encounter) -> list[E.Event]:
    seen = recording(enc)
    enc.in_aftermath = True
    enc.env.process(SYSTEM.aftermath(enc))
    enc.env.run()
    return seen


def wound(enc: Encounter, actor: str, level: int, times: int = 1, monitor: str = "physical") -> None:
    for _ in range(times):
        enc.emit(
            E.WoundMarked(
                actor=actor, monitor=monitor, level=level, level_name="x", damage=0, threshold=0, rule="PZ-MON-3"
            )
        )
    R.update_conditions(enc, actor)


def test_pz_mon_6_critique_untreated_becomes_fatale_after_vig_hours_then_death_after_vig_minutes(
    tmp_path: Path,
) -> None:
    enc = enc_for(tmp_path, duration="1d")
    wound(enc, "bob", 2)
    seen = run_aftermath(enc)
    changes = [(type(e).__name__, enc.now_seconds) for e in seen if isinstance(e, (E.WoundWorsened, E.ActorDied))]
    assert changes[0][0] == "WoundWorsened"
    assert changes[1][0] == "ActorDied"
    worsened = next(e for e in seen if isinstance(e, E.WoundWorsened))
    assert worsened.rule == "PZ-MON-6"
    assert "dead" in enc.state.actors["bob"].conditions


def test_pz_heal_1_shock_clears_one_box_per_minute(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, duration="10min")
    wound(enc, "bob", 0, times=2, monitor="shock")
    wound(enc, "bob", 1, monitor="shock")
    times: list[float] = []
    enc.listeners.append(lambda seq, rnd, count, sec, ev: times.append(sec) if isinstance(ev, E.WoundHealed) else None)
    seen = run_aftermath(enc)
    healed = [(e.level, e.rule) for e in seen if isinstance(e, E.WoundHealed)]
    assert healed == [(1, "PZ-HEAL-1"), (0, "PZ-HEAL-1"), (0, "PZ-HEAL-1")]
    assert times == [60.0, 120.0, 180.0]


def _heal_times(tmp_path: Path, care: str, dice: list[int], levels: list[int]) -> list[tuple[float, int, int, int]]:
    enc = enc_for(tmp_path, dice=dice, duration="30d", care=care)
    for level in levels:
        wound(enc, "bob", level)
    out: list[tuple[float, int, int, int]] = []
    enc.listeners.append(
        lambda seq, rnd, count, sec, ev: (
            out.append((sec / 3600, ev.level, ev.to_level, ev.boxes)) if isinstance(ev, E.WoundHealed) else None
        )
    )
    run_aftermath(enc)
    return out


def test_pz_heal_2_a_legere_heals_in_48_h_with_care(tmp_path: Path) -> None:
    # PZ-HEAL-3: ann treats bob, Medicine 3 dice keep COG 3 = 4+1+1 = 6 vs Légère 5
    assert _heal_times(tmp_path, "first_aid", [4, 1, 1], [0]) == [(48.0, 0, -1, 1)]


def test_pz_heal_2_a_legere_heals_in_a_week_without_care(tmp_path: Path) -> None:
    assert _heal_times(tmp_path, "none", [], [0]) == [(168.0, 0, -1, 1)]


def test_pz_heal_2_two_legeres_and_two_graves_heal_all_at_once(tmp_path: Path) -> None:
    # difficulty for a Grave is 10: 4+4+4 = 12 succeeds; Légères gone at 2 days, Graves Légères at 7
    got = _heal_times(tmp_path, "first_aid", [4, 4, 4], [0, 0, 1, 1])
    assert got == [(48.0, 0, -1, 2), (168.0, 1, 0, 2), (216.0, 0, -1, 2)]


def test_pz_heal_3_treating_oneself_adds_2_to_the_difficulty(tmp_path: Path) -> None:
    enc = enc_for(tmp_path, dice=[2, 2, 2], care="first_aid")
    wound(enc, "ann", 0)
    seen = recording(enc)
    assert R.medicine_test(enc, "ann", enc.scenario.aftermath) is False
    test = next(e for e in seen if isinstance(e, E.SkillTested))
    assert (test.difficulty_base, test.difficulty, test.total) == (5, 7, 6)
