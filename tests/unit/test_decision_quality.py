"""Decision quality (issue 16): each system reads its logged tests exactly, from the events alone."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import msgspec
from fracas.core import events as E
from fracas.core.quality import PolicyQuality, QualityProbe, summary
from fracas.services import batch as B
from fracas.services.quality import log_quality, scenario_quality
from fracas.services.run import run_scenario
from fracas.systems.point_zero.odds import test_quality as pz_quality
from fracas.systems.zcorps import _cp_at_least
from fracas.systems.zcorps import test_quality as zc_quality
from fracas.systems.zcorps.odds import DCode, success_probability

ROOT = Path(__file__).resolve().parents[2]
PZ_GUARD = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


def _pz_test(kept: int, difficulty: int, skill: str = "handguns/PER", target: str | None = "mira") -> E.SkillTested:
    return E.SkillTested(
        actor="guard1",
        rule="PZ-TEST-3",
        skill=skill,
        kept=kept,
        dice_total=10,
        difficulty=difficulty,
        difficulty_base=difficulty,
        total=10,
        success=False,
        margin=10 - difficulty,
        target=target,
    )


def _d6(n: int, rule: str = "PZ-TEST-1") -> E.DiceRolled:
    return E.DiceRolled(actor="guard1", purpose="shot", rule=rule, sides=6, faces=[3] * n, fates=["kept"] * n, first=0)


def _brute_best(m: int, n: int, vs: int) -> float:
    hits = sum(1 for faces in itertools.product(range(1, 7), repeat=m) if sum(sorted(faces)[-n:]) >= vs)
    return hits / 6**m


def test_point_zero_five_dice_keep_three_against_22_cannot_hit() -> None:
    # issue 16: "seed 1, seq 53: five dice keep three against 22" -- beyond any roll
    read = pz_quality(_pz_test(3, 22), [_d6(5)])
    assert read is not None and read.attack
    assert read.odds == 0.0 and read.beyond


def test_point_zero_odds_are_the_brute_force_odds_of_the_dice_rolled() -> None:
    for m, n, vs in [(4, 3, 12), (3, 3, 15), (5, 2, 10), (2, 3, 9)]:
        read = pz_quality(_pz_test(n, vs), [_d6(m)])
        assert read is not None
        assert abs(read.odds - _brute_best(m, n, vs)) < 1e-12, (m, n, vs)
        assert read.beyond == (vs > 6 * n)


def test_point_zero_surpass_reads_the_odds_with_and_without_the_extra_die() -> None:
    read = pz_quality(_pz_test(3, 14, skill="handguns/PER +1 surpass"), [_d6(4)])
    assert read is not None and len(read.extras) == 1
    x = read.extras[0]
    assert (x.kind, x.amount) == ("surpass", 1)
    assert abs(x.before - _brute_best(3, 3, 14)) < 1e-12
    assert abs(x.after - _brute_best(4, 3, 14)) < 1e-12


def test_point_zero_saves_are_no_attacks() -> None:
    read = pz_quality(_pz_test(3, 10, skill="resistance/VIG", target=None), [_d6(3)])
    assert read is not None and not read.attack


def test_cp_dice_odds_match_brute_force_with_a_bounded_exploding_die() -> None:
    # the exploding CP Joker, enumerated to four rolls deep (the rest is below 1/6**4)
    def joker() -> dict[int, Fraction]:
        out: dict[int, Fraction] = {}
        for k in range(4):
            for r in range(1, 6):
                out[6 * k + r] = Fraction(1, 6 ** (k + 1))
        return out

    for plain, gap in [(0, 3), (0, 8), (1, 5), (2, 11), (2, 13)]:
        brute = Fraction(0)
        for faces in itertools.product(range(1, 7), repeat=plain):
            for j, p in joker().items():
                if sum(faces) + j >= gap:
                    brute += p / 6**plain
        assert 0 <= _cp_at_least(plain, 1, gap) - float(brute) <= 6**-4 + 1e-12, (plain, gap)
    assert _cp_at_least(2, 0, 12) == 1 / 36
    assert _cp_at_least(1, 1, 0) == 1.0


def test_zcorps_attack_odds_leave_out_the_attack_bonus_from_the_difficulty() -> None:
    test = E.SkillTested(
        actor="dutch",
        rule="ZC-ATK-1",
        skill="firearms 4D+1",
        kept=4,
        dice_total=11,
        difficulty=9,
        difficulty_base=10,
        total=12,
        success=True,
        margin=3,
        target="reyes",
    )
    read = zc_quality(test, [])
    assert read is not None and read.attack and 0.5 < read.odds < 1.0
    assert read.extras == ()


def _zc_shot(actor: str, target: str, defence: int | None, difficulty: int) -> E.SkillTested:
    mods = [] if defence is None else [E.Modifier(name="active defence", value=defence, rule="ZC-DEF-1")]
    return E.SkillTested(
        actor=actor, rule="ZC-ATK-1", skill="firearms 4D", kept=4, dice_total=12, modifiers=mods, difficulty=difficulty,
        difficulty_base=10, total=12, success=difficulty <= 12, margin=12 - difficulty, target=target,
    )  # fmt: skip


def test_zcorps_active_defence_counted_for_the_defender_with_the_odds_it_took_off() -> None:
    """ZC-DEF-1: the defence adds its total to the difficulty. The attack's own odds leave it out (rolled after the
    declaration, the attacker could not know it); the defender's policy is credited with the odds it took off every
    attack it met until it ended, and a defence taking under 5 points off them all is counted as weak."""
    probe = QualityProbe("zcorps")
    for actor, policy in (("reyes", "cautious"), ("dutch", "aggressive"), ("mags", "aggressive")):
        probe.feed(E.ActorEntered(actor=actor, name=actor, side=actor, x=0, y=0, policy=policy))
    p = {vs: float(success_probability(DCode(4, 0), vs)) for vs in (10, 12, 29, 30, 31)}
    # reyes dodges 2 against dutch's shot (10 -> 12), then dutch's second shot: one defence, two attacks met
    probe.feed(E.ActionDeclared(actor="reyes", action="active_defence", text="", target="dutch", rule="ZC-DEF-1"))
    probe.feed(_zc_shot("dutch", "reyes", 2, 12))
    probe.feed(_zc_shot("dutch", "reyes", 2, 12))
    probe.feed(E.ConditionCleared(actor="reyes", condition="active_defence", rule="ZC-DEF-1"))
    # mags dodges 1 against a shot that needed 30 anyway: nothing to take off
    probe.feed(E.ActionDeclared(actor="mags", action="active_defence", text="", target="reyes", rule="ZC-DEF-1"))
    probe.feed(_zc_shot("reyes", "mags", 1, 31))
    dutch, reyes, mags = (probe.by_policy[k] for k in ("aggressive", "cautious", "aggressive"))
    assert reyes.defences == 1 and reyes.weak_defences == 0
    assert abs(reyes.defence_ppm / 1e6 - 2 * (p[10] - p[12])) < 2e-6 and p[10] - p[12] > 0.05
    assert dutch is mags and mags.defences == 1 and mags.weak_defences == 1
    assert abs(mags.defence_ppm / 1e6 - (p[30] - p[31])) < 2e-6
    # the attacks' odds: without the defence
    assert abs(dutch.odds_ppm / 1e6 - 2 * p[10]) < 2e-6 and abs(reyes.odds_ppm / 1e6 - p[30]) < 2e-6
    assert summary(probe.by_policy)["cautious"]["defences"] == {
        "times": 1, "mean_odds_prevented": reyes.defence_ppm / 1e6, "under_5_points": 0
    }  # fmt: skip


def test_quality_from_a_stored_log_equals_the_live_count(tmp_path: Path) -> None:
    for seed in ("1", "2", "3"):
        probe = QualityProbe("point_zero")
        log = tmp_path / f"quality-{seed}.jsonl"
        run_scenario(PZ_GUARD, seed=seed, log_path=log, listeners=[probe])
        assert probe.by_policy  # something was counted
        assert msgspec.to_builtins(log_quality(log)) == msgspec.to_builtins(probe.by_policy)


def test_batch_quality_is_the_same_whatever_the_chunking() -> None:
    text = B.read_scenario_text(PZ_GUARD)
    docs = []
    for chunk in (3, 7, 40):
        plan = B.BatchPlan(file=str(PZ_GUARD), text=text, root="q", n=40, chunk=chunk, quality=True)
        out = B.run_batch(plan, B.InlineExecutor())
        docs.append(msgspec.json.encode(summary(out.points[0].acc.quality)))
    assert docs[0] == docs[1] == docs[2]
    by_policy = msgspec.json.decode(docs[0])
    assert by_policy["aggressive"]["attack_tests"] > 0


def test_batch_quality_counts_every_attack_test_of_the_fights() -> None:
    # the same fights run one by one with the seeds the batch uses
    text = B.read_scenario_text(PZ_GUARD)
    out = B.run_batch(B.BatchPlan(file=str(PZ_GUARD), text=text, root="c", n=12, quality=True), B.InlineExecutor())
    direct = scenario_quality(PZ_GUARD, (B.fight_seed("c", i) for i in range(12)))
    assert msgspec.to_builtins(out.points[0].acc.quality) == msgspec.to_builtins(direct)
    total = PolicyQuality()
    for q in direct.values():
        total.merge(q)
    assert total.attacks == sum(q.attacks for q in direct.values()) > 0


def test_zcorps_cp_worth_reads_only_the_cp_dice_bought_for_the_test() -> None:
    """The actor's dice since its last test may hold CP dice bought for a resistance roll in between (ZC-RES-1):
    only the CP dice rolled after the test's own roll count (they once made 12 of 301 CP look worth < 10 points)."""

    def dice(rule: str, faces: list[int], purpose: str) -> E.DiceRolled:
        return E.DiceRolled(
            actor="rosa", purpose=purpose, rule=rule, sides=6, faces=faces, fates=["kept"] * len(faces), first=0
        )

    test = E.SkillTested(
        actor="rosa", rule="ZC-ATK-1", skill="firearms 4D+1", kept=5, dice_total=16, difficulty=18,
        difficulty_base=10, total=18, success=True, margin=0, target="z1",
    )  # fmt: skip
    own = [dice("ZC-ATK-1", [2, 3, 4], "shot"), dice("ZC-WILD-1", [4], "shot: Joker"), dice("ZC-CP-1", [3], "cp")]
    earlier = [dice("ZC-RES-1", [5, 5, 5], "resistance"), dice("ZC-CP-1", [6, 6], "resistance: 2 CP dice")]
    alone = zc_quality(test, own)
    after_resistance = zc_quality(test, earlier + own)
    assert alone is not None and after_resistance is not None
    # the roll lacked 18 - (18 - 3) = 3 points: one CP Joker makes them up 4 times in 6
    assert alone.extras[0].kind == "cp" and abs(alone.extras[0].after - 4 / 6) < 1e-12
    assert after_resistance.extras == alone.extras
