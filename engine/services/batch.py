"""Batch AI-versus-AI: many seeded fights of one scenario, aggregated in constant memory.

The shape (docs/batch.md):

- fight ``i`` (0-based) of a batch with root seed ``ROOT`` uses the seed text
  :func:`fight_seed` ``(ROOT, i) = f"{ROOT}-{i}"``; so ``fracas run SCENARIO
  --seed ROOT-i`` replays it, and the results never depend on how fights are
  split between workers, chunks or executors;
- fights run in *chunks* (:class:`Chunk`), a picklable job that any executor
  (in-process, a local process pool, Dask) runs with the same function
  :func:`run_chunk`; a worker loads the scenario once and keeps it;
- a chunk returns an :class:`Acc`, a mergeable accumulator of integer
  counts (merging is exact, associative and commutative, so the order in
  which chunks come back changes nothing), and optionally one row per fight
  for ``--out``;
- the driver (:func:`run_batch`) keeps a bounded window of chunks in flight,
  so memory does not grow with N.

Everything here is system-agnostic: it reads the final :class:`State`, the
state at the end of the fight (a shadow fold of the live events up to
``AftermathStarted``) and ``AmmoSpent`` events.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import importlib
import itertools
import json
import math
import os
import signal
import time
import tomllib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
from fracas.core import events as E
from fracas.core.errors import FracasError
from fracas.core.scenario import LoadedScenario, convert, convert_rules, read_toml, scenario_sha256
from fracas.core.state import DISABLING, State, apply
from fracas.core.system import get_system
from fracas.services.run import run_scenario

#: z for a two-sided 95 % interval.
Z95 = 1.959963984540054
#: How many fight indices the keep-logs candidates remember per kind (constant memory).
KEEP_MAX_DEFAULT = 10
#: A side whose overall win rate is below this made an "upset" when it won.
UPSET_BELOW_DEFAULT = 0.2
#: Distinct end reasons counted before the rest are lumped together.
MAX_REASONS = 32
#: How long ``--scheduler`` waits for the Dask scheduler to answer.
DASK_CONNECT_TIMEOUT = "10s"


def fight_seed(root: str, index: int) -> str:
    """The seed text of fight ``index`` of a batch with root seed ``root``: ``ROOT-i``.

    Injective: the text after the last ``-`` is the index, a decimal integer.
    Every sweep point uses the same seeds (common random numbers), which makes
    the differences between points less noisy.
    """
    return f"{root}-{index}"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (95 % by default); (0, 1) when n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def nearest_rank(hist: dict[int, int], q: float) -> int | None:
    """The nearest-rank ``q`` quantile of integer values given as a histogram.

    The smallest value whose cumulative count reaches ``ceil(q * n)`` (at
    least 1): the median of 1, 2, 3, 4 is 2, its p90 is 4. Exact, in
    memory bounded by the number of distinct values.
    """
    n = sum(hist.values())
    if n == 0:
        return None
    rank = max(1, math.ceil(q * n))
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= rank:
            return value
    return max(hist)  # pragma: no cover - unreachable: seen reaches n


# ------------------------------------------------------------------ scenarios


class Override(msgspec.Struct, frozen=True):
    """One swept value: a dotted path into the scenario and the number it takes."""

    path: str
    value: int | float


def _describe(node: Any) -> str:
    if isinstance(node, dict):
        return f"keys: {', '.join(map(str, node)) or 'none'}"
    if isinstance(node, list):
        ids = [str(x["id"]) for x in node if isinstance(x, dict) and "id" in x]
        return f"ids: {', '.join(ids)}" if ids else f"{len(node)} elements, addressed 0..{len(node) - 1}"
    return f"a {type(node).__name__}"


def resolve_path(
    raw: dict[str, Any], dotted: str, optional_top: Sequence[str] = (), optional_rules: Sequence[str] = ()
) -> tuple[Any, str | int, str]:
    """Find ``dotted`` in a raw scenario: (container, key, ``$.json.path``).

    A list element is addressed by its ``id`` (``actors.mira``) or, for lists
    without ids, by its index. The leaf must exist, except a top-level field
    or a ``rules`` value that the system knows but the file leaves at its default.
    """
    parts = dotted.split(".")
    if not dotted or any(not p for p in parts):
        raise FracasError(f"--sweep {dotted!r}: expected a dotted path like actors.mira.skills.handguns")
    node: Any = raw
    jpath = "$"
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict):
            if part not in node:
                creatable = (i == 0 and part in optional_top) or (
                    i == 1 and parts[0] == "rules" and part in optional_rules
                )
                if i == 0 and part == "rules" and not last and parts[1] in optional_rules:
                    node["rules"] = {}
                elif not (last and creatable):
                    raise FracasError(f"--sweep {dotted}: no `{part}` at {jpath} ({_describe(node)})")
            if last:
                return node, part, f"{jpath}.{part}"
            node = node[part]
            jpath = f"{jpath}.{part}"
        elif isinstance(node, list):
            idx = next((k for k, x in enumerate(node) if isinstance(x, dict) and str(x.get("id")) == part), None)
            if idx is None and part.isdigit() and int(part) < len(node):
                idx = int(part)
            if idx is None:
                raise FracasError(f"--sweep {dotted}: no element with id `{part}` at {jpath} ({_describe(node)})")
            if last:
                return node, idx, f"{jpath}[{idx}]"
            node = node[idx]
            jpath = f"{jpath}[{idx}]"
        else:
            raise FracasError(f"--sweep {dotted}: {jpath} is {_describe(node)}, not a table or a list")
    raise AssertionError("unreachable")  # pragma: no cover


def parse_sweep(text: str) -> tuple[str, list[int | float]]:
    """``actors.mira.skills.handguns=3,4,5`` -> (path, [3, 4, 5]); a range ``3..7`` works too."""
    path, sep, values = text.partition("=")
    path = path.strip()
    if not sep or not path or not values.strip():
        raise FracasError(f"--sweep {text!r}: expected PATH=V1,V2,... (e.g. actors.mira.skills.handguns=3,4,5)")
    out: list[int | float] = []
    for item in values.split(","):
        item = item.strip()
        lo, dots, hi = item.partition("..")
        try:
            if dots:
                out.extend(range(int(lo), int(hi) + 1))
            else:
                out.append(int(item) if item.lstrip("+-").isdigit() else float(item))
        except ValueError:
            raise FracasError(
                f"--sweep {path}: {item!r} is not a number (expected numbers like 3,4,5 or 3..7)"
            ) from None
        if not dots and isinstance(out[-1], float) and not math.isfinite(out[-1]):
            raise FracasError(f"--sweep {path}: {item!r} is not a finite number")
    if len(set(out)) != len(out):
        raise FracasError(f"--sweep {path}: a value appears twice in {values.strip()}")
    return path, out


def apply_overrides(raw: dict[str, Any], overrides: Sequence[Override], system_name: str) -> dict[str, Any]:
    """A deep copy of ``raw`` with each override set; errors name the path and why."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(raw))
    if not overrides:
        return out
    system = get_system(system_name)
    top = tuple(f.encode_name for f in msgspec.structs.fields(system.scenario_type))
    rules = tuple(f.encode_name for f in msgspec.structs.fields(system.rules_type))
    for ov in overrides:
        container, key, jpath = resolve_path(out, ov.path, top, rules)
        old = container[key] if (isinstance(container, list) or key in container) else None  # type: ignore[index]
        if isinstance(old, bool) or not (old is None or isinstance(old, int | float)):
            shown = json.dumps(old, ensure_ascii=False)
            raise FracasError(f"--sweep {ov.path}: {jpath} is not a number (it is {shown})")
        value = ov.value
        if isinstance(old, int) and not isinstance(value, int):
            if not float(value).is_integer():
                raise FracasError(f"--sweep {ov.path}: {jpath} is an integer, got {value}")
            value = int(value)
        container[key] = value
    return out


