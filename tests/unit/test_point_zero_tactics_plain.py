"""Point Zéro competent AI: the decision's shortcuts answer as the plain computation (issue 5, logs unchanged).

The shortcuts (systems/point_zero/tactics.py): a decision asked again with every input it reads the same
(:func:`tactics.decision_key`: the actors' states, the round's initiatives and declarations) answers as it did,
in fights of :data:`tactics.SAME_DECISION_ACTORS` actors or fewer.

Each fight test plays real fights (every Point Zéro scenario and the endless brawl, under the default rules
edition and editions 3 to 5) with every decision checked against the plain computation, and counts that the
shortcuts were taken (a check that never meets them proves nothing); one test breaks each shortcut on purpose and
sees the check fail.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from fracas.core.encounter import Encounter
from fracas.services.batch import build_scenario, read_scenario_text
from fracas.services.run import run_scenario
from fracas.systems.point_zero import tactics

ROOT = Path(__file__).resolve().parents[2]
ENDLESS = "tests/data/pz_endless.toml"
#: The endless brawl's two, 29 m apart and slower: five rounds of sprints toward each other, then the stalemate
#: (a decision key that left out where they stand would answer a stalemate round as an approach round)
APPROACH = (
    ("round_limit = 10000", "round_limit = 40"),
    ("width = 10", "width = 30"),
    ("position = [4, 4]", "position = [0, 4]"),
    ("position = [5, 4]", "position = [29, 4]"),
    ("INIT = 2, DEP = 12", "INIT = 1, DEP = 3"),
)
#: The endless brawl's two unarmoured and deft enough to land blows: Shock wounds, holds and blows
SPARRING = (
    ("round_limit = 10000", "round_limit = 80"),
    ('armour = "heavy_combat"', 'armour = "none"'),
    ("ADR = 2", "ADR = 3"),
)
#: (scenario file, changes to its text, seeds, rules editions (None: the scenario's own))
FIGHTS = [
    ("scenarios/point_zero/duel.toml", (), (1, 2, 3), (None, 3, 5)),
    ("scenarios/point_zero/mira_vs_guard.toml", (), (1, 2), (None, 4)),
    ("scenarios/point_zero/warehouse.toml", (), (1, 2), (None, 5)),
    (ENDLESS, (("round_limit = 10000", "round_limit = 60"),), (1, 2), (None, 4)),
    (ENDLESS, APPROACH, (1, 2), (None, 4)),
    (ENDLESS, SPARRING, (1, 2, 3), (None,)),
]


def _scenario(file: str, changes: tuple[tuple[str, str], ...], edition: int | None) -> object:
    text = read_scenario_text(ROOT / file)
    for old, new in changes:
        assert old in text, (file, old)
        text = text.replace(old, new)
    if edition is not None:
        text += f"\n[rules]\nedition = {edition}\n"
    return build_scenario(file, text)


def checked_fights(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[str, Counter[str]]]:
    """Play the fights with every decision checked against the plain computation; yields per fight the
    decisions checked and the shortcuts met (an AssertionError names the first difference)."""
    seen: Counter[str] = Counter()
    choose = tactics.choose
    plain = tactics._choose

    def checked_choose(enc: Encounter, actor: str, style: tactics.Style) -> tactics.Option:
        key = tactics.decision_key(enc, actor, style)
        kept = enc.scratch.get(tactics.DECISIONS, {})
        again = key is not None and key in kept
        got = choose(enc, actor, style)
        assert got == plain(enc, actor, style), (enc.round, actor)
        seen["decisions"] += 1
        seen["decisions answered again"] += again
        return got

    monkeypatch.setattr(tactics, "choose", checked_choose)
    for file, changes, seeds, editions in FIGHTS:
        for edition in editions:
            scenario = _scenario(file, changes, edition)
            for seed in seeds:
                seen.clear()
                run_scenario(scenario, seed=str(seed), log_path=tmp_path / "fight.jsonl")  # type: ignore[arg-type]
                yield f"{file} edition {edition} seed {seed}", Counter(seen)


def test_the_shortcuts_answer_as_the_plain_computation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    total: Counter[str] = Counter()
    for fight, seen in checked_fights(monkeypatch, tmp_path):
        assert seen["decisions"] > 0, fight
        total += seen
    for what in ("decisions", "decisions answered again"):
        assert total[what] > 0, (what, total)


def test_a_crowd_keeps_no_decision() -> None:
    """Above :data:`tactics.SAME_DECISION_ACTORS` actors a decision's inputs are not looked at for a key."""
    text = read_scenario_text(ROOT / ENDLESS).replace("round_limit = 10000", "round_limit = 2")
    extra = "".join(
        f'[[actors]]\nid = "x{i}"\nside = "{"ab"[i % 2]}"\nposition = [{i % 10}, {i // 10 + 6}]\n'
        "attributes = { PER = 2, ADR = 2, VIG = 5, INIT = 2, DEP = 12 }\nskills = { brawl = 3 }\n"
        for i in range(tactics.SAME_DECISION_ACTORS - 1)
    )
    encounters: list[Encounter] = []
    choose = tactics._choose

    def spy(enc: Encounter, actor: str, style: tactics.Style) -> tactics.Option:
        encounters.append(enc)
        return choose(enc, actor, style)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tactics, "_choose", spy)
        run_scenario(build_scenario("crowd.toml", text + extra), seed="1")  # type: ignore[arg-type]
    assert encounters and len(encounters[-1].state.actors) > tactics.SAME_DECISION_ACTORS
    assert tactics.DECISIONS not in encounters[-1].scratch


def test_the_check_finds_a_broken_shortcut(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The shortcut broken on purpose, a decision key without the actors' states (where they stand, their
    wounds): the approach's first rounds answer its stalemate's, the plain computation otherwise, and the check
    sees it."""
    real = tactics._KEY_ENCODER

    class WithoutStates:
        def encode(self, parts: tuple[object, ...]) -> bytes:
            return real.encode((*parts[:2], None, *parts[3:]))  # (actor, style, states, inits, plans, against)

    monkeypatch.setattr(tactics, "_KEY_ENCODER", WithoutStates())
    with pytest.raises(AssertionError):
        for _ in checked_fights(monkeypatch, tmp_path):
            pass
