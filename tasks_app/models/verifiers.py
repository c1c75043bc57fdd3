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
    messages = models.JSONField(null=True, blank=True, default=None)
    """For a turn of an episode: the conversation up to and including that turn (chat shape,
    each assistant message with its verdict); null for a single response."""
    turn = models.PositiveIntegerField(null=True, blank=True)
    """The index in ``messages`` of the assistant turn whose verdict is labelled: the label
    says whether that turn was fine (good) or not (bad). Its verdict is the environment's, so
    the verifier's false-positive and false-negative rates leave it out."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    @property
    def audit_label(self) -> str:
        # Examples have no name: the log says whose example it was ("added an example to X").
        return self.verifier.name


class ExampleProposal(models.Model):
    """A response someone believes the verifier judged wrongly, proposed as a labelled example
    (known good if the verifier refused it, known bad if it passed it). The verifier's team
    editors accept it, and it becomes a ``LabelledExample``, or reject it.

    ``source`` says where the verdict was seen (``rollout:<id>`` for a run's completion,
    ``rollout:<id>/turn:<index>`` for one turn of an episode); a source is proposed once per
    verifier.
    """

    class Status(models.TextChoices):
        PROPOSED = "proposed"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    verifier = models.ForeignKey(Verifier, on_delete=models.CASCADE, related_name="proposals")
    version = models.ForeignKey(
        VerifierVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    """The version whose verdict is disputed."""
    response = models.TextField()
    expected = models.JSONField(default=dict, blank=True)
    label = models.CharField(max_length=4, choices=LabelledExample.Label.choices)
    judged_passed = models.BooleanField()
    judged_error_type = models.CharField(max_length=40, blank=True)
    judged_reward = models.FloatField(null=True, blank=True)
    note = models.CharField(max_length=300, blank=True)
    """The reviewer's reason."""
    messages = models.JSONField(null=True, blank=True, default=None)
    """For a flagged turn of an episode: the conversation up to and including that turn."""
    turn = models.PositiveIntegerField(null=True, blank=True)
    """The index in ``messages`` of the flagged assistant turn; null for a whole response."""
    source = models.CharField(max_length=120)
    source_label = models.CharField(max_length=200, blank=True)
    """Where it was seen, in words: ``Sort run #2, step 14, group 0, sample 3``."""
    source_path = models.CharField(max_length=300, blank=True)
    """The page that shows it, for a link."""
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PROPOSED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.CharField(max_length=300, blank=True)
    example = models.ForeignKey(
        LabelledExample, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    """The labelled example it became, once accepted."""

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["verifier", "source"], name="proposal_once_per_source")
        ]
        indexes = [models.Index(fields=["verifier", "status"])]

    @property
    def audit_label(self) -> str:
        return self.verifier.name
