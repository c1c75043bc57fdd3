"""An import end to end: stream, map, validate, de-duplicate, hash and split.

Two passes over the file keep memory near ``rows * ~300 bytes`` whatever the file size:
``plan_import`` validates every row and decides duplicates without keeping the tasks, and
``ImportPlan.iter_tasks`` re-reads the file to hand the kept tasks to the writer in order.
Any invalid row rejects the whole import before anything is written.

An import either replaces the previous version's tasks or is appended to them: then the
previous tasks are all kept, and a row that repeats one of them (or an earlier row) is
dropped as a duplicate. Either way the plan counts what the new version adds, removes and
keeps, so a person sees it before anything is frozen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, NamedTuple

from tasks_app.families.base import RowError, Task
from tasks_app.families.registry import load_kind, required_fields
from tasks_app.pools import versions
from tasks_app.pools.dedup import Deduper, DedupReport, Removal
from tasks_app.pools.grading import FieldGrading, grade_record
from tasks_app.pools.importers import (
    MAX_LISTED_ERRORS,
    ImportRejected,
    Limits,
    MappingRejected,
    RowIssue,
    apply_mapping,
    header_columns,
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
    template: str | None = None
    """The family's prompt template; None renders with the kind's own."""
    prompt_mode: Literal["template", "as_is"] = "template"
    """"as_is" keeps each row's prompt column as the prompt, untouched."""
    mode: Literal["append", "replace"] = "replace"
    """"append" keeps the previous version's tasks and adds the new ones to them."""
    extra_kinds: Mapping[str, str] = field(default_factory=dict)
    """The ``TASK_FAMILY_KINDS`` setting, passed in by the caller."""


class PreviousTask(NamedTuple):
    """A task of the version an import replaces or is appended to."""

    content_hash: str
    difficulty: int
    text: str
    """What it is de-duplicated on: its prompt as uploaded when known, else its prompt."""


@dataclass(frozen=True)
class Changes:
    """What the new version does to the previous one, in tasks."""

    mode: str
    previous: int
    """Tasks of the previous version (0 when there is none)."""
    added: int
    removed: int
    kept: int
    """Tasks of the previous version that the new one still has."""
    duplicates_dropped: int
    """Rows of the file left out as repeats of an earlier row or of a previous task."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class ImportPlan:
    """What an accepted import will write; ``iter_tasks`` streams the kept rows' tasks (in an
    append the writer puts the previous tasks first)."""

    path: Path
    spec: ImportSpec
    rows_read: int
    dedup: DedupReport
    summary: versions.VersionSummary
    hashes: dict[int, str]
    """Row number -> content hash of each kept row."""
    changes: Changes

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
            "changes": self.changes.to_dict(),
        }


def plan_import(
    path: str | Path,
    spec: ImportSpec,
    progress: Callable[[int], None] | None = None,
    previous: Iterable[PreviousTask] = (),
) -> ImportPlan:
    """Validate and de-duplicate a file against the ``previous`` version's tasks; raises
    ImportRejected listing the bad rows, or MappingRejected when the mapping reads columns the
    file does not have."""
    kind = load_kind(spec.kind, spec.extra_kinds)
    header = header_columns(path, spec.fmt, spec.limits)
    if header is not None:  # a CSV or Parquet file says its columns before any row is read
        check_mapping(spec.mapping, kind, header)
    keys: dict[str, None] | None = {} if header is None else None  # first-seen order
    scan = _Scan(spec, Deduper(near=spec.near_duplicates, threshold=spec.near_threshold))
    scan.read_previous(previous)
    for row, result in _rows(Path(path), spec, kind, keys):
        scan.take(row, result)
        if progress is not None and scan.rows_read % 10_000 == 0:
            progress(scan.rows_read)
    if keys:  # JSONL: a column is missing when no row has it
        check_mapping(spec.mapping, kind, keys)
    if scan.error_count:
        raise ImportRejected(scan.errors, scan.error_count)
    if not scan.rows_read:
        raise ImportRejected([], 0, "the file has no rows")
    return scan.plan(Path(path))


@dataclass
class _Scan:
    """One pass over the rows: errors, and each valid row's hash and level."""

    spec: ImportSpec
    deduper: Deduper
    rows_read: int = 0
    error_count: int = 0
    errors: list[RowIssue] = field(default_factory=list)
    hashes: dict[int, str] = field(default_factory=dict)
    levels: dict[int, int] = field(default_factory=dict)
    previous: dict[str, int] = field(default_factory=dict)
    """Content hash -> level of each previous task."""
    first_row: dict[str, int] = field(default_factory=dict)
    """Content hash -> the row (negative: the previous task) that holds it in the new version."""
    repeats: list[Removal] = field(default_factory=list)

    def read_previous(self, previous: Iterable[PreviousTask]) -> None:
        append = self.spec.mode == "append"
        for i, task in enumerate(previous):
            self.previous[task.content_hash] = task.difficulty
            if append:  # kept whole; new rows are matched against them
                self.first_row.setdefault(task.content_hash, -(i + 1))
                self.deduper.add(-(i + 1), task.text, pinned=True)

    def take(self, row: int, result: Parsed) -> None:
        self.rows_read += 1
        if isinstance(result, RowError):
            self.error_count += 1
            if len(self.errors) < MAX_LISTED_ERRORS:
                field_name = source_field(result.field, self.spec.mapping)
                self.errors.append(RowIssue(row, field_name, result.reason))
            return
        if self.error_count:  # once a row is bad, only keep looking for more errors
            return
        task, text = result
        task_hash = task.content_hash()
        first = self.first_row.setdefault(task_hash, row)
        if first != row:  # the same task, though its text (before the template) differs
            self.repeats.append(Removal(row, first, "exact", 1.0))
            return
        self.deduper.add(row, text)
        self.hashes[row], self.levels[row] = task_hash, task.difficulty

    def plan(self, path: Path) -> ImportPlan:
        found = self.deduper.finish()
        removed = sorted(found.removed + self.repeats, key=lambda r: r.row)
        report = DedupReport(found.total + len(self.repeats), found.kept, removed)
        kept = {row: self.hashes[row] for row in report.kept}
        entries = [(kept[row], self.levels[row]) for row in report.kept]
        if self.spec.mode == "append":
            entries = list(self.previous.items()) + entries
        summary = versions.summarise(entries, self.spec.held_out_fraction)
        changes = self._changes(set(kept.values()), len(removed))
        return ImportPlan(path, self.spec, self.rows_read, report, summary, kept, changes)

    def _changes(self, new: set[str], dropped: int) -> Changes:
        old = set(self.previous)
        if self.spec.mode == "append":
            return Changes("append", len(old), len(new - old), 0, len(old), dropped)
        return Changes("replace", len(old), len(new - old), len(old - new), len(old & new), dropped)


