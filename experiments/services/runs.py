"""Runs: launch, claim, heartbeat, cancel and finish, each state change one conditional UPDATE.

States: queued → running → succeeded / failed / cancelled; a running run may pause (at a step
boundary, with a checkpoint, giving its worker back) and resume through the queue (see
``experiments.services.control``). A worker takes a run with ``claim``
(queued, or running with a silent heartbeat: its worker died), which bumps ``attempts``; the
attempt number is the worker's fencing token, so a worker that lost its run (reaped and taken
by another) can no longer move it: every later update filters on it.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from crucible import jobs
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors

from .. import config as cfg
from ..jobs import RUN_TRAINING
from ..models import Experiment, Rollout, Run, RunSource, RunState
from . import capacity, control, live, run_events, usage, workers

logger = logging.getLogger(__name__)


@transaction.atomic
def launch(user: AbstractBaseUser, experiment: Experiment) -> Run:
    """Run #n of ``experiment``, queued; the training task is sent once this commits.

    Refused (400) when no running worker can load its model or take a run of its size, and
    (409) when the team's quota does not allow another run now."""
    problem = workers.model_problem(experiment.config["model"], queue=jobs.queue_of(RUN_TRAINING))
    if problem:
        raise field_errors([("config.model", problem)], code="unavailable")
    too_large = capacity.launch_problems(cfg.parse(experiment.config))
    if too_large:
        raise field_errors(too_large, code="unavailable")
    usage.check_launch(experiment.team)
    Experiment.objects.select_for_update().filter(pk=experiment.pk).first()  # numbers in order
    last = experiment.runs.aggregate(last=Max("number"))["last"] or 0
    run = Run.objects.create(
        experiment=experiment,
        team_id=experiment.team_id,
        number=last + 1,
        created_by=user,
        max_steps=experiment.config["hyperparameters"]["max_steps"],
        budget=experiment.config.get("budget") or {},
    )
    record(user, "run.launched", run, team=experiment.team, changes={"number": run.number})
    jobs.send_on_commit(RUN_TRAINING, run.pk)
    live.run_changed(run)
    return run


def claim(run_id: int, worker: str) -> Run | None:
    """Take the run for ``worker``: queued, or running with a stale heartbeat (resumed).

    None when another worker holds it or it has finished: a re-delivered message is dropped.
    """
    now = timezone.now()
    stale = workers.stale_before(now)
    silent = Q(heartbeat_at__lt=stale) | Q(heartbeat_at=None)
    claimable = Q(state=RunState.QUEUED) | (Q(state=RunState.RUNNING) & silent)
    taken = (
        Run.objects.filter(pk=run_id, source=RunSource.PLATFORM)
        .filter(claimable)
        .update(
            state=RunState.RUNNING,
            worker=worker,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            started_at=Coalesce(F("started_at"), now),
        )
    )
    if not taken:
        logger.info("run.not_claimed", extra={"run_id": run_id, "worker": worker})
        return None
    run = Run.objects.select_related("experiment", "team").get(pk=run_id)
    logger.info("run.claimed", extra={"run_id": run_id, "worker": worker, "attempt": run.attempts})
    live.run_changed(run)
    return run


def held(run: Run) -> Q:
    """Rows still held by this attempt of ``run``."""
    return Q(pk=run.pk, state=RunState.RUNNING, attempts=run.attempts)


def heartbeat(run: Run, *, step: int | None = None, summary: dict | None = None) -> bool:
    """Refresh the heartbeat (and the step and summary); False when this attempt lost the run."""
    fields: dict = {"heartbeat_at": timezone.now()}
    if step is not None:
        fields["step"] = step
    if summary is not None:
        fields["summary"] = summary
    return bool(Run.objects.filter(held(run)).update(**fields))


def should_stop(run: Run) -> bool:
    """Cancel or pause was asked, or this attempt no longer holds the run."""
    fields = ("state", "attempts", "cancel_requested", "pause_requested")
    row = Run.objects.filter(pk=run.pk).values(*fields).first()
    if row is None:
        return True
    lost = row["state"] != RunState.RUNNING or row["attempts"] != run.attempts
    return lost or row["cancel_requested"] or row["pause_requested"]


