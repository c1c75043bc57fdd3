"""What the experiments app wires into tasks_app when Django starts."""

import pytest

from tasks_app.models import PoolJob
from tasks_app.services import pool_jobs, pools

pytestmark = pytest.mark.django_db


def test_it_runs_grading_jobs_with_its_own_task_on_the_cpu_queue(
    owner, team, redis_url, django_capture_on_commit_callbacks
):
    from crucible.celery_app import app

    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 3}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    job = PoolJob.objects.create(version=version, params={"k": 1}, created_by=owner)
    with app.connection_for_read() as conn:
        conn.SimpleQueue("cpu", no_ack=True).clear()
    with django_capture_on_commit_callbacks(execute=True):
        pool_jobs.queue(job)
    with app.connection_for_read() as conn:
        message = conn.SimpleQueue("cpu", no_ack=True).get(timeout=5)
    assert message.headers["task"] == "experiments.tasks.grade_pool_version"
    assert message.headers["argsrepr"] == f"[{job.pk}]"
