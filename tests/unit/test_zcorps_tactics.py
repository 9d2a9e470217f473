"""Z-Corps competent AI (issue 16, rules edition 5): the defects measured on the edition-4 AI are gone.

Each guarantee is checked against odds computed here, independently of the policy's code: the exact odds of
the D6 pool (the odds oracle, itself tested against brute force) averaged over every difficulty die the log
says was rolled (light, cover, firing mode, called shot), with the floor of 3 (ZC-DIFF-1). Each check is also
run on the edition-4 AI, where it finds the defect: the check can fail.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import encounter_for
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.quality import scenario_quality
from fracas.services.run import run_scenario
from fracas.systems.zcorps import logged_pool, tactics
from fracas.systems.zcorps import resolution as R
from fracas.systems.zcorps.odds import DCode, success_probability
from fracas.systems.zcorps.policies import aggressive, cautious
from fracas.systems.zcorps.rules import SEVERELY, WOUND_LEVELS, WOUNDS

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios" / "zcorps"
#: The fights read: every shipped Z-Corps scenario, a few seeds each (the barricade is the slowest).
FIGHTS = [("barricade", range(1, 7)), ("firefight", range(1, 13)), ("duel", range(1, 21))]
DICE = re.compile(r" ([+-])(\d+)D(?: \(fixed\))?$")


def _with_edition(name: str, edition: int) -> object:
    path = SCENARIOS / f"{name}.toml"
    text = read_scenario_text(path)
    if "[rules]\n" in text:
        text = text.replace("[rules]\n", f"[rules]\nedition = {edition}\n", 1)
    else:
        text += f"\n[rules]\nedition = {edition}\n"
    return build_scenario(str(path), text)


def _logs(tmp_path: Path, edition: int) -> list[list[E.Entry]]:
    out = []
    for name, seeds in FIGHTS:
        scenario = _with_edition(name, edition)
        for seed in seeds:
            log = tmp_path / f"{name}-{edition}-{seed}.jsonl"
            run_scenario(scenario, seed=str(seed), log_path=log)  # type: ignore[arg-type]
            out.append(read_log(log).entries)
    return out


def _sums(up: int, down: int) -> dict[int, float]:
    """The sum of ``up`` d6 less ``down`` d6, by plain convolution."""
    sums = {0: 1.0}
    for sign in [1] * up + [-1] * down:
        step: dict[int, float] = {}
        for t, p in sums.items():
            for face in range(1, 7):
                step[t + sign * face] = step.get(t + sign * face, 0.0) + p / 6
        sums = step
    return sums


def decision_odds(test: E.SkillTested) -> float | None:
    """The exact odds of a logged shot as its shooter could know them when declaring: the pool rolled, the fixed
    difficulty (base, a partial defence above 10, range), every difficulty die as a die (not as it fell); the
    target's active defence, rolled after the declaration, left out. None for a pool doubled by Cojones."""
    pool = logged_pool(test)
    if pool is None or "Cojones" in test.skill:
        return None
    code = pool[0]
    fixed, up, down, bonus = test.difficulty_base, 0, 0, 0
    for m in test.modifiers:
        dice = DICE.search(m.name)
        if dice is not None:
            if dice.group(1) == "+":
                up += int(dice.group(2))
            else:
                down += int(dice.group(2))
        elif m.rule in ("ZC-RANGE-1", "ZC-DEF-2"):
            fixed += m.value
        elif m.name == "attack bonus":
            bonus = -m.value
    if code.dice <= 0:
        return 0.0
    return sum(p * float(success_probability(code, max(3, fixed + v) - bonus)) for v, p in _sums(up, down).items())


def head_shots_below_threshold(logs: list[list[E.Entry]]) -> tuple[int, list[str]]:
    """(head shots by the survivors, those below their style's threshold with every die counted)."""
    shots, low = 0, []
    for entries in logs:
        declared: dict[str, E.ActionDeclared] = {}
        for e in entries:
            ev = e.ev
            if isinstance(ev, E.ActionDeclared):
                declared[ev.actor] = ev
            elif isinstance(ev, E.SkillTested) and ev.rule == "ZC-ATK-1" and ev.target is not None:
                d = declared.get(ev.actor)
                if d is None or d.policy not in tactics.STYLES or "aiming for the head" not in d.text:
                    continue
                p = decision_odds(ev)
                if p is None:
                    continue
                shots += 1
                if p < tactics.STYLES[d.policy].head_min_odds - 1e-9:
                    low.append(f"{d.policy} {ev.actor}: {ev.skill} vs {ev.difficulty}: {p:.1%}")
    return shots, low


