"""Keep logs: re-run the interesting fights of a batch (upsets, draws, the longest) with a log."""

from __future__ import annotations

from pathlib import Path

from fracas.core.errors import FracasError
from fracas.core.files import check_output
from fracas.services.batch.accumulate import Acc
from fracas.services.batch.driver import BatchOutcome
from fracas.services.batch.fight import run_fight
from fracas.services.batch.sweep import build_scenario

#: A side whose overall win rate is below this made an "upset" when it won.
UPSET_BELOW_DEFAULT = 0.2


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


def keep_logs(
    outcome: BatchOutcome,
    directory: Path,
    how: str,
    upset_below: float = UPSET_BELOW_DEFAULT,
    *,
    force: bool = False,
) -> list[Path]:
    """Re-run the chosen fights with a log (same seed, same fight) into ``directory``;
    an existing log there is replaced only with ``force`` (fracas.core.files)."""
    kept: list[Path] = []
    plan = outcome.plan
    for p, point in enumerate(outcome.points):
        loaded = build_scenario(plan.file, plan.text, point.overrides)
        prefix = f"point{p}-" if len(outcome.points) > 1 else ""
        for i in keep_candidates(point.acc, how, upset_below):
            path = check_output(directory / f"{prefix}fight{i}.jsonl", force=force, inputs=[plan.file])
            run_fight(loaded, i, plan.root, log_path=path)
            kept.append(path)
    return kept