def build_scenario(file: str, text: str, overrides: Sequence[Override] = ()) -> LoadedScenario:
    """A LoadedScenario from a TOML text, with sweep overrides applied and validated.

    Mirrors :func:`fracas.core.scenario.load_scenario` on a text instead of a file,
    so a worker that cannot see the file (a Dask cluster) loads the same
    scenario. Without overrides the hash is the file's; with overrides it is
    the SHA-256 of the canonical JSON of the effective raw scenario, which is
    what the log header records.
    """
    try:
        raw0 = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FracasError(f"{file}: invalid TOML: {exc}") from None
    system_name = raw0.get("system")
    if not isinstance(system_name, str):
        raise FracasError(f"{file}: $.system: expected the name of a rule system")
    system = get_system(system_name)
    raw = apply_overrides(raw0, overrides, system_name) if overrides else raw0
    spec = convert(file, text, raw, system.scenario_type)
    rules_raw = msgspec.to_builtins(system.rules_type())
    rules_raw.update(spec.rules)
    convert_rules(file, text, rules_raw, system.rules_type)
    system.validate(spec, file, text)
    if overrides:
        sha = hashlib.sha256(msgspec.json.encode(raw, order="deterministic")).hexdigest()
    else:
        sha = scenario_sha256(text.encode("utf-8"))
    return LoadedScenario(path=file, spec=spec, raw=raw, sha256=sha)


