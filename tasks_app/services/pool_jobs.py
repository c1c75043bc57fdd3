"""Background jobs over a pool version (measured difficulty): starting, queueing, claiming,
progress.

The work itself needs a model and the training engine, which live above this app; the app
that does it registers a runner per job kind (from its ``AppConfig.ready``), so this app
queues a job without naming anything of the app that runs it. The runner calls back the
functions below, which are the only writes to the job row.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from crucible.realtime.publish import publish_to_team
from tasks_app import verifiers
from tasks_app.families.base import Task
from tasks_app.models import PoolJob, PoolVersion

from . import pools

logger = logging.getLogger(__name__)

Runner = Callable[[int], None]
"""Queues the work of the job with this id (e.g. a Celery task's ``delay``)."""

_runners: dict[str, Runner] = {}


def register_runner(kind: str, runner: Runner) -> None:
    _runners[kind] = runner


@transaction.atomic
def start_grading(user: AbstractBaseUser, version: PoolVersion, params: dict[str, Any]) -> PoolJob:
    """Queue a job on the ``cpu`` queue that measures each task's pass rate with a model."""
    if params.get("spec") is not None:
        errors = verifiers.validate_spec(params["spec"])
        if errors:
            raise field_errors(((e.field, e.reason) for e in errors), prefix="spec")
    job = PoolJob.objects.create(version=version, kind="grade", params=params, created_by=user)
    record(
        user,
        "pool.grading_started",
        job,
        team=version.family.team,
        changes={"version": version.number},
    )
    queue(job)
    return job


def queue(job: PoolJob) -> None:
    """Hand ``job`` to its kind's runner once the transaction that created it commits."""
    runner = _runners.get(job.kind)
    if runner is None:
        raise LookupError(f"no runner is registered for pool jobs of kind {job.kind!r}")
    job_id = job.pk
    transaction.on_commit(lambda: runner(job_id), robust=True)


@dataclass(frozen=True)
class ClaimedJob:
    id: int
    kind: str
    params: dict[str, Any]
    version_number: int
    family_kind: str
    team_id: int = 0
    family: str = ""
    """The family's slug: what the job's usage is counted under."""


def claim(job_id: int) -> ClaimedJob | None:
    """Take a queued job; None if another worker (or a re-delivery) already has it."""
    taken = PoolJob.objects.filter(pk=job_id, status=PoolJob.Status.QUEUED).update(
        status=PoolJob.Status.RUNNING, message="loading the model"
    )
    if not taken:
        return None
    job = PoolJob.objects.select_related("version__family").get(pk=job_id)
    return ClaimedJob(
        id=job.pk,
        kind=job.kind,
        params=dict(job.params),
        version_number=job.version.number,
        family_kind=job.version.family.kind,
        team_id=job.version.family.team_id,
        family=job.version.family.slug,
    )


def job_tasks(job_id: int) -> list[Task]:
    """The tasks of the version the job works on, in their order in that version."""
    rows = PoolJob.objects.get(pk=job_id).version.tasks.order_by("position")
    return [pools.task_from_row(row) for row in rows.iterator()]


def report_progress(job_id: int, done: int, total: int) -> None:
    job = _job(job_id)
    job.progress = done / total if total else 1.0
    job.message = f"{done}/{total} tasks sampled"
    job.save(update_fields=["progress", "message"])
    _publish(job)


def save_graded_version(
    job_id: int, tasks: list[Task], *, detail: dict[str, Any], note: str
) -> int:
    """Write ``tasks`` (with their measured difficulty) as the family's next version and
    finish the job with it, in one transaction; returns the new version's number."""
    with transaction.atomic():
        job = _job(job_id)
        version, _ = pools.version_from_tasks(
            job.created_by,
            job.version.family,
            tasks,
            source=PoolVersion.Source.GRADING,
            detail=detail,
            near=False,
            note=note,
        )
        job.result_version = version
        _finish(job, PoolJob.Status.SUCCEEDED, f"version {version.number} written")
    return version.number


def fail(job_id: int, message: str) -> None:
    _finish(_job(job_id), PoolJob.Status.FAILED, message)


def _job(job_id: int) -> PoolJob:
    return PoolJob.objects.select_related("version__family").get(pk=job_id)


def _finish(job: PoolJob, status: str, message: str) -> None:
    job.status, job.message, job.finished_at = status, message, timezone.now()
    if status == PoolJob.Status.SUCCEEDED:
        job.progress = 1.0
    job.save(update_fields=["status", "message", "finished_at", "progress", "result_version"])
    logger.info("pool_job.finished", extra={"job_id": job.pk, "status": status})
    _publish(job)


def _publish(job: PoolJob) -> None:
    event = {
        "type": "pool.job_updated",
        "job": job.pk,
        "version": job.version_id,
        "status": job.status,
        "progress": job.progress,
        "message": job.message,
    }
    team_id = job.version.family.team_id
    transaction.on_commit(lambda: publish_to_team(team_id, event), robust=True)
