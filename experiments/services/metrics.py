"""Metric points: written in batches, idempotently, to the database (the source of truth).

A point's identity is (run, key, step): a re-sent batch overwrites instead of duplicating,
and points may arrive in any order. NaN and infinities are stored as NULL.

A point's id is the run's sequence number for live viewers: "everything after seq" is
``id > seq``. A point already stored with the same value and tokens (a retried batch, steps
a resumed run recomputes from its checkpoint) is left as it is, under its old id, so no
reader of the socket or of ``?since=`` receives it twice. A point that changes a stored
one replaces it under a fresh id, and its live frame names it as a replacement. Writes to
one run are serialized (a lock on the run's row), so within a run ids become visible in
order and nothing below a seen id can appear later.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_
from typing import Any

from django.db import transaction
from django.db.models import Q

from experiments.ingest import Point, Problem, check_batch
from experiments.models import MetricPoint, Run
from experiments.models.runs import FINISHED_STATES

from . import live
from .metric_queries import last_seq

__all__ = [
    "Point",
    "RunFinished",
    "Written",
    "points_from_metrics",
    "record_points",
    "write_points",
]


class RunFinished(Exception):
    """The run has finished: it takes no more metrics."""

    def __init__(self, run_id: int, state: str) -> None:
        super().__init__(f"Run {run_id} is {state}: a finished run takes no more metrics.")
        self.state = state


@dataclass(frozen=True)
class Written:
    count: int
    """Points stored anew (new or changed); those already stored as they are do not count."""
    prev_seq: int
    """The run's last sequence number before this write."""
    seq: int
    """The run's last sequence number after it (the largest id written)."""


def points_from_metrics(
    step: int, metrics: Mapping[str, float], *, wall_time: float | None = None
) -> list[Point]:
    """One engine log line (``{key: value}`` at ``step``) as points."""
    now = time.time() if wall_time is None else wall_time
    tokens = metrics.get("perf/tokens_seen")
    seen = int(tokens) if tokens is not None and math.isfinite(tokens) else None
    return [Point(key, step, _finite(value), now, seen) for key, value in metrics.items()]


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def record_points(run: Run, points: Iterable[Point]) -> int:
    """Upsert ``points`` for ``run``; returns how many were written."""
    return write_points(run, list(points)).count


@dataclass(frozen=True)
class IngestResult:
    """The answer to a batch: how many points were accepted, and a verdict per item."""

    accepted: int
    refused: int
    seq: int
    results: list[dict[str, Any]]
    points: list[Point]
    """The accepted points."""


def ingest(run: Run, items: list[Any]) -> IngestResult:
    """Check a batch from outside (the REST endpoint) item by item and write what passes.

    Raises ``RunFinished`` for a finished run, writing nothing.
    """
    checked = check_batch(items, now=time.time())
    written = write_points(run, checked.points, refuse_finished=True)
    results = [
        {"index": i, "status": "refused", "errors": [_error(p) for p in checked.refused[i]]}
        if i in checked.refused
        else {"index": i, "status": "accepted", "errors": []}
        for i in range(len(items))
    ]
    # A point already stored as it is was accepted all the same: the write is idempotent.
    return IngestResult(
        len(checked.points), len(checked.refused), written.seq, results, checked.points
    )


def _error(problem: Problem) -> dict[str, Any]:
    return {"field": problem.field, "code": problem.code, "message": problem.message}


def write_points(run: Run, points: Sequence[Point], *, refuse_finished: bool = False) -> Written:
    """Upsert ``points`` in one transaction and, once it commits, tell the run's viewers.

    A point of the same (key, step) as a stored one replaces it under a new id, unless its
    value and tokens are the ones stored: then it is left out. With ``refuse_finished``, a
    run that has finished raises ``RunFinished`` and nothing is written.
    """
    with transaction.atomic():
        state = _lock(run)
        if refuse_finished and state in FINISHED_STATES:
            raise RunFinished(run.pk, state)
        prev = last_seq(run.pk)
        stored = _stored(run.pk, points) if points else {}
        fresh = [p for p in points if _changes(stored.get((p.key, p.step)), p)]
        if not fresh:
            return Written(0, prev, prev)
        replaced = [(p.key, p.step) for p in fresh if (p.key, p.step) in stored]
        if replaced:
            MetricPoint.objects.filter(id__in=[stored[k][0] for k in replaced]).delete()
        rows = MetricPoint.objects.bulk_create(
            [
                MetricPoint(
                    run_id=run.pk,
                    key=p.key,
                    step=p.step,
                    value=p.value,
                    wall_time=p.wall_time,
                    tokens=p.tokens,
                    replaces=(p.key, p.step) in stored,
                )
                for p in fresh
            ]
        )
        seq = max(row.id for row in rows)
        live.points_written(run.pk, prev, seq, rows, replaced)
    return Written(len(rows), prev, seq)


def _lock(run: Run) -> str:
    # FOR NO KEY UPDATE: serializes metric writers of this run without blocking the rows
    # that only reference it (rollouts, checkpoints). SQLite serializes every writer anyway.
    state = (
        Run.objects.select_for_update(no_key=True)
        .filter(pk=run.pk)
        .values_list("state", flat=True)
        .first()
    )
    if state is None:
        raise Run.DoesNotExist(f"run {run.pk} does not exist")
    return state


Stored = tuple[int, float | None, int | None]
"""A stored point's id, value and tokens."""


def _stored(run_id: int, points: Sequence[Point]) -> dict[tuple[str, int], Stored]:
    """The stored points of the run at the batch's (key, step) pairs."""
    steps_by_key: dict[str, list[int]] = {}
    for p in points:
        steps_by_key.setdefault(p.key, []).append(p.step)
    clauses = [Q(key=key, step__in=steps) for key, steps in steps_by_key.items()]
    rows = MetricPoint.objects.filter(reduce(or_, clauses), run_id=run_id).values_list(
        "id", "key", "step", "value", "tokens"
    )
    return {(key, step): (id_, value, tokens) for id_, key, step, value, tokens in rows}


def _changes(stored: Stored | None, point: Point) -> bool:
    # The wall time is when the point was computed, not what it is: a recomputed step with
    # the same value is the same point.
    return stored is None or (stored[1], stored[2]) != (point.value, point.tokens)
