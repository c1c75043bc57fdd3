"""What befalls a run is an event beside what people do to it: a lost worker, a resumption
from a checkpoint; both drawn on the charts like pauses."""

from __future__ import annotations

from unittest import mock

import pytest

from experiments.models import Run, RunEvent, RunEventKind
from experiments.services import control, runs, workers
from tests.experiments.test_runs import run, silence  # noqa: F401 (fixture)

pytestmark = pytest.mark.django_db


def kinds(of: Run) -> list[tuple[str, int | None, str]]:
    return [(e.kind, e.applied_at_step, control.describe(e)) for e in control.events(of)]


def claimed_at_step(queued: Run, worker: str, step: int) -> Run:
    held = runs.claim(queued.pk, worker)
    assert held is not None and runs.heartbeat(held, step=step)
    return held


def test_it_records_a_lost_worker_at_the_runs_last_step_when_it_is_requeued(run):  # noqa: F811
    claimed_at_step(run, "celery@a", 46)
    silence(run, 61)
    with mock.patch("crucible.jobs.send"):
        assert workers.reap_stale_runs() == [run.pk]
    [event] = control.events(run)
    assert (event.kind, event.applied_at_step, event.applied_at is not None) == (
        RunEventKind.WORKER_LOST, 46, True,
    )  # fmt: skip
    assert "celery@a" in event.reason
    assert control.describe(event) == "Worker lost, re-queued"


def test_it_records_nothing_for_a_run_whose_heartbeat_is_fresh(run):  # noqa: F811
    claimed_at_step(run, "celery@a", 3)
    silence(run, 30)
    assert workers.reap_stale_runs() == []
    assert not RunEvent.objects.filter(run=run).exists()


def test_it_records_the_step_a_new_attempt_resumes_from(run):  # noqa: F811
    claimed_at_step(run, "celery@a", 46)
    silence(run, 61)
    with mock.patch("crucible.jobs.send"):
        workers.reap_stale_runs()
    runs.mark_resumed(runs.claim(run.pk, "celery@b"), 40)
    assert kinds(run) == [
        ("worker_lost", 46, "Worker lost, re-queued"),
        ("recovered", 40, "Resumed from step 40"),
    ]


def test_it_records_no_resumption_on_a_first_attempt(run):  # noqa: F811
    runs.mark_resumed(runs.claim(run.pk, "celery@a"), 0)
    assert kinds(run) == []


def test_it_leaves_a_persons_resume_as_the_only_marker(run, owner):  # noqa: F811
    held = claimed_at_step(run, "celery@a", 8)
    control.pause(owner, held)
    runs.pause_held(held, log_tail="")
    with mock.patch("crucible.jobs.send"):
        control.resume(owner, Run.objects.get(pk=run.pk))
    runs.mark_resumed(runs.claim(run.pk, "celery@b"), 8)
    assert [k for k, _, _ in kinds(run)] == ["pause", "resume"]