def hopeless_attacks(logs: list[list[E.Entry]]) -> list[str]:
    """Attacks by the survivors that could not succeed: a pool of no dice, a shot beyond long range, no target."""
    out = []
    for entries in logs:
        policy: dict[str, str] = {}
        for e in entries:
            ev = e.ev
            if isinstance(ev, E.ActionDeclared):
                policy[ev.actor] = ev.policy
            elif isinstance(ev, E.SkillTested) and ev.rule in ("ZC-ATK-1", "ZC-BRAWL-1") and ev.target is not None:
                pool = logged_pool(ev)
                if policy.get(ev.actor) in tactics.STYLES and pool is not None and pool[0].dice <= 0:
                    out.append(f"{ev.actor}: {ev.skill}")
            elif isinstance(ev, E.Noted) and "the shot is wasted" in ev.text and policy.get(ev.actor) in tactics.STYLES:
                out.append(ev.text)
    return out


@pytest.fixture(scope="module")
def edition_5(tmp_path_factory: pytest.TempPathFactory) -> list[list[E.Entry]]:
    return _logs(tmp_path_factory.mktemp("zc5"), 5)


@pytest.fixture(scope="module")
def edition_4(tmp_path_factory: pytest.TempPathFactory) -> list[list[E.Entry]]:
    return _logs(tmp_path_factory.mktemp("zc4"), 4)


def survivor_shot_odds(logs: list[list[E.Entry]]) -> list[float]:
    """The decision odds (every die counted) of every shot the survivors took."""
    out = []
    for entries in logs:
        policy: dict[str, str] = {}
        for e in entries:
            ev = e.ev
            if isinstance(ev, E.ActionDeclared):
                policy[ev.actor] = ev.policy
            elif isinstance(ev, E.SkillTested) and ev.rule == "ZC-ATK-1" and ev.target is not None:
                p = decision_odds(ev) if policy.get(ev.actor) in tactics.STYLES else None
                if p is not None:
                    out.append(p)
    return out


def test_long_shots_are_rare_and_the_odds_taken_high(
    edition_4: list[list[E.Entry]], edition_5: list[list[E.Entry]]
) -> None:
    """Issue 16: 42.4 % of Z-Corps attacks were taken at under 15 % odds. Counted at decision time with every die,
    the edition-4 survivors took a third of their shots under 15 % in these fights (mean odds under 40 %)."""
    old, new = survivor_shot_odds(edition_4), survivor_shot_odds(edition_5)
    assert len(old) > 100 and len(new) > 100
    assert sum(p < 0.15 for p in old) / len(old) > 0.25 and sum(old) / len(old) < 0.45
    assert sum(p < 0.15 for p in new) / len(new) <= 0.05
    assert sum(new) / len(new) >= 0.55


def test_no_head_shot_below_the_style_threshold_counted_with_every_die(
    edition_4: list[list[E.Entry]], edition_5: list[list[E.Entry]]
) -> None:
    # the edition-4 AI left the light and firing-mode dice out of its estimate (issue 16: 376 of 1,000)
    old_shots, old_low = head_shots_below_threshold(edition_4)
    assert old_shots and old_low, "the check finds the edition-4 defect"
    shots, low = head_shots_below_threshold(edition_5)
    assert shots >= 20, "head shots are still taken when the odds allow"
    assert low == []


def test_no_attack_that_cannot_succeed(edition_5: list[list[E.Entry]]) -> None:
    assert hopeless_attacks(edition_5) == []


def test_the_decision_odds_read_every_die_of_the_log() -> None:
    # 4D+1 vs 10 at short range, poor light +1D, semi -1D: the light and the mode's dice cancel on average
    test = E.SkillTested(
        actor="marcus", rule="ZC-ATK-1", skill="firearms 4D+1", kept=4, dice_total=12, difficulty=12,
        difficulty_base=10, total=13, success=True, margin=1, target="z1",
        modifiers=[
            E.Modifier(name="range 8 m: short", value=0, rule="ZC-RANGE-1"),
            E.Modifier(name="poor light +1D", value=5, rule="ZC-COVER-1"),
            E.Modifier(name="semi -1D", value=-3, rule="ZC-FIRE-2"),
        ],
    )  # fmt: skip
    brute = 0.0
    for light in range(1, 7):
        for semi in range(1, 7):
            brute += float(success_probability(DCode(4, 1), max(3, 10 + light - semi))) / 36
    got = decision_odds(test)
    assert got is not None and abs(got - brute) < 1e-12
    # the tactics compute the same number from the same dice
    assert abs(tactics.p_hit(DCode(4, 1), 10, 1, 1, 0, 3, 0) - brute) < 1e-12


def mark_wounds(enc: object, actor: str, level: int) -> None:
    """ZC-WOUND-1: mark every box of the wound ladder up to ``level`` on ``actor``."""
    for lv in range(level + 1):
        enc.emit(  # type: ignore[attr-defined]
            E.WoundMarked(
                actor=actor, monitor=WOUNDS, level=lv, level_name=WOUND_LEVELS[lv], damage=20, threshold=10,
                rule="ZC-WOUND-1",
            )
        )  # fmt: skip


