"""Celery entry points: thin, idempotent (late acks; a re-delivered job finds it claimed)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="experiments.tasks.grade_pool_version", acks_late=True, soft_time_limit=6 * 3600)
def grade_pool_version(job_id: int) -> None:
    from experiments.services import grading

    grading.run_job(job_id)
