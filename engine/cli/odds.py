"""``fracas odds SYSTEM ...``: exact odds of a roll, from the system's own odds provider.

The engine imports no system: ``get_system(name)`` loads the registered
object, whose ``odds_command`` attribute (when it has one) satisfies
:class:`OddsProvider`. The provider declares its own arguments, so each
system keeps its players' notation (``fracas odds point_zero 5d6k3``,
``fracas odds zcorps 4D+2 --vs 15 --cp 1``, ``fracas odds d100 55 --mod -30``);
without a difficulty a provider prints the distribution of the total.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fracas.cli.terminal import json_text
from fracas.core.errors import EXIT_OK, FracasError
from fracas.core.files import check_plot, save_figure

if TYPE_CHECKING:
    from fracas.core.system import OddsProvider


def provider_of(name: str) -> OddsProvider:
    from fracas.core.system import get_system, system_names  # imported here: keeps `fracas --help` fast

    system = get_system(name)
    provider: OddsProvider | None = getattr(system, "odds_command", None)
    if provider is None:
        with_odds = [n for n in system_names() if getattr(get_system(n), "odds_command", None) is not None]
        raise FracasError(f"system {name!r} has no odds calculator (systems with one: {', '.join(with_odds)})")
    return provider


def cmd_odds(args: argparse.Namespace) -> int:
    provider = provider_of(args.system)
    sub = argparse.ArgumentParser(prog=f"fracas odds {args.system}", exit_on_error=False)
    provider.add_arguments(sub)
    sub.add_argument("--json", action="store_true", help="print one JSON object")
    sub.add_argument("--plot", metavar="PNG", help="draw the distribution, as .png, .svg or .pdf (extra: plot)")
    sub.add_argument("--force", action="store_true", help="replace the --plot file if it exists")
    try:
        parsed = sub.parse_args(args.rest)
    except argparse.ArgumentError as exc:
        raise FracasError(f"odds {args.system}: {exc}") from None
    if parsed.plot:
        check_plot(parsed.plot, force=parsed.force)  # before any work
    try:
        text, payload = provider.compute(parsed)
    except ValueError as exc:
        raise FracasError(f"odds {args.system}: {exc}") from None
    if parsed.plot:
        plot_odds(payload, text.splitlines()[0], Path(parsed.plot), force=parsed.force)
    if parsed.json or args.json:
        print(json_text(payload))
    else:
        print(text, file=sys.stdout)
        if parsed.plot:
            print(f"plot written to {parsed.plot}")
    return EXIT_OK


def plot_odds(payload: dict[str, Any], title: str, path: Path, *, force: bool = False) -> None:
    """A bar chart of the distribution (totals, or d100 bands), successes highlighted, written whole."""
    try:
        figure_module = importlib.import_module("matplotlib.figure")
    except ImportError:
        raise FracasError(
            f"--plot {path}: plots need matplotlib: install the extra with pip install 'fracas[plot]'"
        ) from None
    fig = figure_module.Figure(figsize=(8, 4.5), dpi=120)
    ax = fig.add_subplot()
    if "distribution" in payload:
        dist = {int(k): float(v) for k, v in payload["distribution"].items()}
        vs = payload.get("vs")
        colours = ["#2e7d32" if vs is not None and t >= vs else "#9e9e9e" for t in dist]
        ax.bar(list(dist), [100 * p for p in dist.values()], color=colours, width=0.85)
        if vs is not None:
            ax.axvline(vs - 0.5, color="#c62828", linestyle="--", linewidth=1)
            ax.text(
                vs - 0.7,
                ax.get_ylim()[1] * 0.95,
                f"difficulty {vs}",
                color="#c62828",
                ha="right",
                va="top",
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85},
            )
        ax.set_xlabel("total")
    else:
        bands = {k: float(v) for k, v in payload["bands"].items()}
        good = ("critical_success", "success")
        colours = ["#2e7d32" if b in good else "#9e9e9e" for b in bands]
        ax.bar([b.replace("_", " ") for b in bands], [100 * p for p in bands.values()], color=colours)
        ax.set_xlabel("result band")
    ax.set_ylabel("probability (%)")
    success = payload.get("p_success")
    ax.set_title(title if success is None else f"{title}: P(success) {100 * float(success):.1f}%")
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    try:
        save_figure(fig, path, force=force)
    except OSError as exc:
        raise FracasError(f"--plot {path}: cannot write: {exc.strerror or exc}") from None


def register(sub: Any) -> None:
    """Add the ``odds`` subcommand (fracas.cli.main.EXTENSIONS)."""
    p = sub.add_parser(
        "odds",
        help="exact odds of a roll (e.g. odds point_zero 5d6k3 --vs 12, odds zcorps 4D+2)",
        description="Exact odds of a roll under a rule system. The arguments after SYSTEM are the system's "
        "own: try `fracas odds SYSTEM --help`.",
    )
    p.add_argument("system", help="rule system name (fracas systems lists them)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="the roll, in the system's notation")
    p.set_defaults(handler=cmd_odds)
