"""Difficulty grading: from a field (labels or numeric bins), from the generator, or measured.

Measured grading takes the pass rate of a chosen model over k samples per task; the model
call is injected as ``pass_rate_fn`` so this stays pure and the ``cpu`` worker plugs it in.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tasks_app.families.base import RowError, Task

DEFAULT_LABELS: dict[str, int] = {
    "trivial": 1,
    "easy": 1,
    "medium": 2,
    "intermediate": 2,
    "hard": 3,
    "difficult": 3,
    "very hard": 4,
    "expert": 5,
}


@dataclass(frozen=True)
class FieldGrading:
    """How to turn a difficulty column into a level.

    ``labels`` maps text labels (case-insensitive) to levels; ``bins`` are ascending upper
    edges for numeric values (a value <= bins[0] is level 1, <= bins[1] level 2, ...; above
    the last edge is level len(bins) + 1). Without bins, numbers must already be levels.
    """

    labels: Mapping[str, int] = dataclasses.field(default_factory=lambda: dict(DEFAULT_LABELS))
    bins: Sequence[float] = ()

    def level(self, value: Any) -> int:
        if isinstance(value, str):
            text = value.strip().casefold()
            if text in self.labels:
                return self.labels[text]
            try:
                value = float(text)
            except ValueError:
                known = ", ".join(sorted(self.labels))
                raise RowError("difficulty", f"unknown label {value!r} (known: {known})") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RowError("difficulty", f"must be a label or a number, got {value!r}")
        if self.bins:
            return bisect.bisect_left(list(self.bins), value) + 1
        if not float(value).is_integer() or value < 1:
            raise RowError("difficulty", f"must be a whole level from 1, got {value!r}")
        return int(value)


def grade_record(record: dict[str, Any], grading: FieldGrading | None) -> dict[str, Any]:
    """The record with its ``difficulty`` field turned into a level (in place, returned)."""
    value = record.get("difficulty")
    if grading is not None and value not in (None, ""):
        record["difficulty"] = grading.level(value)
    return record


def level_for_pass_rate(pass_rate: float, levels: int = 5) -> int:
    """Level 1 for tasks the model always solves up to ``levels`` for those it never does."""
    if not 0.0 <= pass_rate <= 1.0:
        raise ValueError(f"pass rate must be in [0, 1], got {pass_rate}")
    return min(levels, 1 + int((1.0 - pass_rate) * levels))


PassRateFn = Callable[[Task, int], float]


@dataclass(frozen=True)
class Measured:
    task: Task
    pass_rate: float
    level: int


def measure_difficulty(
    tasks: Iterable[Task],
    pass_rate_fn: PassRateFn,
    k: int,
    *,
    levels: int = 5,
    progress: Callable[[int], None] | None = None,
) -> list[Measured]:
    """Grade each task by ``pass_rate_fn(task, k)``; returns regraded copies of the tasks."""
    if k < 1:
        raise ValueError("k must be at least 1")
    out = []
    for done, task in enumerate(tasks, start=1):
        rate = float(pass_rate_fn(task, k))
        level = level_for_pass_rate(rate, levels)
        meta = {**task.meta, "pass_rate": rate, "pass_rate_k": k}
        out.append(Measured(dataclasses.replace(task, difficulty=level, meta=meta), rate, level))
        if progress is not None:
            progress(done)
    return out
