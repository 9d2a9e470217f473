"""d100 (seed 002_95e69bea9d096fe0.txt): one worked example per D100 rule ID, with fixed dice.

Each test builds a two-actor set-up (Ann shoots, Bob is shot at), scripts
the faces the rule text names, and calls the resolution in the order of
the seed's flow chart.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from conftest import encounter_for
from fracas.core import events as E
from fracas.core.encounter import Encounter
from fracas.systems.d100 import SYSTEM
from fracas.systems.d100 import resolution as R
from fracas.systems.d100.rules import RULE_IDS, D100Rules, dex_bonus

ANN: dict[str, Any] = {
    "id": "ann",
    "name": "Ann",
    "side": "a",
    "position": [1, 2],
    "policy": "passive",
    "characteristics": {"DEX": 12, "CON": 12, "POU": 10},
    "hp": 12,
    "skills": {"pistol": 60, "dodge": 50, "parry": 40, "mechanics": 30},
    "weapons": [
        {
            "name": "pistol",
            "skill": "pistol",
            "damage": "2d6",
            "panne": 95,
            "ammo": 6,
            "reloads": 1,
            "modes": ["lethal", "stun"],
        }
    ],
}
BOB: dict[str, Any] = {
    "id": "bob",
    "name": "Bob",
    "side": "b",
    "position": [10, 2],
    "policy": "passive",
    "characteristics": {"DEX": 12, "CON": 12, "POU": 10},
    "hp": 12,
    "skills": {"pistol": 50, "dodge": 50, "parry": 40, "mechanics": 30},
    "parry_object": "riot_shield",
    "weapons": [{"name": "pistol", "skill": "pistol", "damage": "1d10", "ammo": 6}],
}


def setup(
    tmp_path: Path,
    dice: list[int],
    *,
    ann: dict[str, Any] | None = None,
    bob: dict[str, Any] | None = None,
    others: list[dict[str, Any]] | None = None,
    cramped: list[dict[str, Any]] | None = None,
    aftermath: dict[str, Any] | None = None,
) -> tuple[Encounter, list[E.Event]]:
    """An encounter at round 1 with Ann and Bob on the map, and the list its events go to."""
    a, b = copy.deepcopy(ANN), copy.deepcopy(BOB)
    a.update(ann or {})
    b.update(bob or {})
    for actor in (a, b):
        for key in [k for k, v in actor.items() if v is None]:
            del actor[key]
    doc: dict[str, Any] = {
        "system": "d100",
        "name": "worked example",
        "round_limit": 5,
        "map": {"width": 20, "height": 5, "cramped": cramped or []},
        "sides": [{"id": "a"}, {"id": "b"}],
        "actors": [a, b, *(others or [])],
        "aftermath": aftermath or {"duration": "1h"},
    }
    path = tmp_path / "example.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    enc = encounter_for(path, dice)
    seen: list[E.Event] = []
    enc.listeners.append(lambda seq, rnd, count, sec, ev: seen.append(ev))
    return enc, seen


def of(events: list[E.Event], kind: type[Any]) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def attack_test(events: list[E.Event]) -> E.SkillTested:
    return next(e for e in of(events, E.SkillTested) if e.skill == "pistol")


def test_every_d100_rule_id_is_listed() -> None:
    assert list(RULE_IDS) == [
        "D100-ROLL-1",
        "D100-CRIT-1",
        "D100-INIT-1",
        "D100-TURN-1",
        "D100-REACT-1",
        "D100-DODGE-1",
        "D100-PARRY-1",
        "D100-JAM-1",
        "D100-ATK-1",
        "D100-ATK-2",
        "D100-ATK-3",
        "D100-STUN-1",
        "D100-LETHAL-1",
        "D100-HP-1",
        "D100-HEAL-1",
    ]
    assert SYSTEM.rule_ids is RULE_IDS


# --------------------------------------------------------------------- rolls


@pytest.mark.parametrize(
    ("roll", "base", "success", "critical", "rule"),
    [
        (50, 50, True, "", "D100-ROLL-1"),
        (51, 50, False, "", "D100-ROLL-1"),
        (1, -10, True, "", "D100-ROLL-1"),  # 01 always succeeds
        (100, 150, False, "fumble", "D100-ATK-2"),  # 100 always fails; a double above the skill on an attack
    ],
)
def test_roll_1_success_is_a_roll_under_the_modified_skill(
    tmp_path: Path, roll: int, base: int, success: bool, critical: str, rule: str
) -> None:
    enc, seen = setup(tmp_path, [roll])
    test, _ = R.d100_test(
        enc, "ann", skill="pistol", base=base, modifiers=[], purpose="t", rule="D100-ATK-1", attack=True
    )
    assert (test.success, test.critical, test.rule) == (success, critical, rule)
    assert of(seen, E.DiceRolled)[0].rule == "D100-ATK-1"


@pytest.mark.parametrize(
    ("roll", "band"),
    [
        (44, "critical_success"),
        (9, "critical_success"),
        (10, "success"),
        (91, "critical_failure"),
        (77, "critical_failure"),
    ],
)
def test_crit_1_doubles_and_margins_of_41(tmp_path: Path, roll: int, band: str) -> None:
    enc, _ = setup(tmp_path, [roll])
    test, got = R.d100_test(enc, "ann", skill="dodge", base=50, modifiers=[], purpose="t", rule="D100-DODGE-1")
    assert got == band
    assert test.rule == ("D100-ROLL-1" if band == "success" else "D100-CRIT-1")


# ---------------------------------------------------------------- initiative


def test_init_1_dex_bonus_table() -> None:
    r = D100Rules()
    assert [dex_bonus(r, d) for d in (3, 5, 6, 8, 9, 12, 13, 15, 16, 18, 19, 21, 22, 24, 25)] == [
        -2, -2, -1, -1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5,
    ]  # fmt: skip


def test_init_1_initiative_is_1d12_plus_dex_plus_bonus(tmp_path: Path) -> None:
    enc, _seen = setup(tmp_path, [7, 7], ann={"characteristics": {"DEX": 13, "CON": 12}})
    assert R.roll_initiative(enc, "ann") == 7 + 13 + 1
    enc.emit(E.ConditionSet(actor="ann", condition=R.TETANISED, value=2, rule="D100-STUN-1"))
    assert R.roll_initiative(enc, "ann") == 7 + 8 - 1  # tetanised: DEX -5, and its bonus follows


def test_init_1_ties_go_to_the_higher_dex_then_a_new_1d12(tmp_path: Path) -> None:
    enc, _seen = setup(tmp_path, [3, 9], bob={"characteristics": {"DEX": 14, "CON": 12}})
    assert R.resolution_order(enc, {"ann": 20, "bob": 20}) == ["bob", "ann"]  # DEX 14 before DEX 12
    enc2, seen2 = setup(tmp_path, [3, 9])
    assert R.resolution_order(enc2, {"ann": 20, "bob": 20}) == ["bob", "ann"]  # 1D12: 3 vs 9
    assert [e.purpose for e in of(seen2, E.DiceRolled)] == ["initiative tie: 1D12 again"] * 2
    assert of(seen2, E.TieBroken)[0].order == ["bob", "ann"]


# ------------------------------------------------------------------ the turn


def test_turn_1_a_reload_takes_the_rest_of_the_round_and_forbids_reactions(tmp_path: Path) -> None:
    """Seed 002: « Attaquant : Recharger son arme (tout le round est utilisé). »

    Ann (initiative 12) reloads on her turn; Bob (1) shoots later in the round: Ann cannot dodge.
    """
    # initiative Ann 1D12 = 12, Bob 1D12 = 1; Bob's shot: Panne 10, attack 90 (a miss)
    enc, seen = setup(tmp_path, [12, 1, 10, 90], ann={"policy": "raider"})
    enc.emit(E.AmmoSpent(actor="ann", weapon="pistol", rounds=6, left=0, rule="D100-ATK-1"))
    enc.env.process(SYSTEM.play_round(enc, 1))
    enc.env.run()
    declared = [(e.actor, e.action) for e in of(seen, E.ActionDeclared)]
    assert declared == [("ann", "reload"), ("bob", "shoot")]  # Ann cannot dodge: she is reloading
    reload = of(seen, E.Reloaded)[0]
    assert (reload.weapon, reload.rounds, reload.spare_left) == ("pistol", 6, 0)
    assert enc.current_count() == 0  # the magazine is in at the end of the round
    assert enc.state.actors["ann"].ammo["pistol"] == 6
    assert "reloading" not in enc.state.actors["ann"].conditions


def test_turn_1_a_weapon_emptied_last_round_is_reloaded_when_its_owners_turn_comes(tmp_path: Path) -> None:
    """Seed 002: « Par ordre décroissant, chaque personnage agit [...] Recharger son arme (tout le round est utilisé) ».

    The reload is chosen on the owner's turn, in the descending order: before it Ann (initiative 1) has
    not started reloading and may still dodge Bob's shot (initiative 12); the magazine is in at the end
    of the round. (Edition 1 committed the reload as the round started: no dodge.)
    """
    # initiative Ann 1, Bob 12; Bob's shot: Ann's dodge 60 (fails, 50), Panne 10, attack 90 (a miss)
    enc, seen = setup(tmp_path, [1, 12, 60, 10, 90], ann={"policy": "raider"})
    enc.emit(E.AmmoSpent(actor="ann", weapon="pistol", rounds=6, left=0, rule="D100-ATK-1"))
    enc.env.process(SYSTEM.play_round(enc, 1))
    enc.env.run()
    declared = [(e.actor, e.action) for e in of(seen, E.ActionDeclared)]
    assert declared == [("bob", "shoot"), ("ann", "dodge"), ("ann", "reload")]
    assert enc.state.actors["ann"].ammo["pistol"] == 6 and enc.current_count() == 0
    assert "reloading" not in enc.state.actors["ann"].conditions


# ----------------------------------------------------------------- reactions


def test_react_1_each_further_reaction_in_a_round_costs_20_more(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [60, 60, 60, 60])
    for _ in range(3):
        R.react(enc, "bob", "ann", "dodge")
    assert [t.difficulty for t in of(seen, E.SkillTested)] == [50, 30, 10]
    enc.round = 2
    R.react(enc, "bob", "ann", "dodge")
    assert of(seen, E.SkillTested)[-1].difficulty == 50  # a new round: free again


def test_react_1_dodging_needs_room_and_parrying_an_object(tmp_path: Path) -> None:
    cramped = [{"name": "doorway", "x": 9, "y": 0, "w": 3, "h": 5}]
    enc, seen = setup(tmp_path, [], bob={"parry_object": None}, cramped=cramped)
    assert R.react(enc, "bob", "ann", "dodge").kind == "none"
    assert R.react(enc, "bob", "ann", "parry").kind == "none"
    assert not of(seen, E.DiceRolled)


@pytest.mark.parametrize(("attack_roll", "hit"), [(35, False), (30, True)])
def test_dodge_1_a_successful_dodge_makes_a_60_percent_shooter_roll_under_30(
    tmp_path: Path, attack_roll: int, hit: bool
) -> None:
    # dodge 20 under 50 (success), Panne 10, the attack roll, then 2d6 damage 3 + 2
    enc, seen = setup(tmp_path, [20, 10, attack_roll, 3, 2])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "dodge")
    test = attack_test(seen)
    assert test.difficulty_base == 60
    assert [(m.name, m.value, m.rule) for m in test.modifiers] == [("Bob's dodge: success", -30, "D100-DODGE-1")]
    assert test.difficulty == 30
    assert test.success is hit
    assert bool([n for n in of(seen, E.Noted) if n.rule == "D100-ATK-3"]) is not hit


@pytest.mark.parametrize(("dodge_roll", "modifier"), [(5, -50), (20, -30), (60, 0), (95, 10)])
def test_dodge_1_bands(tmp_path: Path, dodge_roll: int, modifier: int) -> None:
    enc, _ = setup(tmp_path, [dodge_roll])
    assert R.react(enc, "bob", "ann", "dodge").modifiers[0].value == modifier


def test_parry_1_a_critically_failed_parry_gives_the_attacker_10(tmp_path: Path) -> None:
    # parry 99 (a double above 40), Panne 10, attack 65 under 60 + 10, damage 2d6 = 1 + 2
    enc, seen = setup(tmp_path, [99, 10, 65, 1, 2])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "parry")
    parry = of(seen, E.SkillTested)[0]
    assert (parry.skill, parry.critical) == ("parry", "failure")
    test = attack_test(seen)
    assert [(m.value, m.rule) for m in test.modifiers] == [(10, "D100-PARRY-1")]
    assert (test.difficulty, test.success) == (70, True)
    assert enc.state.actors["bob"].hp == 12 - 3


@pytest.mark.parametrize(
    ("parry_roll", "obj", "damage", "lost"),
    [
        (30, "riot_shield", [6, 6], 0),  # 12 - 12
        (30, "small_shield", [6, 6], 4),  # 12 - 8
        (22, "small_shield", [6, 6], 0),  # a critical parry: 8 x 1.5 = 12
        (30, "knife", [6, 6], 12),  # not a shield: nothing against gunfire
        (30, "force_shield", [6, 6], 0),  # stops everything
        (70, "riot_shield", [6, 6], 12),  # a failed parry reduces nothing
    ],
)
def test_parry_1_reductions(tmp_path: Path, parry_roll: int, obj: str, damage: list[int], lost: int) -> None:
    enc, seen = setup(tmp_path, [parry_roll, 10, 20, *damage], bob={"parry_object": obj, "hp": 30})
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "parry")
    assert of(seen, E.DamageRolled)[0].total == lost
    assert enc.state.actors["bob"].hp == 30 - lost


# --------------------------------------------------------------- malfunction


def test_jam_1_panne_95_roll_97_luck_failed_table_6_is_a_jam(tmp_path: Path) -> None:
    # no reaction; Panne 97 >= 95; Luck (POU 10 x 5 = 50) 80 fails; table 6: jam
    enc, seen = setup(tmp_path, [97, 80, 6])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert [d.purpose for d in of(seen, E.DiceRolled)] == [
        "Panne of the pistol (95)",
        "Luck: does the weapon hold?",
        "malfunction table (pistol)",
    ]
    luck = of(seen, E.SkillTested)[0]
    assert (luck.skill, luck.difficulty, luck.success) == ("luck", 50, False)
    assert [(w.weapon, w.state, w.rule) for w in of(seen, E.WeaponStateChanged)] == [("pistol", "jammed", "D100-JAM-1")]
    assert not of(seen, E.AmmoSpent)  # the shot does not happen


def test_jam_1_a_lucky_shooter_fires_normally(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [97, 30, 80])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert of(seen, E.AmmoSpent)[0].left == 5
    assert attack_test(seen).total == 80


def test_jam_1_below_the_panne_no_luck_roll(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [94, 80])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert [d.purpose for d in of(seen, E.DiceRolled)][0:2] == [
        "Panne of the pistol (95)",
        "pistol shot at Bob (lethal)",
    ]


@pytest.mark.parametrize(
    ("face", "extra", "state", "hp"),
    [
        (1, [], None, 12),  # misfire: the action is lost
        (8, [4], "seriously jammed", 12),  # 1D6 = 4 rounds of work
        (10, [3], "broken", 9),  # an energy weapon overheats: 1D3 = 3, no armour
    ],
)
def test_jam_1_malfunction_table(tmp_path: Path, face: int, extra: list[int], state: str | None, hp: int) -> None:
    ann = copy.deepcopy(ANN)
    ann["weapons"][0]["energy"] = True
    ann["armour"] = "kevlar"
    enc, seen = setup(tmp_path, [97, 80, face, *extra], ann=ann)
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert [w.state for w in of(seen, E.WeaponStateChanged)] == ([state] if state else [])
    assert enc.state.actors["ann"].hp == hp
    if face == 1:
        assert of(seen, E.ActionLost)[0].reason == "the pistol misfires"
    if face == 8:
        assert enc.state.actors["ann"].conditions["unjamming the pistol"] == 4


def test_jam_1_clearing_a_jam_and_a_serious_jam(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [70, 55, 25])
    w = R.weapon_of(enc, "ann", "pistol")
    assert w is not None
    enc.emit(E.WeaponStateChanged(actor="ann", weapon="pistol", state="jammed", rule="D100-JAM-1"))
    R.clear_jam(enc, "ann", w)  # weapon skill 60 beats Mechanics 30: 70 fails
    R.clear_jam(enc, "ann", w)  # retried next round: 55 clears it
    assert enc.state.actors["ann"].weapons["pistol"] == "ready"
    enc.emit(E.WeaponStateChanged(actor="ann", weapon="pistol", state="seriously jammed", rule="D100-JAM-1"))
    enc.emit(E.ConditionSet(actor="ann", condition="unjamming the pistol", value=2, rule="D100-JAM-1"))
    R.work_serious_jam(enc, "ann", w)  # 2 -> 1 round of work left, no roll
    R.work_serious_jam(enc, "ann", w)  # the work is done: Mechanics 30 - 20 = 10; 25 fails
    tests = of(seen, E.SkillTested)
    assert [(t.skill, t.difficulty, t.success) for t in tests] == [
        ("pistol", 60, False),
        ("pistol", 60, True),
        ("mechanics", 10, False),
    ]
    assert enc.state.actors["ann"].weapons["pistol"] == "seriously jammed"


# -------------------------------------------------------------------- attack


def test_atk_1_every_modifier_is_named(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 20, 90])
    for cond in (R.TETANISED, R.WOUNDED, R.IS_OFF_BALANCE):
        enc.emit(E.ConditionSet(actor="ann", condition=cond, value=1, rule="D100-HP-1"))
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "dodge")
    test = attack_test(seen)
    assert [(m.name, m.value, m.rule) for m in test.modifiers] == [
        ("Bob's dodge: success", -30, "D100-DODGE-1"),
        ("wounded", -10, "D100-HP-1"),
        ("tetanised", -10, "D100-STUN-1"),
        ("off balance", -20, "D100-ATK-2"),
    ]
    assert test.difficulty == 60 - 70


def test_atk_2_77_above_a_skill_of_50_is_a_fumble(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 77, 4], ann={"skills": {"pistol": 50}})
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    test = attack_test(seen)
    assert (test.total, test.difficulty, test.critical, test.rule) == (77, 50, "fumble", "D100-ATK-2")
    assert of(seen, E.DiceRolled)[-1].purpose == "fumble table (pistol)"
    assert enc.state.actors["ann"].weapons["pistol"] == "dropped"  # 4: weapon dropped


def test_atk_2_an_actor_off_balance_who_fumbles_off_balance_again_stays_off_balance(tmp_path: Path) -> None:
    """Seed 002: « Supérieur à la Compétence et un double naturel : Jet dans la "Table des maladresses aux tirs" ».

    Off balance (D100-ATK-2 [default]) costs -20 on the *next* action: an actor whose off-balance shot
    fumbles off balance again carries the new condition to its next action (duel.toml seed 281, round 3:
    Kestrel rolls 99 at -20 and fumbles a 2; edition 1 cleared the new condition in the same turn).
    """
    from conftest import SCENARIOS, run_fight

    entries = run_fight(SCENARIOS / "d100" / "duel.toml", tmp_path, seed="281").entries
    events = [e.ev for e in entries]
    off: set[str] = set()
    again: list[tuple[int, str]] = []
    for i, ev in enumerate(events):
        if isinstance(ev, E.ConditionSet) and ev.condition == R.IS_OFF_BALANCE:
            if ev.actor in off:
                again.append((i, ev.actor))
            off.add(ev.actor)
        elif isinstance(ev, E.ConditionCleared) and ev.condition == R.IS_OFF_BALANCE:
            off.discard(ev.actor)
    assert again, "seed 281 has an off-balance actor fumbling off balance again"
    for i, actor in again:
        later = events[i + 1 :]
        nxt = next(k for k, e in enumerate(later) if isinstance(e, E.ActionDeclared) and e.actor == actor)
        assert not [
            e
            for e in later[:nxt]
            if isinstance(e, E.ConditionCleared) and e.actor == actor and e.condition == R.IS_OFF_BALANCE
        ]
        own = [e for e in later[nxt:] if isinstance(e, E.SkillTested) and e.actor == actor]
        roll = next(e for e in own if e.skill not in ("dodge", "parry"))
        assert "off balance" in [m.name for m in roll.modifiers]


@pytest.mark.parametrize(
    ("face", "extra", "check"),
    [
        (2, [], lambda a: "off balance" in a.conditions),
        (6, [5], lambda a: a.weapons["pistol"] == "jammed"),  # straight to the table: 5 is a jam, no Luck roll
        (8, [], lambda a: "prone" in a.conditions),
        (10, [3, 3, 10], lambda a: a.hp == 12 - 6),  # hits self: 2d6 = 3 + 3, no armour; CON x 5: 10
    ],
)
def test_atk_2_fumble_table(tmp_path: Path, face: int, extra: list[int], check: Any) -> None:
    enc, seen = setup(tmp_path, [10, 77, face, *extra], ann={"skills": {"pistol": 50}})
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert check(enc.state.actors["ann"])
    assert "Luck: does the weapon hold?" not in [d.purpose for d in of(seen, E.DiceRolled)]


def test_atk_2_a_stray_shot_flies_at_the_nearest_person_near_the_line_of_fire(tmp_path: Path) -> None:
    cal = copy.deepcopy(BOB)
    cal.update({"id": "cal", "name": "Cal", "side": "a", "position": [5, 4]})  # 2 m off the line y = 2
    dan = copy.deepcopy(BOB)
    dan.update({"id": "dan", "name": "Dan", "side": "a", "position": [5, 1]})  # 1 m off it: nearer
    # Panne 10, attack 77 fumble, table 9: stray shot at Dan, base skill 50: 40 hits, 2d6 = 2 + 2
    enc, seen = setup(tmp_path, [10, 77, 9, 40, 2, 2], ann={"skills": {"pistol": 50}}, others=[cal, dan])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert R.stray_target(enc, "ann", "bob") == "dan"
    stray = of(seen, E.SkillTested)[-1]
    assert (stray.target, stray.difficulty, stray.modifiers) == ("dan", 50, [])
    assert enc.state.actors["dan"].hp == 12 - 4


def test_atk_3_above_the_skill_is_a_miss(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 61])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert [(n.text, n.rule) for n in of(seen, E.Noted)] == [("the shot misses Bob", "D100-ATK-3")]


# ---------------------------------------------------------------------- stun


def test_stun_1_a_1d4_of_4_always_fails_and_paralyses_for_10d6_minutes(tmp_path: Path) -> None:
    # Panne 10, attack 20; 1D4 = 4: CON x 0; 10D6 all 3s = 30 minutes
    enc, seen = setup(tmp_path, [10, 20, 4, *[3] * 10])
    R.shoot(enc, "ann", "bob", "pistol", "stun", "none")
    assert not [t for t in of(seen, E.SkillTested) if t.actor == "bob"]  # no roll can save him
    assert of(seen, E.Noted)[0].text == "CON 12 x 0 = 0: the stun cannot be resisted"
    para = of(seen, E.ConditionSet)[-1]
    assert (para.condition, para.value, para.until) == ("paralysed", 30, 1800.0)
    assert not enc.state.actors["bob"].can_act()


def test_stun_1_a_success_tetanises_for_1d3_plus_1_rounds(tmp_path: Path) -> None:
    # Panne 10, attack 20; 1D4 = 1: CON 12 x 3 = 36; 30 succeeds; 1D3 = 2: 3 rounds
    enc, seen = setup(tmp_path, [10, 20, 1, 30, 2])
    R.shoot(enc, "ann", "bob", "pistol", "stun", "none")
    tet = of(seen, E.ConditionSet)[-1]
    assert (tet.condition, tet.value, tet.until) == ("tetanised", 3, 20.0)  # until the end of round 4
    assert [m.name for m in R.standing_modifiers(enc, "bob", "dodge")] == ["tetanised"]
    assert R.effective_dex(enc, "bob") == 7
    enc.env.run(until=R.round_end_tick(enc, 1))
    R.end_of_round(enc, 1)
    assert enc.state.actors["bob"].conditions["tetanised"] == 3  # three full rounds still to come


def test_stun_1_sealed_armour_keeps_the_stun_out(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 20], bob={"sealed": True})
    R.shoot(enc, "ann", "bob", "pistol", "stun", "none")
    assert of(seen, E.Noted)[-1].text == "sealed armour keeps the stun out"


# -------------------------------------------------------------------- lethal


def test_lethal_1_12_damage_against_kevlar_8_removes_4_hp(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 20, 6, 6], bob={"armour": "kevlar"})
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    dmg = of(seen, E.DamageRolled)[0]
    assert (dmg.dice_total, dmg.total) == (12, 4)
    assert [(m.name, m.value) for m in dmg.modifiers] == [("armour: kevlar", -8)]
    assert of(seen, E.HitPointsChanged)[0].delta == -4
    assert enc.state.actors["bob"].hp == 8


def test_lethal_1_a_critical_hit_does_maximum_damage(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 11], bob={"armour": "kevlar", "hp": 20})  # 11: a double under 60
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    dmg = of(seen, E.DamageRolled)[0]
    assert (dmg.dice_total, dmg.total) == (12, 4)
    assert len(of(seen, E.DiceRolled)) == 2  # no damage dice


# ---------------------------------------------------------------- HP effects


@pytest.mark.parametrize(("con_roll", "knocked_out"), [(60, False), (61, True)])
def test_hp_1_a_hit_of_half_max_hp_forces_the_con_x_5_roll(tmp_path: Path, con_roll: int, knocked_out: bool) -> None:
    # 2d6 = 3 + 3 = 6 = half of 12 HP; CON 12 x 5 = 60; a knockout lasts 1D10 = 5 minutes
    enc, seen = setup(tmp_path, [10, 20, 3, 3, con_roll, 5])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    major = of(seen, E.SkillTested)[-1]
    assert (major.actor, major.skill, major.difficulty) == ("bob", "CON x 5", 60)
    assert ("unconscious" in enc.state.actors["bob"].conditions) is knocked_out
    assert "wounded" in enc.state.actors["bob"].conditions  # 6 / 12 = 50 %: -10


def test_hp_1_a_smaller_hit_needs_no_con_roll(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 20, 3, 2])
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert of(seen, E.SkillTested)[-1].actor == "ann"
    assert enc.state.actors["bob"].conditions == {}


def test_hp_1_penalties_by_hp_remaining(tmp_path: Path) -> None:
    enc, _ = setup(tmp_path, [], bob={"hp": 20})
    seen = []
    for hp in (11, 10, 6, 5, 3, 2):
        enc.emit(E.HitPointsChanged(actor="bob", delta=0, hp=hp, rule="D100-HP-1"))
        R.wound_penalties(enc, "bob")
        seen.append(sorted(enc.state.actors["bob"].conditions))
    assert seen == [[], ["wounded"], ["wounded"], ["badly wounded"], ["badly wounded"], []]


def test_hp_1_dying_dies_at_the_end_of_the_next_round(tmp_path: Path) -> None:
    enc, seen = setup(tmp_path, [10, 20, 4, 3])
    enc.emit(E.HitPointsChanged(actor="bob", delta=-7, hp=5, rule="D100-LETHAL-1"))
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")  # 7 damage: HP -2
    bob = enc.state.actors["bob"]
    assert (bob.hp, bob.conditions) == (-2, {"unconscious": 0, "dying": 2})
    R.end_of_round(enc, 1)
    assert "dead" not in bob.conditions
    R.end_of_round(enc, 2)
    assert of(seen, E.ActorDied)[0].cause == "dying, not healed by the end of the next round"


@pytest.mark.parametrize(
    ("start", "damage", "cause"),
    [
        (14, [6, 6, 6], "a single hit of 18 >= max HP 14"),
        (1, [6, 6], "HP -11 <= -CON (-8)"),
    ],
)
def test_hp_1_death(tmp_path: Path, start: int, damage: list[int], cause: str) -> None:
    ann = copy.deepcopy(ANN)
    ann["weapons"][0]["damage"] = f"{len(damage)}d6"
    enc, seen = setup(tmp_path, [10, 20, *damage], ann=ann, bob={"hp": 14, "characteristics": {"DEX": 12, "CON": 8}})
    enc.emit(E.HitPointsChanged(actor="bob", delta=start - 14, hp=start, rule="D100-LETHAL-1"))
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    assert [(d.cause, d.rule) for d in of(seen, E.ActorDied)] == [(cause, "D100-HP-1")]


def test_hp_1_first_aid_saves_the_dying_after_the_fight(tmp_path: Path) -> None:
    after = {"duration": "1h", "care": "first_aid", "medicine": 50}
    enc, seen = setup(tmp_path, [10, 20, 4, 3, 40], aftermath=after)
    enc.emit(E.HitPointsChanged(actor="bob", delta=-7, hp=5, rule="D100-LETHAL-1"))
    R.shoot(enc, "ann", "bob", "pistol", "lethal", "none")
    enc.env.process(SYSTEM.aftermath(enc))
    enc.env.run()
    bob = enc.state.actors["bob"]
    assert (bob.hp, sorted(bob.conditions)) == (1, ["unconscious"])
    assert not of(seen, E.ActorDied)


# ------------------------------------------------------------------- healing


def test_heal_1_one_hp_a_day_doubled_with_medicine(tmp_path: Path) -> None:
    after = {"duration": "3d", "care": "medicine", "medicine": 50}
    enc, seen = setup(tmp_path, [30], bob={"hp": 20}, aftermath=after)
    enc.emit(E.HitPointsChanged(actor="bob", delta=-10, hp=10, rule="D100-LETHAL-1"))
    enc.env.process(SYSTEM.aftermath(enc))
    enc.env.run()
    heals = [e for e in of(seen, E.HitPointsChanged) if e.rule == "D100-HEAL-1"]
    assert [(h.delta, h.hp) for h in heals] == [(2, 12), (2, 14), (2, 16)]
    assert enc.now_seconds == 3 * 86400


def test_heal_1_without_medicine_one_hp_a_day(tmp_path: Path) -> None:
    enc, _seen = setup(tmp_path, [], bob={"hp": 20}, aftermath={"duration": "2d"})
    enc.emit(E.HitPointsChanged(actor="bob", delta=-10, hp=10, rule="D100-LETHAL-1"))
    enc.env.process(SYSTEM.aftermath(enc))
    enc.env.run()
    assert enc.state.actors["bob"].hp == 12
