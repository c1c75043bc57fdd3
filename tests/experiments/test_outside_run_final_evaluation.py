"""An outside run linked to an experiment that names an evaluation suite: once it finishes
with a checkpoint, the suite's evaluation of that checkpoint is queued, as for a platform
run; a checkpoint uploaded after it finished is evaluated then."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments.jobs import RUN_EVALUATION
from experiments.models import Checkpoint, EvaluationJob
from experiments.services import experiments
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_checkpoint_uploads_api import manifest, send_all, start
from tests.experiments.test_suites import suite_of
from training import tiny_models

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent():
    with mock.patch("crucible.jobs.send") as send:  # the queue: what the worker would get
        yield send


@pytest.fixture
def linked(api, owner, team, settings, tmp_path):
    """An outside run of an experiment whose config names a suite, and the suite."""
    settings.RUNS_DIR = tmp_path / "runs"
    advertise()
    pinned = digit_version(owner, team), digit_verifier(owner, team)
    suite = suite_of(owner, team, pinned)
    config = config_for(*pinned, eval={"every": 2, "suite": suite.pk})
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    body = {"team": team.slug, "name": "trl", "experiment": experiment.pk}
    created = api.post("/api/v1/runs/", body, format="json")
    assert created.status_code == 201, created.json()
    return created.json()["id"], suite


def finish(api, run_id: int):
    return api.post(f"/api/v1/runs/{run_id}/finish/", {"status": "finished"}, format="json")


def test_finishing_with_a_checkpoint_queues_the_experiments_final_evaluation(
    api, linked, sent, tmp_path, django_capture_on_commit_callbacks
):
    run_id, suite = linked
    (tmp_path / "step-000008" / "model").mkdir(parents=True)
    Checkpoint.objects.create(run_id=run_id, step=4, path=str(tmp_path / "step-000004"))
    final = Checkpoint.objects.create(run_id=run_id, step=8, path=str(tmp_path / "step-000008"))
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(api, run_id).status_code == 200
    job = EvaluationJob.objects.get()
    assert job.suite == suite and job.checkpoint == final and job.families == suite.families
    assert [c.args for c in sent.call_args_list] == [(RUN_EVALUATION, job.pk)]
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(api, run_id).status_code == 200  # a retried finish queues nothing new
    assert EvaluationJob.objects.count() == 1


@pytest.mark.slow
def test_a_checkpoint_uploaded_after_the_run_finished_is_evaluated_then(
    api, linked, sent, tmp_path, django_capture_on_commit_callbacks
):
    run_id, suite = linked
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(api, run_id).status_code == 200
    assert not EvaluationJob.objects.exists(), "nothing to evaluate yet"
    model_dir = tiny_models.build("qwen2", tmp_path / "model", vocab_size=300)
    files = manifest(model_dir)
    upload_id = start(api, run_id, files, step=12).json()["id"]
    send_all(api, upload_id, model_dir, files, {})
    with django_capture_on_commit_callbacks(execute=True):
        done = api.post(f"/api/v1/checkpoint-uploads/{upload_id}/complete/")
    assert done.status_code == 201, done.json()
    job = EvaluationJob.objects.get()
    assert job.suite == suite and job.checkpoint_id == done.json()["id"]
    assert [c.args for c in sent.call_args_list] == [(RUN_EVALUATION, job.pk)]


def test_a_run_finishing_without_a_checkpoint_queues_nothing(
    api, linked, sent, django_capture_on_commit_callbacks
):
    run_id, _ = linked
    with django_capture_on_commit_callbacks(execute=True):
        assert finish(api, run_id).status_code == 200
    assert not EvaluationJob.objects.exists() and not sent.called
