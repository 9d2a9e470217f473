"""Decision quality of the AI policies on every shipped scenario (issue 16).

For each scenario, fights with the seeds 1..N (default 100), and per policy:
the attack tests, the share with 0 % odds, the share under 15 %, the mean
exact odds as rolled, the share the system flags as beyond any roll (Point
Zéro: difficulty above six times the dice kept), and each extra effort
(surpass, CP, Cojones): how often, the odds it added, how often it added
under 10 points. Then the same summed over each system's scenarios.

    python tools/quality.py [--seeds N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fracas.core.quality import PolicyQuality, merge_quality, render, summary
from fracas.core.scenario import load_scenario
from fracas.services.quality import scenario_quality, shipped_scenarios

ROOT = Path(__file__).resolve().parent.parent


def measure(seeds: int, say: object = print) -> dict[str, dict[str, dict[str, PolicyQuality]]]:
    """system -> scenario name (and "all") -> policy -> counts."""
    out: dict[str, dict[str, dict[str, PolicyQuality]]] = {}
    for path in shipped_scenarios(ROOT / "scenarios"):
        loaded = load_scenario(path)
        per = scenario_quality(loaded, (str(i) for i in range(1, seeds + 1)))
        system = out.setdefault(loaded.spec.system, {})
        system[path.stem] = per
        merge_quality(system.setdefault("all", {}), per)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", type=int, default=100, metavar="N", help="seeds 1..N per scenario (default 100)")
    p.add_argument("--json", action="store_true", help="one JSON document")
    args = p.parse_args(argv)
    figures = measure(args.seeds)
    if args.json:
        doc = {sys_: {name: summary(q) for name, q in per.items()} for sys_, per in figures.items()}
        print(json.dumps(doc, indent=2, ensure_ascii=False))
        return 0
    for system, per in figures.items():
        label = "diff > 6 x kept" if system == "point_zero" else "beyond reach"
        for name in sorted(per, key=lambda k: (k == "all", k)):
            q = per[name]
            print(f"== {system} {name} (seeds 1-{args.seeds})")
            for line in render(q, beyond_label=label):
                print(f"  {line}")
        print(f"   {system} overall: {overall_line(per['all'], label)}")
    return 0


def overall_line(by_policy: dict[str, PolicyQuality], label: str) -> str:
    """Every policy together: attack tests, shares at 0 % odds and beyond reach, extra efforts under 10 points."""
    total = PolicyQuality()
    for q in by_policy.values():
        total.merge(q)
    n = max(1, total.attacks)
    efforts = sum(x.times for x in total.extras.values())
    weak = sum(x.under_worth for x in total.extras.values())
    return (
        f"{total.attacks} attack tests, {total.zero / n:.1%} at 0 % odds, {total.long_shots / n:.1%} under 15 %, "
        f"mean odds {total.odds_ppm / 1e6 / n:.1%}, {label} {total.beyond / n:.1%}; "
        f"{efforts} extra efforts, {weak} adding < 10 points"
    )


if __name__ == "__main__":
    sys.exit(main())
