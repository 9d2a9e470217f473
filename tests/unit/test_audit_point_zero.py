"""``fracas audit``: a referee's explanation of a roll, with exact Point Zéro odds."""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from fracas.cli.main import main
from fracas.core import events as E
from fracas.core.errors import FracasError
from fracas.core.log import read_log
from fracas.services.audit import audit_log
from fracas.services.run import run_scenario
from fracas.systems.point_zero.odds import at_least, keep_best_distribution

ROOT = Path(__file__).resolve().parents[2]
MIRA = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


@pytest.mark.parametrize(("m", "n"), [(1, 1), (3, 2), (4, 3), (5, 3), (2, 4)])
def test_keep_best_distribution_equals_brute_force(m: int, n: int) -> None:
    counts: dict[int, int] = {}
    for faces in itertools.product(range(1, 7), repeat=m):
        t = sum(sorted(faces, reverse=True)[:n])
        counts[t] = counts.get(t, 0) + 1
    assert keep_best_distribution(m, n) == {t: Fraction(c, 6**m) for t, c in sorted(counts.items())}


def test_at_least_of_mira_keeping_three_of_five_against_twelve() -> None:
    assert at_least(5, 3, 12) == Fraction(6023, 7776)


@pytest.fixture(scope="module")
def mira_hit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[E.Entry], int]:
    """A Mira log where her shot hits (without surpassing herself: the text below names no surpass), and the index
    of that test."""
    directory = tmp_path_factory.mktemp("audit")
    for seed in range(1, 60):
        path = directory / f"mira{seed}.jsonl"
        run_scenario(MIRA, seed=str(seed), log_path=path)
        entries = read_log(path).entries
        for i, e in enumerate(entries):
            ev = e.ev
            if (
                isinstance(ev, E.SkillTested)
                and ev.actor == "mira"
                and ev.success
                and ev.target == "guard"
                and "surpass" not in ev.skill
            ):
                return path, entries, i
    pytest.fail("no seed where Mira hits the guard")


def test_the_audit_of_mira_s_shot_explains_dice_difficulty_margin_odds_and_consequences(
    mira_hit: tuple[Path, list[E.Entry], int],
) -> None:
    path, entries, i = mira_hit
    test = entries[i].ev
    dice = entries[i - 1].ev
    assert isinstance(test, E.SkillTested) and isinstance(dice, E.DiceRolled)
    audit = audit_log(path, seq=i)
    text = audit.lines
    assert audit.test_seq == i and audit.dice_seq == i - 1
    assert text[1].startswith('Why: Mira declared "') and "(decided by the cautious policy, seq " in text[1]
    assert text[2] == (
        f"Roll (seq {i - 1}): Mira rolls {len(dice.faces)}d6 for the pistol attack on the guard [PZ-TEST-1]; "
        f"dice {dice.first}..{dice.first + len(dice.faces) - 1} of the stream, derived from the seed:"
    )
    for k, (face, fate) in enumerate(zip(dice.faces, dice.fates, strict=True)):
        assert text[3 + k] == f"  die {dice.first + k}: {face} {fate}"
    kept = sorted((f for f, fate in zip(dice.faces, dice.fates, strict=True) if fate == "kept"), reverse=True)
    j = 3 + len(dice.faces)
    assert text[j] == (
        f"Test (seq {i}) [PZ-TEST-3]: Mira's handguns/PER against The guard: keeps the best {test.kept}: "
        + " + ".join(map(str, kept))
        + f" = {test.dice_total}"
    )
    assert text[j + 1] == f"Difficulty {test.difficulty}: base {test.difficulty_base}, then:"
    assert any(line.endswith("gloom [PZ-DIFF-3]") and "+2" in line for line in text)
    verdict = f"critical {test.critical}" if test.critical else "success"
    assert f"Result: {test.total} against {test.difficulty}: {verdict}, margin {test.margin:+d}" in text
    odds = float(at_least(len(dice.faces), test.kept, test.dice_total))
    assert audit.odds == odds
    assert f"Where it fell: {odds:.2%} of rolls do this well or better" in text
    after = text[text.index("What followed:") + 1 :]
    kinds = [type(entries[s].ev).__name__ for s in audit.consequences]
    assert kinds[:2] == ["DiceRolled", "DamageRolled"] and "ThresholdComputed" in kinds
    assert len(after) == len(audit.consequences)


def test_audit_by_roll_number_and_by_a_consequence_finds_the_same_test(
    mira_hit: tuple[Path, list[E.Entry], int],
) -> None:
    path, entries, i = mira_hit
    roll = sum(1 for e in entries[:i] if isinstance(e.ev, E.DiceRolled))
    assert audit_log(path, roll=roll).test_seq == i
    consequence = audit_log(path, seq=i).consequences[-1]
    assert audit_log(path, seq=consequence).test_seq == i


def test_audit_of_a_seq_that_does_not_exist_names_the_range(mira_hit: tuple[Path, list[E.Entry], int]) -> None:
    path, entries, _ = mira_hit
    with pytest.raises(FracasError) as err:
        audit_log(path, seq=10_000)
    assert str(err.value) == f"{path}: no event with seq 10000 (the log has seq 0..{entries[-1].seq})"


def test_the_audit_command_needs_a_seq_or_a_roll(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["audit", str(tmp_path / "x.jsonl")]) == 2
    assert capsys.readouterr().err == "fracas: error: audit: give either SEQ or --roll N\n"
