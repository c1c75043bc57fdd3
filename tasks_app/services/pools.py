"""Task families and their immutable pool versions: generate, import, edit, inspect.

A new version is written in one transaction: the version row and all its tasks, or
nothing. A version whose content hash equals the latest one's is not minted twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction

from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app.families.base import Task
from tasks_app.models import PoolTask, PoolVersion, TaskFamily
from tasks_app.pools import versions
from tasks_app.pools.dedup import Deduper, DedupReport
from tasks_app.pools.importers import Limits

from . import diffs
from .families import (  # noqa: F401  (create_family: callers make families through either module)
    checked_params,
    create_family,
    effective_template,
    ensure_active,
    extra_kinds,
    kind_module,
    template_kwargs,
)

WRITE_BATCH = 5_000
NEAR_DUPLICATES_DEFAULT = True
"""Whether a new version (generated or uploaded) drops near-duplicate prompts when its request
does not say; the API's defaults and the forms' starting state are this one value."""
BUNDLED_DATASETS = {
    "humaneval": ("python-function", "humaneval/HumanEval.jsonl.gz"),
    "gsm8k": ("math-word", "gsm8k/test.jsonl"),
}


def import_limits() -> Limits:
    return Limits(
        max_bytes=settings.TASK_IMPORT_MAX_BYTES,
        max_rows=settings.TASK_IMPORT_MAX_ROWS,
        max_decoded_bytes=settings.TASK_IMPORT_MAX_DECODED_BYTES,
    )


# --- generation -------------------------------------------------------------------------


def generated_tasks(family: TaskFamily, counts: dict[int, int], seed: int) -> list[Task]:
    """``counts[level]`` tasks per difficulty level from the kind's seeded generator."""
    kind = kind_module(family.kind)
    if not kind.procedural:
        raise field_errors([("source", f"kind {family.kind!r} has no generator; import a dataset")])
    bad = sorted(set(counts) - set(kind.difficulty_levels))
    if bad:
        raise field_errors(
            [("counts", f"unknown levels {bad}; the kind has {list(kind.difficulty_levels)}")]
        )
    params = checked_params(kind, family.params)
    extra = template_kwargs(family)
    tasks: list[Task] = []
    for level, n in sorted(counts.items()):
        tasks.extend(kind.generate(n, difficulty=level, seed=seed, params=params, **extra))
    return tasks


def dedup_tasks(tasks: list[Task], *, near: bool) -> tuple[list[Task], DedupReport]:
    deduper = Deduper(near=near)
    for row, task in enumerate(tasks, start=1):
        deduper.add(row, task.prompt)
    report = deduper.finish()
    kept = set(report.kept)
    return [t for row, t in enumerate(tasks, start=1) if row in kept], report


def preview(
    tasks: list[Task], family: TaskFamily, *, near: bool, samples: int = 8
) -> dict[str, Any]:
    kept, report = dedup_tasks(tasks, near=near)
    planned = versions.plan_tasks(kept, family.held_out_fraction)
    summary = versions.summarise(
        ((p.content_hash, p.task.difficulty) for p in planned), family.held_out_fraction
    )
    frozen = versions.with_environment(summary.content_hash, family.environment or None)
    return {
        "rows_read": len(tasks),
        "dedup": report.to_dict(),
        "version": {**summary.to_dict(), "content_hash": frozen},
        "samples": [sample(p) for p in planned[:samples]],
    }


def sample(planned: versions.PlannedTask) -> dict[str, Any]:
    task = planned.task
    return {
        "prompt": task.prompt,
        "expected": task.expected,
        "difficulty": task.difficulty,
        "split": planned.split,
        "content_hash": planned.content_hash,
        "source_id": task.source_id,
    }


def version_from_tasks(
    user: AbstractBaseUser,
    family: TaskFamily,
    tasks: list[Task],
    *,
    source: str,
    detail: dict[str, Any],
    near: bool,
    note: str = "",
) -> tuple[PoolVersion, bool]:
    kept, report = dedup_tasks(tasks, near=near)
    planned = versions.plan_tasks(kept, family.held_out_fraction)
    summary = versions.summarise(
        ((p.content_hash, p.task.difficulty) for p in planned), family.held_out_fraction
    )
    return write_version(
        user,
        family,
        iter(planned),
        summary,
        report.to_dict(),
        source=source,
        detail={**detail, "rows_read": len(tasks)},
        note=note,
    )


# --- import -----------------------------------------------------------------------------


def import_bundled(
    user: AbstractBaseUser, family: TaskFamily, dataset: str, note: str = ""
) -> tuple[PoolVersion, bool]:
    if dataset not in BUNDLED_DATASETS:
        raise field_errors(
            [("dataset", f"unknown dataset {dataset!r}; bundled: {sorted(BUNDLED_DATASETS)}")]
        )
    kind_name, relative = BUNDLED_DATASETS[dataset]
    if family.kind != kind_name:
        raise field_errors(
            [("dataset", f"{dataset} holds {kind_name} tasks; this family is {family.kind}")]
        )
    path = Path(settings.BUNDLED_DATASETS_DIR) / relative
    if not path.exists():
        raise field_errors([("dataset", f"{dataset} is not installed at {path}")])
    kind = kind_module(kind_name)
    load = kind.import_humaneval if dataset == "humaneval" else kind.import_gsm8k
    tasks = load(path, template=family.prompt_template or None)
    return version_from_tasks(
        user,
        family,
        tasks,
        source=PoolVersion.Source.DATASET,
        detail={"dataset": dataset},
        near=False,
        note=note,
    )


# --- edits ------------------------------------------------------------------------------


