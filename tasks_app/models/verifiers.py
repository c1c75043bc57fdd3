"""Verifiers, their immutable versions (a canonical spec + hash) and labelled examples."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .base import Immutable, TeamOwned


class Verifier(TeamOwned):
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60)
    description = models.TextField(blank=True)
    family_kind = models.CharField(
        max_length=60, blank=True, help_text="The kind it was made for, if any."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "slug"], name="verifier_slug_per_team")
        ]

    def latest_version(self) -> VerifierVersion | None:
        return self.versions.order_by("-number").first()


class VerifierVersion(Immutable):
    verifier = models.ForeignKey(Verifier, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    spec = models.JSONField(help_text="The canonical layered spec.")
    spec_hash = models.CharField(max_length=64, db_index=True)
    note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["verifier", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["verifier", "number"], name="one_number_per_verifier_version"
            )
        ]

    @property
    def audit_label(self) -> str:
        return f"{self.verifier.name} v{self.number}"


class LabelledExample(models.Model):
    """A response with a known verdict; the platform reports FP/FN rates of versions on them."""

    class Label(models.TextChoices):
        GOOD = "good", "Known good"
        BAD = "bad", "Known bad"

    verifier = models.ForeignKey(Verifier, on_delete=models.CASCADE, related_name="examples")
    response = models.TextField()
    expected = models.JSONField(default=dict, blank=True)
    label = models.CharField(max_length=4, choices=Label.choices)
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    @property
    def audit_label(self) -> str:
        # Examples have no name: the log says whose example it was ("added an example to X").
        return self.verifier.name
