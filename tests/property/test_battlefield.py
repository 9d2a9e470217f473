"""The battlefield's geometry and crowd index against brute force (fracas.core.battlefield).

- line of sight is symmetric on random maps, and the line is the same both ways;
- walks are shortest (their length is the breadth-first distance), legal step by
  step, deterministic, and on an open map the same as the straight-line walks the
  systems used before walls;
- the crowd index answers "nearest" and "within" exactly as a scan of every actor.
"""

from __future__ import annotations

import random
from collections import deque

import msgspec
from fracas.core import events as E
from fracas.core.battlefield import NEIGHBOURS, Battlefield, Crowd, Occupied, distance, grade_of, step_order
from fracas.core.bundled import resolve_scenario
from fracas.core.scenario import MapSpec, WallSpec, load_scenario
from fracas.core.state import DISABLING, State, apply
from fracas.systems.point_zero.resolution import path_toward as pz_path_toward
from fracas.systems.zcorps.resolution import path_toward as zc_path_toward
from hypothesis import assume, given, settings
from hypothesis import strategies as st

Cell = tuple[int, int]


@st.composite
def maps(draw: st.DrawFn, max_side: int = 14, posts: int = 0) -> MapSpec:
    """A map with up to six rectangles of wall, and up to ``posts`` one-cell walls (corners touching diagonally)."""
    width = draw(st.integers(2, max_side))
    height = draw(st.integers(2, max_side))
    walls = []
    for i in range(draw(st.integers(0, 6))):
        x = draw(st.integers(0, width - 1))
        y = draw(st.integers(0, height - 1))
        w = draw(st.integers(1, width - x))
        h = draw(st.integers(1, height - y))
        walls.append(WallSpec(name=f"w{i}", x=x, y=y, w=w, h=h, height=draw(st.sampled_from(["full", "low"]))))
    for i in range(draw(st.integers(0, posts))):
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        walls.append(WallSpec(name=f"p{i}", x=x, y=y, w=1, h=1, height="low"))
    return MapSpec(width=width, height=height, walls=walls)


def cells(m: MapSpec) -> st.SearchStrategy[Cell]:
    return st.tuples(st.integers(0, m.width - 1), st.integers(0, m.height - 1))


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_sight_is_symmetric(data: st.DataObject) -> None:
    m = data.draw(maps())
    field = Battlefield(m)
    a, b = data.draw(cells(m)), data.draw(cells(m))
    assert field.sees(a, b) == field.sees(b, a)
    assert field.line(a, b) == field.line(b, a)[::-1]


def _crosses(a: Cell, b: Cell, cell: Cell) -> bool:
    """Brute force with exact fractions: whether the segment between centres passes inside ``cell``."""
    from fractions import Fraction

    (x0, y0), (x1, y1) = a, b
    lo_t, hi_t = Fraction(0), Fraction(1)
    for p0, p1, c in ((x0, x1, cell[0]), (y0, y1, cell[1])):
        # inside the open interval (c - 1/2, c + 1/2) around the cell's centre, along this axis
        d = p1 - p0
        lo, hi = Fraction(2 * c - 1, 2), Fraction(2 * c + 1, 2)
        if d == 0:
            if not lo < p0 < hi:
                return False
            continue
        t1, t2 = (lo - p0) / d, (hi - p0) / d
        lo_t, hi_t = max(lo_t, min(t1, t2)), min(hi_t, max(t1, t2))
    return lo_t < hi_t


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_line_is_the_cells_the_segment_crosses(data: st.DataObject) -> None:
    m = MapSpec(width=12, height=12)
    field = Battlefield(m)
    a, b = data.draw(cells(m)), data.draw(cells(m))
    line = field.line(a, b)
    crossed = {left for left, right in line if left == right}
    expected = {(x, y) for x in range(12) for y in range(12) if (x, y) not in (a, b) and _crosses(a, b, (x, y))}
    assert crossed == expected


