"""Downsampling a metric's series for a chart (pure: no Django).

Min-max bucketing: the first and last points stay, and the rest is cut into equal buckets by
position, each keeping its lowest and highest value in step order. Unlike averaging or
picking every n-th point, a one-step spike (a KL blow-up, a reward collapse) survives any
zoom level, and the chart's envelope is the full-resolution one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Row = TypeVar("Row")


def minmax_buckets(
    rows: Sequence[Row], max_points: int, value: Callable[[Row], float | None]
) -> list[Row]:
    """At most ``max_points`` of ``rows`` (sorted by step); all of them when they fit.

    ``value(row)`` is None for a point without a finite value: such points are kept only
    when their whole bucket has no finite value, so a gap in the chart stays a gap.
    """
    if max_points <= 0 or len(rows) <= max_points:
        return list(rows)
    if max_points < 4:
        return [rows[0], rows[-1]][: max(max_points, 1)]
    inner = rows[1:-1]
    buckets = (max_points - 2) // 2
    kept = [rows[0]]
    for b in range(buckets):
        start, stop = len(inner) * b // buckets, len(inner) * (b + 1) // buckets
        kept.extend(inner[i] for i in extremes(inner, start, stop, value))
    kept.append(rows[-1])
    return kept


def extremes(
    rows: Sequence[Row], start: int, stop: int, value: Callable[[Row], float | None]
) -> list[int]:
    """Indexes of the lowest and highest finite values in ``rows[start:stop]``, in order."""
    low = high = None
    low_value = high_value = 0.0
    for i in range(start, stop):
        v = value(rows[i])
        if v is None:
            continue
        if low is None or v < low_value:
            low, low_value = i, v
        if high is None or v > high_value:
            high, high_value = i, v
    if low is None or high is None:
        return [start] if start < stop else []
    return sorted({low, high})
