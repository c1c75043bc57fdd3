"""Celery entry points: thin, idempotent (late acks; a re-delivered job finds it claimed)."""

from __future__ import annotations

import socket

from celery import Task, shared_task
from django.conf import settings

from .jobs import GRADE_POOL_VERSION, RUN_EVALUATION, RUN_PREFLIGHT, RUN_TRAINING
from .services import evaluation, grading, preflight, training_job


@shared_task(name=GRADE_POOL_VERSION, acks_late=True, soft_time_limit=6 * 3600)
def grade_pool_version(job_id: int) -> None:
    grading.run_job(job_id)


@shared_task(name=RUN_PREFLIGHT, acks_late=True, soft_time_limit=2 * 3600)
def run_preflight(report_id: int) -> None:
    """Sample the model on the pools of a configuration (queued on ``cpu``)."""
    preflight.run_job(report_id)


@shared_task(
    name=RUN_EVALUATION,
    acks_late=True,
    reject_on_worker_lost=True,  # a worker killed mid-job puts it back: it resumes or fails
    soft_time_limit=6 * 3600,
)
def run_evaluation(job_id: int) -> None:
    """Evaluate a checkpoint or base model on held-out tasks (queued on ``cpu``)."""
    evaluation.run_job(job_id)


@shared_task(
    bind=True,
    name=RUN_TRAINING,
    acks_late=True,
    reject_on_worker_lost=True,  # a worker killed mid-run puts the message back: it resumes
    soft_time_limit=settings.RUN_TIME_LIMIT_SECONDS,
    time_limit=settings.RUN_TIME_LIMIT_SECONDS + 600,
)
def run_training(self: Task, run_id: int) -> None:
    """Train run ``run_id`` (queued on ``gpu``); a run another worker holds is left alone."""
    training_job.run_job(run_id, self.request.hostname or socket.gethostname())