def read_scenario_text(path: str | Path) -> str:
    """The scenario file's text (errors name the file)."""
    _, data = read_toml(Path(path))
    return data.decode("utf-8")


# ---------------------------------------------------------------- one fight


class _Probe:
    """A listener: a shadow fold up to the end of the fight, and ammunition spent."""

    __slots__ = ("ammo", "ended", "state")

    def __init__(self) -> None:
        self.state = State()
        self.ammo: dict[str, int] = {}
        self.ended = False

    def __call__(self, seq: int, rnd: int, count: int, sec: float, ev: E.Event) -> None:
        if self.ended:
            return
        apply(self.state, ev)
        if isinstance(ev, E.AmmoSpent):
            self.ammo[ev.actor] = self.ammo.get(ev.actor, 0) + ev.rounds
        elif isinstance(ev, E.AftermathStarted):
            self.ended = True


class ActorFight(msgspec.Struct, array_like=True):
    """What one fight did to one actor."""

    present: bool
    status: str  # at the end of the fight: active, unconscious, fled, dead...
    down: bool
    dead: bool
    damage_dealt: int
    damage_taken: int
    ammo_spent: int
    hp_lost: int | None
    worst: dict[str, int]  # monitor -> worst marked level at the end of the fight (-1: none)


class FightRecord(msgspec.Struct, array_like=True):
    index: int
    seed: str
    winner: str | None
    rounds: int
    reason: str
    actors: dict[str, ActorFight]


def run_fight(loaded: LoadedScenario, index: int, root: str, log_path: Path | None = None) -> FightRecord:
    """Run fight ``index`` of a batch (no log unless ``log_path``) and summarise it."""
    seed = fight_seed(root, index)
    probe = _Probe()
    result = run_scenario(loaded, seed=seed, log_path=log_path, listeners=[probe])
    end = probe.state
    actors: dict[str, ActorFight] = {}
    for spec in loaded.spec.actors:
        a = end.actors.get(spec.id)
        final = result.state.actors.get(spec.id)
        if a is None or final is None:
            actors[spec.id] = ActorFight(
                present=False,
                status="absent",
                down=False,
                dead=False,
                damage_dealt=0,
                damage_taken=0,
                ammo_spent=0,
                hp_lost=None,
                worst={},
            )
            continue
        actors[spec.id] = ActorFight(
            present=True,
            status=a.status(),
            down=any(c in DISABLING for c in a.conditions),
            dead="dead" in final.conditions,
            damage_dealt=final.damage_dealt,
            damage_taken=final.damage_taken,
            ammo_spent=probe.ammo.get(spec.id, 0),
            hp_lost=None if a.hp is None or a.hp_max is None else a.hp_max - a.hp,
            worst={m.name: m.worst() for m in a.monitors.values()},
        )
    return FightRecord(
        index=index, seed=seed, winner=result.winner, rounds=result.rounds, reason=result.reason, actors=actors
    )


# -------------------------------------------------------------- accumulators