FOCUS = """
system = "zcorps"
name = "focus fire"
[rules]
edition = EDITION
margin_damage = "fifth"
[map]
width = 30
height = 9
[[sides]]
id = "squad"
[[sides]]
id = "gang"
[[actors]]
id = "vance"
side = "squad"
position = [2, 4]
policy = "cautious"
attributes = { agilite = "3D", adresse = "3D", puissance = "3D", perception = "3D" }
skills = { firearms = "4D" }
weapons = [{ name = "pistol", type = "handgun", damage = "3D", magazine = 15, spare = 2 }]
[[actors]]
id = "near"
side = "gang"
position = [7, 4]
attributes = { agilite = "3D", adresse = "3D", puissance = "3D", perception = "3D" }
armour = "5D"
weapons = [{ name = "pistol", type = "handgun", damage = "3D", magazine = 15 }]
[[actors]]
id = "hurt"
side = "gang"
position = [10, 6]
attributes = { agilite = "3D", adresse = "3D", puissance = "3D", perception = "3D" }
armour = "5D"
weapons = [{ name = "pistol", type = "handgun", damage = "3D", magazine = 15 }]
"""


@pytest.mark.parametrize(("edition", "hurt", "target"), [(4, True, "near"), (5, False, "near"), (5, True, "hurt")])
def test_cautious_finishes_the_wounded_foe_rather_than_the_nearest(
    tmp_path: Path, edition: int, hurt: bool, target: str
) -> None:
    """Two foes in the open at short range, both in heavy armour, so that a pistol hit (the margin counting a fifth,
    the OpenD6 option) seldom does more than wound a fresh one; the farther one is Severely Wounded, and any hit that
    gets through takes it out (ZC-WOUND-1: a hit at or below its level raises it one). Edition 4 shot the nearest
    (issue 16: 83 of 1,000 cautious decisions); edition 5 shoots the nearest only when both are fresh."""
    path = tmp_path / "focus.toml"
    path.write_text(FOCUS.replace("EDITION", str(edition)), encoding="utf-8")
    enc = encounter_for(path)
    if hurt:
        mark_wounds(enc, "hurt", SEVERELY)
    plan = cautious(enc, "vance")
    assert plan.kind == "shoot"
    assert plan.targets[0] == target


@pytest.mark.parametrize("edition", [4, 5])
def test_aggressive_takes_the_cover_a_move_away_when_the_fight_is_at_range(tmp_path: Path, edition: int) -> None:
    """The firefight's first round: Dutch (AK-47) stands 2 m from the dumpster (three-quarters cover) with the squad's
    rifles 30 m off. Edition 4 shot from the open (issue 16: 523 of 1,000 aggressive decisions left such cover)."""
    path = SCENARIOS / "firefight.toml"
    text = read_scenario_text(path).replace("[rules]\n", f"[rules]\nedition = {edition}\n", 1)
    scenario = tmp_path / "firefight.toml"
    scenario.write_text(text, encoding="utf-8")
    enc = encounter_for(scenario)
    plan = aggressive(enc, "dutch")
    if edition == 4:
        assert plan.kind == "shoot"
        return
    assert plan.kind == "move" and plan.path
    end = plan.path[-1]
    zone = R.cover_at(enc, end)
    assert zone is not None and zone.level == "three_quarters", (plan, zone)


FEEBLE = FOCUS.replace('skills = { firearms = "4D" }', 'skills = { firearms = "3D" }')


@pytest.mark.parametrize("edition", [4, 5])
def test_no_shot_from_a_pool_of_no_dice_when_another_action_remains(tmp_path: Path, edition: int) -> None:
    """Severely Wounded (-2D) and suppressed (-1D), a 3D shooter rolls nothing: the shot fails outright (ZC-DICE-1).
    Edition 4 shot anyway; edition 5 does something that can help (takes cover, holds for a defence)."""
    path = tmp_path / "feeble.toml"
    path.write_text(FEEBLE.replace("EDITION", str(edition)), encoding="utf-8")
    enc = encounter_for(path)
    mark_wounds(enc, "vance", SEVERELY)
    enc.emit(E.ConditionSet(actor="vance", condition=R.SUPPRESSED, value=2, rule="ZC-FIRE-2"))
    assert tactics.pool_dice(enc, "vance") == -3
    plan = cautious(enc, "vance")
    assert (plan.kind == "shoot") == (edition == 4)


def _cojones(edition: int, seeds: list[int]) -> tuple[int, int]:
    """(Cojones spent on the survivors' attacks, those adding under 10 points) over barricade fights."""
    by_policy = scenario_quality(_with_edition("barricade", edition), (str(s) for s in seeds))  # type: ignore[arg-type]
    cojones = [x for q in by_policy.values() for kind, x in q.extras.items() if kind == "cojones"]
    return sum(x.times for x in cojones), sum(x.under_worth for x in cojones)


def test_cojones_on_an_attack_add_ten_points_or_more() -> None:
    """Barricade seeds where the survivors spend Cojones on an attack: each doubling or reroll adds 10 points of odds
    or more. Edition 4 spent them on seeds 28 and 54 for less (5 of 24 over seeds 1-100)."""
    assert _cojones(4, [28, 54]) == (4, 2)
    times, weak = _cojones(5, [35, 85])
    assert times == 2 and weak == 0
