"""Difficulty grading: from a field (mapped labels or numeric bins), from the generator, or
measured.

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


@dataclass(frozen=True)
class FieldGrading:
    """How to turn a difficulty column into a level.

    ``labels`` maps text labels (case-insensitive) to levels, as the importer chose them: a
    label has no level of its own ("hard" is 3 on one scale and 5 on another), so a text value
    without an entry is a row error naming it, never a guess. ``bins`` are ascending upper
    edges for numeric values (a value <= bins[0] is level 1, <= bins[1] level 2, ...; above
    the last edge is level len(bins) + 1). Without bins, numbers must already be levels.
    """

    labels: Mapping[str, int] = dataclasses.field(default_factory=dict)
    bins: Sequence[float] = ()

    def __post_init__(self) -> None:
        folded = {str(k).strip().casefold(): v for k, v in self.labels.items()}
        object.__setattr__(self, "labels", folded)

    def level(self, value: Any) -> int:
        if isinstance(value, str):
            text = value.strip().casefold()
            if text in self.labels:
                return self.labels[text]
            try:
                value = float(text)
            except ValueError:
                raise RowError("difficulty", self._unmapped(value)) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RowError("difficulty", f"must be a label or a number, got {value!r}")
        if self.bins:
            return bisect.bisect_left(list(self.bins), value) + 1
        if not float(value).is_integer() or value < 1:
            raise RowError("difficulty", f"must be a whole level from 1, got {value!r}")
        return int(value)

    def _unmapped(self, value: str) -> str:
        mapped = f" (mapped: {', '.join(sorted(self.labels))})" if self.labels else ""
        return f"label {value!r} has no level; give it one in difficulty_labels{mapped}"


def text_labels(values: Iterable[Any]) -> list[str]:
    """The distinct text values of a difficulty column that are not numbers, in first-seen
    order: the labels an importer has to give a level."""
    seen: dict[str, None] = {}
    for value in values:
        if isinstance(value, str) and value.strip() and not _is_number(value):
            seen.setdefault(value.strip(), None)
    return list(seen)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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