def _bfs(field: Battlefield, goal: Cell) -> dict[Cell, int]:
    seen = {goal: 0}
    queue = deque([goal])
    while queue:
        c = queue.popleft()
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                n = (c[0] + dx, c[1] + dy)
                if n not in seen and n != c and field.can_step(c, n):
                    seen[n] = seen[c] + 1
                    queue.append(n)
    return seen


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_walks_are_shortest_legal_and_deterministic(data: st.DataObject) -> None:
    m = data.draw(maps())
    field = Battlefield(m)
    free = [(x, y) for x in range(m.width) for y in range(m.height) if field.walkable((x, y))]
    if len(free) < 2:
        return
    start = data.draw(st.sampled_from(free))
    goal = data.draw(st.sampled_from(free))
    path = field.path_toward(start, goal, 10**6)
    reach = _bfs(field, goal)
    if start not in reach:
        assert path == []  # no way there: no step
        return
    assert len(path) == reach[start]  # shortest
    here = start
    for cell in path:  # legal, one metre at a time
        assert distance(here, cell) == 1 and field.can_step(here, cell)
        here = cell
    assert here == goal or start == goal
    assert field.path_toward(start, goal, 10**6) == path  # deterministic
    assert Battlefield(m).path_toward(start, goal, 10**6) == path  # and owes nothing to a cache


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_walk_fields_and_reach_are_the_plain_search(data: st.DataObject) -> None:
    """The padded-grid search and the labelled regions answer as a plain search over :meth:`can_step`, for
    any goal (a wall cell too) and any start, on maps with walls touching the edges and each other."""
    m = data.draw(maps(posts=30))
    field = Battlefield(m)
    goal = data.draw(cells(m))
    reach = _bfs(field, goal)
    every = [(x, y) for y in range(m.height) for x in range(m.width)]
    assert field.walk_distances(goal) == [reach.get(c, -1) for c in every]
    for start in data.draw(st.lists(cells(m), max_size=8)):
        assert field.reaches(start, goal) == (start in reach)
        assert field.reaches_from(start)(goal) == (start in reach)  # the start's region read once
        assert field.walk_distance(start, goal) == reach.get(start)
        for metres in (0, 1, 2, 5):
            assert field.walk_within(start, goal, metres) == (start in reach and reach[start] <= metres)
    # the answers kept per start cell (asked again below), for other goals: each the plain search's
    starts = data.draw(st.lists(cells(m), max_size=3))
    for start in starts + starts:
        for other in data.draw(st.lists(cells(m), max_size=4)):
            assert field.reaches_from(start)(other) == (start in _bfs(field, other)), (start, other)


def _plain_steps_from(field: Battlefield) -> list[tuple[int, ...]]:
    """Each padded cell's allowed steps, every neighbour tested (what Battlefield._steps_from keeps)."""
    grid = field._blocked_grid()
    row, size = field.width + 2, len(grid)

    def blocked(k: int) -> int:
        return grid[k] if 0 <= k < size else 1

    return [
        tuple(
            i + dy * row + dx
            for dx, dy in NEIGHBOURS
            if not blocked(i + dy * row + dx) and not (dx and dy and blocked(i + dx) and blocked(i + dy * row))
        )
        for i in range(size)
    ]


@given(maps(posts=30))
@settings(max_examples=100, deadline=None)
def test_steps_kept_per_cell_are_every_neighbour_tested(m: MapSpec) -> None:
    """The allowed steps worked out once per map (only the cells by a wall or the border tested one by one) are
    those of testing each neighbour of each cell, walls touching the edges and each other included."""
    field = Battlefield(m)
    assert field._steps_from() == _plain_steps_from(field)


def test_steps_kept_per_cell_on_the_shipped_maps() -> None:
    """The same on the horde's farmyard and the other shipped Z-Corps maps (walls, fences, gaps, a house)."""
    for name in ("horde", "barricade", "firefight"):
        m = load_scenario(resolve_scenario(f"zcorps/{name}")).spec.map
        field = Battlefield(m)
        assert field._steps_from() == _plain_steps_from(field), name


