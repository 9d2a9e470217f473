"""fracas.services.batch: seeds, intervals, quantiles, mergeable accumulators, sweeps, the driver."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import all_scenarios
from fracas.core.errors import FracasError, ScenarioError
from fracas.services import batch as B
from fracas.services.run import run_scenario

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios" / "point_zero" / "mira_vs_guard.toml"


def _plan(n: int = 40, **kw: Any) -> B.BatchPlan:
    return B.BatchPlan(file=str(DUEL), text=B.read_scenario_text(DUEL), root="r", n=n, **kw)


def test_fight_seed_is_root_dash_index() -> None:
    assert B.fight_seed("7", 0) == "7-0"
    assert B.fight_seed("abc-1", 23) == "abc-1-23"


def test_batch_fight_is_the_fight_run_replays_with_the_derived_seed() -> None:
    loaded = B.build_scenario(str(DUEL), B.read_scenario_text(DUEL))
    rec = B.run_fight(loaded, 5, "r")
    direct = run_scenario(DUEL, seed="r-5", log_path=None)
    assert (rec.seed, rec.winner, rec.rounds, rec.reason) == ("r-5", direct.winner, direct.rounds, direct.reason)
    assert rec.actors["mira"].damage_taken == direct.state.actors["mira"].damage_taken


def test_wilson_interval_matches_published_values() -> None:
    lo, hi = B.wilson(0, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.0, 0.2775)
    lo, hi = B.wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    assert B.wilson(0, 0) == (0.0, 1.0)


def test_nearest_rank_median_and_p90_from_a_histogram() -> None:
    hist = {1: 1, 2: 1, 3: 1, 4: 1}
    assert (B.nearest_rank(hist, 0.5), B.nearest_rank(hist, 0.9)) == (2, 4)
    assert B.nearest_rank({3: 9, 10: 1}, 0.9) == 3
    assert B.nearest_rank({}, 0.5) is None


def test_accumulators_merge_to_the_same_bytes_in_any_order_and_split() -> None:
    loaded = B.build_scenario(str(DUEL), B.read_scenario_text(DUEL))
    levels = B.monitor_levels(loaded)
    recs = [B.run_fight(loaded, i, "m") for i in range(24)]
    whole = B.Acc(keep=3)
    for r in recs:
        whole.add(r, levels)
    parts = []
    for lo in range(0, 24, 5):
        acc = B.Acc(keep=3)
        for r in recs[lo : lo + 5]:
            acc.add(r, levels)
        parts.append(acc)
    for perm in (parts, parts[::-1], parts[2:] + parts[:2]):
        merged = B.Acc(keep=3)
        for p in perm:
            merged.merge(msgspec.msgpack.decode(msgspec.msgpack.encode(p), type=B.Acc))
        assert merged == whole
    assert whole.n == 24 and sum(whole.wins.values()) + whole.draws == 24


def test_chunking_and_executor_do_not_change_the_counts() -> None:
    inline = B.run_batch(_plan(chunk=7), B.InlineExecutor())
    pool = B.run_batch(_plan(chunk=16), B.PoolExecutor(2))
    assert inline.points == pool.points
    assert (inline.partial, pool.partial, pool.fights) == (False, False, 40)


class _Recording:
    """An in-process executor that keeps futures pending until waited on, recording the window."""

    workers = 2
    label = "recording"

    def __init__(self, stop_after: int | None = None) -> None:
        self.queue: list[tuple[cf.Future[B.ChunkResult], B.Chunk]] = []
        self.max_inflight = 0
        self.done = 0
        self.stop_after = stop_after
        self.closed_with: bool | None = None

    def submit(self, chunk: B.Chunk) -> cf.Future[B.ChunkResult]:
        fut: cf.Future[B.ChunkResult] = cf.Future()
        self.queue.append((fut, chunk))
        self.max_inflight = max(self.max_inflight, len(self.queue))
        return fut

    def wait_any(self, futures: list[Any]) -> list[Any]:
        if self.stop_after is not None and self.done >= self.stop_after:
            raise KeyboardInterrupt
        fut, chunk = self.queue.pop()  # the newest first: out of order on purpose
        fut.set_result(B.run_chunk(chunk))
        self.done += 1
        return [fut]

    def close(self, cancel: bool = False) -> None:
        self.closed_with = cancel


def test_driver_keeps_a_bounded_window_and_writes_rows_in_fight_order() -> None:
    ex = _Recording()
    seen: list[int] = []
    out = B.run_batch(
        _plan(n=60, chunk=5, rows=True), ex, window=3, rows=lambda p, recs: seen.extend(r.index for r in recs)
    )
    assert ex.max_inflight == 3
    assert seen == list(range(60))
    assert out.fights == 60 and ex.closed_with is False


def test_ctrl_c_returns_the_finished_chunks_marked_partial() -> None:
    ex = _Recording(stop_after=2)
    out = B.run_batch(_plan(n=60, chunk=10), ex, window=2)
    assert (out.partial, out.fights, ex.closed_with) == (True, 20, True)


def test_parse_sweep_values_and_ranges() -> None:
    assert B.parse_sweep("actors.mira.skills.handguns=3,4, 5") == ("actors.mira.skills.handguns", [3, 4, 5])
    assert B.parse_sweep("round_limit=2..4") == ("round_limit", [2, 3, 4])
    assert B.parse_sweep("rules.x=0.5,1") == ("rules.x", [0.5, 1])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("handguns", "--sweep 'handguns': expected PATH=V1,V2,... (e.g. actors.mira.skills.handguns=3,4,5)"),
        ("a.b=3,x", "--sweep a.b: 'x' is not a number (expected numbers like 3,4,5 or 3..7)"),
        ("a.b=3,3", "--sweep a.b: a value appears twice in 3,3"),
    ],
)
def test_parse_sweep_rejects_bad_text(text: str, message: str) -> None:
    with pytest.raises(FracasError) as err:
        B.parse_sweep(text)
    assert str(err.value) == message


def test_override_addresses_list_elements_by_id() -> None:
    loaded = B.build_scenario(str(DUEL), B.read_scenario_text(DUEL), (B.Override("actors.guard.skills.handguns", 7),))
    guard = next(a for a in loaded.spec.actors if a.id == "guard")
    assert guard.skills["handguns"] == 7
    assert loaded.raw["actors"][1]["skills"]["handguns"] == 7


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            "actors.mria.skills.handguns",
            3,
            "--sweep actors.mria.skills.handguns: no element with id `mria` at $.actors "
            "(ids: mira, guard, guard2, guard3)",
        ),
        (
            "actors.mira.skills.handgun",
            3,
            "--sweep actors.mira.skills.handgun: no `handgun` at $.actors[0].skills "
            "(keys: handguns, brawl, resistance)",
        ),
        ("actors.mira.name", 3, '--sweep actors.mira.name: $.actors[0].name is not a number (it is "Mira")'),
        (
            "actors.mira.skills.handguns",
            3.5,
            "--sweep actors.mira.skills.handguns: $.actors[0].skills.handguns is an integer, got 3.5",
        ),
        ("map.light.x", 3, "--sweep map.light.x: $.map.light is a str, not a table or a list"),
    ],
)
def test_bad_sweep_paths_are_clear_errors(path: str, value: float, message: str) -> None:
    with pytest.raises(FracasError) as err:
        B.build_scenario(str(DUEL), B.read_scenario_text(DUEL), (B.Override(path, value),))
    assert str(err.value) == message


def test_an_override_the_system_rejects_names_the_file_and_path() -> None:
    with pytest.raises(ScenarioError) as err:
        B.build_scenario(str(DUEL), B.read_scenario_text(DUEL), (B.Override("round_limit", 0),))
    assert str(err.value).endswith("$.round_limit: expected `int` >= 1, got 0")


def test_plan_points_is_the_grid_first_sweep_slowest() -> None:
    pts = B.plan_points([("a", [1, 2]), ("b", [5, 6])])
    assert [tuple(o.value for o in p) for p in pts] == list(itertools.product([1, 2], [5, 6]))
    assert B.plan_points([]) == ((),)


def test_keep_candidates_upset_draw_longest() -> None:
    acc = B.Acc(
        n=100,
        wins={"a": 90, "b": 10},
        draws=0,
        won_by={"a": [0, 1], "b": [4, 7]},
        drawn=[],
        longest=[(9, 3), (8, 1)],
        keep=5,
    )
    assert B.keep_candidates(acc, "upset") == [4, 7]
    assert B.keep_candidates(acc, "longest") == [3, 1]
    assert B.keep_candidates(acc, "draw") == []


def test_chunk_size_amortises_and_balances() -> None:
    assert B.chunk_size(100_000, 2) == 128
    assert B.chunk_size(100, 2) == 16
    assert B.chunk_size(10_000, 16) == 79
    assert B.chunk_size(800, 2) == 50


def test_later_chunks_take_about_a_quarter_second_within_their_bounds() -> None:
    assert B.CHUNK_SECONDS == 0.25
    assert B.next_chunk_size(128, 0.064, 100_000, 2) == 500  # 0.5 ms a fight
    assert B.next_chunk_size(128, 0.0001, 100_000, 2) == 4096  # never more than 4096
    assert B.next_chunk_size(128, 0.064, 2_000, 2) == 250  # a quarter of a worker's share
    assert B.next_chunk_size(16, 1.6, 100_000, 2) == 16  # 100 ms a fight: never fewer than 16
    assert B.next_chunk_size(16, 0.0, 100_000, 2) == 4096  # too fast to time


class ScriptedClock:
    """Runs chunks in this process, but each reports a scripted time per fight, not the wall clock's.

    The chunk sizes then follow from the script alone, so no load on the machine changes them.
    """

    workers = 1
    label = "scripted clock"

    def __init__(self, seconds_per_fight: list[float]) -> None:
        self.times = itertools.cycle(seconds_per_fight)

    def submit(self, chunk: B.Chunk) -> cf.Future[B.ChunkResult]:
        res = B.run_chunk(chunk)
        fut: cf.Future[B.ChunkResult] = cf.Future()
        fut.set_result(msgspec.structs.replace(res, seconds=(chunk.stop - chunk.start) * next(self.times)))
        return fut

    def wait_any(self, futures: Any) -> list[Any]:
        return list(futures)

    def close(self, cancel: bool = False) -> None:
        return None


def test_timed_chunk_sizes_change_nothing_but_the_chunking() -> None:
    fixed = B.run_batch(_plan(n=300, chunk=16), B.InlineExecutor())
    seen: list[int] = []
    # fast (0.1 ms a fight: the largest chunks), slow (50 ms: the smallest), in between (4 ms: 62 fights)
    # one chunk in flight, so each size follows from the time of the chunk before it
    timed = B.run_batch(_plan(n=300), ScriptedClock([0.0001, 0.05, 0.004]), progress=seen.append, window=1)
    assert timed.points == fixed.points
    # 38 = chunk_size(300, 1); then 75 (a quarter of the batch), 16 (the floor), 62 (0.25 s at 4 ms a fight)
    # and again, until the last 18 fights
    assert seen == [B.chunk_size(300, 1), 75, 16, 62, 75, 16, 18]


@pytest.mark.parametrize("scenario", all_scenarios(), ids=lambda p: p.stem)
def test_every_shipped_scenario_batches_the_same_in_any_chunking(scenario: Path) -> None:
    text = B.read_scenario_text(scenario)
    whole = B.run_batch(B.BatchPlan(file=str(scenario), text=text, root="c", n=6, chunk=6), B.InlineExecutor())
    split = B.run_batch(B.BatchPlan(file=str(scenario), text=text, root="c", n=6, chunk=2), B.InlineExecutor())
    assert whole.points == split.points
    assert whole.fights == 6 and sum(whole.points[0].acc.wins.values()) + whole.points[0].acc.draws == 6
