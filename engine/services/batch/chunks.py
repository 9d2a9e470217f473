"""Chunks: the picklable job every executor runs (:func:`run_chunk`), and how big they are."""

from __future__ import annotations

import hashlib
import math
import time

import msgspec
from fracas.core.quality import QualityProbe, merge_quality
from fracas.core.scenario import LoadedScenario
from fracas.core.system import get_system
from fracas.services.batch.accumulate import KEEP_MAX_DEFAULT, Acc
from fracas.services.batch.fight import FightRecord, run_fight
from fracas.services.batch.sweep import Override, build_scenario


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
    quality: bool = False


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
        probe = QualityProbe(loaded.spec.system) if chunk.quality else None
        rec = run_fight(loaded, i, chunk.root, quality=probe)
        acc.add(rec, levels)
        if probe is not None:
            merge_quality(acc.quality, probe.by_policy)
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
