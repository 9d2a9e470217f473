"""The battlefield: walls, line of sight, cover along a line, paths, and a spatial index of the actors.

Every rule system and every policy asks this module the same questions, so that
they get the same answers (docs/rules-notes.md, "Common": walls, line of sight, cover, paths):

- **Cells and metres.** The map is a grid of one-metre cells; a step goes to
  one of the eight neighbouring cells and costs one metre, so the straight-line
  distance between two cells is ``max(|dx|, |dy|)`` metres (:func:`distance`).
  Range stays that straight-line distance, whatever a wall makes a walker do.
- **Walls** (``[map] walls``) are rectangles of cells. Nobody stands on or
  steps onto a wall cell. A ``full`` wall blocks sight; a ``low`` wall
  (a barricade, crates, a counter) does not, but gives cover to whoever is
  behind it.
- **The line** between two cells is the segment joining their centres. It
  crosses the cells whose inside it passes through (:meth:`Battlefield.line`);
  where it passes exactly through a corner of four cells, it slips between
  the two cells beside the corner, and is stopped there only when both of
  them stop it. The segment from Ann to Bob is the segment from Bob to Ann,
  so what Ann sees of Bob is what Bob sees of Ann (symmetric by construction;
  the walk is also computed from the lower cell to the higher one and
  reversed, so even its order of corners is the same both ways).
- **Line of sight** (:meth:`Battlefield.sees`): no ``full`` wall cell on the
  line between the two cells.
- **Cover from geometry** (:meth:`Battlefield.cover_between`): the best of
  the cover zones holding the target's cell, and of the low walls and cover
  zones the line crosses on its way, except those within one metre of the
  shooter (a shooter fires over its own barricade) and zones holding the
  shooter's own cell. A target in front of a low wall gets nothing from it;
  a target behind it does.
- **Paths** (:meth:`Battlefield.path_toward`): each step goes to a
  neighbouring free cell one metre nearer the goal *by the shortest walk
  around the walls*; among such cells the first in a fixed order of
  preference (straight toward the goal first, then the axis steps, then the
  side steps, then any other neighbour, see :data:`STEP_ORDER`). On a map
  with no wall this is exactly the straight-line walk the systems used
  before walls existed. A diagonal step between two wall cells that touch at
  a corner is not allowed (nor is sight through that corner).
- **The crowd** (:class:`Crowd`): the actors able to act, in buckets of
  ``BUCKET`` x ``BUCKET`` cells by side and grade (the worst wound level), and
  who stands on each cell; an encounter keeps it up to date from the events it
  emits, so a policy finds the nearest foe without looking at every actor.

No set iteration order reaches a result: every query sorts or ranks by
explicit keys (distance, then id), so logs stay byte-identical across Python
versions.
"""

from __future__ import annotations

import functools
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fracas.core import events as E
from fracas.core.state import DISABLING

if TYPE_CHECKING:
    from fracas.core.state import ActorState, State

Cell = tuple[int, int]

FULL = "full"
LOW = "low"
WALL_HEIGHTS = (FULL, LOW)

#: Why a zone the target stands in covers it (:attr:`Cover.why`).
STANDS_IN = "the target stands in it"

#: Bucket size of the crowd index, in cells.
BUCKET = 8
#: Below this many able actors of the sides asked about, a crowd query looks at each (cheaper than the rings).
FEW = 24


