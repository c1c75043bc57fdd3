"""A checkpoint an outside run uploads, a file at a time in chunks, before it becomes a
``Checkpoint`` like one a worker saved."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class UploadState(models.TextChoices):
    OPEN = "open"
    """Taking chunks; what each file has received is on disk (resume from there)."""
    COMPLETE = "complete"
    """Every file arrived whole and checked, and the directory loads: ``checkpoint`` is set."""


class CheckpointUpload(models.Model):
    run = models.ForeignKey("experiments.Run", on_delete=models.CASCADE, related_name="uploads")
    step = models.PositiveIntegerField()
    """The step the checkpoint was saved at: its ``Checkpoint.step``."""
    files = models.JSONField()
    """``[{"path", "size", "sha256"}]``: the model directory's files, declared up front."""
    total_bytes = models.BigIntegerField()
    state = models.CharField(max_length=16, choices=UploadState.choices, default=UploadState.OPEN)
    checkpoint = models.ForeignKey(
        "experiments.Checkpoint", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
