"""An experiment: a frozen, validated configuration that pins every version it uses."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class Experiment(models.Model):
    """Never edited in place: a change is a clone (``parent``) with its own configuration.

    ``config`` is the resolved configuration (see ``experiments.config``): the curriculum's
    families with their pool and verifier version ids, the model, the algorithm and its
    hyper-parameters, the evaluation sets, the seed and the number of processes.
    """

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    config = models.JSONField()
    config_hash = models.CharField(max_length=64)
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="children"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "-created_at"])]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not kwargs.pop("allow_update", False):
            raise RuntimeError(f"experiment {self.pk} is frozen: clone it to change it")
        super().save(*args, **kwargs)