@given(st.data())
@settings(max_examples=200, deadline=None)
def test_searches_kept_between_questions_answer_as_fresh_ones(data: st.DataObject) -> None:
    """A battlefield keeps each goal's search as far as it went: whatever it was asked before (near, far, whole
    fields, paths with others in the way), every answer is the one a battlefield asked nothing before gives."""
    m = data.draw(maps())
    kept = Battlefield(m)
    if data.draw(st.booleans()):
        kept.field_limit = 1  # the kept searches are dropped at every new goal
    goals = data.draw(st.lists(cells(m), min_size=1, max_size=3))
    for _ in range(data.draw(st.integers(1, 12))):
        goal = data.draw(st.sampled_from(goals))
        start = data.draw(cells(m))
        ask = data.draw(st.sampled_from(["distance", "field", "path", "reach", "sight", "within"]))
        fresh = Battlefield(m)
        if ask == "sight":
            assert kept.sees(start, goal) == fresh.sees(start, goal) == kept.sees(goal, start)
        elif ask == "distance":
            assert kept.walk_distance(start, goal) == fresh.walk_distance(start, goal)
        elif ask == "field":
            assert kept.walk_distances(goal) == fresh.walk_distances(goal)
        elif ask == "reach":
            assert kept.reaches(start, goal) == fresh.reaches(start, goal)
        elif ask == "within":  # a search taken no farther than asked, then asked farther
            metres = data.draw(st.integers(0, 6))
            assert kept.walk_within(start, goal, metres) == fresh.walk_within(start, goal, metres)
        else:
            metres = data.draw(st.integers(0, 30))
            stop = data.draw(st.integers(0, 3))
            blocked = frozenset(data.draw(st.lists(cells(m), max_size=6)))
            assert kept.path_toward(start, goal, metres, stop=stop, blocked=blocked) == fresh.path_toward(
                start, goal, metres, stop=stop, blocked=blocked
            )


def _path_toward_plainly(
    field: Battlefield, start: Cell, goal: Cell, metres: int, stop: int, blocked: frozenset[Cell]
) -> list[Cell]:
    """Battlefield.path_toward as documented, plainly: each step the first cell of step_order that is a metre nearer
    the goal by the plain search, not in ``blocked`` and allowed by can_step; none: the walk ends."""
    walk = _bfs(field, goal)
    here, out = start, []
    for _ in range(metres):
        if distance(here, goal) <= stop and field.sees(here, goal):
            break
        d = walk.get(here)
        if not d:
            break  # at the goal, or no way there
        for step in step_order(here[0], here[1], goal[0], goal[1]):
            if walk.get(step) == d - 1 and step not in blocked and field.can_step(here, step):
                break
        else:
            break
        here = step
        out.append(step)
    return out


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_paths_are_the_plain_walk(data: st.DataObject) -> None:
    """path_toward steps by the kept search and the padded grid, and reads the crowd's cells straight: it walks as
    the plain search does, around walls, corner squeezes and others standing in the way, goals on walls included."""
    m = data.draw(maps(posts=30))
    field = Battlefield(m)
    start, goal = data.draw(cells(m)), data.draw(cells(m))
    metres, stop = data.draw(st.integers(0, 30)), data.draw(st.integers(0, 3))
    free = [(x, y) for x in range(m.width) for y in range(m.height) if field.walkable((x, y))]
    blocked = frozenset(data.draw(st.lists(st.sampled_from(free), max_size=20)) if free else []) - {start}
    plain = _path_toward_plainly(field, start, goal, metres, stop, blocked)
    assert field.path_toward(start, goal, metres, stop=stop, blocked=blocked) == plain
    # the same others in the way, as the crowd's view (read by index from its grid), the mover on its own cell
    assert Battlefield(m).path_toward(start, goal, metres, stop=stop, blocked=_crowd_of(m, start, blocked)) == plain


