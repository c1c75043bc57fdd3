"""The model registry: named models of a team, their numbered versions and their aliases.

A version is a checkpoint (or a base model of the catalogue, for a baseline) frozen at
registration with its lineage (run, experiment, pool and verifier versions, promotion) and
the prompt format it was trained with, so serving can be checked against it. An alias
(``production``, ``candidate``...) points at one version of its model.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class RegisteredModel(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["team", "name"], name="registered_model_name_per_team")
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def audit_label(self) -> str:
        return f"model {self.name}"


class ModelVersion(models.Model):
    model = models.ForeignKey(RegisteredModel, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    """1, 2, ... within its model."""
    checkpoint = models.ForeignKey(
        "experiments.Checkpoint",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="model_versions",
    )
    """The registered checkpoint; null for a base model, or once the checkpoint is gone (the
    lineage still says what it was)."""
    base_model = models.CharField(max_length=300, blank=True)
    """The catalogue name of a base model registered as a baseline; blank for a checkpoint."""
    lineage = models.JSONField(default=dict)
    """Run, experiment, config hash, pool and verifier versions and promotion, frozen."""
    format = models.JSONField(default=dict)
    """The prompt format it was trained with (``experiments.model_format.ModelFormat``)."""
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["model", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["model", "number"], name="model_version_number")
        ]

    def __str__(self) -> str:
        return f"{self.model.name} v{self.number}"

    @property
    def audit_label(self) -> str:
        return f"model {self.model.name} v{self.number}"


class ModelAlias(models.Model):
    """A name (``production``, ``candidate``) for one version of a model; moving it is audited."""

    model = models.ForeignKey(RegisteredModel, on_delete=models.CASCADE, related_name="aliases")
    alias = models.SlugField(max_length=60)
    version = models.ForeignKey(ModelVersion, on_delete=models.CASCADE, related_name="aliases")
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["alias"]
        constraints = [models.UniqueConstraint(fields=["model", "alias"], name="model_alias_once")]
