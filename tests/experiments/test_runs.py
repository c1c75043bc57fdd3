"""Run states move by conditional updates: one claim wins, a dead worker's run is resumed,
and an attempt that lost its run cannot move it any more."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from experiments.models import MetricPoint, Run, RunState
from experiments.services import experiments, runs
from experiments.services.metrics import Point, record_points
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner, team, settings) -> Run:
    settings.RUN_STALE_SECONDS = 60
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("experiments.services.workers.send_training"):
        return runs.launch(owner, experiment)


def silence(run: Run, seconds: int) -> None:
    Run.objects.filter(pk=run.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=seconds))


def test_it_lets_one_worker_claim_a_queued_run(run):
    first = runs.claim(run.pk, "celery@a")
    assert first is not None and (first.state, first.attempts, first.worker) == (
        RunState.RUNNING,
        1,
        "celery@a",
    )
    assert runs.claim(run.pk, "celery@b") is None


def test_it_resumes_a_running_run_only_once_its_heartbeat_is_stale(run):
    runs.claim(run.pk, "celery@a")
    silence(run, 30)
    assert runs.claim(run.pk, "celery@b") is None  # still alive by the threshold
    silence(run, 61)
    again = runs.claim(run.pk, "celery@b")
    assert again is not None and (again.attempts, again.worker) == (2, "celery@b")


def test_it_ignores_an_attempt_that_lost_its_run(run):
    lost = runs.claim(run.pk, "celery@a")
    silence(run, 61)
    runs.claim(run.pk, "celery@b")
    assert not runs.heartbeat(lost, step=5)
    assert runs.should_stop(lost)
    assert not runs.finish(lost, RunState.SUCCEEDED, log_tail="")
    current = Run.objects.get(pk=run.pk)
    assert (current.state, current.worker, current.step) == (RunState.RUNNING, "celery@b", 0)


def test_it_forgets_what_a_dead_attempt_recorded_after_the_checkpoint(run):
    runs.claim(run.pk, "celery@a")
    record_points(run, [Point("reward/mean", s, 0.5, 1.0) for s in range(1, 8)])
    silence(run, 61)
    resumed = runs.claim(run.pk, "celery@b")
    runs.mark_resumed(resumed, 4)
    steps = sorted(MetricPoint.objects.filter(run=run).values_list("step", flat=True))
    assert steps == [1, 2, 3, 4]
    current = Run.objects.get(pk=run.pk)
    assert (current.resumed_from_step, current.step) == (4, 4)


def test_it_hands_a_run_back_to_the_queue_when_its_worker_stops(run):
    held = runs.claim(run.pk, "celery@a")
    with mock.patch("experiments.services.workers.send_training"):
        assert runs.requeue(held, log_tail="stopping")
    current = Run.objects.get(pk=run.pk)
    assert (current.state, current.worker, current.heartbeat_at) == (RunState.QUEUED, "", None)
    assert runs.claim(run.pk, "celery@b").attempts == 2
