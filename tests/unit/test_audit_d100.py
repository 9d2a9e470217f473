"""``fracas audit`` on d100 logs: the odds line is P(a band at least as good), counted over the 100 rolls."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.log import read_log
from fracas.services.run import run_scenario
from fracas.systems.d100 import outcome_odds

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = [ROOT / "scenarios" / "d100" / f"{name}.toml" for name in ("duel", "corridor")]
SEEDS = range(1, 21)
RANK = {"critical_success": 0, "success": 1, "failure": 2, "critical_failure": 3, "fumble": 4}


def band(roll: int, target: int, attack: bool) -> str:
    """D100-ROLL-1 / D100-CRIT-1 / D100-ATK-2, written out again: 01 succeeds, 100 fails, doubles, margins of 41."""
    double = roll == 100 or roll % 11 == 0
    if roll == 1 or (roll != 100 and roll <= target):
        return "critical_success" if double or target - roll >= 41 else "success"
    if attack and double:
        return "fumble"
    return "critical_failure" if double or roll - target >= 41 else "failure"


def counted(roll: int, target: int, attack: bool) -> Fraction:
    """P(a d100 roll lands in this roll's band or a better one), counting the 100 faces."""
    rank = RANK[band(roll, target, attack)]
    return Fraction(sum(1 for r in range(1, 101) if RANK[band(r, target, attack)] <= rank), 100)


@pytest.fixture(scope="module")
def tests(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, int, E.SkillTested, E.DiceRolled]]:
    """Every d100 test of a few fights, with the roll just before it."""
    directory = tmp_path_factory.mktemp("d100_audit")
    out = []
    for scenario in SCENARIOS:
        for seed in SEEDS:
            path = directory / f"{scenario.stem}{seed}.jsonl"
            run_scenario(scenario, seed=str(seed), log_path=path)
            entries = read_log(path).entries
            for i, e in enumerate(entries):
                dice = entries[i - 1].ev
                if isinstance(e.ev, E.SkillTested) and isinstance(dice, E.DiceRolled):
                    out.append((path, e.seq, e.ev, dice))
    return out


CASES: dict[str, Callable[[E.SkillTested, E.DiceRolled], bool]] = {
    "a hit": lambda t, d: d.rule == "D100-ATK-1" and t.success and not t.critical,
    "a critical hit": lambda t, d: d.rule == "D100-ATK-1" and t.critical == "success",
    "a miss": lambda t, d: d.rule == "D100-ATK-1" and not t.success and not t.critical,
    "an attack's critical failure": lambda t, d: d.rule == "D100-ATK-1" and t.critical == "failure",
    "a fumble": lambda t, d: t.critical == "fumble",
    "a modified dodge": lambda t, d: t.skill == "dodge" and t.difficulty != t.difficulty_base,
    "a failed parry": lambda t, d: t.skill == "parry" and not t.success,
    "a failed double outside an attack": lambda t, d: (
        d.rule != "D100-ATK-1" and not t.success and (t.total % 11 == 0 or t.total == 100)
    ),
    "a resistance roll": lambda t, d: t.skill.startswith("CON x"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_audit_odds_line_is_the_band_or_better_count(
    case: str,
    tests: list[tuple[Path, int, E.SkillTested, E.DiceRolled]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = next(((p, s, t, d) for p, s, t, d in tests if CASES[case](t, d)), None)
    if found is None:
        pytest.fail(f"no {case} in the logs")
    path, seq, test, dice = found
    want = float(counted(test.total, test.difficulty, dice.rule == "D100-ATK-1"))
    assert main(["audit", str(path), str(seq)]) == 0
    out = capsys.readouterr().out
    assert f"Where it fell: {want:.2%} of rolls do this well or better\n" in out
    assert outcome_odds(test, dice) == want


def test_every_logged_test_gets_its_band_or_better_odds(
    tests: list[tuple[Path, int, E.SkillTested, E.DiceRolled]],
) -> None:
    assert len(tests) > 100
    for _, _, test, dice in tests:
        assert outcome_odds(test, dice) == float(counted(test.total, test.difficulty, dice.rule == "D100-ATK-1"))


def test_a_success_at_60_is_sixty_percent_and_the_worst_band_is_certain() -> None:
    def test(roll: int, critical: str = "") -> E.SkillTested:
        return E.SkillTested(
            actor="a", rule="D100-ROLL-1", skill="dodge", kept=1, dice_total=roll, difficulty=60, difficulty_base=60,
            total=roll, success=roll <= 60, margin=60 - roll, critical=critical,
        )  # fmt: skip

    assert outcome_odds(test(45), None) == 0.6
    assert outcome_odds(test(99, "fumble"), None) == 1.0
    assert outcome_odds(test(77), None) is None  # a failed double without its dice: attack or not?
    assert outcome_odds(test(70), None) == 0.95  # failure or better: all but the failed doubles 66..99, 100


def test_the_test_line_reads_the_d100_as_rolled_and_a_reaction_by_its_count(
    tests: list[tuple[Path, int, E.SkillTested, E.DiceRolled]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    """D100-ROLL-1: one d100 is rolled, nothing kept or dropped; D100-REACT-1: a reaction is declared when the
    shot comes, at the shooter's count, by no policy of the round's start."""
    path, seq, test, _ = next(c for c in tests if c[2].skill == "dodge")
    assert main(["audit", str(path), str(seq)]) == 0
    lines = capsys.readouterr().out.splitlines()
    test_line = next(x for x in lines if x.startswith("Test "))
    assert "keeps the best" not in test_line and test_line.endswith(f": rolls {test.dice_total}"), test_line
    why = next(x for x in lines if x.startswith("Why: "))
    assert "at the start of round" not in why and "the ? policy" not in why, why
    assert " at count " in why, why
