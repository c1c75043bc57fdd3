"""A run's events as rows: what people did to it (``control``) and what befell it (a lost
worker, a resumption from a checkpoint), for the audit trail and the charts' markers."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone

from ..models import Run, RunEvent, RunEventKind
from . import live


def record(
    run: Run, kind: str, *, user: AbstractBaseUser | None = None, reason: str = "", **fields: Any
) -> RunEvent:
    """Store the event (asked for at the run's current step) and tell the run's sockets."""
    fields.setdefault("requested_at_step", run.step)
    event = RunEvent.objects.create(
        run=run,
        kind=kind,
        reason=reason,
        created_by=user if user is not None and user.is_authenticated else None,
        **fields,
    )
    live.events_changed(run)
    return event


def happened(run: Run, kind: str, step: int, reason: str) -> RunEvent:
    """Something that took effect at ``step`` on its own, not at anyone's request."""
    return record(
        run, kind, reason=reason, requested_at_step=step, applied_at_step=step,
        applied_at=timezone.now(),
    )  # fmt: skip


def worker_lost(run: Run, worker: str) -> RunEvent:
    """The run's worker went silent at its last reported step; the run is queued again."""
    why = f"no heartbeat from {worker or 'its worker'}; the run was queued again"
    return happened(run, RunEventKind.WORKER_LOST, run.step, why)


def resumed(run: Run, step: int) -> RunEvent | None:
    """A new attempt resumed from ``step``; not recorded after a person's resume, whose own
    event already marks it."""
    last = run.events.order_by("-id").values_list("kind", flat=True).first()
    if last == RunEventKind.RESUME:
        return None
    return happened(run, RunEventKind.RECOVERED, step, f"resumed from step {step}")
