"""Batch results: the JSON summary, the text table, per-fight rows (CSV, Parquet) and plots.

Every figure comes from the integer counts of :class:`fracas.services.batch.accumulate.Acc`, so
equal counts give equal bytes, whoever ran the fights.
"""

from __future__ import annotations

import csv
import importlib
import io
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from fracas.core import quality as Q
from fracas.core.errors import FracasError
from fracas.core.files import PartialFile, save_figure
from fracas.services.batch.accumulate import Acc
from fracas.services.batch.driver import BatchOutcome
from fracas.services.batch.fight import FightRecord
from fracas.services.batch.stats import nearest_rank, wilson
from fracas.services.batch.sweep import Override
from fracas.services.sides import DRAW, PALETTE, side_colours


def plot_missing(path: str | Path) -> FracasError:
    return FracasError(f"--plot {path}: plots need matplotlib: install the extra with pip install 'fracas[plot]'")


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"count": k, "rate": k / n if n else None, "ci95": [lo, hi]}


def _mean(total: int, n: int) -> float | None:
    return total / n if n else None


def summarise(acc: Acc, sides: Sequence[str], actors: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The JSON-ready summary of one accumulator, sides and actors in scenario order."""
    n = acc.n
    out_sides: dict[str, Any] = {}
    for side in sides:
        w = acc.wins.get(side, 0)
        out_sides[side] = {
            "win": _rate(w, n),
            "loss": _rate(n - w - acc.draws, n),
            "draw": _rate(acc.draws, n),
        }
    total_rounds = sum(r * c for r, c in acc.rounds.items())
    rounds = {
        "mean": _mean(total_rounds, n),
        "median": nearest_rank(acc.rounds, 0.5),
        "p90": nearest_rank(acc.rounds, 0.9),
        "min": min(acc.rounds) if acc.rounds else None,
        "max": max(acc.rounds) if acc.rounds else None,
        "histogram": {str(r): acc.rounds[r] for r in sorted(acc.rounds)},
    }
    out_actors: dict[str, Any] = {}
    for aid, side in actors:
        a = acc.actors.get(aid)
        if a is None:
            continue
        wounds: dict[str, Any] = {}
        for mon, counts in a.wounds.items():
            names = a.levels.get(mon, [])
            labels = ["none"] + [names[k] if k < len(names) else f"level {k}" for k in range(len(counts) - 1)]
            wounds[mon] = {label: c for label, c in zip(labels, counts, strict=True)}
        out_actors[aid] = {
            "side": side,
            "present": a.present,
            "down": _rate(a.down, n),
            "escaped": _rate(a.escaped, n),
            "dead": _rate(a.dead, n),
            "damage_dealt_mean": _mean(a.damage_dealt, n),
            "damage_taken_mean": _mean(a.damage_taken, n),
            "ammo_spent_mean": _mean(a.ammo_spent, n),
            "hp_lost_mean": _mean(a.hp_lost, a.hp_fights),
            "status_at_end_of_fight": dict(sorted(a.statuses.items(), key=lambda kv: (-kv[1], kv[0]))),
            "wounds_at_end_of_fight": wounds,
        }
    return {
        "fights": n,
        "sides": out_sides,
        "draws": _rate(acc.draws, n),
        "rounds": rounds,
        "endings": dict(sorted(acc.reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
        "actors": out_actors,
        **({"quality": Q.summary(acc.quality)} if acc.quality else {}),
    }


def _values(overrides: Sequence[Override]) -> dict[str, int | float]:
    return {o.path: o.value for o in overrides}


def to_json(
    outcome: BatchOutcome, meta: dict[str, Any], sides: Sequence[str], actors: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """The ``--json`` document: no timing, no executor, so any run of the same batch gives equal JSON."""
    doc: dict[str, Any] = dict(meta)
    doc["requested"] = outcome.plan.n * len(outcome.points)
    doc["fights"] = outcome.fights
    doc["partial"] = outcome.partial
    if len(outcome.points) == 1 and not outcome.points[0].overrides:
        doc["result"] = summarise(outcome.points[0].acc, sides, actors)
    else:
        doc["sweep"] = [o.path for o in outcome.points[0].overrides]
        doc["points"] = [
            {"values": _values(p.overrides), "result": summarise(p.acc, sides, actors)} for p in outcome.points
        ]
    return doc


# ------------------------------------------------------------------- text


def _pct(r: dict[str, Any]) -> str:
    if r["rate"] is None:
        return "-"
    lo, hi = r["ci95"]
    return f"{100 * r['rate']:5.1f} % [{100 * lo:4.1f}, {100 * hi:4.1f}]"


def _share(c: int, n: int) -> str:
    pct = 100 * c / n
    return "<1%" if 0 < pct < 0.5 else f"{pct:.0f}%"


def _num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "-" if x is None else fmt.format(x)


def render_result(res: dict[str, Any], names: dict[str, str]) -> list[str]:
    """The table of one summary: sides, rounds, actors."""
    lines: list[str] = []
    side_w = max([len("side"), *(len(names.get(s, s)) for s in res["sides"])])
    lines.append(f"{'side':<{side_w}}  {'wins (95 % CI)':<26}{'losses (95 % CI)':<26}{'draws (95 % CI)'}")
    for side, r in res["sides"].items():
        lines.append(f"{names.get(side, side):<{side_w}}  {_pct(r['win']):<26}{_pct(r['loss']):<26}{_pct(r['draw'])}")
    rd = res["rounds"]
    if rd["mean"] is not None:
        lines.append("")
        lines.append(
            f"rounds: mean {rd['mean']:.2f}, median {rd['median']}, p90 {rd['p90']} (min {rd['min']}, max {rd['max']})"
        )
    if res["endings"]:
        lines.append("endings: " + "; ".join(f"{k} {v}" for k, v in list(res["endings"].items())[:4]))
    actors = _rows(res["actors"], res["fights"])
    if actors:
        lines.append("")
        aw = max([len("actor"), *(len(a) for a in actors)])
        lines.append(
            f"{'actor':<{aw}}  {'down':>7} {'escaped':>7} {'dead':>7} {'dealt':>7} {'taken':>7} {'ammo':>6}   "
            "at the end of the fight: status, worst wound"
        )
        for label, a in actors.items():
            n = a["fights"]
            down = "-" if not n else f"{100 * a['down'] / n:5.1f} %"
            fled = "-" if not n else f"{100 * a['escaped'] / n:5.1f} %"
            dead = "-" if not n else f"{100 * a['dead'] / n:5.1f} %"
            head = (
                f"{label:<{aw}}  {down:>7} {fled:>7} {dead:>7} {_num(a['damage_dealt_mean']):>7} "
                f"{_num(a['damage_taken_mean']):>7} {_num(a['ammo_spent_mean']):>6}   "
            )
            st = a["status_at_end_of_fight"]
            details = ["end: " + " ".join(f"{k} {_share(c, n)}" for k, c in st.items()) if n else "end: -"]
            for mon, dist in a["wounds_at_end_of_fight"].items():
                details.append(f"{mon}: " + (" ".join(f"{lvl} {_share(c, n)}" for lvl, c in dist.items() if c)))
            if a["hp_lost_mean"] is not None:
                details.append(f"HP lost {a['hp_lost_mean']:.1f}")
            for k, text in enumerate(details):
                lines.append((head if k == 0 else " " * len(head)) + text)
        lines.append(
            "(down: out of the fight when it ended, beaten; escaped: left by an exit; "
            "dead: at the end of the aftermath; dealt/taken/ammo: means per fight"
            + (
                f"; a side of more than {SIDE_ROWS} actors is one row, SIDE ×N, the mean of its actors:"
                " --json has each)"
                if any(a["actors"] > 1 for a in actors.values())
                else ")"
            )
        )
    return lines


#: A side of more actors than this is one row of the text table (the mean of its actors); ``--json`` keeps each.
SIDE_ROWS = 20


def _rows(actors: dict[str, Any], fights: int) -> dict[str, dict[str, Any]]:
    """The table's rows: an actor each, or, for a side of more than :data:`SIDE_ROWS` actors, the side's mean.

    A row counts its actor-fights (``fights``): down, escaped and dead are counts of them, the statuses and
    wounds at the end too; dealt, taken, ammo and HP lost are means per actor and fight.
    """
    sides: dict[str, list[dict[str, Any]]] = {}
    for a in actors.values():
        sides.setdefault(a["side"], []).append(a)
    rows: dict[str, dict[str, Any]] = {}
    for aid, a in actors.items():
        members = sides[a["side"]]
        if len(members) <= SIDE_ROWS:
            rows[aid] = {
                "actors": 1,
                "fights": fights,
                "down": a["down"]["count"],
                "escaped": a["escaped"]["count"],
                "dead": a["dead"]["count"],
                **{k: a[k] for k in ("damage_dealt_mean", "damage_taken_mean", "ammo_spent_mean", "hp_lost_mean")},
                "status_at_end_of_fight": a["status_at_end_of_fight"],
                "wounds_at_end_of_fight": a["wounds_at_end_of_fight"],
            }
        elif members[0] is a:
            rows[f"{a['side']} ×{len(members)}"] = _side_row(members, fights)
    return rows


def _side_row(members: list[dict[str, Any]], fights: int) -> dict[str, Any]:
    def mean(key: str) -> float | None:
        values = [m[key] for m in members if m[key] is not None]
        return sum(values) / len(values) if values else None

    statuses: dict[str, int] = {}
    wounds: dict[str, dict[str, int]] = {}
    for m in members:
        for k, c in m["status_at_end_of_fight"].items():
            statuses[k] = statuses.get(k, 0) + c
        for mon, dist in m["wounds_at_end_of_fight"].items():
            into = wounds.setdefault(mon, {})
            for lvl, c in dist.items():
                into[lvl] = into.get(lvl, 0) + c
    return {
        "actors": len(members),
        "fights": fights * len(members),
        **{k: sum(m[k]["count"] for m in members) for k in ("down", "escaped", "dead")},
        **{k: mean(k) for k in ("damage_dealt_mean", "damage_taken_mean", "ammo_spent_mean", "hp_lost_mean")},
        "status_at_end_of_fight": dict(sorted(statuses.items(), key=lambda kv: (-kv[1], kv[0]))),
        "wounds_at_end_of_fight": wounds,
    }


def render_sweep(doc: dict[str, Any], names: dict[str, str]) -> list[str]:
    """The win-rate curve of a sweep: one line per point."""
    paths: list[str] = doc["sweep"]
    sides = list(doc["points"][0]["result"]["sides"]) if doc["points"] else []
    vw = [max(len(p), 6) for p in paths]
    head = "  ".join(f"{p:<{w}}" for p, w in zip(paths, vw, strict=True))
    head += "".join(f"  {names.get(s, s) + ' wins':<24}" for s in sides) + f"  {'draws':<24}  rounds (median)"
    lines = [head]
    for pt in doc["points"]:
        vals = "  ".join(f"{pt['values'][p]!s:<{w}}" for p, w in zip(paths, vw, strict=True))
        r = pt["result"]
        row = vals + "".join(f"  {_pct(r['sides'][s]['win']):<24}" for s in sides)
        row += f"  {_pct(r['draws']):<24}  {r['rounds']['median']}"
        lines.append(row)
    return lines


# ------------------------------------------------------------------- rows


class RowWriter:
    """One row per fight, streamed to CSV, or to Parquet (``parquet`` extra) in record batches."""

    def __init__(
        self,
        path: Path,
        sweep: Sequence[str],
        actors: Sequence[str],
        monitors: dict[str, list[str]],
        *,
        force: bool = False,
        inputs: Sequence[Path | str] = (),
    ) -> None:
        """Rows stream to ``NAME.partial``; :meth:`close` renames it to ``NAME`` once the batch completed."""
        self.path = path
        self.sweep = list(sweep)
        self.actors = list(actors)
        self.monitors = monitors
        cols: list[tuple[str, str]] = [(p, "float") for p in self.sweep]
        cols += [("fight", "int"), ("seed", "str"), ("winner", "str"), ("rounds", "int"), ("reason", "str")]
        for aid in self.actors:
            cols += [
                (f"{aid}.down", "bool"),
                (f"{aid}.escaped", "bool"),
                (f"{aid}.dead", "bool"),
                (f"{aid}.damage_dealt", "int"),
                (f"{aid}.damage_taken", "int"),
                (f"{aid}.ammo_spent", "int"),
                (f"{aid}.hp_lost", "int"),
            ]
            cols += [(f"{aid}.{mon}", "int") for mon in monitors.get(aid, [])]
        self.columns = cols
        self._csv: io.TextIOWrapper | None = None
        self._writer: Any = None
        self._pq: Any = None
        self._pa: Any = None
        self._schema: Any = None
        if path.suffix.lower() not in (".csv", ".parquet"):
            raise FracasError(f"--out {path}: expected a .csv or .parquet file name")
        self._file = PartialFile(path, force=force, inputs=inputs)
        if path.suffix.lower() == ".parquet":
            try:
                pa = importlib.import_module("pyarrow")
                pq = importlib.import_module("pyarrow.parquet")
            except ImportError:
                self._file.abandon()
                self._file.partial.unlink(missing_ok=True)
                raise FracasError(
                    f"--out {path}: Parquet needs pyarrow: install the extra with pip install 'fracas[parquet]'"
                ) from None
            kinds = {"float": pa.float64(), "int": pa.int64(), "str": pa.string(), "bool": pa.bool_()}
            self._pa = pa
            self._schema = pa.schema([(name, kinds[kind]) for name, kind in cols])
            self._pq = pq.ParquetWriter(str(self._file.partial), self._schema)
        else:
            self._csv = io.TextIOWrapper(self._file.fh, encoding="utf-8", newline="", write_through=True)
            self._writer = csv.writer(self._csv, lineterminator="\n")
            self._writer.writerow([name for name, _ in cols])

    def _row(self, values: dict[str, int | float], rec: FightRecord) -> list[Any]:
        row: list[Any] = [values.get(p) for p in self.sweep]
        row += [rec.index, rec.seed, rec.winner, rec.rounds, rec.reason]
        for aid in self.actors:
            a = rec.actors.get(aid)
            if a is None or not a.present:
                row += [None] * (7 + len(self.monitors.get(aid, [])))
                continue
            row += [a.down, a.escaped, a.dead, a.damage_dealt, a.damage_taken, a.ammo_spent, a.hp_lost]
            row += [a.worst.get(mon) for mon in self.monitors.get(aid, [])]
        return row

    def write(self, overrides: Sequence[Override], records: Sequence[FightRecord]) -> None:
        values = {o.path: o.value for o in overrides}
        rows = [self._row(values, r) for r in records]
        if self._writer is not None:
            self._writer.writerows(["" if v is None else v for v in row] for row in rows)
        elif self._pq is not None and rows:
            names = [name for name, _ in self.columns]
            data = {name: [row[k] for row in rows] for k, name in enumerate(names)}
            self._pq.write_table(self._pa.table(data, schema=self._schema))

    def close(self, *, complete: bool = True) -> None:
        """Finish the file: renamed to its final name when ``complete``, else left as ``NAME.partial``."""
        if self._csv is not None:
            self._csv.flush()
            self._csv.detach()
            self._csv = None
        if self._pq is not None:
            self._pq.close()
            self._pq = None
        if complete:
            self._file.commit()
        else:
            self._file.abandon()


# ------------------------------------------------------------------- plot


def plot(
    doc: dict[str, Any],
    path: Path,
    names: dict[str, str],
    title: str,
    *,
    force: bool = False,
    inputs: Iterable[Path | str] = (),
) -> None:
    """Win rates with 95 % intervals, the rounds histogram, and for a sweep the win-rate curve.

    Written whole (:func:`fracas.core.files.save_figure`): an existing ``path`` is replaced only with ``force``."""
    try:
        Figure = importlib.import_module("matplotlib.figure").Figure
    except ImportError:
        raise plot_missing(path) from None
    sweep = "sweep" in doc
    fig = Figure(figsize=(12, 4.8), layout="constrained")
    axes = fig.subplots(1, 2)
    colours = list(PALETTE)
    first = doc["result"] if not sweep else doc["points"][0]["result"]
    by_side = side_colours(list(first["sides"]), names)  # one colour per side in every plot
    if not sweep:
        res = doc["result"]
        _bars(axes[0], res, names, by_side)
        _rounds(axes[1], [("", res["rounds"]["histogram"], res)], colours)
    else:
        _curve(axes[0], doc, names, by_side)
        series = [
            (", ".join(f"{v}" for v in pt["values"].values()), pt["result"]["rounds"]["histogram"], pt["result"])
            for pt in doc["points"]
        ]
        _rounds(axes[1], series, colours, legend_title=", ".join(doc["sweep"]))
    n = doc["fights"] if not sweep else doc["points"][0]["result"]["fights"]
    tail = f" ({'partial: ' if doc.get('partial') else ''}{n:,} fights{' per point' if sweep else ''}, "
    tail += f"root seed {doc['root_seed']})"
    fig.suptitle(title + tail, fontsize=12)
    try:
        save_figure(fig, path, force=force, inputs=inputs, dpi=120)
    except OSError as exc:
        raise FracasError(f"--plot {path}: cannot write: {exc.strerror or exc}") from None


def _bars(ax: Any, res: dict[str, Any], names: dict[str, str], by_side: dict[str, str]) -> None:
    sides = list(res["sides"])
    labels = [names.get(s, s) for s in sides] + ["draw"]
    rates = [res["sides"][s]["win"] for s in sides] + [res["draws"]]
    ys = [100 * (r["rate"] or 0.0) for r in rates]
    err_lo = [max(0.0, y - 100 * r["ci95"][0]) for y, r in zip(ys, rates, strict=True)]
    err_hi = [max(0.0, 100 * r["ci95"][1] - y) for y, r in zip(ys, rates, strict=True)]
    cols = [by_side[s] for s in sides] + [DRAW]
    xs = list(range(len(labels)))
    ax.bar(xs, ys, color=cols, alpha=0.85, yerr=[err_lo, err_hi], capsize=8, error_kw={"elinewidth": 1.5})
    for x, y, hi in zip(xs, ys, err_hi, strict=True):
        ax.text(x, y + hi + 1.5, f"{y:.1f} %", ha="center", va="bottom", fontsize=10)
    ax.set_xticks(xs, labels)
    ax.set_ylim(0, min(100, max(ys, default=0) + max(err_hi, default=0) + 12))
    ax.set_ylabel("share of fights (%)")
    ax.set_xlabel("outcome")
    ax.set_title("Who wins (95 % Wilson intervals)")
    ax.grid(axis="y", alpha=0.3)


def _rounds(
    ax: Any, series: list[tuple[str, dict[str, int], dict[str, Any]]], colours: list[str], legend_title: str = ""
) -> None:
    if len(series) == 1:
        hist = {int(k): v for k, v in series[0][1].items()}
        n = sum(hist.values()) or 1
        xs = sorted(hist)
        ax.bar(xs, [100 * hist[x] / n for x in xs], color="#4c72b0", alpha=0.85, width=0.8)
        rd = series[0][2]["rounds"]
        if rd["median"] is not None:
            ax.axvline(rd["median"], color="black", linestyle="--", linewidth=1.2, label=f"median {rd['median']}")
            ax.axvline(rd["p90"], color="#d62728", linestyle=":", linewidth=1.5, label=f"p90 {rd['p90']}")
            ax.legend(frameon=False)
    else:
        for k, (label, h, _) in enumerate(series):
            hist = {int(x): v for x, v in h.items()}
            n = sum(hist.values()) or 1
            xs = list(range(min(hist, default=1), max(hist, default=1) + 1))
            ax.plot(
                xs,
                [100 * hist.get(x, 0) / n for x in xs],
                marker="o",
                markersize=3,
                color=colours[k % len(colours)] if len(series) <= len(colours) else None,
                label=label,
            )
        ax.legend(frameon=False, fontsize=8, title=legend_title, title_fontsize=8)
    ax.set_xlabel("rounds until the fight ended")
    ax.set_ylabel("share of fights (%)")
    ax.set_title("How long fights last")
    ax.set_ylim(bottom=0)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)


def _curve(ax: Any, doc: dict[str, Any], names: dict[str, str], by_side: dict[str, str]) -> None:
    paths: list[str] = doc["sweep"]
    points = doc["points"]
    sides = list(points[0]["result"]["sides"])
    if len(paths) == 1:
        xs = [pt["values"][paths[0]] for pt in points]
        for side in sides:
            _line(
                ax,
                xs,
                [pt["result"]["sides"][side]["win"] for pt in points],
                by_side[side],
                f"{names.get(side, side)} wins",
            )
        if any(pt["result"]["draws"]["count"] for pt in points):
            _line(ax, xs, [pt["result"]["draws"] for pt in points], DRAW, "draws")
        ax.set_title(f"Win rate by {paths[0]} (95 % intervals)")
        ax.set_xticks(xs)
    else:
        side = sides[0]
        seconds = list(dict.fromkeys(pt["values"][paths[1]] for pt in points))
        shades = _shades(by_side[side], len(seconds))  # the side's colour, lighter to darker
        for k, v2 in enumerate(seconds):
            sel = [pt for pt in points if pt["values"][paths[1]] == v2]
            _line(
                ax,
                [pt["values"][paths[0]] for pt in sel],
                [pt["result"]["sides"][side]["win"] for pt in sel],
                shades[k],
                f"{paths[1]} = {v2}",
            )
        ax.set_title(f"{names.get(side, side)} win rate (95 % intervals)")
        ax.set_xticks(list(dict.fromkeys(pt["values"][paths[0]] for pt in points)))
    ax.set_xlabel(paths[0])
    ax.set_ylabel("win rate (%)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(frameon=False)


def _shades(colour: str, n: int) -> list[str]:
    """``n`` shades of one colour, from light to full: the lines of one side in a two-parameter sweep."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    out = []
    for k in range(n):
        t = 0.35 + 0.65 * (k + 1) / n  # share of the colour, the rest white
        out.append("#" + "".join(f"{round(255 - (255 - c) * t):02x}" for c in (r, g, b)))
    return out


def _line(ax: Any, xs: list[Any], rates: list[dict[str, Any]], colour: str, label: str) -> None:
    ys = [100 * (r["rate"] or 0.0) for r in rates]
    lo = [100 * r["ci95"][0] for r in rates]
    hi = [100 * r["ci95"][1] for r in rates]
    ax.fill_between(xs, lo, hi, color=colour, alpha=0.18, linewidth=0)
    ax.plot(xs, ys, marker="o", color=colour, label=label)
