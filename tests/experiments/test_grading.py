"""Measured difficulty: a real (tiny, locally built) model samples k answers per task."""

import pytest

from experiments.services import grading
from tasks_app.models import PoolJob, PoolVersion
from tasks_app.services import pools
from training.models import build_tiny_model, save_model, train_tokenizer

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny-model")
    corpus = [
        f"Compute {a} + {b}. Reply with the result as 'Answer: <number>'. Answer: {a + b}"
        for a in range(10)
        for b in range(10)
    ]
    tokenizer = train_tokenizer(corpus)
    save_model(build_tiny_model(tokenizer, 1, 32, seed=0), tokenizer, path)
    return str(path)


@pytest.fixture
def version(owner, team):
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    tasks = pools.generated_tasks(family, {1: 6}, seed=0)
    return pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]


def test_it_measures_pass_rates_into_a_new_graded_version(owner, version, tiny_model_dir):
    job = PoolJob.objects.create(
        version=version,
        params={"model_path": tiny_model_dir, "k": 2, "max_new_tokens": 4},
        created_by=owner,
    )
    grading.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded" and job.progress == 1.0, job.message
    graded = job.result_version
    assert graded.source == PoolVersion.Source.GRADING and graded.number == 2
    assert graded.source_detail["k"] == 2
    rates = [t.meta["pass_rate"] for t in graded.tasks.all()]
    assert len(rates) == version.task_count and all(r in (0.0, 0.5, 1.0) for r in rates)
    assert all(1 <= t.difficulty <= 5 for t in graded.tasks.all())


def test_it_does_not_run_a_job_twice(owner, version, tiny_model_dir):
    job = PoolJob.objects.create(
        version=version,
        params={"model_path": tiny_model_dir, "k": 1},
        created_by=owner,
        status=PoolJob.Status.RUNNING,
    )
    grading.run_job(job.pk)
    assert PoolVersion.objects.count() == 1


def test_it_reports_a_missing_model_on_the_job(owner, version, tmp_path):
    job = PoolJob.objects.create(
        version=version, params={"model_path": str(tmp_path / "nope"), "k": 1}, created_by=owner
    )
    grading.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.message
    assert PoolVersion.objects.count() == 1


def test_it_queues_a_grading_job_on_the_broker_from_the_api(
    api, version, settings, django_capture_on_commit_callbacks
):
    from crucible.celery_app import app

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/pool-versions/{version.id}/jobs/",
            {"model_path": "/models/x", "k": 4},
            format="json",
        )
    assert response.status_code == 202, response.json()
    assert response.json()["status"] == "queued"
    with app.connection_for_read() as conn:
        message = conn.SimpleQueue("cpu", no_ack=True).get(timeout=5)
    assert message.headers["task"] == "experiments.tasks.grade_pool_version"
    assert (
        api.get(f"/api/v1/pool-versions/{version.id}/jobs/").json()[0]["id"]
        == response.json()["id"]
    )


def test_it_refuses_grading_to_viewers(client_for, teammate, version):
    response = client_for(teammate).post(
        f"/api/v1/pool-versions/{version.id}/jobs/", {"model_path": "/m"}, format="json"
    )
    assert response.status_code == 403