def check_mapping(mapping: Mapping[str, str], kind: ModuleType, columns: Iterable[str]) -> None:
    """Refuse a mapping that names a field the kind does not read, or reads a column the file
    lacks (a required field unmapped reads the column of its own name)."""
    present = list(dict.fromkeys(columns))
    fields = list(kind.record_fields)
    problems = {
        name: f"is not a field of {kind.name} tasks; they have: {', '.join(fields)}"
        for name in mapping
        if name not in fields
    }
    wanted = {**{f: f for f in required_fields(kind)}, **mapping}
    for name, column in wanted.items():
        if name not in problems and column not in present:
            listed = ", ".join(present) if present else "none"
            problems[name] = f"the file has no column {column!r}; its columns are: {listed}"
    if problems:
        raise MappingRejected(problems)


def suggest_mapping(kind: ModuleType, columns: Iterable[str]) -> dict[str, str]:
    """Each field the kind reads -> the file's column of the same name (case aside), if any."""
    by_name = {c.casefold(): c for c in reversed(list(columns))}
    return {f: by_name[f.casefold()] for f in kind.record_fields if f.casefold() in by_name}


Parsed = tuple[Task, str] | RowError
"""A valid row's task and the text it is de-duplicated on, or why the row is invalid."""


def _rows(
    path: Path, spec: ImportSpec, kind: ModuleType, keys: dict[str, None] | None = None
) -> Iterator[tuple[int, Parsed]]:
    """Each row parsed into a task; ``keys`` (when given) collects every column seen."""
    for row, record in iter_records(path, spec.fmt, spec.limits):
        if isinstance(record, RowError):
            yield row, record
            continue
        if keys is not None:
            keys.update(dict.fromkeys(record))
        try:
            mapped = grade_record(apply_mapping(record, spec.mapping), spec.grading)
            task = _task(kind, mapped, spec)
        except RowError as exc:
            yield row, exc
            continue
        yield row, (task, _dedup_text(mapped, task))


def _task(kind: ModuleType, mapped: Mapping[str, Any], spec: ImportSpec) -> Task:
    """The row's task, its prompt rendered by the one template, or the row's prompt as is."""
    extra = {"template": spec.template} if spec.template else {}
    task = kind.from_record(mapped, spec.params, **extra)
    uploaded = mapped.get("prompt")
    if spec.prompt_mode == "as_is":
        return dataclasses.replace(task, prompt=uploaded)
    if isinstance(uploaded, str) and uploaded != task.prompt:
        # Kept so a later import appended to this version compares rows as uploaded.
        return dataclasses.replace(task, meta={**task.meta, "source_prompt": uploaded})
    return task


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