def pausing(run: Run) -> bool:
    """This attempt holds the run and was asked to pause (not to cancel): it keeps its state."""
    held_rows = Run.objects.filter(held(run), pause_requested=True, cancel_requested=False)
    return held_rows.exists()


def pause_held(run: Run, *, log_tail: str) -> bool:
    """The worker stopped at a step boundary with a checkpoint: the run is paused and holds
    no worker; False when this attempt no longer held it."""
    done = Run.objects.filter(held(run), pause_requested=True).update(
        state=RunState.PAUSED,
        pause_requested=False,
        worker="",
        heartbeat_at=None,
        log_tail=log_tail,
    )
    if done:
        run.refresh_from_db()
        control.paused_at(run, run.step)
        live.run_changed(run)
    logger.info("run.paused", extra={"run_id": run.pk, "step": run.step, "applied": bool(done)})
    return bool(done)


def mark_resumed(run: Run, step: int) -> None:
    """Forget the rollouts the attempt that died recorded after ``step`` (they are recorded
    again, so no step is lost or duplicated), and note where this attempt resumed.

    Its metric points stay: sockets and charts already hold them, and no frame could take
    them back. This attempt writes those steps again, and ``metrics.write_points`` keeps a
    point whose value is the same and replaces one that changed, naming it as replaced."""
    Rollout.objects.filter(run=run, step__gt=step).delete()
    control.reapply_after(run, step)
    if run.attempts > 1:
        Run.objects.filter(held(run)).update(resumed_from_step=step, step=step)
        run.resumed_from_step, run.step = step, step
        run_events.resumed(run, step)


@transaction.atomic
def cancel(user: AbstractBaseUser, run: Run) -> Run:
    """A queued or paused run is cancelled at once; a running one stops at its next step
    boundary."""
    if run.state in (RunState.SUCCEEDED, RunState.FAILED):
        raise field_errors([("state", f"the run has already finished ({run.state})")])
    now = timezone.now()
    Run.objects.filter(pk=run.pk, state__in=[RunState.QUEUED, RunState.PAUSED]).update(
        state=RunState.CANCELLED,
        cancel_requested=True,
        finished_at=now,
        pause_requested=False,
    )
    Run.objects.filter(pk=run.pk, state=RunState.RUNNING).update(cancel_requested=True)
    # No worker stops an outside run at a step boundary: it is cancelled at once, and its
    # trainer's next batch of metrics is refused (409), which tells it to stop.
    Run.objects.filter(pk=run.pk, state=RunState.RUNNING, source=RunSource.EXTERNAL).update(
        state=RunState.CANCELLED, finished_at=now
    )
    run.refresh_from_db()
    record(user, "run.cancel_requested", run, team=run.team, changes={"state": run.state})
    live.run_changed(run)
    return run


def finish(run: Run, state: str, *, log_tail: str, failure_reason: str = "") -> bool:
    """Move this attempt's run to a final state; False when it was no longer this attempt's."""
    done = Run.objects.filter(held(run)).update(
        state=state,
        finished_at=timezone.now(),
        failure_reason=failure_reason,
        log_tail=log_tail,
        heartbeat_at=timezone.now(),
        pause_requested=False,
        pause_reason="",
    )
    logger.info("run.finished", extra={"run_id": run.pk, "state": state, "applied": bool(done)})
    if done:
        changed(run)
    return bool(done)


def fail(run: Run, reason: str, *, log_tail: str) -> bool:
    return finish(run, RunState.FAILED, log_tail=log_tail, failure_reason=reason)


def requeue(run: Run, *, log_tail: str, database_retry: bool = False) -> bool:
    """Give the run back to the queue (its worker is shutting down, or its database connection
    dropped); it resumes from its last checkpoint, here or elsewhere."""
    retries = {"database_retries": F("database_retries") + 1} if database_retry else {}
    back = Run.objects.filter(held(run)).update(
        state=RunState.QUEUED,
        worker="",
        heartbeat_at=None,
        queued_at=timezone.now(),
        log_tail=log_tail,
        **retries,
    )
    if back:
        jobs.send_on_commit(RUN_TRAINING, run.pk)
        changed(run)
    return bool(back)


def changed(run: Run) -> None:
    """Publish the run's state as the database now has it, to its socket and its team's."""
    run.refresh_from_db()
    live.run_changed(run)
