"""Z-Corps defences by expected harm prevented (issue 16, rules edition 6).

The seed (000, « Attaque »): « Lorsqu'il est attaqué, un personnage peut choisir d'effectuer une Défense active (ou
"totale"), à condition qu'il lui reste des actions. Le résultat de ce jet est additionné à la difficulté de base
jusqu'à sa prochaine action ou jusqu'à la fin du round » (ZC-DEF-1) and « À son rang d'action, un personnage peut
également choisir d'effectuer une Défense partielle en plus de son attaque. Dans ce cas, Attaque et Défense se font à
-1D. Le résultat du jet de Défense partielle n'est pris en compte que s'il est supérieur à 10 » (ZC-DEF-2).

An active defence spends an action; a partial one costs a die on the attack. Edition 5 chose them by rule of thumb
(a cautious survivor defended whenever its side was outnumbered, an aggressive one only at arm's reach of two
foes; a partial defence whenever a foe stood at arm's reach). Each test below puts the edition-5 AI in a spot where
that rule blunders (the check can fail: it does on edition 5), with the odds computed here from the odds oracle.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import encounter_for
from fracas.core import events as E
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.quality import scenario_quality
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps import tactics
from fracas.systems.zcorps.odds import DCode, success_probability
from fracas.systems.zcorps.policies import cautious, defend_melee, defend_ranged
from fracas.systems.zcorps.rules import SEVERELY
from test_zcorps_tactics import mark_wounds

ACTOR = """
[[actors]]
id = "{id}"
side = "{side}"
position = [{x}, {y}]
policy = "{policy}"
attributes = {{ agilite = "3D", adresse = "3D", puissance = "{puissance}", perception = "3D" }}
skills = {{ {skills} }}
weapons = [{weapons}]
"""


def _scenario(tmp_path: Path, edition: int, actors: list[dict[str, object]], rules: str = "") -> object:
    text = f"""
