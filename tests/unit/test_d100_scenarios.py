"""d100 scenarios: they load, their errors say where and why, and the corridor fight shows every rule at work."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SCENARIOS, run_fight
from fracas.core import events as E
from fracas.core.errors import ScenarioError
from fracas.core.scenario import load_scenario
from fracas.systems.d100 import SYSTEM
from fracas.systems.d100 import odds as odds_module

DUEL = SCENARIOS / "d100" / "duel.toml"
CORRIDOR = SCENARIOS / "d100" / "corridor.toml"


def test_the_system_exposes_its_odds_module() -> None:
    assert SYSTEM.odds is odds_module
    assert SYSTEM.odds.odds(60, -30).p_success == odds_module.odds(30).p_success


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            '{ name = "pistol", skill = "handgun"',
            '{ name = "pistol", skill = "rifle"',
            "48:22: $.actors[1].weapons[0].skill: "
            "expected one of kestrel's skills (handgun, dodge, mechanics), got 'rifle'",
        ),
        (
            'armour = "kevlar"',
            'armour = "chainmail"',
            "46:1: $.actors[1].armour: unknown armour 'chainmail' (expected one of none, heavy_clothing, stab_vest,"
            " kevlar, kevlar_plates, combat_armour)",
        ),
        (
            'modes = ["stun", "lethal"]',
            'modes = ["stun", "laser"]',
            "34:70: $.actors[0].weapons[0].modes: expected modes among stun, lethal, got ['stun', 'laser']",
        ),
        (
            'damage = "1d10+2"',
            'damage = "d10"',
            "48:41: $.actors[1].weapons[0].damage: expected dice like 1d8, 2d6+2 or 1d10+1d4, got 'd10'",
        ),
        ("panne = 95", "panne = 0", "48:60: $.actors[1].weapons[0].panne: expected `int` >= 1, got 0"),
        (
            'policy = "raider"',
            'policy = "berserk"',
            "42:1: $.actors[1].policy: unknown policy 'berserk' "
            "(expected one of aggressive, security, raider, passive, human)",
        ),
        ("hp = 13", "hp = 13\nsanity = 40", "45:1: $.actors[1].sanity: unknown field `sanity`"),
        (
            'care = "first_aid"',
            'care = "prayer"',
            "53:1: $.aftermath.care: unknown care 'prayer' (expected one of none, first_aid, medicine)",
        ),
    ],
)
def test_bad_scenarios_name_file_line_path_and_why(tmp_path: Path, old: str, new: str, message: str) -> None:
    text = DUEL.read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(bad)
    assert str(info.value) == f"{bad}:{message}"


def test_rules_overrides_reach_the_log_header(tmp_path: Path) -> None:
    text = DUEL.read_text(encoding="utf-8").replace(
        "round_limit = 15", "round_limit = 1\n[rules]\nfurther_reaction = -10"
    )
    path = tmp_path / "duel.toml"
    path.write_text(text, encoding="utf-8")
    fight = run_fight(path, tmp_path, seed="1")
    header = fight.events(E.EncounterStarted)[0]
    assert header.rules["further_reaction"] == -10
    assert header.rules["paralysis_minutes"] == "10d6"


def test_a_bad_rules_override_is_refused(tmp_path: Path) -> None:
    text = DUEL.read_text(encoding="utf-8").replace(
        "round_limit = 15", 'round_limit = 1\n[rules]\ndex_bonus_step = "3"'
    )
    path = tmp_path / "duel.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == f"{path}:10:1: $.rules.dex_bonus_step: expected `int`, got `str`"


def test_corridor_seeds_72_and_6_show_reactions_malfunctions_fumbles_stuns_and_wounds(tmp_path: Path) -> None:
    # rules edition 5 (the competent AI) plays other fights than edition 4's seed 5, which held all of it
    fight = run_fight(CORRIDOR, tmp_path, seed="72")
    reactions = {e.action for e in fight.events(E.ActionDeclared) if e.rule == "D100-REACT-1"}
    assert reactions == {"dodge", "parry"}
    purposes = [d.purpose for d in fight.events(E.DiceRolled)]
    assert any(p.startswith("Luck") for p in purposes)
    assert any(p.startswith("malfunction table") for p in purposes)
    assert any(p.startswith("fumble table") for p in purposes)
    assert {w.state for w in fight.events(E.WeaponStateChanged)} >= {"jammed", "seriously jammed"}
    assert fight.result.winner == "security"
    (tmp_path / "6").mkdir()
    fight = run_fight(CORRIDOR, tmp_path / "6", seed="6")
    assert {e.action for e in fight.events(E.ActionDeclared) if e.rule == "D100-REACT-1"} == {"dodge", "parry"}
    conditions = {c.condition for c in fight.events(E.ConditionSet)}
    assert {"paralysed", "prone", "unconscious", "wounded"} <= conditions
    assert any(h.delta < 0 for h in fight.events(E.HitPointsChanged))
    assert fight.result.winner == "security"


@pytest.mark.parametrize("seed", ["1", "2", "3", "4"])
def test_duel_ends_and_every_event_rule_is_known(tmp_path: Path, seed: str) -> None:
    fight = run_fight(DUEL, tmp_path, seed=seed)
    known = set(SYSTEM.rule_ids)
    for entry in fight.entries:
        rule = getattr(entry.ev, "rule", None)
        assert rule is None or rule in known or rule.startswith("C-"), entry
    assert isinstance(fight.entries[-1].ev, E.EncounterEnded)
