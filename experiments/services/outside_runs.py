"""Outside runs: a trainer outside the platform (a TRL script with ``CrucibleCallback``)
creates its run, streams metrics into it through the ingest endpoint, and finishes it.

No worker claims an outside run: it starts running, the reaper and the queue's resender
leave it alone (they look at platform runs only), and only its trainer or a person ends it.

Resuming (``resume``): the trainer continues a run it started, after a crash or from its own
checkpoint. A finished run is running again; the steps it sends again follow the ingest
rule for any point: one stored with the same value is left as it is (not duplicated), one
with a different value replaces it and is marked as replaced for viewers.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from operator import or_
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from crucible.accounts.models import Team
from crucible.accounts.services import record
from crucible.api.field_errors import field_errors

from ..ingest import Point
from ..models import Experiment, MetricPoint, Run, RunEventKind, RunSource, RunState
from ..models.runs import FINISHED_STATES
from . import health, live, run_events, run_hooks

logger = logging.getLogger(__name__)

FINAL_STATES = {
    "finished": RunState.SUCCEEDED,
    "failed": RunState.FAILED,
    "killed": RunState.CANCELLED,
}
"""What a trainer says when it ends (MLflow's words) and the run state it becomes."""


@dataclass(frozen=True)
class OutsideRun:
    """What a trainer says of the run it starts (checked by the API's serializer)."""

    name: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    notes: str = ""
    base_model: str = ""
    experiment: Experiment | None = None
    max_steps: int = 0


@transaction.atomic
def create(user: AbstractBaseUser, team: Team, spec: OutsideRun) -> Run:
    """A running outside run in ``team``, numbered after its experiment's runs (or, with no
    experiment, after the team's other outside runs without one)."""
    if spec.experiment is not None and spec.experiment.team_id != team.pk:
        raise field_errors([("experiment", "no such experiment in this team")])
    now = timezone.now()
    run = Run.objects.create(
        experiment=spec.experiment,
        team=team,
        number=_next_number(team, spec.experiment),
        source=RunSource.EXTERNAL,
        state=RunState.RUNNING,
        name=spec.name,
        params=spec.params,
        tags=spec.tags,
        notes=spec.notes,
        base_model=spec.base_model,
        max_steps=spec.max_steps,
        created_by=user,
        created_at=now,
        started_at=now,
        heartbeat_at=now,
    )
    record(user, "run.created_outside", run, team=team, changes={"number": run.number})
    logger.info("run.created_outside", extra={"run_id": run.pk, "team": team.slug})
    transaction.on_commit(lambda: live.run_changed(run))
    return run


def _next_number(team: Team, experiment: Experiment | None) -> int:
    if experiment is not None:
        Experiment.objects.select_for_update().filter(pk=experiment.pk).first()
        return (experiment.runs.aggregate(last=Max("number"))["last"] or 0) + 1
    Team.objects.select_for_update().filter(pk=team.pk).first()  # numbers in order
    rows = Run.objects.filter(team=team, experiment=None)
    return (rows.aggregate(last=Max("number"))["last"] or 0) + 1


def refuse_platform(run: Run, action: str) -> None:
    if not run.external:
        why = f"only an outside run is {action} by its trainer; a platform run's worker does it"
        raise field_errors([("source", why)], code="platform_run")


@transaction.atomic
def resume(user: AbstractBaseUser, run: Run, tags: Mapping[str, str] | None = None) -> Run:
    """The trainer continues ``run`` (see the module's note on repeated steps)."""
    refuse_platform(run, "resumed")
    was = run.state
    Run.objects.filter(pk=run.pk).update(
        state=RunState.RUNNING,
        finished_at=None,
        failure_reason="",
        heartbeat_at=timezone.now(),
        attempts=run.attempts + 1,
        resumed_from_step=run.step,
        tags={**(run.tags or {}), **(tags or {})},
    )
    run.refresh_from_db()
    why = f"its trainer resumed it at step {run.step}" + (f" (it was {was})" if was != "running" else "")
    run_events.happened(run, RunEventKind.RESUME, run.step, why)
    record(user, "run.resumed_outside", run, team=run.team, changes={"from_state": was})
    transaction.on_commit(lambda: live.run_changed(run))
    return run


@transaction.atomic
def finish(user: AbstractBaseUser, run: Run, status: str, reason: str = "") -> Run:
    """End the outside run as its trainer says: finished, failed or killed. Finishing a run
    again with the state it has is a no-op (a retried request); another state is refused."""
    refuse_platform(run, "finished")
    state = FINAL_STATES[status]
    if run.state in FINISHED_STATES:
        if run.state == state:
            return run
        why = f"the run has already ended ({run.state}); resume it to run it again"
        raise field_errors([("status", why)], code="run_finished")
    Run.objects.filter(pk=run.pk, state=RunState.RUNNING).update(
        state=state,
        finished_at=timezone.now(),
        failure_reason=reason if state == RunState.FAILED else "",
        heartbeat_at=timezone.now(),
    )
    run.refresh_from_db()
    record(user, "run.finished_outside", run, team=run.team, changes={"state": run.state})
    transaction.on_commit(lambda: live.run_changed(run))
    if run.state == state:
        health.check(run, run.step, last=True)
        if state == RunState.SUCCEEDED:
            # As for a platform run: its experiment's final evaluation of its last checkpoint
            # (a checkpoint uploaded later calls this again, ``checkpoint_uploads.complete``).
            transaction.on_commit(lambda: run_hooks.run_succeeded(run))
    return run


def ingested(run: Run, points: Sequence[Point]) -> None:
    """After points were written to an outside run: its summary takes each key's value at
    its highest step, its step counter the highest step, and its health signals are checked
    when due. A platform run's worker keeps these itself."""
    if not run.external or not points:
        return
    keys = sorted({p.key for p in points})
    last_steps = (
        MetricPoint.objects.filter(run=run, key__in=keys)
        .values("key")
        .annotate(last=Max("step"))
        .values_list("key", "last")
    )
    clauses = [Q(key=key, step=step) for key, step in last_steps]
    latest = MetricPoint.objects.filter(reduce(or_, clauses), run=run).values_list("key", "value")
    with transaction.atomic():
        row = Run.objects.select_for_update().get(pk=run.pk)
        summary = {**(row.summary or {}), **dict(latest)}
        step = max(row.step, max(p.step for p in points))
        Run.objects.filter(pk=run.pk).update(summary=summary, step=step, heartbeat_at=timezone.now())
    run.refresh_from_db()
    if health.check(run, run.step) is None:
        live.run_changed(run)
