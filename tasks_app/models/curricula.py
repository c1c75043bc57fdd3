"""Curricula: which families and difficulties training samples, and how that shifts."""

from __future__ import annotations

from django.db import models

from .base import TeamOwned


class Curriculum(TeamOwned):
    """A curriculum config over pinned family versions.

    The config is validated by ``tasks_app.curriculum``; each edit bumps ``revision`` and is
    audited, and an experiment copies the resolved config when it launches.
    """

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60)
    description = models.TextField(blank=True)
    config = models.JSONField()
    revision = models.PositiveIntegerField(default=1)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "slug"], name="curriculum_slug_per_team")
        ]
