"""An import end to end: stream, map, validate, de-duplicate, hash and split.

Two passes over the file keep memory near ``rows * ~300 bytes`` whatever the file size:
``plan_import`` validates every row and decides duplicates without keeping the tasks, and
``ImportPlan.iter_tasks`` re-reads the file to hand the kept tasks to the writer in order.
Any invalid row rejects the whole import before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from tasks_app.families.base import RowError, Task
from tasks_app.families.registry import load_kind
from tasks_app.pools import versions
from tasks_app.pools.dedup import Deduper, DedupReport
from tasks_app.pools.grading import FieldGrading, grade_record
from tasks_app.pools.importers import (
    MAX_LISTED_ERRORS,
    ImportRejected,
    Limits,
    RowIssue,
    apply_mapping,
    iter_records,
    source_field,
)


@dataclass(frozen=True)
class ImportSpec:
    kind: str
    mapping: Mapping[str, str] = field(default_factory=dict)
    """Kind field -> source column, e.g. ``{"prompt": "question"}``."""
    params: Mapping[str, Any] = field(default_factory=dict)
    fmt: str | None = None
    limits: Limits = field(default_factory=Limits)
    near_duplicates: bool = True
    near_threshold: float = 0.8
    held_out_fraction: float = versions.DEFAULT_HELD_OUT_FRACTION
    grading: FieldGrading | None = None
    extra_kinds: Mapping[str, str] = field(default_factory=dict)
    """The ``TASK_FAMILY_KINDS`` setting, passed in by the caller."""


@dataclass
class ImportPlan:
    """What an accepted import will write; ``iter_tasks`` streams the kept tasks."""

    path: Path
    spec: ImportSpec
    rows_read: int
    dedup: DedupReport
    summary: versions.VersionSummary
    hashes: dict[int, str]
    """Row number -> content hash of each kept row."""

    def iter_tasks(self) -> Iterator[versions.PlannedTask]:
        kind = load_kind(self.spec.kind, self.spec.extra_kinds)
        fraction = self.spec.held_out_fraction
        for row, task in _valid_tasks(self.path, self.spec, kind):
            task_hash = self.hashes.get(row)
            if task_hash is not None:
                yield versions.PlannedTask(task, task_hash, versions.split_for(task_hash, fraction))

    def to_dict(self) -> dict[str, Any]:
        return {
            "rows_read": self.rows_read,
            "dedup": self.dedup.to_dict(),
            "version": self.summary.to_dict(),
        }


def plan_import(
    path: str | Path, spec: ImportSpec, progress: Callable[[int], None] | None = None
) -> ImportPlan:
    """Validate and de-duplicate a file; raises ImportRejected listing the bad rows."""
    kind = load_kind(spec.kind, spec.extra_kinds)
    deduper = Deduper(near=spec.near_duplicates, threshold=spec.near_threshold)
    errors: list[RowIssue] = []
    error_count, rows_read = 0, 0
    hashes: dict[int, str] = {}
    levels: dict[int, int] = {}
    for row, result in _rows(Path(path), spec, kind):
        rows_read += 1
        if isinstance(result, RowError):
            error_count += 1
            if len(errors) < MAX_LISTED_ERRORS:
                field_name = source_field(result.field, spec.mapping)
                errors.append(RowIssue(row, field_name, result.reason))
        elif not error_count:  # once a row is bad, only keep looking for more errors
            task, text = result
            deduper.add(row, text)
            hashes[row], levels[row] = task.content_hash(), task.difficulty
        if progress is not None and rows_read % 10_000 == 0:
            progress(rows_read)
    if error_count:
        raise ImportRejected(errors, error_count)
    if not rows_read:
        raise ImportRejected([], 0, "the file has no rows")
    return _plan(Path(path), spec, rows_read, deduper.finish(), hashes, levels)


def _plan(
    path: Path,
    spec: ImportSpec,
    rows_read: int,
    report: DedupReport,
    hashes: dict[int, str],
    levels: dict[int, int],
) -> ImportPlan:
    kept = {row: hashes[row] for row in report.kept}
    entries = ((kept[row], levels[row]) for row in report.kept)
    summary = versions.summarise(entries, spec.held_out_fraction)
    return ImportPlan(path, spec, rows_read, report, summary, kept)


Parsed = tuple[Task, str] | RowError
"""A valid row's task and the text it is de-duplicated on, or why the row is invalid."""


def _rows(path: Path, spec: ImportSpec, kind: ModuleType) -> Iterator[tuple[int, Parsed]]:
    for row, record in iter_records(path, spec.fmt, spec.limits):
        if isinstance(record, RowError):
            yield row, record
            continue
        try:
            mapped = grade_record(apply_mapping(record, spec.mapping), spec.grading)
            task = kind.from_record(mapped, spec.params)
        except RowError as exc:
            yield row, exc
            continue
        yield row, (task, _dedup_text(mapped, task))


def _dedup_text(mapped: Mapping[str, Any], task: Task) -> str:
    """The row's own question when it has one: the kind's template, the same on every row,
    would otherwise inflate the similarity of short questions."""
    text = mapped.get("prompt")
    return text if isinstance(text, str) else task.prompt


def _valid_tasks(path: Path, spec: ImportSpec, kind: ModuleType) -> Iterator[tuple[int, Task]]:
    for row, result in _rows(path, spec, kind):
        if isinstance(result, RowError):  # the file changed between the two passes
            raise ImportRejected([RowIssue(row, result.field, result.reason)], 1)
        yield row, result[0]