class ActorAcc(msgspec.Struct):
    """Integer sums over the fights of a chunk (or of a whole batch) for one actor."""

    present: int = 0
    down: int = 0
    dead: int = 0
    damage_dealt: int = 0
    damage_taken: int = 0
    ammo_spent: int = 0
    hp_fights: int = 0
    hp_lost: int = 0
    #: status at the end of the fight -> fights
    statuses: dict[str, int] = {}
    #: monitor -> counts of the worst level at the end of the fight; index 0 = no wound, k = level k-1
    wounds: dict[str, list[int]] = {}
    levels: dict[str, list[str]] = {}

    def merge(self, other: ActorAcc) -> None:
        self.present += other.present
        self.down += other.down
        self.dead += other.dead
        self.damage_dealt += other.damage_dealt
        self.damage_taken += other.damage_taken
        self.ammo_spent += other.ammo_spent
        self.hp_fights += other.hp_fights
        self.hp_lost += other.hp_lost
        for st, c in other.statuses.items():
            self.statuses[st] = self.statuses.get(st, 0) + c
        for name, counts in other.wounds.items():
            mine = self.wounds.setdefault(name, [0] * len(counts))
            if len(mine) < len(counts):
                mine.extend([0] * (len(counts) - len(mine)))
            for k, c in enumerate(counts):
                mine[k] += c
        for name, lv in other.levels.items():
            self.levels.setdefault(name, lv)


def _keep_smallest(a: list[int], b: list[int], k: int) -> list[int]:
    return sorted(set(a) | set(b))[:k]


class Acc(msgspec.Struct):
    """A mergeable accumulator: counts only, so merging is exact and order-free."""

    n: int = 0
    wins: dict[str, int] = {}
    draws: int = 0
    rounds: dict[int, int] = {}
    reasons: dict[str, int] = {}
    actors: dict[str, ActorAcc] = {}
    keep: int = KEEP_MAX_DEFAULT
    #: keep-logs candidates: the first ``keep`` fight indices won by each side, drawn
    won_by: dict[str, list[int]] = {}
    drawn: list[int] = []
    #: the ``keep`` longest fights as (rounds, index), longest first, lowest index on ties
    longest: list[tuple[int, int]] = []

    def add(self, rec: FightRecord, levels: dict[str, dict[str, list[str]]]) -> None:
        self.n += 1
        if rec.winner is None:
            self.draws += 1
            if len(self.drawn) < self.keep:
                self.drawn.append(rec.index)
        else:
            self.wins[rec.winner] = self.wins.get(rec.winner, 0) + 1
            won = self.won_by.setdefault(rec.winner, [])
            if len(won) < self.keep:
                won.append(rec.index)
        self.rounds[rec.rounds] = self.rounds.get(rec.rounds, 0) + 1
        reason = rec.reason if (rec.reason in self.reasons or len(self.reasons) < MAX_REASONS) else "other"
        self.reasons[reason] = self.reasons.get(reason, 0) + 1
        self.longest = _top_longest(self.longest, [(rec.rounds, rec.index)], self.keep)
        for aid, af in rec.actors.items():
            acc = self.actors.get(aid)
            if acc is None:
                acc = self.actors[aid] = ActorAcc()
            if not af.present:
                acc.statuses["absent"] = acc.statuses.get("absent", 0) + 1
                continue
            acc.present += 1
            acc.statuses[af.status] = acc.statuses.get(af.status, 0) + 1
            acc.down += af.down
            acc.dead += af.dead
            acc.damage_dealt += af.damage_dealt
            acc.damage_taken += af.damage_taken
            acc.ammo_spent += af.ammo_spent
            if af.hp_lost is not None:
                acc.hp_fights += 1
                acc.hp_lost += af.hp_lost
            for mon, worst in af.worst.items():
                names = levels.get(aid, {}).get(mon, [])
                counts = acc.wounds.get(mon)
                if counts is None:
                    counts = acc.wounds[mon] = [0] * (len(names) + 1)
                    acc.levels[mon] = names
                if worst + 1 >= len(counts):
                    counts.extend([0] * (worst + 2 - len(counts)))
                counts[worst + 1] += 1

    def merge(self, other: Acc) -> None:
        self.n += other.n
        self.draws += other.draws
        for side, w in other.wins.items():
            self.wins[side] = self.wins.get(side, 0) + w
        for r, c in other.rounds.items():
            self.rounds[r] = self.rounds.get(r, 0) + c
        for reason, c in other.reasons.items():
            if reason not in self.reasons and len(self.reasons) >= MAX_REASONS:
                reason = "other"
            self.reasons[reason] = self.reasons.get(reason, 0) + c
        for aid, acc in other.actors.items():
            self.actors.setdefault(aid, ActorAcc()).merge(acc)
        for side, idx in other.won_by.items():
            self.won_by[side] = _keep_smallest(self.won_by.get(side, []), idx, self.keep)
        self.drawn = _keep_smallest(self.drawn, other.drawn, self.keep)
        self.longest = _top_longest(self.longest, other.longest, self.keep)