def _crowd_of(m: MapSpec, mover: Cell, others: frozenset[Cell]) -> Occupied:
    """The crowd's view for a mover on ``mover`` with others on ``others``: one or two on each, some come and gone."""
    state = State()
    crowd = Crowd(state, m.width, m.height)
    for i, (x, y) in enumerate([mover, *sorted(others), *sorted(others)[::3]]):
        ev = _entered(f"x{i:03}", "a", x, y)
        apply(state, ev)
        crowd.observe(ev)
    far = E.Moved(actor="x000", x=0, y=0, metres=1, initiative=0, rule="t")  # the mover away and back
    back = E.Moved(actor="x000", x=mover[0], y=mover[1], metres=2, initiative=0, rule="t")
    for ev in (far, back):
        apply(state, ev)
        crowd.observe(ev)
    return crowd.blocked_for("x000")


def crowded_posts(rng: random.Random, w: int, h: int) -> tuple[Battlefield, list[Cell]]:
    """A ``w`` x ``h`` map with up to a third of its cells one-cell low posts, and its free cells."""
    posts = [
        WallSpec(name=f"p{i}", x=rng.randrange(w), y=rng.randrange(h), w=1, h=1, height="low")
        for i in range(rng.randint(1, w * h // 3))
    ]
    field = Battlefield(MapSpec(width=w, height=h, walls=posts))
    return field, [(x, y) for x in range(w) for y in range(h) if field.walkable((x, y))]


def test_paths_on_crowded_posts_are_the_plain_walk() -> None:
    """A fixed sweep of small maps, a third of their cells one-cell posts: a step a metre nearer that squeezes between
    two posts' corners is common there (the walk must take the next cell of step_order, as can_step says)."""
    rng = random.Random(3)
    for _ in range(1500):
        w, h = rng.randint(3, 10), rng.randint(3, 10)
        field, free = crowded_posts(rng, w, h)
        if len(free) < 2:
            continue
        start, goal = rng.choice(free), rng.choice(free)
        blocked = frozenset(rng.sample(free, rng.randint(0, len(free) // 6))) - {start, goal}
        stop = rng.randint(0, 1)
        assert field.path_toward(start, goal, 20, stop=stop, blocked=blocked) == _path_toward_plainly(
            field, start, goal, 20, stop, blocked
        ), (w, h, [(p.x, p.y) for p in field.walls], start, goal, sorted(blocked))


def _walk_to_reach_plainly(
    field: Battlefield, start: Cell, targets: list[Cell], metres: int, blocked: frozenset[Cell]
) -> tuple[list[Cell], int] | None:
    """Battlefield.walk_to_reach as documented, searched plainly: every free cell, layer by layer, no shortcut."""
    slots: dict[Cell, int] = {}
    for k, (tx, ty) in enumerate(targets):
        for dx, dy in NEIGHBOURS:
            cell = (tx + dx, ty + dy)
            if cell not in slots and field.walkable(cell) and (cell == start or cell not in blocked):
                slots[cell] = k
    if not slots or start in slots:
        return None
    came = {start: start}
    layer = [start]
    for _ in range(metres):
        nxt = []
        for here in layer:
            for dx, dy in NEIGHBOURS:
                cell = (here[0] + dx, here[1] + dy)
                if cell not in came and field.can_step(here, cell) and cell not in blocked:
                    came[cell] = here
                    nxt.append(cell)
        reached = sorted((slots[c], c[1], c[0]) for c in nxt if c in slots)
        if reached:
            k, y, x = reached[0]
            path = [(x, y)]
            while came[path[-1]] != start:
                path.append(came[path[-1]])
            return path[::-1], k
        layer = nxt
    return None


@given(st.data())
@settings(max_examples=500, deadline=None)
def test_walk_to_reach_is_the_plain_search(data: st.DataObject) -> None:
    """The search for a free cell at arm's reach of a target (the dead spreading round the living) leaves the cells
    too far from every target and walks a padded grid: it finds the walk and the target the plain search finds."""
    m = data.draw(maps(max_side=14, posts=60))  # posts: slots a squeeze away from their target, pockets
    field = Battlefield(m)
    free = [(x, y) for x in range(m.width) for y in range(m.height) if field.walkable((x, y))]
    if not free:
        return
    start = data.draw(st.sampled_from(free))
    targets = data.draw(st.lists(cells(m), min_size=1, max_size=5))
    blocked = frozenset(data.draw(st.lists(st.sampled_from(free), max_size=30))) - {start}
    metres = data.draw(st.integers(0, 12))
    plain = _walk_to_reach_plainly(field, start, targets, metres, blocked)
    assert field.walk_to_reach(start, targets, metres, blocked=blocked) == plain
    # the same others in the way, as the crowd's view (read by index from its grid), the mover on its own cell
    assert Battlefield(m).walk_to_reach(start, targets, metres, blocked=_crowd_of(m, start, blocked)) == plain


def test_walk_to_reach_on_crowded_posts_is_the_plain_search() -> None:
    """A fixed sweep of 3,000 small maps, a third of their cells posts, a quarter of the rest taken: slots a
    squeeze or two away from their target are common there, where the bound must count the longest such walk
    (found by a sweep like this one: 140 of 20,000 cases differed when it counted the shortest)."""
    rng = random.Random(5)
    for _ in range(3000):
        w, h = rng.randint(4, 12), rng.randint(4, 12)
        field, free = crowded_posts(rng, w, h)
        if len(free) < 3:
            continue
        start = rng.choice(free)
        targets = [rng.choice(free) for _ in range(rng.randint(1, 3))]
        blocked = frozenset(rng.sample(free, rng.randint(0, len(free) // 4))) - {start}
        metres = rng.randint(1, 12)
        assert field.walk_to_reach(start, targets, metres, blocked=blocked) == _walk_to_reach_plainly(
            field, start, targets, metres, blocked
        ), (w, h, [(p.x, p.y) for p in field.walls], start, targets, sorted(blocked), metres)


def test_walk_to_reach_in_the_thick_of_a_crowd_is_the_plain_search() -> None:
    """A fixed sweep of small maps with posts and a dense crowd (half the free cells taken and more): a mover hemmed
    in by the others and the posts' corners (no first step: no walk, found before any slot is looked for), or with
    a single way out, as in the thick of the horde; the crowd's view as well as a set of cells."""
    rng = random.Random(11)
    hemmed = 0
    for _ in range(1000):
        w, h = rng.randint(3, 9), rng.randint(3, 9)
        field, free = crowded_posts(rng, w, h)
        if len(free) < 3:
            continue
        start = rng.choice(free)
        targets = [rng.choice(free) for _ in range(rng.randint(1, 3))]
        blocked = frozenset(rng.sample(free, rng.randint(len(free) // 2, len(free) - 1))) - {start}
        metres = rng.randint(1, 8)
        plain = _walk_to_reach_plainly(field, start, targets, metres, blocked)
        where = (w, h, [(p.x, p.y) for p in field.walls], start, targets, sorted(blocked), metres)
        assert field.walk_to_reach(start, targets, metres, blocked=blocked) == plain, where
        m = MapSpec(width=w, height=h, walls=field.walls)
        assert field.walk_to_reach(start, targets, metres, blocked=_crowd_of(m, start, blocked)) == plain, where
        hemmed += not any(
            field.can_step(start, (start[0] + dx, start[1] + dy)) and (start[0] + dx, start[1] + dy) not in blocked
            for dx, dy in NEIGHBOURS
        )
    assert hemmed > 150  # not vacuous


def test_walk_to_reach_asked_again_of_one_battlefield_is_the_plain_search() -> None:
    """A fixed sweep of small maps with posts, each asked several questions about the same living by other movers
    through other crowds, some with the kept searches dropped between questions: the bounds the battlefield keeps
    (by target, its free sides and the steps) answer as fresh ones (bounds kept without the steps fail here)."""
    rng = random.Random(1)
    for _ in range(700):
        w, h = rng.randint(4, 12), rng.randint(4, 12)
        field, free = crowded_posts(rng, w, h)
        if len(free) < 3:
            continue
        field.field_limit = rng.choice([1, 2, 4096])  # the kept searches (and the bounds read from them) dropped
        living = [rng.choice(free) for _ in range(3)]
        for _ in range(6):
            start = rng.choice(free)
            targets = rng.sample(living, rng.randint(1, 3))
            blocked = frozenset(rng.sample(free, rng.randint(0, len(free) // 3))) - {start}
            metres = rng.randint(1, 12)
            assert field.walk_to_reach(start, targets, metres, blocked=blocked) == _walk_to_reach_plainly(
                field, start, targets, metres, blocked
            ), (w, h, [(p.x, p.y) for p in field.walls], start, targets, sorted(blocked), metres)


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_open_map_walks_are_the_old_straight_walks(data: st.DataObject) -> None:
    m = MapSpec(width=16, height=16)
    field = Battlefield(m)
    start, goal = data.draw(cells(m)), data.draw(cells(m))
    metres = data.draw(st.integers(0, 20))
    stop = data.draw(st.integers(0, 3))
    blocked = frozenset(data.draw(st.lists(cells(m), max_size=20)))
    old = zc_path_toward(start, goal, metres, stop, blocked)
    # the old walk knew no map: rounding others at the edge it could step off it (to y = -1); the battlefield's
    # never does (test_an_open_map_walk_never_steps_off_the_map), and elsewhere the two are the same walk
    assume(all(0 <= x < m.width and 0 <= y < m.height for x, y in old))
    assert field.path_toward(start, goal, metres, stop=stop, blocked=blocked) == old
    assert field.path_toward(start, goal, metres) == pz_path_toward(start, goal, metres)


# ------------------------------------------------------------ the crowd index


def _entered(aid: str, side: str, x: int, y: int) -> E.ActorEntered:
    return E.ActorEntered(
        actor=aid,
        name=aid,
        side=side,
        x=x,
        y=y,
        monitors=[E.MonitorSpec(name="m", levels=["a", "b", "c"], boxes=[3, 3, 3])],
        ammo={},
        spare={},
        weapons=[],
        policy="p",
    )


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_crowd_answers_as_a_full_scan(data: st.DataObject) -> None:
    width, height = data.draw(st.integers(1, 40)), data.draw(st.integers(1, 40))
    state = State()
    # few=0: the rings of buckets always; few=40: every query looks at each actor
    crowd = Crowd(
        state, width, height, bucket=data.draw(st.sampled_from([1, 3, 8])), few=data.draw(st.sampled_from([0, 5, 40]))
    )
    sides = ["a", "b", "c"]
    n = data.draw(st.integers(0, 40))
    for i in range(n):
        ev = _entered(
            f"x{i:02}",
            data.draw(st.sampled_from(sides)),
            data.draw(st.integers(0, width - 1)),
            data.draw(st.integers(0, height - 1)),
        )
        apply(state, ev)
        crowd.observe(ev)
    ids = list(state.actors)
    for _ in range(data.draw(st.integers(0, 30))):
        if not ids:
            break
        aid = data.draw(st.sampled_from(ids))
        kind = data.draw(st.sampled_from(["move", "down", "up", "wound"]))
        ev: msgspec.Struct
        if kind == "move":
            ev = E.Moved(
                actor=aid,
                x=data.draw(st.integers(0, width - 1)),
                y=data.draw(st.integers(0, height - 1)),
                metres=1,
                initiative=0,
                rule="t",
            )
        elif kind == "down":
            ev = E.ConditionSet(actor=aid, condition="unconscious", value=1, rule="t")
        elif kind == "up":
            ev = E.ConditionCleared(actor=aid, condition="unconscious", rule="t")
        else:
            ev = E.WoundMarked(
                actor=aid,
                monitor="m",
                level=data.draw(st.integers(0, 2)),
                level_name="x",
                damage=1,
                threshold=1,
                rule="t",
            )
        apply(state, ev)
        crowd.observe(ev)
    x, y = data.draw(st.integers(0, width - 1)), data.draw(st.integers(0, height - 1))
    wanted = data.draw(st.lists(st.sampled_from(sides), unique=True))
    reach = data.draw(st.none() | st.integers(0, 50))
    able = [a for a in state.actors.values() if a.side in wanted and DISABLING.isdisjoint(a.conditions)]
    dist = {a.id: max(abs(a.x - x), abs(a.y - y)) for a in able}
    inside = [a.id for a in able if reach is None or dist[a.id] <= reach]
    got = crowd.nearest(x, y, wanted, within=reach)
    if not inside:
        assert got is None
    else:
        best = min(dist[i] for i in inside)
        assert got == (best, sorted(i for i in inside if dist[i] == best))
    # with a filter (in sight, say): the nearest that pass it
    passing = set(data.draw(st.lists(st.sampled_from(ids), unique=True))) if ids else set()
    got = crowd.nearest(x, y, iter(wanted), within=reach, accept=passing.__contains__)
    kept = [i for i in inside if i in passing]
    if not kept:
        assert got is None
    else:
        best = min(dist[i] for i in kept)
        assert got == (best, sorted(i for i in kept if dist[i] == best))
    # the most hurt, then the nearest, then the lowest id that passes: a full scan, and nearest() grade by grade
    for accept in (None, passing.__contains__):
        ranked = sorted((-grade_of(state.actors[i]), dist[i], i) for i in inside if accept is None or accept(i))
        got_one = crowd.most_hurt_nearest(x, y, wanted, within=reach, accept=accept)
        assert got_one == (ranked[0][2] if ranked else None)
        by_grade = (crowd.nearest(x, y, wanted, grades=(g,), within=reach, accept=accept) for g in crowd.grades(wanted))
        assert got_one == next((found[1][0] for found in by_grade if found is not None), None)
    # every able actor of the sides asked, nearest first, when they are few (None when more)
    listed = crowd.all_near(x, y, wanted)
    assert listed == (sorted((dist[a.id], a.id) for a in able) if len(able) <= crowd.few else None)
    metres = data.draw(st.integers(0, 20))
    assert crowd.within(x, y, wanted, metres) == sorted((dist[a.id], a.id) for a in able if dist[a.id] <= metres)
    for cell in {(a.x, a.y) for a in state.actors.values()} | {(x, y)}:
        on = sorted(a.id for a in state.actors.values() if (a.x, a.y) == cell)
        assert sorted(crowd.occupants(cell)) == on
    # no cell left holding someone who stepped off it (nor an empty list)
    held: dict[Cell, list[str]] = {}
    for a in state.actors.values():
        held.setdefault((a.x, a.y), []).append(a.id)
    assert {cell: sorted(ids) for cell, ids in crowd.cells.items()} == {cell: sorted(ids) for cell, ids in held.items()}
    # the counts on the padded grid the walk searches read: every actor on its cell, nothing on the border
    row = width + 2
    standing = [0] * (row * (height + 2))
    for a in state.actors.values():
        standing[(a.y + 1) * row + a.x + 1] += 1
    assert crowd.standing == standing
    # every able actor by side, where it stands (the few-actor queries look at each of them)
    able: dict[str, dict[str, Cell]] = {}
    for a in state.actors.values():
        if DISABLING.isdisjoint(a.conditions):
            able.setdefault(a.side, {})[a.id] = (a.x, a.y)
    assert {side: members for side, members in crowd.able.items() if members} == able
    for side in sides:
        assert crowd.able_count(side) == sum(
            1 for a in state.actors.values() if a.side == side and DISABLING.isdisjoint(a.conditions)
        )
    assert crowd.sides_able == len(able)
    assert crowd.several_sides_able() == state.several_sides_able()


def _enter(state: State, crowd: Crowd, ids: list[str], side: str, rng: random.Random) -> None:
    ev = _entered(f"{side}{len(ids):02}", side, rng.randrange(20), rng.randrange(20))
    ids.append(ev.actor)
    apply(state, ev)
    crowd.observe(ev)


def test_all_near_kept_per_cell_follows_every_change() -> None:
    """Crowd.all_near keeps its answer about one side per cell while that side's able actors stay where they are:
    asked again from the same cells between random moves, falls, wake-ups, wounds and arrivals of both sides, it
    answers as a scan of every actor each time (and hands back the kept list when nothing of that side changed)."""
    rng = random.Random(17)
    reused = 0
    for _ in range(40):
        state = State()
        crowd = Crowd(state, 20, 20, few=6)
        ids: list[str] = []
        for i in range(12):
            _enter(state, crowd, ids, "living" if i < 4 else "dead", rng)
        asked = [(rng.randrange(20), rng.randrange(20)) for _ in range(4)]
        for _ in range(60):
            before = {cell: crowd.all_near(*cell, ["living"]) for cell in asked}
            for cell, listed in before.items():
                scan = sorted(
                    (max(abs(a.x - cell[0]), abs(a.y - cell[1])), a.id)
                    for a in state.actors.values()
                    if a.side == "living" and DISABLING.isdisjoint(a.conditions)
                )
                assert listed == (scan if len(scan) <= crowd.few else None), (cell, listed, scan)
            kind = rng.choice(["move", "move", "move", "down", "up", "wound", "enter"])
            if kind == "enter":
                _enter(state, crowd, ids, rng.choice(["living", "dead"]), rng)
                continue
            aid = rng.choice(ids)
            ev: msgspec.Struct
            if kind == "move":
                ev = E.Moved(actor=aid, x=rng.randrange(20), y=rng.randrange(20), metres=1, initiative=0, rule="t")
            elif kind == "down":
                ev = E.ConditionSet(actor=aid, condition="unconscious", value=1, rule="t")
            elif kind == "up":
                ev = E.ConditionCleared(actor=aid, condition="unconscious", rule="t")
            else:
                ev = E.WoundMarked(
                    actor=aid, monitor="m", level=rng.randrange(3), level_name="x", damage=1, threshold=1, rule="t"
                )
            apply(state, ev)
            crowd.observe(ev)
            if aid.startswith("dead"):  # the dead's doings leave the living's answers as they were
                reused += all(crowd.all_near(*cell, ["living"]) is listed for cell, listed in before.items())
    assert reused > 100  # not vacuous: kept answers were handed back
    # a living actor who steps away and back: the answers kept for where the side stood are handed back again
    state = State()
    crowd = Crowd(state, 20, 20)
    for ev in (_entered("ann", "living", 3, 4), _entered("bob", "living", 9, 9), _entered("zed", "dead", 15, 2)):
        apply(state, ev)
        crowd.observe(ev)
    first = crowd.all_near(15, 2, ["living"])
    for x in (4, 3):
        ev = E.Moved(actor="ann", x=x, y=4, metres=1, initiative=0, rule="t")
        apply(state, ev)
        crowd.observe(ev)
        assert crowd.all_near(15, 2, ["living"]) == ([(7, "bob"), (11, "ann")] if x == 4 else first)
    assert crowd.all_near(15, 2, ["living"]) is first


def test_all_near_lists_the_able_while_they_are_few() -> None:
    """Crowd.all_near lists every able actor of the sides asked while there are at most ``few`` of them (one side or
    several), and says None from one more: the edge the plain queries take over at."""
    for sides in (["a"], ["a", "b"]):
        state = State()
        crowd = Crowd(state, 30, 30, few=5)
        for i in range(7):
            ev = _entered(f"x{i:02}", sides[i % len(sides)], 3 * i, 29 - 2 * i)
            apply(state, ev)
            crowd.observe(ev)
            listed = crowd.all_near(1, 2, sides)
            every = sorted((max(abs(a.x - 1), abs(a.y - 2)), a.id) for a in state.actors.values())
            assert listed == (every if i < 5 else None), (sides, i)
        assert crowd.all_near(1, 2, ["c"]) == []  # nobody of that side


def test_an_open_map_walk_never_steps_off_the_map() -> None:
    """Found by test_paths_are_the_plain_walk (Hypothesis, from a clean clone): on a map with no wall, a walk along
    the top edge whose way is stood in stepped to (4, -1), off the map, where the plain search stops short."""
    m = MapSpec(width=6, height=2)
    field = Battlefield(m)
    blocked = frozenset({(4, 0), (4, 1)})
    path = field.path_toward((0, 0), (5, 0), 4, stop=0, blocked=blocked)
    assert all(field.walkable(cell) for cell in path), path
    assert path == _path_toward_plainly(field, (0, 0), (5, 0), 4, 0, blocked)