def edit_version(
    user: AbstractBaseUser, base: PoolVersion, *, remove: Iterable[str] = (), note: str = ""
) -> tuple[PoolVersion, bool]:
    """A new version: ``base`` without the tasks whose content hashes are in ``remove``."""
    removed = set(remove)
    unknown = removed - set(base.tasks.values_list("content_hash", flat=True))
    if unknown:
        raise field_errors(
            [("remove", f"{len(unknown)} hash(es) are not in version {base.number}")]
        )
    kept = [task_from_row(row) for row in base.tasks.exclude(content_hash__in=removed).iterator()]
    return version_from_tasks(
        user,
        base.family,
        kept,
        source=PoolVersion.Source.EDIT,
        detail={"base": base.number, "removed": len(removed)},
        near=False,
        note=note,
    )


def task_from_row(row: PoolTask) -> Task:
    meta = dict(row.meta)
    family = meta.pop("family", "")
    return Task(
        family=family,
        prompt=row.prompt,
        expected=row.expected,
        difficulty=row.difficulty,
        source_id=row.source_id,
        meta=meta,
    )


# --- writing ----------------------------------------------------------------------------


@transaction.atomic
def write_version(
    user: AbstractBaseUser | None,
    family: TaskFamily,
    planned: Iterator[versions.PlannedTask],
    summary: versions.VersionSummary,
    dedup: dict[str, Any],
    *,
    source: str,
    detail: dict[str, Any],
    note: str = "",
    base: int | None = None,
) -> tuple[PoolVersion, bool]:
    """Write a version and its tasks in one transaction; (existing latest, False) if identical.

    ``base`` is the latest version's number (0: none) the tasks were planned against; another
    latest version by now is a 400, since the plan's counts no longer hold.
    """
    family = TaskFamily.objects.select_for_update().get(pk=family.pk)
    ensure_active(family)
    latest = family.latest_version()
    number = latest.number if latest else 0
    if base is not None and base != number:
        why = f"version {number} was frozen meanwhile; try again"
        raise field_errors([("base", why)], code="stale")
    environment = family.environment or None  # frozen with the version, as its hash says
    content_hash = versions.with_environment(summary.content_hash, environment)
    if latest is not None and _same_content(latest, summary.content_hash, environment):
        return latest, False
    if summary.task_count == 0:
        raise field_errors([("tasks", "a version needs at least one task")])
    if detail.get("prompt_mode") != "as_is":  # the template its prompts were written with
        detail = {**detail, "prompt_template": effective_template(family)}
    version = PoolVersion.objects.create(
        family=family,
        number=(latest.number + 1) if latest else 1,
        parent=latest,
        content_hash=content_hash,
        source=source,
        source_detail=detail,
        held_out_fraction=summary.held_out_fraction,
        environment=environment,
        task_count=summary.task_count,
        train_count=summary.train_count,
        held_out_count=summary.held_out_count,
        difficulty_histogram=_histogram_by_split(),
        dedup=dedup,
        note=note,
        created_by=user,
    )
    histogram = _write_tasks(version, planned)
    version.difficulty_histogram = histogram
    if latest is not None:
        version.diff = diffs.version_diff(version, latest)
    version.save(allow_update=True, update_fields=["difficulty_histogram", "diff"])
    record(
        user,
        "pool.version_created",
        version,
        team=family.team,
        changes={"number": version.number, "tasks": version.task_count, "source": source},
    )
    return version, True


def _same_content(latest: PoolVersion, tasks_hash: str, environment: dict[str, Any] | None) -> bool:
    """Whether ``latest`` holds these tasks played in this environment. A version from before
    versions froze their environment kept its tasks' hash, with the environment it was given."""
    if (latest.environment or None) != environment:
        return False
    return latest.content_hash in {tasks_hash, versions.with_environment(tasks_hash, environment)}


def _histogram_by_split() -> dict[str, dict[str, int]]:
    return {"train": {}, "held_out": {}}


TASK_COLUMNS = (
    "version_id",
    "position",
    "content_hash",
    "prompt",
    "expected",
    "difficulty",
    "split",
    "source_id",
    "meta",
)
JSON_COLUMNS = {"expected", "meta"}


def _write_tasks(
    version: PoolVersion, planned: Iterator[versions.PlannedTask]
) -> dict[str, dict[str, int]]:
    """Insert the version's tasks in batches; returns the difficulty histogram per split.

    Rows go through ``executemany`` on the ORM's own connection (inside the caller's
    transaction) rather than ``bulk_create``: building model instances costs more than
    the database does for an import of 100k rows.
    """
    histogram = _histogram_by_split()
    sql = _insert_sql()
    batch: list[tuple[Any, ...]] = []
    with connection.cursor() as cursor:
        for position, item in enumerate(planned):
            task = item.task
            level = histogram[item.split]
            level[str(task.difficulty)] = level.get(str(task.difficulty), 0) + 1
            meta = {**task.meta, "family": task.family}
            batch.append(
                (
                    version.pk,
                    position,
                    item.content_hash,
                    task.prompt,
                    json.dumps(task.expected),
                    task.difficulty,
                    item.split,
                    task.source_id,
                    json.dumps(meta),
                )
            )
            if len(batch) >= WRITE_BATCH:
                cursor.executemany(sql, batch)
                batch.clear()
        if batch:
            cursor.executemany(sql, batch)
    return histogram


def _insert_sql() -> str:
    quote = connection.ops.quote_name
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    values = ", ".join(f"%s{cast}" if column in JSON_COLUMNS else "%s" for column in TASK_COLUMNS)
    columns = ", ".join(quote(column) for column in TASK_COLUMNS)
    return f"INSERT INTO {quote(PoolTask._meta.db_table)} ({columns}) VALUES ({values})"
