"""d100 competent AI (rules edition 5, issue 16): reactions by expected harm prevented, shots by expected worth.

The worth of a shot is checked against a count written here from the rule
text (the 100 rolls, the 36 faces of 2d6), not against the odds module; each
choice is pitted against what edition 4's rule of thumb did in the same spot.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from conftest import encounter_for
from fracas.core import events as E
from fracas.core.encounter import Encounter
from fracas.services.batch import build_scenario
from fracas.services.run import run_scenario
from fracas.systems.d100 import policies as P
from fracas.systems.d100 import resolution as R
from fracas.systems.d100 import tactics as T

ROOT = Path(__file__).resolve().parents[2]

ANN: dict[str, Any] = {
    "id": "ann",
    "name": "Ann",
    "side": "a",
    "position": [1, 2],
    "policy": "security",
    "characteristics": {"DEX": 12, "CON": 12, "POU": 10},
    "hp": 12,
    "skills": {"pistol": 60, "dodge": 50, "parry": 40, "mechanics": 30},
    "weapons": [
        {"name": "pistol", "skill": "pistol", "damage": "2d6", "panne": 95, "ammo": 6, "modes": ["lethal", "stun"]}
    ],
}
BOB: dict[str, Any] = {
    "id": "bob",
    "name": "Bob",
    "side": "b",
    "position": [10, 2],
    "policy": "security",
    "characteristics": {"DEX": 12, "CON": 12, "POU": 10},
    "hp": 12,
    "skills": {"pistol": 50, "dodge": 0, "parry": 0},
    "weapons": [{"name": "pistol", "skill": "pistol", "damage": "1d10", "ammo": 6}],
}


def setup(
    tmp_path: Path,
    *,
    edition: int = 5,
    ann: dict[str, Any] | None = None,
    bob: dict[str, Any] | None = None,
    others: list[dict[str, Any]] | None = None,
    cramped: bool = False,
) -> Encounter:
    a, b = copy.deepcopy(ANN), copy.deepcopy(BOB)
    a.update(ann or {})
    b.update(bob or {})
    doc: dict[str, Any] = {
        "system": "d100",
        "name": "tactics",
        "round_limit": 5,
        "map": {
            "width": 20,
            "height": 5,
            "cramped": [{"name": "crates", "x": 0, "y": 0, "w": 20, "h": 5}] if cramped else [],
        },
        "sides": [{"id": "a"}, {"id": "b"}],
        "actors": [a, b, *(others or [])],
        "rules": {"edition": edition},
    }
    path = tmp_path / "tactics.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    return encounter_for(path)


# ------------------------------------------------------ an independent count


def _success(roll: int, skill: int) -> bool:
    """D100-ROLL-1 from the text: 01 always succeeds, 100 always fails, else roll <= skill."""
    return roll == 1 or (roll != 100 and roll <= skill)


def _critical_success(roll: int, skill: int) -> bool:
    """D100-CRIT-1 from the text: a success that is a double (11, 22, ... 99) or by 41 or more."""
    return _success(roll, skill) and (roll % 11 == 0 or skill - roll >= 41)


def test_the_worth_of_a_lethal_shot_matches_a_count_from_the_rule_text(tmp_path: Path) -> None:
    # Ann (pistol 60, 2d6) at Bob (12 HP, CON 12, no armour), who does not react. A loss of 10+ leaves
    # <= 2 HP (down); 6-9 is a major wound: down when CON x 5 = 60 fails (40 rolls of 100); plus a quarter
    # of the share of HP taken (D100-LETHAL-1, D100-HP-1).
    enc = setup(tmp_path, bob={"skills": {"pistol": 50, "dodge": 50, "parry": 0}})
    fails_major = Fraction(sum(not _success(r, 60) for r in range(1, 101)), 100)

    def worth(loss: int) -> Fraction:
        down = Fraction(1) if loss >= 10 else fails_major if loss >= 6 else Fraction(0)
        return down + Fraction(1, 4) * Fraction(min(loss, 12), 12)

    faces = [a + b for a in range(1, 7) for b in range(1, 7)]
    plain = sum((worth(f) for f in faces), Fraction(0)) / 36
    expected = Fraction(0)
    for roll in range(1, 101):
        if _critical_success(roll, 60):
            expected += worth(12) / 100  # a critical does the maximum
        elif _success(roll, 60):
            expected += plain / 100
    weapon = R.weapon_of(enc, "ann", "pistol")
    assert weapon is not None
    assert T.harm(enc, "ann", weapon, "lethal", "bob", "none") == pytest.approx(float(expected), abs=1e-12)
    # and a dodge at 50 is worth its bands: -50 / -30 / 0 / +10 to Ann's roll (D100-DODGE-1)
    by_band = {"cs": Fraction(0), "s": Fraction(0), "f": Fraction(0), "cf": Fraction(0)}
    for roll in range(1, 101):
        if _critical_success(roll, 50):
            by_band["cs"] += Fraction(1, 100)
        elif _success(roll, 50):
            by_band["s"] += Fraction(1, 100)
        elif roll % 11 == 0 or roll - 50 >= 41:
            by_band["cf"] += Fraction(1, 100)
        else:
            by_band["f"] += Fraction(1, 100)

    def shot(skill: int) -> Fraction:
        out = Fraction(0)
        for roll in range(1, 101):
            if _critical_success(roll, skill):
                out += worth(12) / 100
            elif _success(roll, skill):
                out += plain / 100
        return out

    dodged = by_band["cs"] * shot(10) + by_band["s"] * shot(30) + by_band["f"] * shot(60) + by_band["cf"] * shot(70)
    assert T.harm(enc, "ann", weapon, "lethal", "bob", "dodge") == pytest.approx(float(dodged), abs=1e-12)


# ------------------------------------------------------ reactions


def test_a_parry_without_a_shield_is_not_chosen_against_gunfire(tmp_path: Path) -> None:
    # D100-PARRY-1: against gunfire only shields reduce damage; a knife parry only risks the attacker's +10
    bob = {"parry_object": "knife", "skills": {"pistol": 50, "parry": 90, "dodge": 0}}
    old = setup(tmp_path, edition=4, bob=bob, cramped=True)
    assert P.reaction(old, "bob", "ann", "pistol", "lethal") == "parry"  # edition 4: the first possible
    enc = setup(tmp_path, bob=bob, cramped=True)
    assert P.reaction(enc, "bob", "ann", "pistol", "lethal") == "none"


def test_a_shield_parry_gives_way_to_a_dodge_against_a_stun_shot(tmp_path: Path) -> None:
    # a parry reduces damage only (docs/rules-notes.md, D100-PARRY-1): it prevents nothing in stun mode
    bob = {"parry_object": "riot_shield", "skills": {"pistol": 50, "parry": 70, "dodge": 40}}
    assert P.reaction(setup(tmp_path, edition=4, bob=bob), "bob", "ann", "pistol", "stun") == "parry"
    assert P.reaction(setup(tmp_path, bob=bob), "bob", "ann", "pistol", "stun") == "dodge"
    assert P.reaction(setup(tmp_path, bob=bob, cramped=True), "bob", "ann", "pistol", "stun") == "none"
    # against a lethal shot the riot shield stops 12 of the 2d6: the parry is worth more than the dodge
    assert P.reaction(setup(tmp_path, bob=bob), "bob", "ann", "pistol", "lethal") == "parry"


def test_each_reaction_is_the_one_that_prevents_the_most_expected_harm(tmp_path: Path) -> None:
    for parry, dodge, used in [(70, 40, 0), (30, 60, 0), (55, 55, 1), (20, 20, 2), (0, 10, 2), (60, 0, 3)]:
        bob = {"parry_object": "small_shield", "skills": {"pistol": 50, "parry": parry, "dodge": dodge}}
        enc = setup(tmp_path, bob=bob)
        enc.scratch["d100_reactions"] = {"bob": (enc.round, used)}
        weapon = R.weapon_of(enc, "ann", "pistol")
        assert weapon is not None
        for mode in ("lethal", "stun"):
            harms = {c: T.harm(enc, "ann", weapon, mode, "bob", c) for c in ("none", "dodge", "parry")}
            chosen = P.reaction(enc, "bob", "ann", "pistol", mode)
            assert harms[chosen] == min(harms.values()), (parry, dodge, used, mode, harms, chosen)
            if chosen != "none":
                assert harms["none"] - harms[chosen] > 0  # a reaction is spent only when it prevents harm


def test_a_hopeless_further_reaction_is_left_out(tmp_path: Path) -> None:
    # D100-REACT-1: a third reaction at -40 with dodge 20 critically fails nine times in ten (+10 to hit)
    bob = {"policy": "raider", "skills": {"pistol": 50, "dodge": 20, "parry": 0}}
    fresh = setup(tmp_path, bob=bob)
    assert P.reaction(fresh, "bob", "ann", "pistol", "lethal") == "dodge"
    for edition, expected in ((4, "dodge"), (5, "none")):
        enc = setup(tmp_path, edition=edition, bob=bob)
        enc.scratch["d100_reactions"] = {"bob": (enc.round, 2)}
        assert P.reaction(enc, "bob", "ann", "pistol", "lethal") == expected


# ------------------------------------------------------ shots


def _plan(enc: Encounter, actor: str = "ann") -> P.Plan:
    return P.decide(enc, actor)


def test_focus_fire_on_a_foe_that_can_be_put_down(tmp_path: Path) -> None:
    # Carl (30 HP) has lost 10 and stands nearer; Bob (12 HP) has lost 6: a 2d6 hit is likely to put Bob
    # down (D100-HP-1), not Carl. Edition 4's raider shot the most hurt; a stun would not care (below).
    carl = copy.deepcopy(BOB) | {"id": "carl", "name": "Carl", "position": [4, 2], "hp": 30}
    ann = {"policy": "raider"}
    for edition, expected in ((4, "carl"), (5, "bob")):
        enc = setup(tmp_path, edition=edition, ann=ann, others=[carl])
        for who, loss in (("carl", 10), ("bob", 6)):
            hp = enc.state.actors[who].hp or 0
            enc.emit(E.HitPointsChanged(actor=who, delta=-loss, hp=hp - loss, rule="D100-LETHAL-1"))
        plan = _plan(enc)
        assert (plan.kind, plan.target, plan.mode) == ("shoot", expected, "lethal")
    # the security officer stuns: paralysis does not depend on the HP left, so the nearer foe it is
    plan = _plan(setup(tmp_path, others=[carl]))
    assert (plan.target, plan.mode) == ("carl", "stun")


def test_no_shot_that_cannot_do_anything_when_another_can(tmp_path: Path) -> None:
    # the stun does not get through sealed armour (D100-STUN-1): the security officer shoots to kill
    enc = setup(tmp_path, bob={"sealed": True})
    assert (_plan(enc).kind, _plan(enc).mode) == ("shoot", "lethal")
    # a 1d8 stunner's lethal mode does nothing through kevlar (8): a raider stuns instead (edition 4 did not)
    ann = {
        "policy": "raider",
        "weapons": [{"name": "stunner", "skill": "pistol", "damage": "1d8", "ammo": 6, "modes": ["stun", "lethal"]}],
    }
    assert _plan(setup(tmp_path, edition=4, ann=ann, bob={"armour": "kevlar"})).mode == "lethal"
    assert _plan(setup(tmp_path, ann=ann, bob={"armour": "kevlar"})).mode == "stun"
    # nothing gets through at all (sealed and kevlar): nothing is shot
    assert _plan(setup(tmp_path, ann=ann, bob={"armour": "kevlar", "sealed": True})).kind == "nothing"


def test_a_prone_shooter_shoots_from_the_ground(tmp_path: Path) -> None:
    # D100-ATK-2: prone costs -20 to dodge, nothing to a shot; standing costs the action
    for edition, expected in ((4, "stand"), (5, "shoot")):
        enc = setup(tmp_path, edition=edition)
        enc.emit(E.ConditionSet(actor="ann", condition=R.IS_PRONE, rule="D100-ATK-2"))
        assert _plan(enc).kind == expected


def test_a_loaded_backup_shoots_while_a_serious_jam_waits(tmp_path: Path) -> None:
    ann = {
        "skills": {"pistol": 60, "rifle": 60, "mechanics": 30},
        "weapons": [
            {"name": "rifle", "skill": "rifle", "damage": "2d6+2", "ammo": 6},
            {"name": "pistol", "skill": "pistol", "damage": "1d6", "ammo": 6},
        ],
    }
    for edition, expected in ((4, "unjam"), (5, "shoot")):
        enc = setup(tmp_path, edition=edition, ann=ann)
        enc.emit(E.WeaponStateChanged(actor="ann", weapon="rifle", state=R.SERIOUSLY_JAMMED, rule="D100-JAM-1"))
        assert _plan(enc).kind == expected


# ------------------------------------------------------ cost: no scan of every actor


def test_a_decision_weighs_a_bounded_number_of_foes_whatever_the_crowd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an adversary's open map: 150 foes in one rank, all at the same distance from Ann's line
    others = [
        copy.deepcopy(BOB) | {"id": f"foe{i:03d}", "name": f"Foe {i}", "position": [10, i % 5]} for i in range(150)
    ]
    weighed: list[str] = []
    real = T._reacted  # each shot weighed (read again or not)

    def spy(enc: Encounter, skill: int, weapon: Any, mode: str, target: str, possible: Any) -> Any:
        weighed.append(target)
        return real(enc, skill, weapon, mode, target, possible)

    monkeypatch.setattr(T, "_reacted", spy)
    enc = setup(tmp_path, ann={"policy": "raider"}, others=others)
    for i in range(60):  # sixty foes hurt, at many levels
        enc.emit(E.HitPointsChanged(actor=f"foe{i:03d}", delta=-(1 + i % 7), hp=11 - i % 7, rule="D100-LETHAL-1"))
    plan = _plan(enc)
    assert plan.kind == "shoot"
    assert 0 < len(set(weighed)) <= T.NEAREST + T.MOST_HURT
    assert plan.target in {f"foe{i:03d}" for i in range(60) if i % 7 == 6}  # one of the most hurt (5 HP left)


def test_edition_4_targets_are_the_ones_the_full_scan_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # the indexes answer what edition 4's scan of every foe answered: (most hurt, nearest, id) in sight
    real = P._target
    checked = 0

    def both(enc: Encounter, actor: str, most_hurt_first: bool) -> Any:
        nonlocal checked
        found = real(enc, actor, most_hurt_first)
        me = enc.state.actors[actor]
        here = R.pos(me)
        foes = [f for f in P.enemies(enc, actor) if not enc.battlefield.opaque or enc.battlefield.sees(here, R.pos(f))]
        hurt = (lambda f: (f.hp or 0) - (f.hp_max or 0)) if most_hurt_first else (lambda f: 0)
        scan = min(foes, key=lambda f: (hurt(f), R.distance(here, R.pos(f)), f.id), default=None)
        assert (found and found.id) == (scan and scan.id)
        checked += 1
        return found

    monkeypatch.setattr(P, "_target", both)
    text = (ROOT / "scenarios" / "d100" / "corridor.toml").read_text(encoding="utf-8")
    loaded = build_scenario("corridor.toml", text + "\n[rules]\nedition = 4\n")
    for seed in range(1, 16):
        run_scenario(loaded, seed=str(seed))
    assert checked > 200


def test_a_wall_hiding_every_foe_does_not_make_a_decision_search_every_foe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an adversary's map: a full wall between Ann and 150 foes, so no sight line finds a target; each
    # decision still draws a bounded number of sight lines (edition 4 drew one to every foe)
    others = [
        copy.deepcopy(BOB) | {"id": f"foe{i:03d}", "name": f"Foe {i}", "position": [10 + i % 10, i // 10]}
        for i in range(150)
    ]
    doc_walls = [{"name": "wall", "x": 5, "y": 0, "w": 1, "h": 16, "height": "full"}]
    lines: list[tuple[Any, Any]] = []
    a, b = copy.deepcopy(ANN), copy.deepcopy(BOB) | {"position": [12, 15]}
    doc: dict[str, Any] = {
        "system": "d100",
        "name": "behind the wall",
        "round_limit": 5,
        "map": {"width": 20, "height": 16, "walls": doc_walls},
        "sides": [{"id": "a"}, {"id": "b"}],
        "actors": [a, b, *others],
    }
    path = tmp_path / "wall.toml"
    path.write_text(tomli_w.dumps(doc), encoding="utf-8")
    for edition in (4, 5):
        doc["rules"] = {"edition": edition}
        path.write_text(tomli_w.dumps(doc), encoding="utf-8")
        enc = encounter_for(path)
        real = type(enc.battlefield).sees

        def counted(field: Any, x: Any, y: Any, real: Any = real) -> bool:
            lines.append((x, y))
            return bool(real(field, x, y))

        monkeypatch.setattr(type(enc.battlefield), "sees", counted)
        lines.clear()
        assert _plan(enc).kind == "nothing"
        if edition == 4:
            assert len(lines) >= 151  # one sight line to every foe
        else:
            assert 0 < len(lines) <= T.LOOKED_AT + T.MOST_HURT
        monkeypatch.undo()