system = "zcorps"
name = "defence"
[rules]
edition = {edition}
{rules}
[map]
width = 60
height = 9
[[sides]]
id = "squad"
[[sides]]
id = "gang"
"""
    for a in actors:
        fields = {"policy": "aggressive", "puissance": "3D", "skills": "", "weapons": "", "y": 4, **a}
        text += ACTOR.format(**fields)
    path = tmp_path / f"defence-{edition}.toml"
    path.write_text(text, encoding="utf-8")
    return encounter_for(path)


ROOT = Path(__file__).resolve().parents[2]
PISTOL = '{ name = "pistol", type = "handgun", damage = "3D", magazine = 15, spare = 2 }'
RIFLE = '{ name = "rifle", type = "rifle", damage = "5D", magazine = 10, spare = 2 }'


@pytest.mark.parametrize("edition", [5, 6])
def test_no_active_defence_against_a_shot_with_negligible_odds(tmp_path: Path, edition: int) -> None:
    """ZC-DEF-1: a cautious rifleman, outnumbered two to one, is shot at from 38 m (long range for a pistol, +10) by a
    1D shooter: the shot hits under 3 % of the time. Edition 5 spent its action on an active defence all the same
    (its side is outnumbered); edition 6 keeps the action for its own shot."""
    enc = _scenario(
        tmp_path,
        edition,
        [
            dict(
                id="vance", side="squad", x=2, policy="cautious", skills='firearms = "5D", dodge = "3D"', weapons=RIFLE
            ),
            dict(id="thug", side="gang", x=40, skills='firearms = "1D"', weapons=PISTOL),
            dict(id="boss", side="gang", x=45, skills='firearms = "4D"', weapons=PISTOL),
        ],
    )
    R.book(enc).pending["vance"] = [8]
    odds = float(success_probability(DCode(1, 0), 10 + 10))  # passive 10, long range +10 (ZC-ATK-1, ZC-RANGE-1)
    assert odds < 0.03
    incoming = R.Incoming(R.traits(enc, "thug").weapons["pistol"], "single")
    defends = defend_ranged(enc, "vance", "thug", incoming)
    assert defends == (edition == 5)
    if edition == 6:
        read = tactics.weigh_defence(enc, "vance", "thug", incoming, tactics.CAUTIOUS, melee=False)
        assert 0.0 <= read.prevented < 0.02 < read.cost


AXE = '{ name = "fire axe", type = "melee", damage = "PUI+2D" }'


@pytest.mark.parametrize("edition", [5, 6])
def test_active_defence_against_a_likely_lethal_blow_when_its_own_action_is_worth_little(
    tmp_path: Path, edition: int
) -> None:
    """ZC-DEF-1: an unarmed survivor, already Severely Wounded, faces one axeman at arm's reach (5D melee, a 5D+2D
    axe): a hit very likely incapacitates or kills it, and its own action, a punch into heavy armour, is worth little.
    Edition 5's aggressive survivor defended only at arm's reach of two foes: it took the blow undefended; edition 6
    dodges (4D added to the difficulty)."""
    enc = _scenario(
        tmp_path,
        edition,
        [
            dict(id="ana", side="squad", x=10, skills='dodge = "4D", brawl = "2D"'),
            dict(id="brute", side="gang", x=11, puissance="5D", skills='melee = "5D"', weapons=AXE),
        ],
    )
    mark_wounds(enc, "ana", SEVERELY)
    R.book(enc).pending["ana"] = [5]
    hit = float(success_probability(DCode(5, 0), 10))  # melee 5D against the passive 10 (ZC-ATK-1)
    assert hit > 0.9
    incoming = R.Incoming(R.traits(enc, "brute").weapons["fire axe"])
    assert defend_melee(enc, "ana", "brute", incoming) == (edition == 6)
    if edition == 6:
        read = tactics.weigh_defence(enc, "ana", "brute", incoming, tactics.AGGRESSIVE, melee=True)
        assert read.prevented > 0.1 > read.cost


@pytest.mark.parametrize("edition", [5, 6])
def test_no_partial_defence_when_no_attack_can_come_before_the_next_action(tmp_path: Path, edition: int) -> None:
    """ZC-DEF-2: a partial defence costs the attack a die and lasts until the actor's next action or the round's end.
    A cautious rifleman with a zombie at arm's reach that has no action left this round: nothing can attack it before
    the round ends, so the -1D buys nothing. Edition 5 declared the partial defence whenever a foe stood at arm's
    reach; edition 6 shoots at full dice."""
    enc = _scenario(
        tmp_path,
        edition,
        [
            dict(
                id="vance", side="squad", x=10, policy="cautious", skills='firearms = "5D", dodge = "3D"', weapons=RIFLE
            ),
            dict(id="z1", side="gang", x=11, policy="zombie", skills='brawl = "3D"'),
        ],
    )
    R.book(enc).pending["vance"] = []
    R.book(enc).pending["z1"] = []
    plan = cautious(enc, "vance")
    assert plan.kind == "shoot" and plan.targets == ["z1"]
    assert plan.partial == (edition == 5)


@pytest.mark.parametrize("pending", [[], [3]])
def test_partial_defence_when_the_foe_at_arms_reach_still_acts(tmp_path: Path, pending: list[int]) -> None:
    """ZC-DEF-2, the other side of the same choice: a crack shot (7D at point blank, the margin counting a fifth,
    the OpenD6 option, so a die less changes its shot little) with a good dodge (5D) and an axeman at arm's reach who
    still acts this round takes the partial defence (its dodge at -1D, 4D, usually tops 10 and counts); with no
    action left to the axeman it does not."""
    enc = _scenario(
        tmp_path,
        6,
        [
            dict(
                id="vance",
                side="squad",
                x=10,
                policy="cautious",
                skills='firearms = "7D", dodge = "5D"',
                weapons=PISTOL,
            ),
            dict(id="brute", side="gang", x=11, puissance="4D", skills='melee = "4D"', weapons=AXE),
        ],
        rules='margin_damage = "fifth"',
    )
    R.book(enc).pending["vance"] = []
    R.book(enc).pending["brute"] = pending
    plan = cautious(enc, "vance")
    assert plan.kind == "shoot"
    assert plan.partial == bool(pending)


@pytest.mark.parametrize("edition", [5, 6])
def test_a_standing_active_defence_is_seen_by_the_next_attacker(tmp_path: Path, edition: int) -> None:
    """ZC-DEF-1: a defence rolled against one attacker stands « jusqu'à sa prochaine action ou jusqu'à la fin du
    round », so the next attacker sees a foe dodging. Two gunmen in the open, the nearer at short range dodging at 20
    (a shot at it needs 30), the other at medium range (15): edition 5 shot the nearer all the same (the better shot
    on paper); edition 6 shoots the other one."""
    enc = _scenario(
        tmp_path,
        edition,
        [
            dict(id="vance", side="squad", x=2, policy="cautious", skills='firearms = "5D"', weapons=RIFLE),
            dict(id="dodger", side="gang", x=20, skills='firearms = "3D"', weapons=PISTOL),
            dict(id="other", side="gang", x=40, skills='firearms = "3D"', weapons=PISTOL),
        ],
    )
    enc.emit(E.ConditionSet(actor="dodger", condition="active_defence", value=20, rule="ZC-DEF-1"))
    plan = cautious(enc, "vance")
    assert plan.kind == "shoot"
    assert plan.targets[0] == ("dodger" if edition == 5 else "other")


def _defences(name: str, edition: int, seeds: range) -> tuple[int, int]:
    """(active defences the survivors took, those taking under 5 points off every attack they met), read from the
    logs by the decision-quality probe (the odds of each attack without and with the defence total, ZC-DEF-1)."""
    path = ROOT / "scenarios" / "zcorps" / f"{name}.toml"
    text = read_scenario_text(path)
    rules = f"[rules]\nedition = {edition}\n"
    text = text.replace("[rules]\n", rules, 1) if "[rules]\n" in text else f"{text}\n{rules}"
    by_policy = scenario_quality(build_scenario(str(path), text), (str(s) for s in seeds))  # type: ignore[arg-type]
    return sum(q.defences for q in by_policy.values()), sum(q.weak_defences for q in by_policy.values())


def test_no_active_defence_that_takes_under_5_points_off_the_attacks_it_meets() -> None:
    """ZC-DEF-1 in the barricade: edition 5's Doc Hal (seed 12) spent an action on a defence that took under 5 points
    off the attacks it met (the one weak defence of edition 5's 37 over seeds 1-100 of the three Z-Corps scenarios);
    edition 6's survivors take more defences over seeds 1-12, none of them weak."""
    assert _defences("barricade", 5, range(12, 13)) == (1, 1)
    taken, weak = _defences("barricade", 6, range(1, 13))
    assert taken >= 10 and weak == 0
