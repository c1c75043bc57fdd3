"""The training job in this process: claim → train → a final state, and what it records."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from unittest import mock

import pytest
from django.db import connection

from experiments.catalogue import TINY_MODEL
from experiments.models import Checkpoint, MetricPoint, Rollout, Run, RunState
from experiments.services import experiments, failures, runs, training_job
from tests.conftest import need_service
from tests.experiments.runs_setup import (  # noqa: F401 (fixtures)
    advertise,
    config_for,
    digit_verifier,
    digit_version,
    models_dir,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def folders(settings, models_dir, tmp_path):  # noqa: F811
    settings.MODELS_DIR = models_dir
    settings.RUNS_DIR = tmp_path / "runs"


def launched(owner, team, **extra) -> Run:
    advertise(extra.get("model", TINY_MODEL))
    config = config_for(digit_version(owner, team), digit_verifier(owner, team), **extra)
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
        return runs.launch(owner, experiment)


def test_it_trains_a_run_to_success_recording_every_step(owner, team, folders):
    run = launched(
        owner,
        team,
        hyperparameters={"max_steps": 3, "checkpoint_every": 2},
        eval={"every": 3, "max_tasks": 8},
        rollout_groups=2,
    )
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    assert (run.attempts, run.step, run.worker) == (1, 3, "celery@here")
    assert run.started_at and run.finished_at and run.resumed_from_step is None
    rewards = MetricPoint.objects.filter(run=run, key="reward/mean")
    per_step = Counter(rewards.values_list("step", flat=True))
    assert per_step == {1: 1, 2: 1, 3: 1}
    tokens = list(rewards.order_by("step").values_list("tokens", flat=True))
    assert tokens == sorted(tokens) and tokens[0] > 0
    assert MetricPoint.objects.filter(run=run, key="eval/success/digits", step=3).exists()
    assert "reward/mean" in run.summary and "step 3/3" in run.log_tail
    assert [c.step for c in Checkpoint.objects.filter(run=run)] == [2, 3]
    assert all(Path(c.path, "state.json").is_file() for c in Checkpoint.objects.filter(run=run))
    rollouts = Rollout.objects.filter(run=run)
    assert set(rollouts.values_list("group", flat=True)) == {0, 1}  # 2 of 4 groups kept
    assert rollouts.count() == 3 * 2 * 4
    sample = rollouts.first()
    assert sample.family == "digits" and sample.prompt.startswith("sort ")
    assert len(sample.task_hash) == 64 and sample.pool_version and sample.verifier_version
    assert sample.layers and {"name", "passed", "score", "error_type"} <= set(sample.layers[0])
    assert sample.advantage is not None


def test_it_fails_the_run_with_a_clear_reason_when_the_model_is_missing(owner, team, folders):
    run = launched(owner, team, model="gone-model")
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.FAILED
    assert run.failure_reason.startswith("model: unknown model 'gone-model'")
    assert "Traceback" in run.log_tail and run.finished_at is not None


def test_it_fails_rather_than_staying_running_when_training_raises(owner, team, folders):
    run = launched(owner, team)
    with mock.patch.object(training_job, "train", side_effect=RuntimeError("out of memory")):
        training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.FAILED
    assert run.failure_reason.startswith("out of memory: out of memory (lower prompts_per_step")
    assert "out of memory" in run.log_tail


def test_it_gives_any_other_error_with_its_type():
    assert failures.failure_reason(KeyError("digits")) == "KeyError: 'digits'"


@pytest.mark.parametrize(
    "error",
    [
        MemoryError(),
        RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 9 GB"),
        type("OutOfMemoryError", (RuntimeError,), {})("CUDA out of memory. Tried 2 GiB"),
    ],
)
def test_it_says_out_of_memory_when_a_run_runs_out(error):
    assert failures.failure_reason(error).startswith("out of memory: ")


def test_it_cancels_at_the_next_step_boundary(owner, team, folders):
    run = launched(owner, team, hyperparameters={"max_steps": 50})
    original = training_job.RunRecorder.progress

    def cancel_after_two(self, step, total, metrics):
        original(self, step, total, metrics)
        if step == 2:
            Run.objects.filter(pk=self.run.pk).update(cancel_requested=True)

    with mock.patch.object(training_job.RunRecorder, "progress", cancel_after_two):
        training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert (run.state, run.step) == (RunState.CANCELLED, 2)
    assert MetricPoint.objects.filter(run=run).values("step").distinct().count() == 2


def test_it_leaves_a_run_another_worker_holds(owner, team, folders):
    run = launched(owner, team)
    assert runs.claim(run.pk, "celery@other") is not None
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert (run.state, run.worker, run.attempts) == (RunState.RUNNING, "celery@other", 1)


def test_it_words_a_refused_pinned_version_by_its_field():
    from crucible.api.field_errors import field_errors

    refused = field_errors([("config.families[0].version", "must be the id of a pool version")])
    reason = failures.failure_reason(refused)
    assert reason == "config.families[0].version: must be the id of a pool version"


def test_it_trains_a_run_in_two_processes(owner, team, folders, settings, monkeypatch, tmp_path):
    if connection.vendor != "postgresql":
        need_service("the ranks need the test database on PostgreSQL (DATABASE_URL)")
    db = connection.settings_dict
    url = f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    for name, value in {
        "DATABASE_URL": f"{url}/{db['NAME']}",  # the ranks are other processes
        "CRUCIBLE_MODELS_DIR": str(settings.MODELS_DIR),
        "CRUCIBLE_RUNS_DIR": str(settings.RUNS_DIR),
        "CRUCIBLE_VAR_DIR": str(tmp_path / "var"),
        "OMP_NUM_THREADS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    run = launched(
        owner, team, num_processes=2, hyperparameters={"max_steps": 2, "checkpoint_every": 1}
    )
    training_job.run_job(run.pk, "celery@here")
    run.refresh_from_db()
    assert run.state == RunState.SUCCEEDED, (run.failure_reason, run.log_tail)
    steps = list(MetricPoint.objects.filter(run=run, key="reward/mean").values_list("step", flat=True))
    assert sorted(steps) == [1, 2]  # the main rank alone records
    assert [c.step for c in Checkpoint.objects.filter(run=run)] == [1, 2]
    assert Rollout.objects.filter(run=run).exists()
    assert "starting 2 processes" in run.log_tail and "step 2/2" in run.log_tail
