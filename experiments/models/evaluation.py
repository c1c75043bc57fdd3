"""Evaluation jobs, their per-task results, the reports that compare two of them, and review.

A job evaluates one model (a checkpoint, or a base model of the catalogue) on the held-out
split of chosen pool versions with chosen verifier versions, k samples per task. A report
freezes the comparison of a candidate job with a baseline job (``experiments.stats``); once
it enters review its figures never change: evaluating again makes a new report version.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class EvaluationState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class EvaluationJob(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    checkpoint = models.ForeignKey(
        "experiments.Checkpoint",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="evaluations",
    )
    model = models.CharField(max_length=300, blank=True)
    """The catalogue name of a base model; blank when a checkpoint is evaluated."""
    subject = models.CharField(max_length=300)
    """What was evaluated, in words ("run 3 of sort-grpo, step 40"); kept if the checkpoint goes."""
    families = models.JSONField()
    """``[{"family", "pool_version", "verifier_version", "threshold_pts"}]``: what is evaluated."""
    k = models.PositiveIntegerField()
    temperature = models.FloatField()
    max_new_tokens = models.PositiveIntegerField()
    max_tasks = models.PositiveIntegerField()
    """Held-out tasks per family, at most (the first ones, in pool order)."""
    seed = models.IntegerField(default=0)
    prompt_format = models.JSONField(null=True, blank=True)
    """``training.prompting.PromptFormat``'s plain data: how each task became model input and
    where the answer starts. Null for a job from before it was chosen: its checkpoint's run's
    format, raw for a base model."""
    suite = models.ForeignKey(
        "experiments.EvaluationSuite",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="jobs",
    )
    """The suite its families and settings were copied from; null for an ad-hoc job."""
    state = models.CharField(
        max_length=16, choices=EvaluationState.choices, default=EvaluationState.QUEUED
    )
    progress = models.FloatField(default=0.0)
    message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["team", "-created_at"])]

    @property
    def audit_label(self) -> str:
        return self.subject


class EvaluationResult(models.Model):
    """One held-out task of one job: how many of its k samples passed, and why the rest failed."""

    id = models.BigAutoField(primary_key=True)
    job = models.ForeignKey(EvaluationJob, on_delete=models.CASCADE, related_name="results")
    family = models.CharField(max_length=120)
    pool_version = models.PositiveIntegerField()
    task_hash = models.CharField(max_length=64)
    difficulty = models.IntegerField(default=0)
    passes = models.PositiveIntegerField()
    k = models.PositiveIntegerField()
    errors = models.JSONField(default=dict)
    """Failed samples by ``<stage>/<error type>`` of the first failing verifier layer."""
    episodes = models.JSONField(null=True, blank=True)
    """A family played as an environment: the task's turn budget, its k episodes (each: passed,
    turns used, tokens, turn and tool errors, why it ended) and their agreement
    (``training.evaluation.EpisodeBatch.task_episodes``); null for a single-turn family."""

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["job", "pool_version", "task_hash"], name="evaluation_result_per_task"
            )
        ]


class ReportState(models.TextChoices):
    DRAFT = "draft"
    IN_REVIEW = "in_review"
    APPROVED = "approved"
    CHANGES_REQUESTED = "changes_requested"


class EvaluationReport(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(EvaluationJob, on_delete=models.PROTECT, related_name="+")
    baseline = models.ForeignKey(EvaluationJob, on_delete=models.PROTECT, related_name="+")
    lineage = models.CharField(max_length=200)
    """Candidate and baseline subjects: the reports of one comparison, numbered by ``version``."""
    version = models.PositiveIntegerField()
    headline = models.CharField(max_length=1000)
    figures = models.JSONField()
    """Families, headline and both profiles, frozen when the report is made."""
    state = models.CharField(max_length=20, choices=ReportState.choices, default=ReportState.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["team", "lineage", "version"], name="report_version_per_lineage"
            )
        ]

    @property
    def audit_label(self) -> str:
        return f"{self.lineage} v{self.version}"


def default_approver_roles() -> list[str]:
    """Who reviews by default: the roles that could make and submit the report themselves."""
    return ["editor", "admin"]


class ReviewPolicy(models.Model):
    """A team's review rule; a team without a row uses the defaults."""

    team = models.OneToOneField("accounts.Team", on_delete=models.CASCADE, related_name="+")
    required_approvals = models.PositiveIntegerField(default=1)
    authors_may_approve = models.BooleanField(default=False)
    """Off by default: a review is a second pair of eyes, not the author's own."""
    approver_roles = models.JSONField(default=default_approver_roles)
    """The team roles whose decisions count (``Role`` values); viewers only comment by default."""


REPORT_CHARTS = {
    "success_by_level": "Success by difficulty",
    "error_types": "Error types by layer",
    "pass_at_k": "pass@1 against pass@k",
    "worst_tasks": "Long tail",
    "stability": "Stability over turns",
    "signals": "Reward-hacking and drift signals",
}
"""The report's plots a comment can be about, and their titles."""


class ReportComment(models.Model):
    report = models.ForeignKey(EvaluationReport, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    family = models.CharField(max_length=120, blank=True)
    """The family row it is about; blank for the whole report."""
    chart = models.CharField(max_length=40, blank=True)
    """The plot it is about (``REPORT_CHARTS``); blank for none."""
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    body = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]


class ReviewDecision(models.TextChoices):
    APPROVE = "approve"
    REQUEST_CHANGES = "request_changes"


class ReportReview(models.Model):
    """One reviewer's decision on one report version; approvals never carry to a new version."""

    report = models.ForeignKey(EvaluationReport, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    decision = models.CharField(max_length=20, choices=ReviewDecision.choices)
    note = models.TextField(blank=True)
    override_reason = models.TextField(blank=True)
    """Why an approval accepts the report's regressed families (its figures are frozen, so
    they name which); blank when none regressed."""
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["report", "reviewer"], name="one_review_per_reviewer")
        ]


class Promotion(models.Model):
    """A checkpoint promoted on the strength of an approved report whose candidate it is: the
    gate every deployment passes through."""

    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    checkpoint = models.OneToOneField(
        "experiments.Checkpoint", on_delete=models.PROTECT, related_name="promotion"
    )
    report = models.ForeignKey(EvaluationReport, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True)
    promoted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