def _top_longest(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]], k: int) -> list[tuple[int, int]]:
    both = {(int(r), int(i)) for r, i in itertools.chain(a, b)}
    return sorted(both, key=lambda t: (-t[0], t[1]))[:k]


# ---------------------------------------------------------------- chunks


class Chunk(msgspec.Struct, frozen=True):
    """A picklable job: fights ``start..stop-1`` of sweep point ``point``."""

    file: str
    text: str
    overrides: tuple[Override, ...]
    root: str
    point: int
    start: int
    stop: int
    rows: bool = False
    keep: int = KEEP_MAX_DEFAULT


class ChunkResult(msgspec.Struct):
    point: int
    start: int
    acc: Acc
    rows: list[FightRecord] | None = None
    seconds: float = 0.0  # the worker's time for these fights: sizes the next chunks, never a result


#: Per worker process (or thread): scenarios already loaded, by (text hash, overrides).
_LOADED: dict[tuple[str, tuple[Override, ...]], tuple[LoadedScenario, dict[str, dict[str, list[str]]]]] = {}


def monitor_levels(loaded: LoadedScenario) -> dict[str, dict[str, list[str]]]:
    """actor -> monitor -> level names, from the system's ``entered`` events (no fight run)."""
    from fracas.core.encounter import Encounter

    system = get_system(loaded.spec.system)
    enc = Encounter(system, loaded, seed="layout", log_path=None)
    out: dict[str, dict[str, list[str]]] = {}
    for spec in loaded.spec.actors:
        try:
            ev = system.entered(enc, spec)
        except Exception:  # a system whose entered() needs a running fight: names come from none
            continue
        out[spec.id] = {m.name: list(m.levels) for m in ev.monitors}
    return out


def _loaded_for(chunk: Chunk) -> tuple[LoadedScenario, dict[str, dict[str, list[str]]]]:
    key = (hashlib.sha256(chunk.text.encode("utf-8")).hexdigest(), chunk.overrides)
    hit = _LOADED.get(key)
    if hit is None:
        loaded = build_scenario(chunk.file, chunk.text, chunk.overrides)
        hit = _LOADED[key] = (loaded, monitor_levels(loaded))
    return hit


def run_chunk(chunk: Chunk) -> ChunkResult:
    """Run one chunk of fights without logs; the one function every executor runs."""
    loaded, levels = _loaded_for(chunk)
    acc = Acc(keep=chunk.keep)
    rows: list[FightRecord] | None = [] if chunk.rows else None
    started = time.perf_counter()
    for i in range(chunk.start, chunk.stop):
        rec = run_fight(loaded, i, chunk.root)
        acc.add(rec, levels)
        if rows is not None:
            rows.append(rec)
    seconds = time.perf_counter() - started
    return ChunkResult(point=chunk.point, start=chunk.start, acc=acc, rows=rows, seconds=seconds)


#: How long a chunk should take once fights have been timed (see :func:`next_chunk_size`).
CHUNK_SECONDS = 0.25


def chunk_size(n: int, workers: int) -> int:
    """The first chunks: 16..128 fights, about 8 per worker.

    Pickling and scheduling a chunk costs about a millisecond (more through
    Dask) and a fight a fraction of one to ten, so 16+ fights amortise it;
    several chunks per worker keep them all busy to the end and the progress
    bar moving. Later chunks are sized by the time fights took
    (:func:`next_chunk_size`).
    """
    return max(16, min(128, math.ceil(n / max(1, workers * 8))))


