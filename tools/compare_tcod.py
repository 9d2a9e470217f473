"""Why fracas keeps its own sight and paths rather than python-tcod's (issue 17, docs/design.md).

python-tcod is the well-kept library for field of view and path-finding on a
grid. This tool puts it beside :mod:`fracas.core.battlefield` on random walled
maps and prints, for each question the engine asks:

- **walk distances** (the field a mover follows round the walls): tcod's
  ``dijkstra2d``, tcod's ``CustomGraph`` given fracas's corner rule (no
  diagonal squeeze between two wall corners) edge by edge, and fracas's own
  breadth-first search: cells that differ, milliseconds per field;
- **line of sight**: each of tcod's field-of-view algorithms against
  :meth:`Battlefield.sees`: cells where they disagree, milliseconds per origin.

tcod is not a dependency of fracas; install it beside fracas to run this:

    pip install tcod
    python tools/compare_tcod.py [--seed N]
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from types import SimpleNamespace
from typing import Any

from fracas.core.battlefield import FULL, Battlefield

Cell = tuple[int, int]


def walled_map(width: int, height: int, walls: int, seed: int) -> Battlefield:
    """A map of ``walls`` full-wall rectangles of 1 to 6 cells a side, at places drawn from ``seed``."""
    rng = random.Random(seed)
    specs = [
        SimpleNamespace(
            name=f"w{i}", x=rng.randrange(width), y=rng.randrange(height), w=rng.randint(1, 6), h=rng.randint(1, 6),
            height=FULL, cover=None,
        )
        for i in range(walls)
    ]  # fmt: skip
    return Battlefield(SimpleNamespace(width=width, height=height, walls=specs, cover=[]))


def free_cells(bf: Battlefield, n: int, seed: int) -> list[Cell]:
    rng = random.Random(seed)
    out: list[Cell] = []
    while len(out) < n:
        cell = (rng.randrange(bf.width), rng.randrange(bf.height))
        if bf.walkable(cell):
            out.append(cell)
    return out


def wall_grid(np: Any, bf: Battlefield, cells: Any) -> Any:
    grid = np.zeros((bf.height, bf.width), dtype=bool)
    for x, y in cells:
        grid[y, x] = True
    return grid


def tcod_plain_field(np: Any, tcod: Any, bf: Battlefield, goal: Cell) -> Any:
    """tcod's ``dijkstra2d``: every step, diagonals included, costs 1; no corner rule."""
    cost = (~wall_grid(np, bf, bf.wall_at)).astype(np.int8)
    dist = tcod.path.maxarray((bf.height, bf.width), dtype=np.int32)
    dist[goal[1], goal[0]] = 0
    tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)
    return dist


def tcod_corner_field(np: Any, tcod: Any, bf: Battlefield, goal: Cell) -> Any:
    """tcod's ``CustomGraph``: the four axis steps, and each diagonal only where fracas's ``can_step`` allows it."""
    h, w = bf.height, bf.width
    wall = wall_grid(np, bf, bf.wall_at)
    cost = (~wall).astype(np.int8)
    graph = tcod.path.CustomGraph((h, w))
    graph.add_edges(edge_map=[[0, 1, 0], [1, 0, 1], [0, 1, 0]], cost=cost)
    pad = np.pad(wall, 1, constant_values=True)
    for dy in (-1, 1):
        for dx in (-1, 1):
            beside_x = pad[1 : h + 1, 1 + dx : w + 1 + dx]  # (x + dx, y)
            beside_y = pad[1 + dy : h + 1 + dy, 1 : w + 1]  # (x, y + dy)
            graph.add_edge((dy, dx), 1, cost=cost, condition=(~(beside_x & beside_y)).astype(np.int8))
    finder = tcod.path.Pathfinder(graph)
    finder.add_root((goal[1], goal[0]))
    finder.resolve()
    return finder.distance


def compare_fields(np: Any, tcod: Any, seed: int) -> None:
    print("walk distances (5 goals a map; ms per field; cells that differ from fracas)")
    for width, height, walls in ((40, 40, 30), (200, 200, 600), (1000, 1000, 15000)):
        bf = walled_map(width, height, walls, seed)
        goals = free_cells(bf, 5, seed + 1)
        head = f"  {width} x {height}, {len(bf.wall_at)} wall cells: "
        t0 = time.perf_counter()
        ours = [np.array(bf.walk_distances(g), dtype=np.int64).reshape(height, width) for g in goals]
        row = [f"fracas {(time.perf_counter() - t0) / len(goals) * 1e3:.1f} ms"]
        for label, fn in (("tcod dijkstra2d", tcod_plain_field), ("tcod CustomGraph", tcod_corner_field)):
            t0 = time.perf_counter()
            theirs = [fn(np, tcod, bf, g) for g in goals]
            spent = (time.perf_counter() - t0) / len(goals) * 1e3
            differ = 0
            for mine, field in zip(ours, theirs, strict=True):
                got = field.astype(np.int64)
                got[got >= np.iinfo(field.dtype).max] = -1  # unreachable
                differ += int((mine != got).sum())
            row.append(f"{label} {spent:.1f} ms, {differ} cells differ")
        print(head + "; ".join(row))


def compare_sight(np: Any, tcod: Any, seed: int) -> None:
    size = 60
    bf = walled_map(size, size, 60, seed)
    transparent = ~wall_grid(np, bf, bf.opaque)
    origins = free_cells(bf, 20, seed + 2)
    cells = [(x, y) for y in range(size) for x in range(size) if bf.walkable((x, y))]
    t0 = time.perf_counter()
    ours = {o: [bf.sees(o, c) for c in cells] for o in origins}
    mine_ms = (time.perf_counter() - t0) / len(origins) * 1e3
    print(f"line of sight ({size} x {size}, {len(origins)} origins x {len(cells)} free cells; fracas {mine_ms:.1f} ms "
          "an origin, a pairwise check per cell)")  # fmt: skip
    for name in sorted(a for a in dir(tcod.constants) if a.startswith("FOV_") and not a[4:].isdigit()):
        if name.startswith("FOV_PERMISSIVE_") and name != "FOV_PERMISSIVE_8":
            continue
        algorithm = getattr(tcod.constants, name)
        differ = 0
        spent = 0.0
        for o in origins:
            t0 = time.perf_counter()
            fov = tcod.map.compute_fov(transparent, (o[1], o[0]), radius=0, light_walls=True, algorithm=algorithm)
            spent += (time.perf_counter() - t0) / len(origins) * 1e3
            differ += sum(bool(fov[y, x]) != seen for (x, y), seen in zip(cells, ours[o], strict=True))
        total = len(origins) * len(cells)
        print(f"  tcod {name}: {differ} of {total} cells disagree ({differ / total:.1%}); {spent:.2f} ms an origin")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=1, help="where the walls fall (default 1)")
    args = p.parse_args(argv)
    try:
        np = importlib.import_module("numpy")
        tcod = importlib.import_module("tcod")
    except ImportError as exc:
        print(f"compare_tcod: {exc.name} is not installed; `pip install tcod` beside fracas to run this comparison")
        return 2
    print(f"python-tcod {tcod.__version__}, numpy {np.__version__}, seed {args.seed}")
    compare_fields(np, tcod, args.seed)
    compare_sight(np, tcod, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
