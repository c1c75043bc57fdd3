"""Run states move by conditional updates: one claim wins, a dead worker's run is resumed,
and an attempt that lost its run cannot move it any more."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from crucible.realtime.groups import team_group
from experiments.models import MetricPoint, Run, RunState
from experiments.services import experiments, live, runs, workers
from experiments.services.metrics import Point, record_points
from tests.experiments.runs_setup import advertise, config_for, digit_verifier, digit_version
from tests.experiments.test_live import Listener, layer  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(owner, team, settings) -> Run:
    settings.RUN_STALE_SECONDS = 60
    advertise()
    config = config_for(digit_version(owner, team), digit_verifier(owner, team))
    experiment = experiments.create_experiment(owner, team, name="Sort", config=config)
    with mock.patch("crucible.jobs.send"):
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


def test_it_keeps_the_points_a_dead_attempt_recorded_after_the_checkpoint(run):
    # Viewers hold them already: the resumed attempt rewrites them in place (see write_points).
    runs.claim(run.pk, "celery@a")
    record_points(run, [Point("reward/mean", s, 0.5, 1.0) for s in range(1, 8)])
    silence(run, 61)
    resumed = runs.claim(run.pk, "celery@b")
    runs.mark_resumed(resumed, 4)
    steps = sorted(MetricPoint.objects.filter(run=run).values_list("step", flat=True))
    assert steps == [1, 2, 3, 4, 5, 6, 7]
    current = Run.objects.get(pk=run.pk)
    assert (current.resumed_from_step, current.step) == (4, 4)


def test_it_hands_a_run_back_to_the_queue_when_its_worker_stops(run):
    held = runs.claim(run.pk, "celery@a")
    with mock.patch("crucible.jobs.send"):
        assert runs.requeue(held, log_tail="stopping")
    current = Run.objects.get(pk=run.pk)
    assert (current.state, current.worker, current.heartbeat_at) == (RunState.QUEUED, "", None)
    assert runs.claim(run.pk, "celery@b").attempts == 2


def test_it_tells_the_runs_socket_and_its_team_every_state_change(
    owner,
    run,
    layer,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    groups = (live.run_group(run.pk), team_group(run.team_id))
    listener = Listener(layer, *groups)

    events_frames = []

    def heard(change) -> list[str]:  # type: ignore[no-untyped-def]
        with django_capture_on_commit_callbacks(execute=True):
            assert change()
        states = []
        while len(states) < len(groups):
            event = listener.next()["event"]
            if event["type"] == "events":  # the run's events changed: a lost worker
                events_frames.append(event)
                continue
            states.append(event["run"]["state"] if event["type"] == "run" else event["state"])
        assert listener.nothing(), "one frame per group per change"
        return states

    def claim(worker: str) -> Run:
        nonlocal claimed
        claimed = runs.claim(run.pk, worker)
        return claimed

    claimed = run
    with mock.patch("crucible.jobs.send"):
        assert heard(lambda: claim("celery@a")) == ["running", "running"]
        # its worker is stopping
        assert heard(lambda: runs.requeue(claimed, log_tail="")) == ["queued", "queued"]
        heard(lambda: claim("celery@b"))
        silence(claimed, 61)  # its worker died
        assert heard(workers.reap_stale_runs) == ["queued", "queued"]
        assert len(events_frames) == 1
        heard(lambda: claim("celery@c"))
        assert heard(lambda: runs.fail(claimed, "boom", log_tail="")) == ["failed", "failed"]


def test_it_tells_the_socket_a_run_succeeded_or_was_cancelled(
    owner,
    run,
    layer,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    listener = Listener(layer, live.run_group(run.pk))
    with django_capture_on_commit_callbacks(execute=True):
        runs.cancel(owner, run)
    assert listener.next()["event"]["run"]["state"] == "cancelled"

    other = Run.objects.create(
        experiment=run.experiment, team=run.team, number=2, max_steps=3, created_by=owner
    )
    listener = Listener(layer, live.run_group(other.pk))
    with django_capture_on_commit_callbacks(execute=True):
        claimed = runs.claim(other.pk, "celery@a")
    listener.next()
    with django_capture_on_commit_callbacks(execute=True):
        assert runs.finish(claimed, RunState.SUCCEEDED, log_tail="")
    assert listener.next()["event"]["run"]["state"] == "succeeded"