def next_chunk_size(fights: int, seconds: float, n: int, workers: int) -> int:
    """Fights for a chunk of about :data:`CHUNK_SECONDS` at the rate of a finished chunk.

    Fast fights get bigger chunks (the cost of shipping a chunk stays small
    next to its fights, which matters most through Dask), slow ones smaller
    (Ctrl-C waits for running chunks, and the progress bar should move); at
    least 16, and at most a quarter of a worker's share of the batch so that
    the last chunks still spread over every worker. The results do not depend
    on chunking: only the speed does.
    """
    most = max(16, min(4096, math.ceil(n / max(1, workers * 4))))
    if seconds <= 0:
        return most
    return max(16, min(most, round(fights * CHUNK_SECONDS / seconds)))


# --------------------------------------------------------------- executors


class Executor(Protocol):
    """What the driver needs: submit a chunk, wait for some, close. Pool and Dask alike."""

    workers: int
    label: str

    def submit(self, chunk: Chunk) -> Any: ...

    def wait_any(self, futures: Sequence[Any]) -> list[Any]: ...

    def close(self, cancel: bool = False) -> None: ...


class InlineExecutor:
    """Runs each chunk in this process when submitted (``--workers 1``)."""

    workers = 1
    label = "in-process"

    def submit(self, chunk: Chunk) -> cf.Future[ChunkResult]:
        fut: cf.Future[ChunkResult] = cf.Future()
        fut.set_result(run_chunk(chunk))
        return fut

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        return list(futures)

    def close(self, cancel: bool = False) -> None:
        return None


def _worker_init() -> None:
    """Pool workers ignore Ctrl-C: the driver stops them, so a stop is always clean."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PoolExecutor:
    """A local process pool (the default for ``--workers K``, K > 1)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.label = f"process pool of {workers}"
        self.pool = cf.ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)

    def submit(self, chunk: Chunk) -> cf.Future[ChunkResult]:
        return self.pool.submit(run_chunk, chunk)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return list(done)

    def close(self, cancel: bool = False) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


def dask_missing() -> FracasError:
    return FracasError("Dask is not installed: install the extra with pip install 'fracas[dask]'")


class DaskExecutor:
    """A Dask distributed client: an existing scheduler, or a LocalCluster it starts."""

    def __init__(
        self,
        scheduler: str | None = None,
        local_workers: int | None = None,
        *,
        processes: bool = True,
        client: Any = None,
    ) -> None:
        try:
            distributed = importlib.import_module("distributed")
        except ImportError:
            raise dask_missing() from None
        self._distributed = distributed
        self.cluster: Any = None
        self.own_client = client is None
        if client is not None:
            self.client = client
        elif scheduler is not None:
            try:
                self.client = distributed.Client(scheduler, timeout=DASK_CONNECT_TIMEOUT)
            except OSError as exc:
                raise FracasError(f"--scheduler {scheduler}: cannot reach the Dask scheduler ({exc})") from None
        else:
            k = local_workers or 1
            self.cluster = distributed.LocalCluster(
                n_workers=k, threads_per_worker=1, processes=processes, dashboard_address=None
            )
            self.client = distributed.Client(self.cluster)
        info = self.client.scheduler_info()
        self.workers = max(1, sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()))
        where = scheduler or ("local cluster" if self.cluster is not None else "client")
        self.label = f"Dask ({where}, {self.workers} worker threads)"

    def submit(self, chunk: Chunk) -> Any:
        return self.client.submit(run_chunk, chunk, pure=False)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        done = self._distributed.wait(list(futures), return_when="FIRST_COMPLETED").done
        return list(done)

    def close(self, cancel: bool = False) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_executor(workers: int, scheduler: str | None = None, dask_local: int | None = None) -> Executor:
    if scheduler is not None or dask_local is not None:
        return DaskExecutor(scheduler, dask_local)
    if workers <= 1:
        return InlineExecutor()
    return PoolExecutor(workers)


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


# ------------------------------------------------------------------ driver


class Point(msgspec.Struct):
    """One sweep point (the whole batch when there is no sweep) and its accumulator."""

    overrides: tuple[Override, ...]
    acc: Acc


