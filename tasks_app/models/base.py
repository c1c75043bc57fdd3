"""Shared model pieces: team ownership and immutability of frozen rows."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class TeamOwned(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        abstract = True


class FrozenError(RuntimeError):
    """An immutable row (a pinned version) was about to be edited in place."""


class Immutable(models.Model):
    """Rows that experiments pin: created once, never updated or deleted while referenced."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not kwargs.pop("allow_update", False):
            raise FrozenError(
                f"{self._meta.verbose_name} {self.pk} is immutable; make a new version"
            )
        super().save(*args, **kwargs)
