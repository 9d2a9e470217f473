"""The per-event path's shortcuts against the plain computation they stand for (issue 17: verify's speed).

Each shortcut must write the very bytes the plain code writes, in both log
forms, for every system, and show a listener the very dice counter between
events: a fight is run once with the default derived dice (the shortcuts
taken) and once with a derived-dice subclass the shortcuts do not recognise
(the plain path: ``Encounter.roll`` per die), and the two are compared.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import msgspec
import pytest
from fracas.core import events as E
from fracas.core.bundled import resolve_scenario
from fracas.core.dice import DerivedDice
from fracas.services.run import run_scenario

DATA = Path(__file__).resolve().parents[1] / "data"


class PlainDerivedDice(DerivedDice):
    """The same faces as :class:`DerivedDice`, through the plain path (a subclass is never shortcut)."""


def _fight(
    scenario: Path, seed: str, dice: DerivedDice, log: Path, *, binary: bool, listen: bool = True
) -> list[tuple[int, int, str]]:
    """Run a fight; return what a listener sees: each event's seq, the dice counter then, and its type.

    ``listen=False``: no listener (as ``fracas verify`` and a plain ``run`` play), so the shortcuts that
    only a listener could tell apart (a run of events written at once) are taken; nothing is seen.
    """
    seen: list[tuple[int, int, str]] = []

    def listener(seq: int, rnd: int, count: int, sec: float, ev: Any) -> None:
        seen.append((seq, dice.counter, type(ev).__name__))

    run_scenario(scenario, seed=seed, dice=dice, log_path=log, binary=binary, listeners=[listener] if listen else [])
    return seen


FIGHTS = [
    (resolve_scenario("zcorps/barricade"), "3"),
    (DATA / "zc_horde.toml", "1"),
    (resolve_scenario("point_zero/warehouse"), "4"),
    (DATA / "d100_siege.toml", "2"),
]


@pytest.mark.parametrize("binary", [False, True], ids=["jsonl", "binary"])
@pytest.mark.parametrize(("scenario", "seed"), FIGHTS, ids=[f"{p.stem}-{s}" for p, s in FIGHTS])
def test_roll_offs_drawn_at_once_write_what_a_roll_per_actor_writes(
    tmp_path: Path, scenario: Path, seed: str, binary: bool
) -> None:
    fast, plain, unheard = tmp_path / "fast.log", tmp_path / "plain.log", tmp_path / "unheard.log"
    seen_fast = _fight(scenario, seed, DerivedDice(seed), fast, binary=binary)
    seen_plain = _fight(scenario, seed, PlainDerivedDice(seed), plain, binary=binary)
    _fight(scenario, seed, DerivedDice(seed), unheard, binary=binary, listen=False)
    assert fast.read_bytes() == plain.read_bytes()
    assert unheard.read_bytes() == plain.read_bytes()  # the runs written at once (Encounter.emit_each)
    assert seen_fast == seen_plain
    # not vacuous: the fight has roll-offs of more than two actors, and roll-offs again among them
    groups = _roll_off_groups(plain)
    assert max(groups) > 2, groups


def _roll_off_groups(log: Path) -> list[int]:
    """The sizes of the runs of consecutive roll-off DiceRolled events in a log."""
    from fracas.core.log import read_log

    sizes: list[int] = [0]
    for entry in read_log(log).entries:
        ev = entry.ev
        if type(ev) is E.DiceRolled and ev.purpose in ("tie roll-off", "initiative tie: 1D12 again"):
            sizes[-1] += 1
        elif sizes[-1]:
            sizes.append(0)
    return sizes


@pytest.mark.parametrize("edition", [1, 6])
def test_a_lone_joker_rolled_at_once_writes_what_the_general_roll_writes(tmp_path: Path, edition: int) -> None:
    """A 1D pool (each zombie's initiative) is written out for derived dice (resolution._roll_joker_alone).

    Rules edition 1 kept a lone Joker's 1 and later editions cancel it (ZC-WILD-2): both readings, against
    the general roll of :func:`fracas.systems.zcorps.dice.roll_pool`.
    """
    text = (DATA / "zc_horde.toml").read_text(encoding="utf-8")
    scenario = tmp_path / "horde.toml"
    scenario.write_text(text.replace("[map]", f"[rules]\nedition = {edition}\n\n[map]", 1), encoding="utf-8")
    fast, plain = tmp_path / "fast.log", tmp_path / "plain.log"
    seen_fast = _fight(scenario, "1", DerivedDice("1"), fast, binary=False)
    seen_plain = _fight(scenario, "1", PlainDerivedDice("1"), plain, binary=False)
    _fight(scenario, "1", DerivedDice("1"), tmp_path / "unheard.log", binary=False, listen=False)
    assert fast.read_bytes() == plain.read_bytes() == (tmp_path / "unheard.log").read_bytes()
    assert seen_fast == seen_plain
    # not vacuous: lone Jokers rolled a 1 (cancelled from edition 2 on, kept in edition 1) and exploded
    from fracas.core.log import read_log

    events = [e.ev for e in read_log(plain).entries]
    # the Jokers of 1D pools: no plain dice of the same roll just before them
    jokers = [
        ev
        for before, ev in itertools.pairwise(events)
        if type(ev) is E.DiceRolled
        and ev.purpose == "initiative (Agilité): Joker"
        and not (type(before) is E.DiceRolled and before.purpose.startswith("initiative (Agilité) ("))
    ]
    lone_ones = [ev for ev in jokers if ev.faces[0] == 1]
    assert lone_ones and any(len(ev.faces) > 2 for ev in jokers)
    assert all(ev.fates == (["kept"] if edition == 1 else ["cancelled"]) for ev in lone_ones)


@pytest.mark.parametrize("listen", [True, False], ids=["listened", "unheard"])
@pytest.mark.parametrize("edition", [1, 4, 6])
def test_a_round_of_initiatives_writes_what_a_roll_each_writes(tmp_path: Path, edition: int, listen: bool) -> None:
    """resolution.roll_initiatives rolls the commonest initiative (1D Agilité, nothing to add or ask) itself.

    Every other roll is roll_initiative's: the actors here are set off balance (ZC-BRAWL-1), wounded
    (ZC-WOUND-1: a zombie feels nothing), given CP to spend (ZC-CP-1, edition 4 on) or left as they are.
    Unheard (no listener), the lone Jokers' events are written a run at a time: the log's bytes, the
    initiatives, the dice counter and the state after the round are compared.
    """
    from fracas.core.encounter import Encounter
    from fracas.core.scenario import load_scenario
    from fracas.core.system import get_system
    from fracas.systems.zcorps import resolution as R

    text = (DATA / "zc_horde.toml").read_text(encoding="utf-8")
    text = text.replace('agilite = "3D+1"', 'agilite = "1D+1"')  # a survivor with a 1D Agilité: Marcus, wounded below
    scenario = tmp_path / "horde.toml"
    scenario.write_text(text.replace("[map]", f"[rules]\nedition = {edition}\n\n[map]", 1), encoding="utf-8")

    def initiatives(dice: DerivedDice, log: Path) -> tuple[dict[str, int], list[tuple[int, int, bytes]]]:
        seen: list[tuple[int, int, bytes]] = []
        enc = Encounter(
            get_system("zcorps"),
            load_scenario(scenario),
            seed="1",
            dice=dice,
            log_path=log,
            listeners=[lambda seq, rnd, count, sec, ev: seen.append((seq, dice.counter, msgspec.json.encode(ev)))]
            if listen
            else [],
        )
        enc.emit(enc.header())
        enc.round = 1
        enc.emit(E.RoundStarted(round=1))
        for spec in enc.scenario.actors:
            enc.emit(enc.system.entered(enc, spec))
        for i, aid in enumerate(enc.state.actors):
            if i % 3 == 0:
                enc.emit(E.ConditionSet(actor=aid, condition="off_balance", value=1, rule="ZC-BRAWL-1"))
            if i % 4 == 1:
                enc.emit(
                    E.WoundMarked(actor=aid, monitor="wounds", level=1, level_name="w", damage=1, threshold=1, rule="t")
                )
            if i % 5 == 2:
                enc.emit(E.ResourceSpent(actor=aid, resource="cp", amount=-2, left=2, rule="t"))
        inits = R.roll_initiatives(enc, list(enc.state.actors))
        enc.writer.close()
        if not listen:  # what is left to compare: the dice counter and the state after the round
            seen.append((enc.seq, dice.counter, msgspec.json.encode(enc.state)))
        return inits, seen

    fast_log, plain_log = tmp_path / "fast.log", tmp_path / "plain.log"
    fast, plain = initiatives(DerivedDice("1"), fast_log), initiatives(PlainDerivedDice("1"), plain_log)
    assert fast == plain
    assert fast_log.read_bytes() == plain_log.read_bytes()
    # not vacuous: zombies rolled both ways (left as they are; set off balance), and exploded Jokers among them
    texts = plain_log.read_bytes().splitlines()
    assert sum(b'"type":"ConditionCleared"' in ev for ev in texts) > 5
    assert sum(b'"type":"InitiativeSet"' in ev for ev in texts) == len(plain[0]) > 40


@pytest.mark.parametrize("binary", [False, True], ids=["jsonl", "binary"])
def test_a_run_written_at_once_stops_where_emit_stops(tmp_path: Path, binary: bool) -> None:
    """Encounter.emit_each with no listener folds each event as it comes and writes the run at once.

    An event that cannot be folded (an actor nobody knows) raises as :meth:`Encounter.emit` raises, and
    the events before it are folded and written, as emitting them one at a time leaves them: the log's
    bytes, the next seq and the state are compared.
    """
    from fracas.core.encounter import Encounter
    from fracas.core.scenario import load_scenario
    from fracas.core.system import get_system

    def play(at_once: bool, log: Path) -> tuple[int, bytes]:
        enc = Encounter(
            get_system("zcorps"), load_scenario(DATA / "zc_horde.toml"), seed="1", log_path=log, binary=binary
        )
        enc.emit(enc.header())
        enc.round = 1
        enc.emit(E.RoundStarted(round=1))
        for spec in enc.scenario.actors[:3]:
            enc.emit(enc.system.entered(enc, spec))
        run = [
            E.InitiativeSet(actor="rosa", value=7, actions=1, rule="ZC-INIT-1"),
            E.Moved(actor="marcus", x=3, y=4, metres=1, initiative=7, rule="ZC-MOVE-1"),
            E.InitiativeSet(actor="nobody", value=7, actions=1, rule="ZC-INIT-1"),
            E.Noted(actor="rosa", text="never written", rule="t"),
        ]
        with pytest.raises(KeyError, match="nobody"):
            if at_once:
                enc.emit_each(run)
            else:
                for ev in run:
                    enc.emit(ev)
        enc.writer.close()
        return enc.seq, msgspec.json.encode(enc.state)

    at_once, one_by_one = tmp_path / "at_once.log", tmp_path / "one_by_one.log"
    assert play(True, at_once) == play(False, one_by_one)
    assert at_once.read_bytes() == one_by_one.read_bytes()
    from fracas.core.log import read_log

    assert [type(e.ev).__name__ for e in read_log(at_once).entries][-2:] == ["InitiativeSet", "Moved"]


def test_a_run_pauses_the_collector_and_gives_it_back_even_when_a_listener_fails(tmp_path: Path) -> None:
    """The cyclic collector is paused for a fight, as verify's re-run and the replay pause it (issue 17: a cost
    per actor that stays flat: a run of 3,200 actors had its actors scanned again and again), and a run
    that stops on an error gives it back."""
    import gc

    seen: list[bool] = []

    def listener(seq: int, rnd: int, count: int, sec: float, ev: Any) -> None:
        seen.append(gc.isenabled())

    assert gc.isenabled()
    run_scenario(resolve_scenario("mira_vs_guard"), seed="7", log_path=tmp_path / "a.jsonl", listeners=[listener])
    assert seen and not any(seen)
    assert gc.isenabled()

    def fails(seq: int, rnd: int, count: int, sec: float, ev: Any) -> None:
        if seq == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_scenario(resolve_scenario("mira_vs_guard"), seed="7", log_path=tmp_path / "b.jsonl", listeners=[fails])
    assert gc.isenabled()


def test_one_action_counts_as_the_list_of_counts_does() -> None:
    """resolution.action_counts gives one action's counts without its loop: the plain list, for every value."""
    from fracas.core.encounter import Encounter
    from fracas.core.scenario import load_scenario
    from fracas.core.system import get_system
    from fracas.systems.zcorps import resolution as R

    enc = Encounter(get_system("zcorps"), load_scenario(DATA / "zc_horde.toml"), seed="1")
    enc.emit(enc.system.entered(enc, enc.actor_specs["rosa"]))  # an extra action is logged (ZC-MULTI-1)
    per_action = enc.rules.points_per_action
    for value in range(-2, 4 * per_action):
        for extra in (0, 1):
            granted = max(1, value // per_action)
            plain = [max(1, value - per_action * i) for i in range(granted + extra)]
            assert R.action_counts(enc, "rosa", value, extra) == plain, (value, extra)


def test_the_writer_keeps_a_clock_reading_s_json_as_the_encoder_writes_it() -> None:
    """LogWriter encodes each clock reading once (msgspec.Raw) for the events that share it: the very lines
    :func:`fracas.core.log.encode_entry` chains, event by event and a run at a time, whatever the readings
    (zeros of both signs, readings that come back, the shortest forms of awkward floats)."""
    import io

    from fracas.core.log import GENESIS, LogWriter, encode_entry

    secs = [0.0, 0.0, 4.64, 4.64, 5.0, -0.0, 0.0, -0.0, 0.1 + 0.2, 0.1 + 0.2, 1e22, 1e-7, 4.64, float("nan"), 5.0]
    events = [E.Noted(actor=f"a{i}", text="t", rule="r") for i in range(len(secs))]
    prev, plain = GENESIS, []
    for seq, (sec, ev) in enumerate(zip(secs, events, strict=True)):
        line, prev = encode_entry(seq, 1, 2, sec, ev, prev)
        plain.append(line + b"\n")

    class Kept(io.BytesIO):
        def close(self) -> None:  # the bytes are read after the writer closes
            return None

    one, each = Kept(), Kept()
    by_one, by_runs = LogWriter(None, fh=one), LogWriter(None, fh=each)
    for seq, (sec, ev) in enumerate(zip(secs, events, strict=True)):
        by_one.append(seq, 1, 2, sec, ev)
        by_runs.append_each(seq, 1, 2, sec, [ev])
    by_one.close()
    by_runs.close()
    assert one.getvalue() == each.getvalue() == b"".join(plain)
    assert b'"sec":-0.0,' in one.getvalue()  # not vacuous: a reading that equals the last and is not written alike


def test_a_move_s_words_are_the_plain_words() -> None:
    """Plan.text of a plain move keeps the words of a cell of ints (resolution._move_words): the plain
    f-string's words for every path and targets, cells of ints or not (floats equal to ints, booleans, lists)."""
    import random

    from fracas.systems.zcorps.resolution import Plan

    def plain(plan: Plan) -> str:
        who = " and ".join(plan.targets)
        moving = f"move {len(plan.path)} m to {plan.path[-1] if plan.path else None}"
        return f"{moving} toward {who}" if who else moving

    rng = random.Random(17)
    cells: list[Any] = [(3, 4), (3.0, 4), (3, 4.0), (True, 4), [3, 4], (3, 4, 5), (-1, 12), (40, 7)]
    for _ in range(400):
        path = [rng.choice(cells) for _ in range(rng.randrange(4))]
        targets = rng.sample(["hal", "rosa", "z12"], rng.randrange(3))
        plan = Plan(kind="move", path=path, targets=targets)
        assert plan.text() == plain(plan), (path, targets)
        assert plan.text() == plain(plan)  # asked again: the kept words