class BatchPlan(msgspec.Struct, frozen=True):
    file: str
    text: str
    root: str
    n: int
    points: tuple[tuple[Override, ...], ...] = ((),)
    rows: bool = False
    keep: int = KEEP_MAX_DEFAULT
    chunk: int | None = None


class BatchOutcome(msgspec.Struct):
    plan: BatchPlan
    points: list[Point]
    partial: bool
    elapsed: float
    executor: str
    workers: int

    @property
    def fights(self) -> int:
        return sum(p.acc.n for p in self.points)


def plan_points(sweeps: Sequence[tuple[str, Sequence[int | float]]]) -> tuple[tuple[Override, ...], ...]:
    """The grid of sweep points: one sweep is a line, two are a grid (first varies slowest)."""
    if not sweeps:
        return ((),)
    grids = [[Override(path, v) for v in values] for path, values in sweeps]
    return tuple(tuple(combo) for combo in itertools.product(*grids))


def _chunks(plan: BatchPlan, size: Callable[[], int]) -> Iterator[Chunk]:
    """The plan's chunks in fight order; ``size()`` is asked for each (it may change as chunks finish)."""
    for p, overrides in enumerate(plan.points):
        start = 0
        while start < plan.n:
            stop = min(plan.n, start + size())
            yield Chunk(
                file=plan.file,
                text=plan.text,
                overrides=overrides,
                root=plan.root,
                point=p,
                start=start,
                stop=stop,
                rows=plan.rows,
                keep=plan.keep,
            )
            start = stop


RowSink = Callable[[int, Sequence[FightRecord]], None]


def run_batch(
    plan: BatchPlan,
    executor: Executor,
    *,
    progress: Callable[[int], None] | None = None,
    rows: RowSink | None = None,
    window: int | None = None,
) -> BatchOutcome:
    """Run every chunk of the plan on the executor; Ctrl-C returns what is done, marked partial.

    At most ``window`` chunks are in flight (4 per worker by default), so
    memory stays flat in N. Rows reach ``rows(point, records)`` in fight
    order whatever order the chunks finish in.
    """
    size = plan.chunk or chunk_size(plan.n, executor.workers)
    window = window or max(2, 4 * executor.workers)
    points = [Point(overrides=o, acc=Acc(keep=plan.keep)) for o in plan.points]
    jobs = _chunks(plan, lambda: size)
    inflight: dict[Any, tuple[int, Chunk]] = {}
    order = itertools.count()
    pending_rows: dict[int, ChunkResult] = {}
    next_row = 0
    partial = False
    t0 = time.perf_counter()

    def take(fut: Any, next_row: int) -> int:
        """Merge one finished chunk; write rows that are now in order; return the next row's seq."""
        nonlocal size
        seq, job = inflight.pop(fut)
        res: ChunkResult = fut.result()
        points[res.point].acc.merge(res.acc)
        if not plan.chunk:  # a --chunk-size is kept as given
            size = next_chunk_size(job.stop - job.start, res.seconds, plan.n, executor.workers)
        if rows is not None and res.rows is not None:
            pending_rows[seq] = res
            while next_row in pending_rows:
                ready = pending_rows.pop(next_row)
                rows(ready.point, ready.rows or [])
                next_row += 1
        if progress is not None:
            progress(job.stop - job.start)
        return next_row

    try:
        exhausted = False
        while True:
            while not exhausted and len(inflight) < window:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                seq = next(order)
                inflight[executor.submit(job)] = (seq, job)
            if not inflight:
                break
            for fut in executor.wait_any(list(inflight)):
                next_row = take(fut, next_row)
    except KeyboardInterrupt:
        partial = True
        for fut in [f for f in inflight if f.done()]:  # chunks that finished: keep their fights
            try:
                next_row = take(fut, next_row)
            except Exception:  # cancelled or failed while stopping: its fights are not counted
                inflight.pop(fut, None)
    finally:
        executor.close(cancel=partial)
    if partial and rows is not None:  # rows of finished chunks, still in order
        for seq in sorted(pending_rows):
            rows(pending_rows[seq].point, pending_rows[seq].rows or [])
    return BatchOutcome(
        plan=plan,
        points=points,
        partial=partial,
        elapsed=time.perf_counter() - t0,
        executor=executor.label,
        workers=executor.workers,
    )


