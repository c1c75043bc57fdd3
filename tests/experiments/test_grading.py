"""Measured difficulty: a real (tiny, locally built) model samples k answers per task."""

import pytest

from experiments.models import Usage, Worker
from experiments.services import grading
from tasks_app.models import PoolJob, PoolVersion
from tasks_app.services import pools
from training.models import build_tiny_model, save_model, train_tokenizer

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture(scope="module")
def models_root(tmp_path_factory):
    """A models folder holding one tiny arithmetic model named ``sums``."""
    root = tmp_path_factory.mktemp("models")
    corpus = [
        f"Compute {a} + {b}. Reply with the result as 'Answer: <number>'. Answer: {a + b}"
        for a in range(10)
        for b in range(10)
    ]
    tokenizer = train_tokenizer(corpus)
    save_model(build_tiny_model(tokenizer, 1, 32, seed=0), tokenizer, root / "sums")
    return root


@pytest.fixture
def tiny_model_dir(models_root, settings):
    """The name a job gives: the model's directory relative to the workers' models folder."""
    settings.MODELS_DIR = models_root
    return "sums"


@pytest.fixture
def cpu_worker(settings):
    """A running cpu-queue worker that offers the ``sums`` model, as its heartbeat would."""
    entry = {"name": "sums", "path": "sums", "builtin": False, "parameters": 1, "ready": True}
    return Worker.objects.create(name="celery@cpu", queues=["cpu"], loadable=[entry])


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
    used = Usage.objects.get(kind="grading")  # the cpu queue's work, under the family
    assert (used.queue, used.family, used.run) == ("cpu", "sums", None)
    assert used.team_id == owner.teams.get().pk
    assert used.worker_seconds > 0 and used.generated_tokens > 0


def test_it_does_not_run_a_job_twice(owner, version, tiny_model_dir):
    job = PoolJob.objects.create(
        version=version,
        params={"model_path": tiny_model_dir, "k": 1},
        created_by=owner,
        status=PoolJob.Status.RUNNING,
    )
    grading.run_job(job.pk)
    assert PoolVersion.objects.count() == 1


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("Qwen2.5-0.5B-Instruct", "UnknownModel: unknown model 'Qwen2.5-0.5B-Instruct'; "
         "this machine can load: tiny-digit-sort, sums"),
        ("../../etc", "UnknownModel: '../../etc' is outside the models folder"),
    ],
)
def test_it_reports_a_model_it_cannot_load_on_the_job_in_words(
    owner, version, tiny_model_dir, name, reason
):
    job = PoolJob.objects.create(
        version=version, params={"model_path": name, "k": 1}, created_by=owner
    )
    grading.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "failed" and job.message.startswith(reason)
    assert PoolVersion.objects.count() == 1


def test_it_queues_a_grading_job_on_the_broker_from_the_api(
    api, version, cpu_worker, django_capture_on_commit_callbacks
):
    from crucible.celery_app import app

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/pool-versions/{version.id}/jobs/",
            {"model_path": "sums", "k": 4},
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


def test_it_refuses_grading_to_viewers(client_for, teammate, version, cpu_worker):
    response = client_for(teammate).post(
        f"/api/v1/pool-versions/{version.id}/jobs/", {"model_path": "sums"}, format="json"
    )
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/models/Qwen2.5-0.5B-Instruct", "no running worker can load "
         "'/models/Qwen2.5-0.5B-Instruct'; available: sums"),
        ("sums-typo", "no running worker can load 'sums-typo'; available: sums"),
    ],
)
def test_it_refuses_a_model_no_running_worker_offers_naming_the_field(
    api, version, cpu_worker, name, reason
):
    response = api.post(
        f"/api/v1/pool-versions/{version.id}/jobs/", {"model_path": name}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"field": "model_path", "code": "unknown_model", "message": reason}
    ]
    assert not PoolJob.objects.exists()


def test_it_says_no_worker_is_running_when_grading_is_asked_of_none(api, version):
    response = api.post(
        f"/api/v1/pool-versions/{version.id}/jobs/", {"model_path": "sums"}, format="json"
    )
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert error["field"] == "model_path"
    assert error["message"].startswith("No worker is running on the cpu queue")


def test_it_grades_a_plugged_in_kind_with_that_kinds_default_verifier(
    owner, team, settings, monkeypatch, tiny_model_dir
):
    from tests.tasks_app.families import echo_kind

    settings.TASK_FAMILY_KINDS = {"echo": "tests.tasks_app.families.echo_kind"}
    family = pools.create_family(owner, team, name="Echo", slug="echo", kind="echo")
    tasks = pools.generated_tasks(family, {1: 4}, seed=0)
    source = pools.version_from_tasks(
        owner, family, tasks, source="generator", detail={}, near=False
    )[0]
    used: list[dict] = []

    def pass_rates(model_path, tasks, spec, **kwargs):
        used.append(spec)
        return [0.5] * len(tasks)

    monkeypatch.setattr(grading, "pass_rates", pass_rates)
    job = PoolJob.objects.create(
        version=source, params={"model_path": tiny_model_dir, "k": 2}, created_by=owner
    )
    grading.run_job(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.message
    assert used == [echo_kind.default_verifier()]
