"""The clock's turns (fracas.core.encounter.play_turns) against a SimPy process per turn.

A round's turns run inside the round's own process, one SimPy event per tick. They must wake
in exactly the order SimPy gives a process per turn: by tick, then priority, then the order the
waits were asked in, the turns' first steps in the order given; and the caller must go on at
the same tick. Random turns that wait at once (delay 0, as a move's last metres at count 1),
at a lower priority than the one running (a mover's step after an action at the same tick),
or never, are played both ways and the traces compared.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest
import simpy
from fracas.core.encounter import At, Turn, play_turns
from hypothesis import given, settings
from hypothesis import strategies as st

#: a turn's plan: its waits, each (delay in ticks from the wake-up before it, priority)
Plan = list[tuple[int, int]]

plans = st.lists(
    st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 4)), max_size=5),
    max_size=8,
)


def _turn(env: simpy.Environment, name: int, plan: Plan, trace: list[tuple[int, int, int]]) -> Turn:
    for step, (delay, priority) in enumerate(plan):
        yield int(env.now) + delay, priority
        trace.append((int(env.now), name, step))


def _as_process(env: simpy.Environment, turn: Turn) -> Generator[At, Any, None]:
    """A turn as SimPy would run it on its own: each wait an :class:`At` event."""
    for tick, priority in turn:
        yield At(env, tick, priority)


def _played(turn_plans: list[Plan], start: int, *, processes: bool) -> tuple[list[tuple[int, int, int]], int]:
    env = simpy.Environment(initial_time=0)
    trace: list[tuple[int, int, int]] = []
    ended: list[int] = []

    def round_(env: simpy.Environment) -> Generator[Any, Any, None]:
        yield At(env, start, -1)
        turns = [_turn(env, name, plan, trace) for name, plan in enumerate(turn_plans)]
        if processes:
            yield from [env.process(_as_process(env, t)) for t in turns]
        else:
            yield from play_turns(env, turns)
        ended.append(int(env.now))

    env.process(round_(env))
    env.run()
    return trace, ended[0]


@given(plans, st.integers(0, 5))
@settings(max_examples=300, deadline=None)
def test_turns_wake_in_the_order_of_a_process_each(turn_plans: list[Plan], start: int) -> None:
    assert _played(turn_plans, start, processes=False) == _played(turn_plans, start, processes=True)


def test_a_wait_in_the_past_is_refused_as_simpy_refuses_it() -> None:
    env = simpy.Environment()

    def late() -> Turn:
        yield 3, 0
        yield 2, 0

    env.process(play_turns(env, [late()]))
    with pytest.raises(ValueError, match="in the past"):
        env.run()
