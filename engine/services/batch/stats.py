"""Batch arithmetic: the seed of fight ``i``, Wilson intervals, exact quantiles of histograms."""

from __future__ import annotations

import math

#: z for a two-sided 95 % interval.
Z95 = 1.959963984540054


def fight_seed(root: str, index: int) -> str:
    """The seed text of fight ``index`` of a batch with root seed ``root``: ``ROOT-i``.

    Injective: the text after the last ``-`` is the index, a decimal integer.
    Every sweep point uses the same seeds (common random numbers), which makes
    the differences between points less noisy.
    """
    return f"{root}-{index}"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion k/n (95 % by default); (0, 1) when n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def nearest_rank(hist: dict[int, int], q: float) -> int | None:
    """The nearest-rank ``q`` quantile of integer values given as a histogram.

    The smallest value whose cumulative count reaches ``ceil(q * n)`` (at
    least 1): the median of 1, 2, 3, 4 is 2, its p90 is 4. Exact, in
    memory bounded by the number of distinct values.
    """
    n = sum(hist.values())
    if n == 0:
        return None
    rank = max(1, math.ceil(q * n))
    seen = 0
    for value in sorted(hist):
        seen += hist[value]
        if seen >= rank:
            return value
    return max(hist)  # pragma: no cover - unreachable: seen reaches n
