"""A team's thresholds for the reward-hacking and drift signals (``experiments.health``)."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models
from django.utils import timezone


class HealthSettings(models.Model):
    """What a team changed from the default thresholds; no row means the defaults."""

    team = models.OneToOneField(
        "accounts.Team", on_delete=models.CASCADE, related_name="health_settings"
    )
    settings = models.JSONField(default=dict)
    """``experiments.health.settings_dict``: every threshold and each signal's
    ``pause_on_breach`` and ``enabled``."""
    updated_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"health thresholds of {self.team}"