# ---------------------------------------------------------------- keep logs


def keep_candidates(acc: Acc, how: str, upset_below: float = UPSET_BELOW_DEFAULT) -> list[int]:
    """Fight indices worth keeping: ``upset`` (a side with an overall win rate below
    ``upset_below`` won), ``draw`` or ``longest``; at most ``acc.keep`` of them."""
    if how == "draw":
        return list(acc.drawn)
    if how == "longest":
        return [i for _, i in acc.longest]
    if how == "upset":
        out: set[int] = set()
        for side, idx in acc.won_by.items():
            if acc.n and acc.wins.get(side, 0) / acc.n < upset_below:
                out.update(idx)
        return sorted(out)[: acc.keep]
    raise FracasError(f"--keep-if {how!r}: expected upset, draw or longest")


def keep_logs(outcome: BatchOutcome, directory: Path, how: str, upset_below: float = UPSET_BELOW_DEFAULT) -> list[Path]:
    """Re-run the chosen fights with a log (same seed, same fight) into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    kept: list[Path] = []
    plan = outcome.plan
    for p, point in enumerate(outcome.points):
        loaded = build_scenario(plan.file, plan.text, point.overrides)
        prefix = f"point{p}-" if len(outcome.points) > 1 else ""
        for i in keep_candidates(point.acc, how, upset_below):
            path = directory / f"{prefix}fight{i}.jsonl"
            run_fight(loaded, i, plan.root, log_path=path)
            kept.append(path)
    return kept


# --------------------------------------------------------------- benchmarks


def bench_batch(
    scenario: str | Path, n: int = 400, workers: Sequence[int] = (1, 2), root: str = "bench"
) -> dict[str, Any]:
    """Fights/s of a batch with each worker count, and the scaling efficiency.

    ``efficiency[k] = fps[k] / (k * fps[1])``; the first worker count is the
    baseline. Returns ``{"n": n, "fights_per_s": {k: fps}, "efficiency": {k: e}}``.
    Process start-up is inside the timing (it is what a user waits for).
    """
    text = read_scenario_text(scenario)
    fps: dict[int, float] = {}
    for k in workers:
        plan = BatchPlan(file=str(scenario), text=text, root=root, n=n)
        out = run_batch(plan, make_executor(k))
        fps[k] = out.fights / out.elapsed
    base_k = workers[0]
    eff = {k: fps[k] / ((k / base_k) * fps[base_k]) for k in workers}
    return {"n": n, "fights_per_s": fps, "efficiency": eff}


def bench_dask_vs_pool(scenario: str | Path, n: int = 400, workers: int = 2, root: str = "bench") -> dict[str, Any]:
    """Fights/s of the process pool and of a Dask LocalCluster with the same worker count.

    ``ratio = dask / pool`` (the target is >= 0.85). Cluster start-up is outside
    the Dask timing (a cluster is started once and reused across batches).
    Needs the ``dask`` extra.
    """
    text = read_scenario_text(scenario)
    plan = BatchPlan(file=str(scenario), text=text, root=root, n=n)
    pool = run_batch(plan, make_executor(workers))
    dask = DaskExecutor(local_workers=workers)
    try:
        run_batch(BatchPlan(file=str(scenario), text=text, root=root, n=min(n, 64)), _Borrowed(dask))  # warm up
        out = run_batch(plan, _Borrowed(dask))
    finally:
        dask.close()
    pool_fps = pool.fights / pool.elapsed
    dask_fps = out.fights / out.elapsed
    return {
        "n": n,
        "workers": workers,
        "pool_fights_per_s": pool_fps,
        "dask_fights_per_s": dask_fps,
        "ratio": dask_fps / pool_fps,
    }


class _Borrowed:
    """An executor that does not close the one it wraps (to reuse a Dask cluster)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner
        self.workers = inner.workers
        self.label = inner.label

    def submit(self, chunk: Chunk) -> Any:
        return self.inner.submit(chunk)

    def wait_any(self, futures: Sequence[Any]) -> list[Any]:
        return self.inner.wait_any(futures)

    def close(self, cancel: bool = False) -> None:
        return None
