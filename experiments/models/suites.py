"""Evaluation suites: a team's saved, named set of held-out families and evaluation settings.

An evaluation job may be started from a suite (it copies the suite's families and settings
and records where they came from), and an experiment may name one in ``eval.suite``: its
in-training evaluation uses the suite's families, and a successful run ends with an
evaluation of its final checkpoint on the suite.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class EvaluationSuite(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    families = models.JSONField()
    """``[{"family", "pool_version", "version_number", "verifier_version", "threshold_pts"}]``,
    as an evaluation job stores them."""
    k = models.PositiveIntegerField()
    """Samples per held-out task."""
    temperature = models.FloatField()
    max_new_tokens = models.PositiveIntegerField()
    max_tasks = models.PositiveIntegerField()
    """Held-out tasks per family, at most (the first ones, in pool order)."""
    seed = models.IntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="evaluation_suite_name_per_team")
        ]

    @property
    def audit_label(self) -> str:
        return f"evaluation suite {self.name!r}"
