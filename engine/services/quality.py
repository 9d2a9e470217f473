"""Decision quality of shipped (or any) scenarios over a range of seeds, and of stored logs.

The counting is :mod:`fracas.core.quality`; this module runs the fights.
``tools/quality.py`` and ``tools/bench.py`` print it for every shipped
scenario; ``fracas batch --quality`` adds it to a batch.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from fracas.core.bundled import HEAVY
from fracas.core.log import read_log
from fracas.core.quality import PolicyQuality, QualityProbe, merge_quality, quality_of_entries
from fracas.core.scenario import LoadedScenario, load_scenario
from fracas.services.run import run_scenario


def scenario_quality(scenario: LoadedScenario | str | Path, seeds: Iterable[str]) -> dict[str, PolicyQuality]:
    """The decision quality per policy over one fight per seed (no log written)."""
    loaded = scenario if isinstance(scenario, LoadedScenario) else load_scenario(scenario)
    out: dict[str, PolicyQuality] = {}
    for seed in seeds:
        probe = QualityProbe(loaded.spec.system)
        run_scenario(loaded, seed=seed, listeners=[probe])
        merge_quality(out, probe.by_policy)
    return out


def log_quality(path: Path) -> dict[str, PolicyQuality]:
    """The decision quality per policy of one stored log."""
    return quality_of_entries(read_log(path).entries)


def shipped_scenarios(root: Path) -> list[Path]:
    """Every scenario under ``root`` (scenarios/<system>/<name>.toml), in name order, but the heavy ones
    (fracas.core.bundled.HEAVY: a thousand actors a fight, too many for figures over many seeds)."""
    return [p for p in sorted(root.glob("*/*.toml")) if f"{p.parent.name}/{p.stem}" not in HEAVY]
