"""A pre-flight: the chosen model sampled on a slice of each family's pool before a run."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class PreflightState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class PreflightReport(models.Model):
    """What sampling the model on the experiment's pools predicts: per family and level, the
    pass rate, the share of groups without learning signal, the verifier's latency and error
    types, and warnings (``experiments.preflight``).

    It belongs to a configuration (``config_hash``): run from the wizard before the experiment
    exists, it is attached to the experiment created with that configuration.
    """

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    experiment = models.ForeignKey(
        "experiments.Experiment",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="preflights",
    )
    config = models.JSONField()
    """The canonical configuration it sampled (``experiments.config``)."""
    config_hash = models.CharField(max_length=64)
    tasks_per_level = models.PositiveIntegerField()
    state = models.CharField(
        max_length=16, choices=PreflightState.choices, default=PreflightState.QUEUED
    )
    progress = models.FloatField(default=0.0)
    """0 to 1: the share of the sampled tasks generated and verified."""
    message = models.CharField(max_length=500, blank=True)
    result = models.JSONField(default=dict)
    """``experiments.preflight.report``'s shape; empty until it succeeds."""
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "config_hash"])]

    @property
    def audit_label(self) -> str:
        return f"pre-flight {self.pk}"
