"""Workers advertise, with their heartbeat, the queues they serve and the models they can load."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Worker(models.Model):
    name = models.CharField(max_length=200, unique=True)
    """Celery's node name (``celery@host``)."""
    queues = models.JSONField(default=list)
    loadable = models.JSONField(default=list)
    """``[{"name", "path", "builtin", "parameters"}]``: what a run on this worker can load."""
    devices = models.JSONField(default=dict)
    """``{"cuda": n, "cpu": cores, "names": [...]}``."""
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    heartbeat_at = models.DateTimeField(default=timezone.now)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
