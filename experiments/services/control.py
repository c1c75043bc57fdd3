"""Live control of a run: pause, resume, and curriculum changes applied between steps.

Pausing (what a user of a shared GPU pool expects): the worker stops at its next step
boundary, saves a checkpoint and gives its worker back, so a paused run holds no GPU and
does not count against the team's concurrent runs; resuming queues it again and a worker
continues it from that checkpoint. A queued run pauses at once. A failed run that has a
checkpoint resumes the same way (it failed on something since put right: a lost database, a
budget, a pinned version restored).

A curriculum change (distributions, mixture weights, target band) is checked against the
run's curriculum as earlier changes left it (``tasks_app.curriculum.change_problems``), kept
as a ``RunEvent`` and audited; the worker takes it at its next step boundary
(``pending_changes``) and the run's sampler keeps it in its checkpoints. When a run resumes
from a checkpoint older than a change, the change is handed out again (``reapply_after``).
Every event reaches the run's page live (``live.events_changed``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from crucible import jobs
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors
from tasks_app import curriculum as policy
from tasks_app.services import pinning

from .. import config as cfg
from ..jobs import RUN_TRAINING
from ..models import Run, RunEvent, RunEventKind, RunState
from ..models.runs import FINISHED_STATES
from . import live, run_events, usage

logger = logging.getLogger(__name__)


def _refuse_finished(run: Run, action: str) -> None:
    if run.state in FINISHED_STATES:
        why = f"the run has finished ({run.state}): there is nothing to {action}"
        raise field_errors([("state", why)], code="finished")


def _refuse_outside(run: Run, action: str) -> None:
    # An outside run's trainer runs elsewhere: nothing here can pause it or steer its
    # curriculum, and a queued outside run would wait for a worker that never takes it.
    if run.external:
        why = f"an outside run cannot {action} here: its trainer runs elsewhere"
        raise field_errors([("source", why)], code="outside_run")


def _event(
    user: AbstractBaseUser | None, run: Run, kind: str, *, reason: str = "", **fields: Any
) -> RunEvent:
    return run_events.record(run, kind, user=user, reason=reason, **fields)


# --- pause and resume -------------------------------------------------------------------------


@transaction.atomic
def pause(user: AbstractBaseUser, run: Run) -> Run:
    """A queued run pauses at once; a running one at its next step boundary, with a checkpoint."""
    _refuse_outside(run, "be paused")
    _refuse_finished(run, "pause")
    if run.state == RunState.PAUSED or run.pause_requested:
        raise field_errors([("state", "the run is already paused or pausing")], code="paused")
    reason = f"Paused by {user.get_username()}."
    now = timezone.now()
    at_once = Run.objects.filter(pk=run.pk, state=RunState.QUEUED).update(
        state=RunState.PAUSED, pause_reason=reason
    )
    if not at_once:
        Run.objects.filter(pk=run.pk, state=RunState.RUNNING).update(
            pause_requested=True, pause_reason=reason
        )
    run.refresh_from_db()
    applied = {"applied_at_step": run.step, "applied_at": now} if at_once else {}
    _event(user, run, RunEventKind.PAUSE, reason=reason, **applied)
    record(user, "run.pause_requested", run, team=run.team, changes={"state": run.state})
    live.run_changed(run)
    return run


def _refuse_unresumable(run: Run) -> None:
    if run.state == RunState.FAILED:
        if not run.checkpoints.exists():
            why = "the run failed before its first checkpoint: launch it again instead"
            raise field_errors([("state", why)], code="finished")
        return
    _refuse_finished(run, "resume")
    if run.state != RunState.PAUSED and not run.pause_requested:
        raise field_errors([("state", f"the run is not paused ({run.state})")], code="not_paused")


@transaction.atomic
def resume(user: AbstractBaseUser, run: Run, budget: dict[str, Any] | None = None) -> Run:
    """Queue a paused run (or a failed one with a checkpoint) again: it continues from its
    last checkpoint; or take back a pause the worker has not reached yet. ``budget`` replaces
    the run's budget first (raise it to resume a run that ran out of it); the team's quotas
    apply as at launch."""
    _refuse_outside(run, "be resumed (its trainer resumes it)")
    _refuse_unresumable(run)
    new_budget = run.budget if budget is None else usage.checked_budget(budget)
    usage.refuse_over_budget(run, new_budget)
    waiting = [RunState.PAUSED, RunState.FAILED]
    if run.state in waiting:
        usage.check_launch(run.team)
    queued = Run.objects.filter(pk=run.pk, state__in=waiting).update(
        state=RunState.QUEUED,
        pause_reason="",
        pause_requested=False,
        budget=new_budget,
        queued_at=timezone.now(),
        finished_at=None,
        failure_reason="",
        database_retries=0,
    )
    if not queued:
        Run.objects.filter(pk=run.pk, state=RunState.RUNNING).update(
            pause_requested=False, pause_reason="", budget=new_budget
        )
    run.refresh_from_db()
    change = {"budget": new_budget} if budget is not None else {}
    _event(
        user,
        run,
        RunEventKind.RESUME,
        change=change,
        applied_at_step=run.step,
        applied_at=timezone.now(),
    )
    # The waiting pause is withdrawn, not applied.
    RunEvent.objects.filter(run=run, kind=RunEventKind.PAUSE, applied_at_step=None).delete()
    record(user, "run.resumed", run, team=run.team, changes={"state": run.state, **change})
    if queued:
        jobs.send_on_commit(RUN_TRAINING, run.pk)
    live.run_changed(run)
    return run


def over_budget(run: Run, why: str) -> bool:
    """The worker found the run over its budget: it pauses at the next step boundary."""
    asked = Run.objects.filter(pk=run.pk, state=RunState.RUNNING, pause_requested=False).update(
        pause_requested=True, pause_reason=why
    )
    if asked:
        run.refresh_from_db()
        _event(None, run, RunEventKind.BUDGET, reason=why)
        logger.info("run.over_budget", extra={"run_id": run.pk, "why": why})
        live.run_changed(run)
    return bool(asked)


def signal_breached(run: Run, step: int, reason: str, change: dict[str, Any], pause: bool) -> bool:
    """A health signal breached at ``step``: an event marks it on the charts and, when
    ``pause``, the run pauses at the next step boundary with ``reason`` (True if it will)."""
    asked = pause and Run.objects.filter(
        pk=run.pk, state=RunState.RUNNING, pause_requested=False
    ).update(pause_requested=True, pause_reason=reason)
    run.refresh_from_db()
    # A pausing breach takes effect where the worker stops (``paused_at``); the others now.
    applied = {} if asked else {"applied_at_step": step, "applied_at": timezone.now()}
    _event(None, run, RunEventKind.HEALTH, reason=reason, change=change, **applied)
    record(
        None, "run.signal_breached", run, team=run.team, changes={**change, "paused": bool(asked)}
    )
    logger.info("run.signal_breached", extra={"run_id": run.pk, "step": step, **change})
    if asked:
        live.run_changed(run)
    return bool(asked)


def paused_at(run: Run, step: int) -> None:
    """The worker paused the run after ``step``: its waiting pause (budget, signal) event applies."""
    kinds = [RunEventKind.PAUSE, RunEventKind.BUDGET, RunEventKind.HEALTH]
    RunEvent.objects.filter(run=run, kind__in=kinds, applied_at_step=None).update(
        applied_at_step=step, applied_at=timezone.now()
    )
    live.events_changed(run)


# --- curriculum changes --------------------------------------------------------------------------


def current_curriculum(run: Run) -> policy.CurriculumConfig:
    """The run's curriculum config with every change made so far (applied or waiting)."""
    _refuse_outside(run, "have its curriculum read or changed")
    spec = cfg.parse(run.experiment.config).curriculum
    config, _ = pinning.resolve_in_team(run.team, spec.saved_form())
    for change in run.events.filter(kind=RunEventKind.CURRICULUM).values_list("change", flat=True):
        config = policy.changed_config(config, change)
    return config