def distance(a: Cell, b: Cell) -> int:
    """Metres between two cells in a straight line: a diagonal step counts one metre."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return dx if dx > dy else dy  # not max(): this runs for every candidate of every query


def step_order(x: int, y: int, gx: int, gy: int) -> tuple[Cell, ...]:
    """The neighbours of ``(x, y)`` in order of preference for a step toward ``(gx, gy)``.

    Straight toward the goal, then along each axis, then the side steps (the
    order Z-Corps used before walls), then the other neighbours, east, west,
    south, north, then the four diagonals.
    """
    sx, sy = (gx > x) - (gx < x), (gy > y) - (gy < y)
    return (
        (x + sx, y + sy),
        (x + sx, y),
        (x, y + sy),
        (x + sx, y + 1),
        (x + sx, y - 1),
        (x + 1, y + sy),
        (x - 1, y + sy),
        (x + 1, y),
        (x - 1, y),
        (x, y + 1),
        (x, y - 1),
        (x + 1, y + 1),
        (x - 1, y + 1),
        (x + 1, y - 1),
        (x - 1, y - 1),
    )


#: The documented order of preference of steps (see :func:`step_order`).
STEP_ORDER = step_order
#: :func:`step_order` as offsets from the cell, by the signs of the goal's offset: ``_STEP_OFFSETS[sx][sy]``.
_STEP_OFFSETS: dict[int, dict[int, tuple[Cell, ...]]] = {
    sx: {sy: step_order(0, 0, sx, sy) for sy in (-1, 0, 1)} for sx in (-1, 0, 1)
}


class Cover:
    """The cover a target gets: what gives it (a zone or a wall), its level, and why."""

    __slots__ = ("cell", "kind", "level", "light", "name", "why")

    def __init__(self, name: str, level: str, kind: str, cell: Cell, why: str, light: str | None = None) -> None:
        self.name = name
        self.level = level
        self.kind = kind  # "zone" or "wall"
        self.cell = cell
        self.why = why
        self.light = light

    def __repr__(self) -> str:
        return f"Cover({self.name!r}, {self.level!r}, {self.kind}, {self.cell}, {self.why!r})"


#: How many cells the kept walk searches may label together (about 32 MB of list slots, and 8 MB more once
#: paths are asked of them: each cell's steps a metre nearer): 3,628 searches on a 32 x 32 map, 4 on a
#: 1,000 x 1,000 one (a search labels the map and its one-cell border).
FIELD_CELLS = 1 << 22
#: How many answers of :meth:`Battlefield.sees` are kept (the walls never move, but the pairs are many).
SIGHT_KEPT = 1 << 16
#: How many placings of one side's able actors :meth:`Crowd.all_near` keeps its answers for.
NEAR_STANDS_KEPT = 64


class Battlefield:
    """The static geometry of one map: walls, sight, cover along lines, shortest walks."""

    def __init__(self, map_spec: Any) -> None:
        self.width: int = map_spec.width
        self.height: int = map_spec.height
        self.walls: list[Any] = list(getattr(map_spec, "walls", []) or [])
        self.zones: list[Any] = list(map_spec.cover)
        #: every wall cell and the wall it belongs to (the first wall listed, where two overlap)
        self.wall_at: dict[Cell, Any] = {}
        for w in self.walls:
            for cx in range(max(w.x, 0), min(w.x + w.w, self.width)):
                for cy in range(max(w.y, 0), min(w.y + w.h, self.height)):
                    self.wall_at.setdefault((cx, cy), w)
        #: cells that block sight (full walls)
        self.opaque: frozenset[Cell] = frozenset(c for c, w in self.wall_at.items() if w.height == FULL)
        #: True when the map has no wall: every question has its open-ground answer
        self.open = not self.wall_at
        self._searches: dict[Cell, _Search] = {}
        #: answers of :meth:`sees` by pair of cells, the lower first (the walls never move)
        self._sight: dict[tuple[Cell, Cell], bool] = {}
        #: how many searches are kept (the memory bound: each labels every cell of the map)
        self.field_limit = max(4, min(4096, FIELD_CELLS // ((self.width + 2) * (self.height + 2))))
        self._padded: bytearray | None = None
        #: the sets of steps a metre nearer a goal that cells have (:meth:`_steps_nearer`), by number (0: not known)
        self._step_sets: list[tuple[tuple[int, int, int], ...]] = [()]
        self._step_numbers: dict[tuple[tuple[int, int, int], ...], int] = {}
        self._steps_by_sign: dict[int, dict[int, tuple[tuple[int, int, int], ...]]] | None = None
        self._regions: list[int] | None = None
        #: each padded cell's neighbours a step may go onto (:meth:`_steps_from`)
        self._neighbours: list[tuple[int, ...]] | None = None
        #: :meth:`reaches_from`'s answers by start cell (they read only the walls, which never move)
        self._reached_from: dict[Cell, Callable[[Cell], bool]] = {}
        #: :meth:`_slot_bounds`'s answers by (target, its slots' padded indices, metres): None for a straight line
        self._bounds: dict[tuple[Cell, tuple[int, ...], int], tuple[list[int], int] | None] = {}
        #: :meth:`_cells_round`'s answers for :data:`_AROUND` and :data:`NEIGHBOURS`, by cell (the map never changes)
        self._round: dict[Cell, tuple[list[int], list[int]]] = {}

    # ------------------------------------------------------------ cells

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height

    def walkable(self, cell: Cell) -> bool:
        """On the map and not a wall cell."""
        return 0 <= cell[0] < self.width and 0 <= cell[1] < self.height and cell not in self.wall_at

    def can_step(self, a: Cell, b: Cell) -> bool:
        """Whether one step from ``a`` to the neighbouring ``b`` is allowed (no squeeze between two wall corners)."""
        if not self.walkable(b):
            return False
        if a[0] != b[0] and a[1] != b[1]:
            walls = self.wall_at
            return not ((b[0], a[1]) in walls and (a[0], b[1]) in walls)
        return True

    # ------------------------------------------------------------ the line

    def line(self, a: Cell, b: Cell) -> list[tuple[Cell, Cell]]:
        """What the segment from ``a``'s centre to ``b``'s crosses, in order, ``a`` and ``b`` excluded.

        Each entry is a pair of cells: a cell whose inside the segment crosses is
        given twice, ``(c, c)``; where the segment passes exactly through a corner,
        the entry is the two cells beside that corner (it crosses neither's inside).
        Whatever stops the line must stop it in both cells of an entry. Walked from
        the lower of the two cells and reversed if needed: ``line(a, b) == line(b, a)[::-1]``.
        """
        if b < a:
            return self.line(b, a)[::-1]
        x0, y0 = a
        x1, y1 = b
        sx, sy = (x1 > x0) - (x1 < x0), (y1 > y0) - (y1 < y0)
        nx, ny = abs(x1 - x0), abs(y1 - y0)
        ix = iy = 0
        x, y = x0, y0
        out: list[tuple[Cell, Cell]] = []
        while ix < nx or iy < ny:
            # compare where the segment leaves the cell: through a vertical side, a horizontal one, or the corner
            decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx
            if decision == 0:
                out.append(((x + sx, y), (x, y + sy)))
                x += sx
                y += sy
                ix += 1
                iy += 1
            elif decision < 0:
                x += sx
                ix += 1
            else:
                y += sy
                iy += 1
            if (x, y) != (x1, y1):
                out.append(((x, y), (x, y)))
        return out

    def sees(self, a: Cell, b: Cell) -> bool:
        """Line of sight: no full wall on the line between ``a`` and ``b`` (symmetric)."""
        opaque = self.opaque
        if not opaque or a == b:
            return True
        key = (a, b) if a < b else (b, a)  # the same line both ways
        seen = self._sight.get(key)
        if seen is None:
            if len(self._sight) >= SIGHT_KEPT:
                self._sight.clear()  # a memory bound
            seen = self._sight[key] = not any(left in opaque and right in opaque for left, right in self.line(a, b))
        return seen

    def sight_blocker(self, a: Cell, b: Cell) -> Any | None:
        """The full wall that blocks the line from ``a`` to ``b`` nearest ``a`` (None: ``a`` sees ``b``)."""
        opaque = self.opaque
        if not opaque or a == b:
            return None
        for left, right in self.line(a, b):
            if left in opaque and right in opaque:
                return self.wall_at[left]
        return None

    def cover_between(
        self, shooter: Cell, target: Cell, rank: Callable[[str], int], *, zone_rank: Callable[[Any], int] | None = None
    ) -> Cover | None:
        """The best cover ``target`` gets against ``shooter``, ranked by the system's ``rank(level)``.

        Candidates: the cover zones holding the target's cell; the low walls and
        cover zones the line crosses, except within one metre of the shooter
        and zones holding the shooter. A corner passage counts a cover only when
        both cells beside it give one (the lesser of the two). Of equal ranks the
        first found wins: the target's own zones (in the map's order), then the
        line from the target back toward the shooter.
        """
        best: Cover | None = None
        best_rank = 0
        tx, ty = target
        for z in self.zones:
            if z.x <= tx < z.x + z.w and z.y <= ty < z.y + z.h:
                r = rank(z.level)
                if best is None or r > best_rank:
                    best, best_rank = Cover(z.name, z.level, "zone", target, STANDS_IN, z.light), r
        if self.open and not self.zones:
            return best
        sx, sy = shooter
        shooter_zones = [z for z in self.zones if z.x <= sx < z.x + z.w and z.y <= sy < z.y + z.h]

        def cell_cover(c: Cell) -> tuple[int, Any, str] | None:
            if distance(c, shooter) <= 1:
                return None
            w = self.wall_at.get(c)
            if w is not None:
                if w.height == LOW:
                    return rank(w.cover), w, "wall"
                return None
            found: tuple[int, Any, str] | None = None
            cx, cy = c
            for z in self.zones:
                if z.x <= cx < z.x + z.w and z.y <= cy < z.y + z.h and z not in shooter_zones:
                    r = rank(z.level)
                    if found is None or r > found[0]:
                        found = (r, z, "zone")
            return found

        for left, right in reversed(self.line(shooter, target)):
            one = cell_cover(left)
            two = one if right == left else cell_cover(right)
            if one is None or two is None:
                continue
            got, cell = (one, left) if one[0] <= two[0] else (two, right)
            r, thing, kind = got
            if best is None or r > best_rank:
                level = thing.cover if kind == "wall" else thing.level
                why = f"the line of fire crosses it at ({cell[0]}, {cell[1]})"
                best, best_rank = Cover(thing.name, level, kind, cell, why), r
        return best

    # ------------------------------------------------------------ paths

    def _blocked_grid(self) -> bytearray:
        """The map with a one-cell border, row by row (``(y + 1) * (width + 2) + x + 1``): 1 on a wall or the border.

        The breadth-first searches walk this grid by index: the border stops them without a bounds test.
        """
        grid = self._padded
        if grid is None:
            w, h = self.width, self.height
            row = w + 2
            grid = bytearray(b"\x01") * (row * (h + 2))
            for y in range(h):
                first = (y + 1) * row + 1
                grid[first : first + w] = bytes(w)
            for x, y in self.wall_at:
                grid[(y + 1) * row + x + 1] = 1
            self._padded = grid
        return grid

    def _steps_from(self) -> list[tuple[int, ...]]:
        """Each padded cell's neighbours a step from it may go onto (:meth:`can_step`: a free cell, diagonally only
        when the two cells beside it are not both walls), in :data:`NEIGHBOURS` order, by padded index: worked out
        once (the walls never move), for every breadth-first search to read instead of testing each step."""
        found = self._neighbours
        if found is None:
            grid = self._blocked_grid()
            row = self.width + 2
            size = len(grid)
            steps = _padded_steps(row)

            def blocked(k: int) -> int:
                return grid[k] if 0 <= k < size else 1  # beyond the border: blocked

            def plain(i: int) -> tuple[int, ...]:
                return tuple(
                    j
                    for dx, dy, step in steps
                    if not blocked(j := i + step) and not (dx and dy and blocked(i + dx) and blocked(i + dy * row))
                )

            # a cell with no wall and no border within one step may step onto all eight neighbours: only the cells
            # round the walls and the border need the plain test (a few hundred of a map's thousands)
            near_blocked = bytearray(size)
            around = [dy * row + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
            k = grid.find(1)
            while k >= 0:
                for d in around:
                    if 0 <= k + d < size:
                        near_blocked[k + d] = 1
                k = grid.find(1, k + 1)
            e, w, s, n, se, sw, ne, nw = (step for _, _, step in steps)
            found = self._neighbours = [
                plain(i) if near_blocked[i] else (i + e, i + w, i + s, i + n, i + se, i + sw, i + ne, i + nw)
                for i in range(size)
            ]
        return found

    def _layer(self, layer: list[int], label: list[int], value: int) -> list[int]:
        """One layer of a breadth-first search over the padded grid: the free cells one step from ``layer`` not
        yet labelled, labelled ``value``. A step is :meth:`can_step`'s (:meth:`_steps_from`)."""
        steps_from = self._steps_from()
        nxt: list[int] = []
        for i in layer:
            for j in steps_from[i]:
                if label[j] < 0:
                    label[j] = value
                    nxt.append(j)
        return nxt

    def _search(self, goal: Cell) -> _Search:
        """The breadth-first search from ``goal``, as far as it has gone (kept per goal: the walls never move)."""
        found = self._searches.get(goal)
        if found is None:
            if len(self._searches) >= self.field_limit:
                self._searches.clear()  # a memory bound: a search labels every cell of the map
                self._bounds.clear()  # (they hold the searches' labels)
            found = self._searches[goal] = _Search(self, goal)
        return found

    def walk_distances(self, goal: Cell) -> list[int]:
        """Metres from every cell to ``goal`` walking around the walls (-1: no way), cells by ``y * width + x``.

        The breadth-first search from the goal, to its end (the search is kept per goal, not this list).
        """
        search = self._search(goal)
        search.finish()
        w, h = self.width, self.height
        row = w + 2
        padded = search.label
        field: list[int] = []
        for y in range(h):
            first = (y + 1) * row + 1
            field += padded[first : first + w]
        return field

    def walk_distance(self, a: Cell, b: Cell) -> int | None:
        """Metres of the shortest walk from ``a`` to ``b`` around the walls (None: no way there).

        The search from ``b`` goes only as far as ``a`` (and goes on from there for a later, farther question).
        """
        if self.open:
            return distance(a, b)
        d = self._search(b).reach((a[1] + 1) * (self.width + 2) + a[0] + 1)
        return None if d < 0 else d

    def walk_within(self, a: Cell, b: Cell, metres: int) -> bool:
        """Whether a walk from ``a`` to ``b`` around the walls takes at most ``metres`` (``walk_distance(a, b)`` is not
        None and at most ``metres``): the search from ``b`` goes no farther than ``metres``, however far ``a`` is."""
        if self.open:
            return distance(a, b) <= metres
        search = self._search(b)
        search.deepen(metres)
        d = search.label[(a[1] + 1) * (self.width + 2) + a[0] + 1]
        return 0 <= d <= metres

    def reaches(self, a: Cell, b: Cell) -> bool:
        """Whether a walk around the walls leads from ``a`` to ``b`` (``walk_distance(a, b) is not None``).

        A step is allowed both ways (:meth:`can_step` looks at the cell stepped onto and at the two
        cells beside a diagonal, the same both ways), so two free cells are joined when they lie in
        the same region of free cells: the regions are labelled once (the walls never move).
        """
        if self.open or a == b:
            return True
        width, height = self.width, self.height
        bx, by = b
        if not (0 <= bx < width and 0 <= by < height) or b in self.wall_at:  # not walkable(b)
            return self.walk_distance(a, b) is not None  # a goal on a wall: its own search
        ax, ay = a
        if not (0 <= ax < width and 0 <= ay < height) or a in self.wall_at:  # not walkable(a)
            return False  # a search from a free goal reaches free cells only
        regions = self._free_regions()
        row = width + 2
        return regions[(ay + 1) * row + ax + 1] == regions[(by + 1) * row + bx + 1]

    def reaches_from(self, a: Cell) -> Callable[[Cell], bool]:
        """``reaches(a, b)`` for the ``b`` asked, ``a``'s region read once (a zombie asks it of the nearest foes);
        kept per cell ``a`` (it reads only the walls)."""
        if self.open:
            return _always
        reached = self._reached_from.get(a)
        if reached is not None:
            return reached
        width, height, walls = self.width, self.height, self.wall_at
        ax, ay = a
        if not (0 <= ax < width and 0 <= ay < height) or a in walls:
            return lambda b: self.reaches(a, b)  # off the map or on a wall: the plain answer
        row = width + 2
        regions = self._free_regions()
        mine = regions[(ay + 1) * row + ax + 1]

        def reached_from_a(b: Cell) -> bool:
            bx, by = b
            if not (0 <= bx < width and 0 <= by < height) or b in walls:
                return self.reaches(a, b)
            return regions[(by + 1) * row + bx + 1] == mine

        if len(self._reached_from) >= SIGHT_KEPT:
            self._reached_from.clear()  # a memory bound (a cell each, on a large map)
        self._reached_from[a] = reached_from_a
        return reached_from_a

    def _free_regions(self) -> list[int]:
        """Each padded cell's region of free cells (-1: a wall or the border), labelled once: two free cells are
        joined by a walk when they lie in one region."""
        regions = self._regions
        if regions is None:
            grid = self._blocked_grid()
            steps_from = self._steps_from()
            regions = [-1] * len(grid)
            count = 0
            i = grid.find(0)
            while i >= 0:  # each free cell not yet labelled starts a region: every cell a walk joins it to
                if regions[i] < 0:
                    regions[i] = count
                    pending = [i]  # a region's cells, in any order (a label is the same whatever the order)
                    pop, push = pending.pop, pending.append
                    while pending:
                        for j in steps_from[pop()]:
                            if regions[j] < 0:
                                regions[j] = count
                                push(j)
                    count += 1
                i = grid.find(0, i + 1)
            self._regions = regions
        return regions

    def path_toward(
        self,
        start: Cell,
        goal: Cell,
        metres: int,
        *,
        stop: int = 0,
        blocked: Any = frozenset(),
    ) -> list[Cell]:
        """Up to ``metres`` steps from ``start`` toward ``goal``, ending ``stop`` metres short of it in sight.

        Each step goes to the first cell of :func:`step_order` that is free (not a
        wall, not in ``blocked``) and one metre nearer the goal by the shortest walk;
        the path ends when no such step exists. ``stop``: the walk ends once the goal
        is within ``stop`` metres in a straight line and in sight. On an open map
        this is the straight-line walk (nearer in a straight line).
        """
        x, y = start
        gx, gy = goal
        out: list[Cell] = []
        if self.open:
            width, height = self.width, self.height
            for _ in range(metres):
                d = max(x - gx, gx - x, y - gy, gy - y)
                if d <= stop:
                    break
                for step in step_order(x, y, gx, gy)[:7]:
                    cx, cy = step
                    if (
                        (cx != x or cy != y)
                        and 0 <= cx < width  # on the map: round another by the edge, never over it
                        and 0 <= cy < height
                        and step not in blocked
                        and max(cx - gx, gx - cx, cy - gy, gy - cy) < d
                    ):
                        break
                else:
                    break
                x, y = cx, cy
                out.append(step)
            return out
        # the search from the goal as far as the start: every cell nearer the goal than the start is labelled
        # (the steps look at nothing farther), the border of the padded grid is never one metre nearer
        search = self._searches.get(goal) or self._search(goal)
        row = self.width + 2
        field = search.label
        here = (y + 1) * row + x + 1
        # who stands where, read by index from the crowd's grid for its view
        standing, own = _standing(blocked, row, self.height)
        if field[here] < 0:
            search.reach(here)
        # each cell's steps a metre nearer (walls and labels never change: kept per search, by index)
        kept = search.nearer
        if kept is None:
            kept = search.nearer = array("H", bytes(2 * len(field)))
        step_sets = self._step_sets
        for _ in range(metres):
            if abs(x - gx) <= stop and abs(y - gy) <= stop and self.sees((x, y), goal):
                break
            k = kept[here]
            if not k:
                if field[here] <= 0:
                    break  # at the goal, or no way there
                k = kept[here] = self._steps_nearer(field, here, x, y, gx, gy)
            for di, dx, dy in step_sets[k]:
                j = here + di
                if standing is not None:
                    n = standing[j]
                    if n and (n > 1 or j != own):
                        continue  # another stands there
                elif (x + dx, y + dy) in blocked:
                    continue
                break
            else:
                break
            x += dx
            y += dy
            here = j
            out.append((x, y))
        return out

    def _step_indices(self) -> dict[int, dict[int, tuple[tuple[int, int, int], ...]]]:
        """:data:`_STEP_OFFSETS` as ``(index offset on the padded grid, dx, dy)``, by the signs of the goal's offset,
        each step once (its first place in the order) and no step that stays put."""
        found = self._steps_by_sign
        if found is None:
            row = self.width + 2
            found = self._steps_by_sign = {
                sx: {
                    sy: tuple(
                        dict.fromkeys((dy * row + dx, dx, dy) for dx, dy in offsets if dx or dy)  # first places
                    )
                    for sy, offsets in by_y.items()
                }
                for sx, by_y in _STEP_OFFSETS.items()
            }
        return found

    def _steps_nearer(self, field: list[int], here: int, x: int, y: int, gx: int, gy: int) -> int:
        """The steps from the padded cell ``here`` = ``(x, y)`` onto a cell one metre nearer the goal ``(gx, gy)`` by
        ``field`` (its search's labels) that :meth:`can_step` allows, in :func:`step_order`'s order, each once: their
        number in :attr:`_step_sets` (a few hundred sets at most, each ``(index offset, dx, dy)``)."""
        grid = self._blocked_grid()
        nearer = field[here] - 1
        key = tuple(
            step
            for step in self._step_indices()[(gx > x) - (gx < x)][(gy > y) - (gy < y)]
            # a metre nearer, not a wall (a goal on a wall: a labelled wall cell), no squeeze between two wall
            # corners (can_step)
            if field[here + step[0]] == nearer
            and not grid[here + step[0]]
            and not (step[1] and step[2] and grid[here + step[1]] and grid[here + step[0] - step[1]])
        )
        number = self._step_numbers.get(key)
        if number is None:
            number = self._step_numbers[key] = len(self._step_sets)
            self._step_sets.append(key)
        return number

    def _slot_bounds(
        self, targets: list[Cell], slots: dict[int, int], metres: int
    ) -> tuple[list[tuple[list[int], int]], list[Cell]]:
        """For :meth:`walk_to_reach`'s bound: the targets with a slot (by padded index) beside them, as (their
        search's labels, the longest walk from the target to one of its slots) when each is walkable from it,
        searched at least ``metres`` plus that far; the others (a slot cut off from its target) in a straight line."""
        walled: list[tuple[list[int], int]] = []
        straight: list[Cell] = []
        kept = self._bounds
        for t in dict.fromkeys(targets):
            beside = tuple([i for i in self._cells_near(t)[0] if i in slots])
            if not beside:
                continue  # no slot beside it: it leads nowhere
            key = (t, beside, metres)
            bound: tuple[list[int], int] | None
            if key in kept:
                bound = kept[key]
            else:  # not known yet (the walls never move: kept with the searches it reads)
                search = self._search(t)
                walks = [search.reach(i) for i in beside]
                if min(walks) < 0:
                    bound = None
                else:
                    most = max(walks)
                    search.deepen(metres + most)
                    bound = (search.label, most)
                if len(kept) >= SIGHT_KEPT:
                    kept.clear()  # a memory bound
                kept[key] = bound
            if bound is None:
                straight.append(t)
            else:
                walled.append(bound)
        return walled, straight

    def _cells_near(self, t: Cell) -> tuple[list[int], list[int]]:
        """``_cells_round(t, _AROUND)`` and ``_cells_round(t, NEIGHBOURS)``, kept per cell (a survivor's cell is asked
        about by every zombie that looks for a free side of it)."""
        found = self._round.get(t)
        if found is None:
            if len(self._round) >= SIGHT_KEPT:
                self._round.clear()  # a memory bound
            found = self._round[t] = (self._cells_round(t, _AROUND), self._cells_round(t, NEIGHBOURS))
        return found

    def _cells_round(self, t: Cell, offsets: tuple[Cell, ...]) -> list[int]:
        """The padded indices of the cells at ``offsets`` from ``t`` (the border's too: the grid blocks them), those
        on the map only when ``t`` is off it."""
        tx, ty = t
        width, height, row = self.width, self.height, self.width + 2
        if 0 <= tx < width and 0 <= ty < height:
            base = (ty + 1) * row + tx + 1
            return [base + step for step in _padded_offsets(row, offsets)]
        return [
            (y + 1) * row + x + 1 for dx, dy in offsets if 0 <= (x := tx + dx) < width and 0 <= (y := ty + dy) < height
        ]

    def walk_to_reach(
        self, start: Cell, targets: list[Cell], metres: int, blocked: Any = frozenset()
    ) -> tuple[list[Cell], int] | None:
        """The shortest walk of at most ``metres`` steps over free cells to a free cell at arm's reach of a target.

        Free: on the map, not a wall, not in ``blocked`` (others standing there), each step allowed by
        :meth:`can_step`. Arm's reach: one metre in a straight line from a cell of ``targets``. Returns
        the steps (``start`` excluded) and the index in ``targets`` of the target reached; None when no
        such cell is within ``metres`` steps (or ``start`` is one already: nothing to walk). The search
        looks at no cell when no free cell at arm's reach is within ``metres`` in a straight line. Of equally
        short walks: the first target in ``targets`` order, then the cell with the lowest (y, x); each
        cell's walk is the one found first breadth-first, trying the neighbours east, west, south, north,
        then the diagonals (:data:`NEIGHBOURS`): deterministic.
        """
        grid = self._blocked_grid()
        width, height, row = self.width, self.height, self.width + 2
        # who stands where, read by index from the crowd's grid for its view (the search asks it of every cell)
        standing, own = _standing(blocked, row, height)
        sx, sy = start
        first = (sy + 1) * row + sx + 1
        at_start = first if 0 <= sx < width and 0 <= sy < height else -1  # the start's padded cell, if on the map
        steps_to = _padded_steps(row)
        if at_start >= 0:  # hemmed in (a zombie in the thick of the horde): no first step, no walk
            for dx, dy, step in steps_to:
                j = first + step
                if grid[j] or (dx and dy and grid[first + dx] and grid[first + dy * row]):
                    continue  # a wall, the border, or a squeeze between two wall corners
                if standing is not None:
                    n = standing[j]
                    if n and (n > 1 or j != own):
                        continue
                elif (j % row - 1, j // row - 1) in blocked:
                    continue
                break
            else:
                return None
        # the slots, by padded index: the free cells beside a target, each given to the first target it is beside
        slot_at: dict[int, int] = {}
        for k, t in enumerate(targets):
            for i in self._cells_near(t)[1]:
                if i in slot_at or grid[i]:
                    continue  # a slot already, a wall or off the map (not walkable)
                if i != at_start:
                    if standing is not None:
                        n = standing[i]
                        if n and (n > 1 or i != own):
                            continue
                    elif (i % row - 1, i // row - 1) in blocked:
                        continue
                slot_at[i] = k
        if not slot_at or at_start in slot_at:
            return None
        for i in slot_at:
            y, x = divmod(i, row)
            x -= sx + 1
            y -= sy + 1
            if -metres <= x <= metres and -metres <= y <= metres:
                break
        else:
            return None  # every slot farther than the steps in a straight line
        came: dict[int, int] = {first: first}
        # cells no walk goes onto: walls, the border, cells reached already, others standing there, and cells
        # too far from every target (all for good: nothing moves during the search, and the steps left only shrink)
        shut = bytearray(grid)
        shut[first] = 1
        # The search leaves a cell that cannot lead to a slot in the steps left, even were nobody in the way:
        # a lower bound on the walk from it to the nearest slot exceeds them. Walking round the walls, a cell
        # is at least its walk to a target less the longest walk from that target to one of its slots (the
        # target's search, kept, gives both); a target with a slot it cannot walk to counts in a straight
        # line (the cell's distance less one metre). Either bound changes by at most one metre a step, so
        # whatever a left cell would have reached in time is left too, and every other cell is reached at
        # the same step from the same cell as by the whole search: the same walk, less searching.
        walled, straight = self._slot_bounds(targets, slot_at, metres)
        shut_start = True
        for label, most in walled:
            if 0 <= label[first] < metres + 1 + most:
                shut_start = False
        for tx, ty in straight:
            if max(sx - tx, tx - sx, sy - ty, ty - sy) <= metres + 1:
                shut_start = False
        if shut_start:
            return None  # no slot within reach, were nobody in the way
        steps_from = self._steps_from()
        layer = [first]
        for steps in range(metres):
            nxt: list[int] = []
            allowance = metres - steps  # the steps left after this one, and one
            for i in layer:
                for j in steps_from[i]:  # can_step's neighbours, in NEIGHBOURS order
                    if shut[j]:
                        continue
                    if standing is not None:
                        n = standing[j]
                        if n and (n > 1 or j != own):
                            shut[j] = 1
                            continue
                    elif (j % row - 1, j // row - 1) in blocked:
                        shut[j] = 1
                        continue
                    for label, most in walled:
                        walk = label[j]
                        if 0 <= walk < allowance + most:
                            break
                    else:
                        ny, nx = divmod(j, row)
                        nx -= 1
                        ny -= 1
                        for tx, ty in straight:
                            if (
                                nx - tx <= allowance
                                and tx - nx <= allowance
                                and ny - ty <= allowance
                                and ty - ny <= allowance
                            ):
                                break
                        else:
                            shut[j] = 1
                            continue  # too far from every slot to reach one in the steps left
                    shut[j] = 1
                    came[j] = i
                    nxt.append(j)
            if not nxt:
                return None
            if not slot_at.keys().isdisjoint(nxt):  # a slot reached: of those, the first target's, then by (y, x)
                k, y, x = min([(slot_at[j], j // row, j % row) for j in nxt if j in slot_at])
                j = y * row + x
                path = [(x - 1, y - 1)]
                while came[j] != first:
                    j = came[j]
                    path.append((j % row - 1, j // row - 1))
                path.reverse()
                return path, k
            layer = nxt
        return None


class _Search:
    """A breadth-first search over a battlefield's padded grid from one goal, layer by layer, on demand."""

    __slots__ = ("field", "label", "layer", "metres", "nearer")

    def __init__(self, field: Battlefield, goal: Cell) -> None:
        self.field = field
        row = field.width + 2
        first = (goal[1] + 1) * row + goal[0] + 1
        #: metres from each padded cell to the goal, -1 where the search has not been (or cannot go)
        self.label = [-1] * (row * (field.height + 2))
        self.label[first] = 0
        self.layer = [first]
        self.metres = 0
        #: each padded cell's steps a metre nearer, as a number of Battlefield._step_sets (0: not known yet)
        self.nearer: array[int] | None = None

    def reach(self, index: int) -> int:
        """The walk's metres from the padded cell ``index`` to the goal (-1: no way), searching only as far."""
        label = self.label
        while label[index] < 0 and self.layer:
            self.metres += 1
            self.layer = self.field._layer(self.layer, label, self.metres)
        return label[index]

    def deepen(self, metres: int) -> None:
        """Search on until every cell within ``metres`` of the goal is labelled (or none is left)."""
        while self.layer and self.metres < metres:
            self.metres += 1
            self.layer = self.field._layer(self.layer, self.label, self.metres)

    def finish(self) -> None:
        while self.layer:
            self.metres += 1
            self.layer = self.field._layer(self.layer, self.label, self.metres)


#: The order :meth:`Battlefield.walk_to_reach` tries the neighbours of a cell in: east, west, south, north, diagonals.
NEIGHBOURS: tuple[Cell, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))
#: A cell and its neighbours: the cells within one metre of it.
_AROUND: tuple[Cell, ...] = ((0, 0), *NEIGHBOURS)


@functools.cache
def _padded_offsets(row: int, offsets: tuple[Cell, ...]) -> tuple[int, ...]:
    """``offsets`` as index offsets on a padded grid of ``row`` cells a row."""
    return tuple(dy * row + dx for dx, dy in offsets)


@functools.cache
def _padded_steps(row: int) -> tuple[tuple[int, int, int], ...]:
    """:data:`NEIGHBOURS` as ``(dx, dy, index offset)`` on a padded grid of ``row`` cells a row."""
    return tuple((dx, dy, dy * row + dx) for dx, dy in NEIGHBOURS)


def _always(cell: Cell) -> bool:
    return True


def battlefield_of(map_spec: Any) -> Battlefield:
    return Battlefield(map_spec)


# ---------------------------------------------------------------- the crowd


def grade_of(a: ActorState) -> int:
    """An actor's worst wound level over its monitors (-1: unhurt): the grade the crowd buckets by.

    An actor with hit points and no monitors (d100) is graded by the HP it has lost: the more hurt,
    the higher.
    """
    worst = -1
    for m in a.monitors.values():
        marked = m.marked
        if any(marked):
            level = len(marked) - 1
            while level > worst and not marked[level]:
                level -= 1
            worst = level
    if not a.monitors and a.hp is not None and a.hp_max is not None and a.hp < a.hp_max:
        return a.hp_max - a.hp
    return worst


_DISABLING_EVENTS = (E.ConditionSet, E.ConditionCleared, E.ActorFled, E.ActorSurrendered, E.ActorDied)
_WOUND_EVENTS = (E.WoundMarked, E.WoundHealed, E.WoundWorsened, E.HitPointsChanged)
#: The events the crowd follows (every other event leaves it as it is).
CROWD_EVENTS = frozenset((E.ActorEntered, E.Moved, *_DISABLING_EVENTS, *_WOUND_EVENTS))


class Crowd:
    """Where the actors are: the able ones in buckets by side and grade, everyone by cell.

    Kept up to date by :meth:`observe` from the events of one encounter (after the
    state has folded them). Queries look at the buckets near a cell only.
    """

    def __init__(self, state: State, width: int, height: int, bucket: int = BUCKET, few: int = FEW) -> None:
        self.state = state
        self.bucket = bucket
        #: at most this many able actors asked about: a query looks at each of them, not at rings of buckets
        self.few = few
        #: how many buckets across and down the map (actors never leave it)
        self.buckets_x = (max(width, 1) - 1) // bucket + 1
        self.buckets_y = (max(height, 1) - 1) // bucket + 1
        #: side -> grade -> bucket -> id -> cell (insertion-ordered dicts; results are sorted by id anyway)
        self.groups: dict[str, dict[int, dict[Cell, dict[str, Cell]]]] = {}
        #: side -> grade -> how many able actors
        self.counts: dict[str, dict[int, int]] = {}
        #: actor -> (side, grade, bucket) while able
        self.placed: dict[str, tuple[str, int, Cell]] = {}
        #: side -> id -> cell of every able actor, whatever its grade and bucket (a query about a few looks at each)
        self.able: dict[str, dict[str, Cell]] = {}
        #: how many sides have an able actor (``able``'s non-empty dicts): the end check asks after every attack
        self.sides_able = 0
        #: cell -> ids of the actors on it (the dead and the gone included: they lie where they fell)
        self.cells: dict[Cell, list[str]] = {}
        self.cell_of: dict[str, Cell] = {}
        self.width, self.height = width, height
        #: how many actors stand on each cell (as ``cells`` counts them), on a battlefield's padded grid (the map
        #: and a one-cell border, cell (x, y) at ``(y + 1) * (width + 2) + x + 1``): the walk searches read it by index
        self.standing = [0] * ((width + 2) * (height + 2))
        self._others: dict[str, list[str]] = {}
        #: :meth:`all_near`'s answers about one side, by side and cell, while that side's able actors stay where they
        #: are (a side's are let go whenever one of them moves, falls or comes): the dead ask again from the same cells
        self._near_kept: dict[str, dict[Cell, list[tuple[int, str]]]] = {}
        #: those answers by side and by where its able actors stood (sorted (id, cell) pairs): a survivor who steps
        #: out and back finds them again
        self._near_by_stand: dict[str, dict[tuple[tuple[str, Cell], ...], dict[Cell, list[tuple[int, str]]]]] = {}

    # ------------------------------------------------------------ upkeep

    def observe(self, ev: Any) -> None:
        actor = ev.actor
        kind = type(ev)
        if kind is E.Moved:
            placed = self.placed.get(actor)
            old = self.cell_of.get(actor)
            new = (ev.x, ev.y)  # where the state's fold of the event put the mover
            if placed is not None and old is not None and old != new:
                # a step of an able actor onto another cell (every metre of a move): the upkeep below for it, without
                # asking the state; a step changes neither the side nor the grade (nor whether it can act)
                cells = self.cells
                here = cells[old]
                if len(here) == 1 and new not in cells:  # alone here, nobody there: its list moves (the same keys)
                    del cells[old]
                    cells[new] = here
                else:
                    here.remove(actor)
                    if not here:
                        del cells[old]
                    there = cells.get(new)
                    if there is None:
                        cells[new] = [actor]
                    else:
                        there.append(actor)
                self.cell_of[actor] = new
                width, height, row = self.width, self.height, self.width + 2
                x, y = old
                if 0 <= x < width and 0 <= y < height:  # actors never leave the map (nor block a cell off it)
                    self.standing[(y + 1) * row + x + 1] -= 1
                x, y = new
                if 0 <= x < width and 0 <= y < height:
                    self.standing[(y + 1) * row + x + 1] += 1
                b = self.bucket
                key = (x // b, y // b)
                side, grade, old_key = placed
                self.able[side][actor] = new
                if side in self._near_kept:
                    del self._near_kept[side]  # its answers name the old cell
                grades = self.groups[side][grade]
                if key == old_key:
                    grades[key][actor] = new
                    return
                members = grades[old_key]
                del members[actor]
                if not members:
                    del grades[old_key]
                there_now = grades.get(key)
                if there_now is None:
                    grades[key] = {actor: new}
                else:
                    there_now[actor] = new
                self.placed[actor] = (side, grade, key)
                return
        a = self.state.actors[actor]
        if kind is E.Moved or kind is E.ActorEntered:
            old = self.cell_of.get(actor)
            new = (a.x, a.y)
            if old != new:
                width, height, row = self.width, self.height, self.width + 2
                if old is not None:
                    here = self.cells[old]
                    here.remove(actor)
                    if not here:
                        del self.cells[old]
                    x, y = old
                    if 0 <= x < width and 0 <= y < height:  # actors never leave the map (nor block a cell off it)
                        self.standing[(y + 1) * row + x + 1] -= 1
                self.cells.setdefault(new, []).append(actor)
                self.cell_of[actor] = new
                x, y = new
                if 0 <= x < width and 0 <= y < height:
                    self.standing[(y + 1) * row + x + 1] += 1
        self._place(a)  # a step that stays on its cell, or by an actor that cannot act, changes no bucket either

    def _place(self, a: ActorState) -> None:
        aid = a.id
        old = self.placed.get(aid)
        if DISABLING.isdisjoint(a.conditions):
            b = self.bucket
            new: tuple[str, int, Cell] | None = (a.side, grade_of(a), (a.x // b, a.y // b))
        else:
            new = None
        if old == new:
            return
        if old is not None:
            side, grade, key = old
            grades = self.groups[side][grade]
            members = grades[key]
            del members[aid]
            if not members:
                del grades[key]
            self.counts[side][grade] -= 1
            del self.placed[aid]
            able = self.able[side]
            del able[aid]
            if not able:
                self.sides_able -= 1
            self._near_kept.pop(side, None)
        if new is not None:
            side, grade, key = new
            self.groups.setdefault(side, {}).setdefault(grade, {}).setdefault(key, {})[aid] = (a.x, a.y)
            able = self.able.setdefault(side, {})
            if not able:
                self.sides_able += 1
            able[aid] = (a.x, a.y)
            self._near_kept.pop(side, None)
            counts = self.counts.get(side)
            if counts is None:
                counts = self.counts[side] = {}
                self._others.clear()  # a new side: every other_sides() list changes
            counts[grade] = counts.get(grade, 0) + 1
            self.placed[aid] = new

    # ------------------------------------------------------------ queries

    def occupants(self, cell: Cell) -> list[str]:
        """Who stands on ``cell`` (the dead included)."""
        return self.cells.get(cell, [])

    def is_occupied(self, cell: Cell, other_than: str) -> bool:
        """Whether an actor other than ``other_than`` stands on ``cell``."""
        ids = self.cells.get(cell)
        if not ids:
            return False
        return len(ids) > 1 or ids[0] != other_than

    def blocked_for(self, mover: str) -> Occupied:
        """The cells ``mover`` cannot step onto because someone stands there (a set-like view)."""
        return Occupied(self, mover)

    def several_sides_able(self) -> bool:
        """Whether actors of two sides or more can still act (State.several_sides_able, without a scan)."""
        return self.sides_able > 1

    def able_count(self, side: str) -> int:
        return sum(self.counts.get(side, {}).values())

    def grades(self, sides: Iterable[str]) -> list[int]:
        """The grades held by able actors of ``sides``, worst first."""
        found: set[int] = set()
        for side in sides:
            for grade, n in self.counts.get(side, {}).items():
                if n:
                    found.add(grade)
        return sorted(found, reverse=True)

    def other_sides(self, side: str) -> list[str]:
        """The sides other than ``side`` that have had an actor on the map, sorted (kept until a side arrives)."""
        others = self._others.get(side)
        if others is None:
            others = self._others[side] = sorted(s for s in self.counts if s != side)
        return others

    def _able_among(self, sides: Sequence[str], grades: Sequence[int] | None) -> int:
        """How many able actors of ``sides`` (of ``grades``) there are, from the counts."""
        n = 0
        for side in sides:
            counts = self.counts.get(side)
            if counts:
                n += sum(counts.values()) if grades is None else sum(counts.get(g, 0) for g in grades)
        return n

    def _each_able(self, sides: Sequence[str]) -> list[dict[str, Cell]] | None:
        """The able actors of ``sides``, id -> cell, a dict a side, when they are few (a query looks at each of them,
        wherever they stand); None when there are more (a query looks at the buckets round the point)."""
        able = self.able
        found = [members for side in sides if (members := able.get(side))]
        n = 0
        for members in found:
            n += len(members)
        return found if n <= self.few else None

    def _buckets(self, sides: Iterable[str], grades: Iterable[int] | None) -> list[dict[Cell, dict[str, Cell]]]:
        out: list[dict[Cell, dict[str, Cell]]] = []
        for side in sides:
            by_grade = self.groups.get(side)
            if not by_grade:
                continue
            if grades is None:
                out.extend(by_grade.values())
            else:
                for g in grades:
                    if g in by_grade:
                        out.append(by_grade[g])
        return out

    def _rings(self, x: int, y: int) -> Iterator[tuple[int, list[Cell]]]:
        """Bucket rings around ``(x, y)``, nearest first: (the least metres to any of their cells, their keys)."""
        b = self.bucket
        bx, by = x // b, y // b
        limit = max(bx, by, self.buckets_x - bx, self.buckets_y - by)
        yield 0, [(bx, by)]
        wide, high = self.buckets_x, self.buckets_y
        for r in range(1, limit + 1):
            xs = range(max(bx - r, 0), min(bx + r, wide - 1) + 1)
            ys = range(max(by - r + 1, 0), min(by + r - 1, high - 1) + 1)
            keys = []
            if by - r >= 0:
                keys += [(i, by - r) for i in xs]
            if by + r < high:
                keys += [(i, by + r) for i in xs]
            if bx - r >= 0:
                keys += [(bx - r, j) for j in ys]
            if bx + r < wide:
                keys += [(bx + r, j) for j in ys]
            yield (r - 1) * b + 1, keys

    def nearest(
        self,
        x: int,
        y: int,
        sides: Iterable[str],
        *,
        grades: Iterable[int] | None = None,
        within: int | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> tuple[int, list[str]] | None:
        """The least straight-line distance from ``(x, y)`` to an able actor of ``sides`` (of ``grades``),
        and the ids at that distance, sorted; None when none is within ``within`` metres.

        ``accept(id)``: an extra test a candidate must pass (in sight, say; asked of the nearest
        candidates until one passes, and of those as near: it must have no side effect).
        """
        sides = sides if isinstance(sides, (list, tuple)) else list(sides)
        grades = grades if grades is None or isinstance(grades, (list, tuple)) else list(grades)
        if grades is None:
            each = self._each_able(sides)
            if each is not None:
                return _nearest_of_each(each, x, y, within, accept)
        groups = self._buckets(sides, grades)
        if not groups:
            return None
        if self._able_among(sides, grades) <= self.few:
            return _nearest_of_each([bucket for group in groups for bucket in group.values()], x, y, within, accept)
        best: int | None = None
        ids: list[str] = []
        far = 1 << 60
        limit = far if within is None else within  # the farthest a candidate may be

        def visit(key: Cell) -> None:
            nonlocal best, ids, limit
            for group in groups:
                members = group.get(key)
                if not members:
                    continue
                for aid, (ax, ay) in members.items():
                    dx = ax - x
                    if dx < 0:
                        dx = -dx
                    dy = ay - y
                    if dy < 0:
                        dy = -dy
                    d = dx if dx > dy else dy
                    if d > limit:
                        continue
                    if accept is not None and not accept(aid):
                        continue
                    if best is None or d < best:
                        best, ids, limit = d, [aid], d
                    else:
                        ids.append(aid)

        occupied = sum(len(group) for group in groups)
        b = self.bucket
        bx, by = x // b, y // b
        for ring, (lower, keys) in enumerate(self._rings(x, y)):
            if (best is not None and lower > best) or (within is not None and lower > within):
                break
            if len(keys) > occupied:
                # the rings have grown wider than the occupied buckets: visit those, nearest first
                rest: list[tuple[int, Cell]] = []
                seen: set[Cell] = set()
                for group in groups:
                    for key in group:
                        kx, ky = key
                        if key not in seen and max(kx - bx, bx - kx, ky - by, by - ky) >= ring:  # not yet visited
                            seen.add(key)
                            gap_x = max(kx * b - x, 0, x - (kx * b + b - 1))
                            gap_y = max(ky * b - y, 0, y - (ky * b + b - 1))
                            rest.append((max(gap_x, gap_y), key))
                rest.sort()
                for gap, key in rest:
                    if (best is not None and gap > best) or (within is not None and gap > within):
                        break
                    visit(key)
                break
            if ring == 0:
                visit(keys[0])
                continue
            # the ring's buckets by their own least distance (the ring's lower bound is the nearest side's)
            gaps = []
            for key in keys:
                kx, ky = key
                gap = max(kx * b - x, x - (kx * b + b - 1), ky * b - y, y - (ky * b + b - 1))
                if (best is None or gap <= best) and (within is None or gap <= within):
                    gaps.append((gap, key))
            gaps.sort()
            for gap, key in gaps:
                if best is not None and gap > best:
                    break
                visit(key)
        if best is None:
            return None
        ids.sort()
        return best, ids

    def most_hurt_nearest(
        self,
        x: int,
        y: int,
        sides: Sequence[str],
        *,
        within: int | None = None,
        accept: Callable[[str], bool] | None = None,
    ) -> str | None:
        """The able actor of ``sides`` of the worst grade, then the nearest ``(x, y)``, then the lowest id, within
        ``within`` metres (None: any distance) and passing ``accept``: what :meth:`nearest` asked grade by grade,
        worst first (:meth:`grades`), finds first. None: no such actor.

        When they are few (at most ``few``) each is ranked by (-grade, distance, id) in one pass, and ``accept``
        asked of them in that order until one passes (it must have no side effect, as for :meth:`nearest`);
        otherwise :meth:`nearest` is asked grade by grade.
        """
        each = self._each_able(sides)
        if each is None:
            for grade in self.grades(sides):
                found = self.nearest(x, y, sides, grades=(grade,), within=within, accept=accept)
                if found is not None:
                    return found[1][0]
            return None
        placed = self.placed
        ranked: list[tuple[int, int, str]] = []
        for members in each:
            for aid, (ax, ay) in members.items():
                d, e = abs(ax - x), abs(ay - y)
                if e > d:
                    d = e
                if within is None or d <= within:
                    ranked.append((-placed[aid][1], d, aid))
        ranked.sort()
        for _, _, aid in ranked:
            if accept is None or accept(aid):
                return aid
        return None

    def nearest_few(self, x: int, y: int, sides: Iterable[str], count: int) -> list[str]:
        """The ``count`` able actors of ``sides`` nearest ``(x, y)``, nearest first; ties at one distance by id."""
        sides = list(sides)
        picked: dict[str, None] = {}

        def fresh(aid: str) -> bool:
            return aid not in picked

        while len(picked) < count:
            found = self.nearest(x, y, sides, accept=fresh)
            if found is None:
                break
            picked.update(dict.fromkeys(found[1][: count - len(picked)]))
        return list(picked)

    def all_near(self, x: int, y: int, sides: Sequence[str]) -> list[tuple[int, str]] | None:
        """Every able actor of ``sides`` as (distance from ``(x, y)``, id), sorted, when they are few (at most
        :attr:`few`); None when there are more (ask :meth:`nearest` or :meth:`within`, which look at the buckets
        round the point). A zombie's decision asks several questions of the few living: this answers them all.

        About one side the answer is kept per cell while that side's able actors stay where they are (the same list:
        read it, never change it)."""
        if len(sides) == 1:  # one side asked about (the dead ask about the living): its able actors as they are
            side = sides[0]
            members = self.able.get(side)
            if not members:
                return []
            if len(members) > self.few:
                return None
            kept = self._near_kept.get(side)
            if kept is None:  # the side's actors moved (or it is the first question): where they stand now
                stands = self._near_by_stand.get(side)
                if stands is None:
                    stands = self._near_by_stand[side] = {}
                stand = tuple(sorted(members.items()))
                kept = stands.get(stand)
                if kept is None:
                    if len(stands) >= NEAR_STANDS_KEPT:
                        stands.clear()  # a memory bound
                    kept = stands[stand] = {}
                self._near_kept[side] = kept
            near = kept.get((x, y))
            if near is not None:
                return near
            near = [(d if (d := abs(ax - x)) > (e := abs(ay - y)) else e, aid) for aid, (ax, ay) in members.items()]
            near.sort()
            if len(kept) >= SIGHT_KEPT:
                kept.clear()  # a memory bound (a cell each, on a large map)
            kept[(x, y)] = near
            return near
        else:
            found = self._each_able(sides)
            if found is None:
                return None
            each = found
        out = [
            (d if (d := abs(ax - x)) > (e := abs(ay - y)) else e, aid)
            for members in each
            for aid, (ax, ay) in members.items()
        ]
        out.sort()
        return out

    def within(
        self, x: int, y: int, sides: Iterable[str], metres: int, *, grades: Iterable[int] | None = None
    ) -> list[tuple[int, str]]:
        """Every able actor of ``sides`` within ``metres`` of ``(x, y)``: (distance, id), sorted."""
        sides = sides if isinstance(sides, (list, tuple)) else list(sides)
        grades = grades if grades is None or isinstance(grades, (list, tuple)) else list(grades)
        out: list[tuple[int, str]] = []
        # a few actors: look at each, wherever it stands
        buckets: Iterable[dict[str, Cell]] | None = self._each_able(sides) if grades is None else None
        if buckets is None:
            groups = self._buckets(sides, grades)
            if not groups:
                return out
            if self._able_among(sides, grades) <= self.few:
                buckets = [bucket for group in groups for bucket in group.values()]
            else:  # the buckets the square of side 2 x metres round (x, y) touches
                b = self.bucket
                buckets = [
                    members
                    for kx in range((x - metres) // b, (x + metres) // b + 1)
                    for ky in range((y - metres) // b, (y + metres) // b + 1)
                    for group in groups
                    if (members := group.get((kx, ky)))
                ]
        return actors_within(buckets, x, y, metres)


def actors_within(groups: Iterable[dict[str, Cell]], x: int, y: int, metres: int) -> list[tuple[int, str]]:
    """(distance, id) of the actors of ``groups`` (id -> cell) within ``metres`` of ``(x, y)``, sorted."""
    out: list[tuple[int, str]] = []
    for members in groups:
        for aid, (ax, ay) in members.items():
            d, e = abs(ax - x), abs(ay - y)
            if e > d:
                d = e
            if d <= metres:
                out.append((d, aid))
    out.sort()
    return out


def _nearest_of_each(
    candidates: list[dict[str, Cell]],
    x: int,
    y: int,
    within: int | None,
    accept: Callable[[str], bool] | None,
) -> tuple[int, list[str]] | None:
    """:meth:`Crowd.nearest` over a few candidates (id -> cell): each by distance then id, the nearest that pass
    ``accept``."""
    near: list[tuple[int, str]] = []
    for members in candidates:
        for aid, (ax, ay) in members.items():
            d, e = abs(ax - x), abs(ay - y)
            if e > d:
                d = e
            if within is None or d <= within:
                near.append((d, aid))
    near.sort()
    best: int | None = None
    ids: list[str] = []
    for d, aid in near:
        if best is not None and d > best:
            break
        if accept is None or accept(aid):
            best = d
            ids.append(aid)
    return None if best is None else (best, ids)


class Occupied:
    """The cells a mover cannot step onto because another actor stands there (supports ``in``)."""

    __slots__ = ("crowd", "mover")

    def __init__(self, crowd: Crowd, mover: str) -> None:
        self.crowd = crowd
        self.mover = mover

    def __contains__(self, cell: object) -> bool:
        ids = self.crowd.cells.get(cell)  # type: ignore[call-overload]
        if not ids:
            return False
        return len(ids) > 1 or ids[0] != self.mover


def _standing(blocked: Any, row: int, height: int) -> tuple[list[int], int] | tuple[None, int]:
    """For a search over a padded grid of ``row`` cells a row and ``height`` rows: when ``blocked`` is a crowd's
    view of the same map, the crowd's counts of who stands on each cell and the mover's own cell, by index (a cell
    is taken when someone stands there, more than one, or one that is not the mover); else None (ask ``blocked``)."""
    if type(blocked) is not Occupied:
        return None, -1
    crowd = blocked.crowd
    if crowd.width + 2 != row or crowd.height != height:
        return None, -1
    cell = crowd.cell_of.get(blocked.mover)
    if cell is None or not (0 <= cell[0] < crowd.width and 0 <= cell[1] < height):
        return crowd.standing, -1  # the mover stands on no cell of the map: whoever stands there is another
    return crowd.standing, (cell[1] + 1) * row + cell[0] + 1
