"""The tampering corpus: every tampering of issue 5, on a log of every system with a scenario.

Each tampered log must fail ``verify_log`` with a problem naming the line
(and seq) where the tampering is; a re-chained tampering (the hash chain
recomputed after the edit) must still be caught by the dice or the rules.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest
from fracas.core import events as E
from fracas.core.log import GENESIS, encode_entry, read_log
from fracas.core.system import system_names
from fracas.services.run import run_scenario
from fracas.services.verify import Problem, verify_log

ROOT = Path(__file__).resolve().parents[2]
SYSTEMS = [
    s for s in system_names() if (ROOT / "scenarios" / s).is_dir() and list((ROOT / "scenarios" / s).glob("*.toml"))
]

Entries = list[E.Entry]


def write(path: Path, entries: Entries, *, rechain: bool) -> Path:
    """Write entries; ``rechain``: renumber seq and recompute every hash, as a careful forger would."""
    out = []
    prev = GENESIS
    for i, e in enumerate(entries):
        if rechain:
            line, prev = encode_entry(i, e.round, e.count, e.sec, e.ev, prev)
        else:
            line = msgspec.json.encode(e, order="deterministic")
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.fixture(scope="module", params=SYSTEMS)
def original(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Entries]:
    """A finished log of the system's first scenario with at least one test and two rolls."""
    scenario = sorted((ROOT / "scenarios" / request.param).glob("*.toml"))[0]
    directory = tmp_path_factory.mktemp(request.param)
    for seed in range(1, 40):
        path = directory / f"seed{seed}.jsonl"
        run_scenario(scenario, seed=str(seed), log_path=path)
        entries = read_log(path).entries
        rolls = [e for e in entries if isinstance(e.ev, E.DiceRolled) and e.ev.source == "derived"]
        tests = [e for e in entries if isinstance(e.ev, E.SkillTested)]
        if len(rolls) >= 2 and tests:
            return path, entries
    pytest.fail(f"no seed of {scenario} gives a log with two rolls and a test")


def first(entries: Entries, kind: type[E.Event]) -> int:
    return next(i for i, e in enumerate(entries) if type(e.ev) is kind)


def edit(entries: Entries, i: int, **fields: object) -> Entries:
    out = list(entries)
    out[i] = msgspec.structs.replace(out[i], ev=msgspec.structs.replace(out[i].ev, **fields))
    return out


def edit_face(entries: Entries) -> tuple[Entries, int]:
    i = first(entries, E.DiceRolled)
    ev = entries[i].ev
    assert isinstance(ev, E.DiceRolled)
    faces = list(ev.faces)
    faces[0] = faces[0] % ev.sides + 1
    return edit(entries, i, faces=faces), i


def edit_total(entries: Entries) -> tuple[Entries, int]:
    i = first(entries, E.SkillTested)
    ev = entries[i].ev
    assert isinstance(ev, E.SkillTested)
    return edit(entries, i, total=ev.total + 3), i


def delete(entries: Entries) -> tuple[Entries, int]:
    i = [k for k, e in enumerate(entries) if type(e.ev) is E.DiceRolled][1]
    return entries[:i] + entries[i + 1 :], i


def duplicate(entries: Entries) -> tuple[Entries, int]:
    i = first(entries, E.SkillTested)
    return entries[: i + 1] + entries[i:], i + 1


def move(entries: Entries) -> tuple[Entries, int]:
    """The first roll moved one place later."""
    i = first(entries, E.DiceRolled)
    out = list(entries)
    out[i], out[i + 1] = out[i + 1], out[i]
    return out, i


def wrong_seed(entries: Entries) -> tuple[Entries, int]:
    return edit(entries, len(entries) - 1, seed="not the seed"), len(entries) - 1


TAMPERINGS: dict[str, Callable[[Entries], tuple[Entries, int]]] = {
    "face edited": edit_face,
    "total edited": edit_total,
    "event deleted": delete,
    "event duplicated": duplicate,
    "event moved": move,
    "revealed seed not the committed one": wrong_seed,
}


def check(path: Path, index: int, steps: tuple[str, ...]) -> Problem:
    report = verify_log(path)
    assert not report.ok and report.exit_code == 1
    problem = report.problem
    assert problem is not None
    assert (problem.step, problem.line) in [(s, index + 1) for s in steps], problem
    assert problem.text().startswith(f"line {index + 1}, seq ")
    return problem


def test_an_untouched_log_verifies(original: tuple[Path, Entries]) -> None:
    report = verify_log(original[0])
    assert report.ok, report.problem
    assert [s.status for s in report.steps] == ["ok"] * 6
    assert report.dice["re-derived"] == report.dice["derived"] > 0


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_a_tampering_breaks_the_chain_at_its_line(name: str, original: tuple[Path, Entries], tmp_path: Path) -> None:
    entries, index = TAMPERINGS[name](original[1])
    path = write(tmp_path / "t.jsonl", entries, rechain=False)
    check(path, index, ("chain", "structure"))


@pytest.mark.parametrize("name", list(TAMPERINGS))
def test_a_rechained_tampering_is_caught_by_the_dice_or_the_rules(
    name: str, original: tuple[Path, Entries], tmp_path: Path
) -> None:
    entries, index = TAMPERINGS[name](original[1])
    path = write(tmp_path / "t.jsonl", entries, rechain=True)
    check(path, index, ("dice", "rules"))


@pytest.mark.parametrize("keep", [0.5, 0.9])
def test_a_truncated_log_is_reported_as_an_unfinished_fight(
    keep: float, original: tuple[Path, Entries], tmp_path: Path
) -> None:
    data = original[0].read_bytes()
    lines = data.split(b"\n")
    n = int(len(lines) * keep)
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"\n".join(lines[:n]) + b"\n")
    report = verify_log(path)
    assert report.exit_code == 1 and not report.finished
    assert report.problem is not None and report.problem.step == "structure"
    assert report.problem.line == n
    assert "unfinished fight" in report.problem.message
    assert [s.status for s in report.steps][1:] == ["ok", "ok", "ok", "ok", "ok"]  # the prefix itself is sound


def test_a_log_cut_mid_line_is_a_torn_unfinished_fight(original: tuple[Path, Entries], tmp_path: Path) -> None:
    data = original[0].read_bytes()
    path = tmp_path / "torn.jsonl"
    path.write_bytes(data[: len(data) // 2])
    report = verify_log(path)
    torn_line = data[: len(data) // 2].count(b"\n") + 1
    assert report.problem is not None and report.problem.step == "structure"
    assert report.problem.line == torn_line
    assert "the last line is torn" in report.problem.message and "unfinished fight" in report.problem.message


def test_hashes_shifted_between_two_lines_break_the_chain_at_the_first(
    original: tuple[Path, Entries], tmp_path: Path
) -> None:
    """A character moved from one ``h`` to the one before: the hashes' concatenation is unchanged, the chain is not."""
    entries = list(original[1])
    h1, h2 = entries[1].h, entries[2].h
    entries[1] = msgspec.structs.replace(entries[1], h=h1 + h2[0])
    entries[2] = msgspec.structs.replace(entries[2], h=h2[1:])
    problem = check(write(tmp_path / "t.jsonl", entries, rechain=False), 1, ("chain",))
    assert problem.message == "hash chain broken: this line, or one before it, was changed"
    assert (problem.expected, problem.found) == (h1, h1 + h2[0])
