"""Reading metric points: by key, downsampled for charts, after a sequence number, or raw.

A point's id is its run's sequence number (see ``experiments.services.metrics``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from experiments import downsample
from experiments.models import MetricPoint


def last_seq(run_id: int) -> int:
    """The run's newest sequence number (0 before its first point)."""
    newest = (
        MetricPoint.objects.filter(run_id=run_id).order_by("-id").values_list("id", flat=True)
    ).first()
    return newest or 0


def keys_of(run_id: int) -> list[str]:
    return list(
        MetricPoint.objects.filter(run_id=run_id)
        .order_by("key")
        .values_list("key", flat=True)
        .distinct()
    )


ROW_FIELDS = ("key", "step", "value", "wall_time", "tokens")


@dataclass
class Series:
    """One metric's points in columns (what a chart library takes), sorted by step."""

    step: list[int] = field(default_factory=list)
    value: list[float | None] = field(default_factory=list)
    wall_time: list[float] = field(default_factory=list)
    tokens: list[int | None] = field(default_factory=list)
    total: int = 0
    """Points before downsampling."""

    @property
    def downsampled(self) -> bool:
        return len(self.step) < self.total

    @classmethod
    def of(cls, rows: Sequence[tuple[Any, ...]], total: int | None = None) -> Series:
        """From ``(key, step, value, wall_time, tokens)`` rows of one key, sorted by step."""
        return cls(
            step=[r[1] for r in rows],
            value=[r[2] for r in rows],
            wall_time=[r[3] for r in rows],
            tokens=[r[4] for r in rows],
            total=len(rows) if total is None else total,
        )


@dataclass
class Snapshot:
    seq: int
    """Every point with an id up to ``seq`` is in (or was downsampled out of) the series."""
    series: dict[str, Series]


def read_series(
    run_id: int, *, keys: Sequence[str] | None = None, max_points: int = 0, since: int = 0
) -> Snapshot:
    """The run's points after ``since`` by key, each downsampled to ``max_points`` (0: all)."""
    seq = last_seq(run_id)
    rows = MetricPoint.objects.filter(run_id=run_id, id__gt=since, id__lte=seq)
    if keys is not None:
        rows = rows.filter(key__in=keys)
    grouped: dict[str, list[tuple[Any, ...]]] = {key: [] for key in keys or ()}
    for row in rows.order_by("key", "step").values_list(*ROW_FIELDS):
        grouped.setdefault(row[0], []).append(row)
    series = {
        key: Series.of(downsample.minmax_buckets(found, max_points, _value), len(found))
        for key, found in grouped.items()
    }
    return Snapshot(seq=seq, series=series)


def _value(row: tuple[Any, ...]) -> float | None:
    return row[2]


def counts_by_key(run_id: int, *, since: int = 0) -> dict[str, int]:
    """How many points each key has after ``since``."""
    rows = (
        MetricPoint.objects.filter(run_id=run_id, id__gt=since)
        .values("key")
        .annotate(n=Count("id"))
        .values_list("key", "n")
    )
    return dict(rows)


def read_raw(run_id: int, key: str, *, after_step: int = -1, limit: int = 1000) -> Series:
    """Full resolution, a page at a time: up to ``limit`` points of ``key`` after a step."""
    rows = (
        MetricPoint.objects.filter(run_id=run_id, key=key, step__gt=after_step)
        .order_by("step")
        .values_list(*ROW_FIELDS)[:limit]
    )
    return Series.of(list(rows))
