"""What people (and budgets) did to a run while it trained: pauses, resumes, curriculum edits;
and what happened to it: a lost worker, a resumption from a checkpoint."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class RunEventKind(models.TextChoices):
    CURRICULUM = "curriculum"
    """A change of the curriculum's distributions, mixture weights or target band."""
    PAUSE = "pause"
    RESUME = "resume"
    BUDGET = "budget"
    """The run crossed its budget and paused itself."""
    HEALTH = "health"
    """A reward-hacking or drift signal breached (and paused the run if the team asked)."""
    WORKER_LOST = "worker_lost"
    """The run's heartbeat went silent: its worker was taken for dead and the run re-queued."""
    RECOVERED = "recovered"
    """A later attempt took the run and resumed from its last checkpoint's step."""


class RunEvent(models.Model):
    """One control action on a run, kept for the audit trail and the charts' markers.

    A curriculum change waits (``applied_at_step`` null) until the worker applies it at its
    next step boundary; the charts mark it at the step after which it took effect.
    """

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey("experiments.Run", on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=16, choices=RunEventKind.choices)
    change = models.JSONField(default=dict, blank=True)
    """A curriculum change: ``{"band": [low, high], "families": {name: {"weight",
    "distribution"}}}``; a budget raised on resume: ``{"budget": {...}}``."""
    reason = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    requested_at_step = models.PositiveIntegerField(default=0)
    """The run's step when the action was asked for."""
    applied_at_step = models.PositiveIntegerField(null=True, blank=True)
    """The step after which it took effect; null while a change waits for the worker."""
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["run", "id"], name="run_event_run_seq")]
