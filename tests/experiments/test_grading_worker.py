"""The grading job end to end: API → broker → a real Celery worker process → database.

Needs PostgreSQL and Redis (as in CI): the worker is another process, so it must reach
the same test database and broker as this one.
"""

from __future__ import annotations

import os
import time

import pytest
from django.db import connection

from experiments.models import Worker
from tasks_app.models import PoolJob
from tasks_app.services import pools
from tests.conftest import celery_worker, need_service
from training.models import build_tiny_model, save_model, train_tokenizer

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def worker(redis_url, tmp_path):
    if connection.vendor != "postgresql":
        need_service("the worker needs the test database on PostgreSQL (DATABASE_URL)")
    settings = connection.settings_dict
    database_url = (
        f"postgres://{settings['USER']}:{settings['PASSWORD']}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CRUCIBLE_VAR_DIR": str(tmp_path),
        # Its own models folder: this process exports its own MODELS_DIR to what it starts.
        "CRUCIBLE_MODELS_DIR": str(tmp_path / "models"),
        "DJANGO_SETTINGS_MODULE": "crucible.settings.base",
    }
    with celery_worker(env, queues="cpu") as process:
        yield process


@pytest.fixture
def model_name(tmp_path):
    """A tiny model in the worker's models folder (its var dir's ``models``)."""
    corpus = [f"Compute {a} + {b}. Answer: {a + b}" for a in range(10) for b in range(10)]
    tokenizer = train_tokenizer(corpus)
    save_model(build_tiny_model(tokenizer, 1, 32, seed=0), tokenizer, tmp_path / "models" / "sums")
    return "sums"


def test_it_grades_a_version_on_a_real_worker(api, owner, team, model_name, worker):
    # The worker's heartbeat advertises the model; until then the API would refuse it.
    deadline = time.monotonic() + 60
    while not Worker.objects.filter(queues__contains=["cpu"]).exists():
        assert time.monotonic() < deadline and worker.poll() is None, "no heartbeat"
        time.sleep(0.2)
    assert model_name in [m["name"] for m in Worker.objects.get().loadable]
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 5}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]

    response = api.post(
        f"/api/v1/pool-versions/{version.id}/jobs/",
        {"model_path": model_name, "k": 2, "max_new_tokens": 4},
        format="json",
    )
    assert response.status_code == 202
    job_id = response.json()["id"]
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        job = PoolJob.objects.get(pk=job_id)
        if job.status in {PoolJob.Status.SUCCEEDED, PoolJob.Status.FAILED}:
            break
        assert worker.poll() is None, worker.stdout.read().decode()[-3000:]
        time.sleep(1)
    assert job.status == PoolJob.Status.SUCCEEDED, job.message
    assert (
        job.result_version.source == "grading"
        and job.result_version.task_count == version.task_count
    )
