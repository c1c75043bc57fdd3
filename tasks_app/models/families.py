"""Task families and their immutable, content-hashed pool versions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from .base import Immutable, TeamOwned


class TaskFamily(TeamOwned):
    """A kind of verifiable work (a registry kind) with its prompt and source settings."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60)
    kind = models.CharField(max_length=60, help_text="A registered family kind, e.g. 'arithmetic'.")
    description = models.TextField(blank=True)
    params = models.JSONField(
        default=dict, blank=True, help_text="Generator parameters of the kind."
    )
    prompt_template = models.TextField(
        blank=True, help_text="Overrides the kind's template when set."
    )
    held_out_fraction = models.FloatField(default=0.1)
    environment = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text=(
            "Null for a single-turn family; else how it is played as an environment: "
            '{"kind": <environment kind>, "limits": {"max_turns", "max_tokens_per_turn", '
            '"max_total_tokens"}} (tasks_app.environments.family_config).'
        ),
    )
    updated_at = models.DateTimeField(auto_now=True)
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when a family that something pins was removed: hidden and read-only.",
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["team", "slug"], name="family_slug_per_team"),
            models.UniqueConstraint(Lower("name"), "team", name="family_name_per_team"),
        ]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.slug}"

    @property
    def archived(self) -> bool:
        return self.archived_at is not None

    def latest_version(self) -> PoolVersion | None:
        return self.versions.order_by("-number").first()


class PoolVersion(Immutable):
    """An immutable snapshot of a family's tasks, with train / held-out splits by hash."""

    class Source(models.TextChoices):
        GENERATOR = "generator", "Procedural generator"
        UPLOAD = "upload", "Uploaded file"
        DATASET = "dataset", "Bundled dataset"
        EDIT = "edit", "Edit of a previous version"
        GRADING = "grading", "Measured difficulty"

    family = models.ForeignKey(TaskFamily, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    content_hash = models.CharField(max_length=64, db_index=True)
    source = models.CharField(max_length=20, choices=Source.choices)
    source_detail = models.JSONField(default=dict, blank=True)
    held_out_fraction = models.FloatField()
    environment = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text=(
            "The family's environment when the version was made, frozen with it: what runs, "
            "resumes and evaluations of this version play its tasks in (null: single-turn)."
        ),
    )
    task_count = models.PositiveIntegerField()
    train_count = models.PositiveIntegerField()
    held_out_count = models.PositiveIntegerField()
    difficulty_histogram = models.JSONField(default=dict, help_text="{split: {level: count}}")
    dedup = models.JSONField(default=dict, help_text="Counts and the first removed rows.")
    diff = models.JSONField(default=dict, help_text="Against the parent version.")
    note = models.CharField(max_length=300, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["family", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["family", "number"], name="one_number_per_family_version"
            )
        ]

    def __str__(self) -> str:
        return f"{self.family.slug} v{self.number}"

    @property
    def audit_label(self) -> str:
        return f"{self.family.name} v{self.number}"


class Split(models.TextChoices):
    TRAIN = "train", "Train"
    HELD_OUT = "held_out", "Held out"


class PoolTask(models.Model):
    """One task inside one version (rows are written once, with their version)."""

    version = models.ForeignKey(PoolVersion, on_delete=models.CASCADE, related_name="tasks")
    position = models.PositiveIntegerField()
    content_hash = models.CharField(max_length=64)
    prompt = models.TextField()
    expected = models.JSONField()
    difficulty = models.PositiveSmallIntegerField()
    split = models.CharField(max_length=10, choices=Split.choices)
    source_id = models.CharField(max_length=200, blank=True)
    meta = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["version", "position"]
        indexes = [
            models.Index(fields=["version", "split", "difficulty"], name="pooltask_sampling")
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "content_hash"], name="task_once_per_version"
            )
        ]


class PoolJob(models.Model):
    """A background job over a version (measured difficulty grading) and its progress."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    version = models.ForeignKey(PoolVersion, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=30, default="grade")
    params = models.JSONField(default=dict)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0)
    message = models.TextField(blank=True)
    result_version = models.ForeignKey(
        PoolVersion, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @property
    def audit_label(self) -> str:
        # The log names a job by the version it works on ("started grading Arithmetic v2").
        return self.version.audit_label