@transaction.atomic
def change_curriculum(user: AbstractBaseUser, run: Run, change: Any) -> RunEvent:
    """Keep ``change`` for the worker to apply at its next step boundary; a 400 naming the
    field when the run's curriculum cannot take it."""
    Run.objects.select_for_update().filter(pk=run.pk).first()  # changes check against the last
    run.refresh_from_db()
    _refuse_finished(run, "change")
    problems = policy.change_problems(current_curriculum(run), change)
    if problems:
        raise field_errors((path or "non_field_errors", why) for path, why in problems)
    event = _event(user, run, RunEventKind.CURRICULUM, change=change)
    record(user, "run.curriculum_changed", run, team=run.team, changes={"change": change})
    return event


def pending_changes(run: Run, step: int) -> list[dict[str, Any]]:
    """The waiting curriculum changes, in order, marked applied after ``step`` (the worker
    hands them to its sampler straight away)."""
    waiting = list(
        run.events.filter(kind=RunEventKind.CURRICULUM, applied_at_step=None).order_by("id")
    )
    if not waiting:
        return []
    RunEvent.objects.filter(pk__in=[e.pk for e in waiting], applied_at_step=None).update(
        applied_at_step=step, applied_at=timezone.now()
    )
    live.events_changed(run)
    logger.info(
        "run.changes_applied", extra={"run_id": run.pk, "step": step, "count": len(waiting)}
    )
    return [e.change for e in waiting]


def reapply_after(run: Run, step: int) -> None:
    """A resume from the checkpoint of ``step``: changes applied at or after it are not in
    that checkpoint's state, so they wait to be applied again at the same boundary."""
    again = RunEvent.objects.filter(
        run=run, kind=RunEventKind.CURRICULUM, applied_at_step__gte=step
    )
    if again.update(applied_at_step=None, applied_at=None):
        live.events_changed(run)


def events(run: Run) -> list[RunEvent]:
    return list(run.events.select_related("created_by").order_by("id"))


def describe(event: RunEvent) -> str:
    """The event in a few words, for the charts' markers and the audit list."""
    if event.kind == RunEventKind.HEALTH:
        return f"Signal: {event.change.get('label', 'health')} breached"
    if event.kind != RunEventKind.CURRICULUM:
        return {
            "pause": "Paused",
            "resume": "Resumed",
            "budget": "Over budget",
            "worker_lost": "Worker lost, re-queued",
            "recovered": f"Resumed from step {event.applied_at_step}",
        }[event.kind]
    parts = []
    if "band" in event.change:
        low, high = event.change["band"]
        parts.append(f"band {low:g}–{high:g}")
    for name, fam in event.change.get("families", {}).items():
        if "weight" in fam:
            parts.append(f"{name} weight {fam['weight']:g}")
        if "distribution" in fam:
            total = sum(fam["distribution"]) or 1
            shares = "/".join(f"{100 * v / total:.0f}" for v in fam["distribution"])
            parts.append(f"{name} levels {shares}%")
    return "; ".join(parts)
