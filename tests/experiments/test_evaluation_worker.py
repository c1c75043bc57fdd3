"""An evaluation end to end: API → broker → a real Celery worker on the cpu queue → results.

Needs PostgreSQL and Redis (as in CI): the worker is another process on the same test
database and broker.
"""

from __future__ import annotations

import time

import pytest

from experiments.models import EvaluationJob, EvaluationState
from tasks_app.services import families, pinning, pools, verifiers
from tests.experiments.test_grading_worker import model_name, worker  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_it_evaluates_a_base_model_on_a_real_worker(
    api,
    owner,
    team,
    settings,
    tmp_path,
    model_name,  # noqa: F811
    worker,  # noqa: F811
):
    settings.MODELS_DIR = tmp_path / "models"  # the worker's models folder
    family = families.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 30}, seed=0)
    version = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    verifier = verifiers.create_verifier(
        owner, team, name="Sums", slug="sums-exact", family_kind="arithmetic"
    ).latest_version()
    assert verifier is not None
    families_ = [{"pool_version": version.pk, "verifier_version": verifier.pk}]
    body = {"team": "reasoning", "model": model_name, "families": families_, "k": 2}
    response = api.post("/api/v1/evaluations/", {**body, "max_new_tokens": 4}, format="json")
    assert response.status_code == 202, response.json()
    job_id = response.json()["id"]
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        job = EvaluationJob.objects.get(pk=job_id)
        if job.state in {EvaluationState.SUCCEEDED, EvaluationState.FAILED}:
            break
        assert worker.poll() is None, worker.stdout.read().decode()[-3000:]
        time.sleep(1)
    assert job.state == EvaluationState.SUCCEEDED, job.message
    held_out = [t.meta["content_hash"] for t in pinning.version_tasks(version.pk, "held_out")]
    assert held_out and sorted(job.results.values_list("task_hash", flat=True)) == sorted(held_out)
    assert job.progress == 1.0 and job.attempts == 1
