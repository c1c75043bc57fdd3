"""Uploaded task files: inspect a file's columns, preview what a version made of it would be,
then freeze it, appended to the previous version or replacing it.

The preview and the upload plan the same import, so the counts a person confirms (added,
removed, kept, duplicates dropped) are the counts the upload applies; an upload names the
version its preview was made against and is refused if another has been frozen since.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce

from crucible.api.field_errors import field_errors
from tasks_app.families.registry import required_fields
from tasks_app.models import PoolVersion, TaskFamily
from tasks_app.pools import versions
from tasks_app.pools.grading import FieldGrading
from tasks_app.pools.importers import inspect_file
from tasks_app.pools.pipeline import (
    ImportPlan,
    ImportSpec,
    PreviousTask,
    plan_import,
    suggest_mapping,
)

from . import families, pools

PREVIEW_SAMPLES = 5

Mode = Literal["append", "replace"]


@dataclass(frozen=True)
class UploadOptions:
    """How to read an uploaded file into a version; the same for its preview and its upload."""

    fmt: str | None = None
    mapping: dict[str, str] = field(default_factory=dict)
    """Kind field -> the file's column."""
    difficulty_labels: dict[str, int] = field(default_factory=dict)
    prompt_mode: Literal["template", "as_is"] = "template"
    mode: Mode | None = None
    """None: append when the family has a version, else start one."""
    near_duplicates: bool = pools.NEAR_DUPLICATES_DEFAULT
    base: int | None = None
    """The version number a preview was made against (0: none); the upload is refused if the
    latest version is another one by then. None: whichever is latest."""


def default_mode(family: TaskFamily) -> Mode:
    """A new upload adds to what the family has; only a first version starts from nothing."""
    count = getattr(family, "version_count", None)  # annotated on the API's querysets
    has_versions = family.versions.exists() if count is None else count > 0
    return "append" if has_versions else "replace"


def version_defaults(family: TaskFamily) -> dict[str, Any]:
    """What a new version of ``family`` does where its request says nothing, for the forms."""
    return {
        "near_duplicates": pools.NEAR_DUPLICATES_DEFAULT,
        "mode": default_mode(family),
        "prompt_mode": "template",
    }


def inspect_upload(family: TaskFamily, path: Path, *, fmt: str | None) -> dict[str, Any]:
    """What an upload holds and how it would map onto the family's fields, before importing."""
    kind = families.kind_module(family.kind)
    summary = inspect_file(path, fmt, pools.import_limits())  # raises ImportRejected
    return {
        **summary.to_dict(),
        "fields": list(kind.record_fields),
        "required_fields": required_fields(kind),
        "suggested_mapping": suggest_mapping(kind, summary.columns),
    }


def preview_upload(family: TaskFamily, path: Path, options: UploadOptions) -> dict[str, Any]:
    """What freezing the file would make, without writing anything: the counts against the
    latest version and the first new tasks with their final prompts."""
    latest = family.latest_version()
    plan = _plan(family, path, options, latest)
    samples = itertools.islice(plan.iter_tasks(), PREVIEW_SAMPLES)
    return {
        **plan.to_dict(),
        "base": latest.number if latest else 0,
        "samples": [pools.sample(p) for p in samples],
    }


def import_file(
    user: AbstractBaseUser | None,
    family: TaskFamily,
    path: Path,
    options: UploadOptions,
    *,
    note: str = "",
    filename: str = "",
    progress: Callable[[int], None] | None = None,
) -> tuple[PoolVersion, bool]:
    """Validate, de-duplicate and write an uploaded file as a new version, or reject it whole."""
    latest = family.latest_version()
    base = latest.number if latest else 0
    if options.base is not None and options.base != base:
        raise stale(options.base, base)
    plan = _plan(family, path, options, latest, progress)  # raises ImportRejected
    planned = plan.iter_tasks()
    if latest is not None and plan.spec.mode == "append":
        planned = itertools.chain(_planned_previous(latest, family.held_out_fraction), planned)
    detail = {
        **{k: v for k, v in asdict(options).items() if k not in {"base", "fmt"}},
        "format": options.fmt,
        "filename": filename or path.name,
        "mode": plan.spec.mode,
        "changes": plan.changes.to_dict(),
        "rows_read": plan.rows_read,
    }
    return pools.write_version(
        user,
        family,
        planned,
        plan.summary,
        plan.dedup.to_dict(),
        source=PoolVersion.Source.UPLOAD,
        detail=detail,
        note=note,
        base=base,
    )


def stale(asked: int, latest: int) -> Exception:
    return field_errors(
        [("base", f"version {latest} has been frozen since the preview of {asked}; preview again")],
        code="stale",
    )


def _plan(
    family: TaskFamily,
    path: Path,
    options: UploadOptions,
    latest: PoolVersion | None,
    progress: Callable[[int], None] | None = None,
) -> ImportPlan:
    kind = families.kind_module(family.kind)
    spec = ImportSpec(
        kind=family.kind,
        mapping=options.mapping,
        params=families.checked_params(kind, family.params),
        fmt=options.fmt,
        limits=pools.import_limits(),
        near_duplicates=options.near_duplicates,
        held_out_fraction=family.held_out_fraction,
        grading=FieldGrading(labels=checked_labels(kind, options.difficulty_labels)),
        template=family.prompt_template or None,
        prompt_mode=checked_prompt_mode(kind, options.prompt_mode),
        mode=options.mode or default_mode(family),
        extra_kinds=families.extra_kinds(),
    )
    previous = _previous(latest) if latest is not None else iter(())
    return plan_import(path, spec, progress=progress, previous=previous)


def _previous(version: PoolVersion) -> Iterator[PreviousTask]:
    """The version's tasks in order, each with the text a new row is compared with."""
    text = Coalesce(KT("meta__source_prompt"), F("prompt"))
    rows = version.tasks.order_by("position").values_list("content_hash", "difficulty", text)
    for content_hash, difficulty, prompt in rows.iterator(chunk_size=pools.WRITE_BATCH):
        yield PreviousTask(content_hash, difficulty, prompt)


def _planned_previous(version: PoolVersion, fraction: float) -> Iterator[versions.PlannedTask]:
    """The version's tasks as an append writes them again, first and in their order."""
    for row in version.tasks.order_by("position").iterator(chunk_size=pools.WRITE_BATCH):
        split = versions.split_for(row.content_hash, fraction)
        yield versions.PlannedTask(pools.task_from_row(row), row.content_hash, split)


def checked_labels(kind: ModuleType, labels: dict[str, int]) -> dict[str, int]:
    """Difficulty labels -> levels of the kind; a 400 naming each label with a level it lacks."""
    levels = list(kind.difficulty_levels)
    bad = [
        (f"difficulty_labels.{label}", f"must be one of the kind's levels {levels}, got {level!r}")
        for label, level in labels.items()
        if isinstance(level, bool) or level not in levels
    ]
    if bad:
        raise field_errors(bad)
    return labels


def checked_prompt_mode(kind: ModuleType, mode: str) -> Literal["template", "as_is"]:
    """Prompts "as_is" keep the uploaded prompt column, so the kind must read one."""
    if mode == "as_is":
        if "prompt" not in kind.record_fields:
            raise field_errors(
                [("prompt_mode", f"{kind.name} tasks have no prompt column; the template makes it")]
            )
        return "as_is"
    return "template"
