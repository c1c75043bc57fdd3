"""What work costs: rates per queue, team quotas, and the usage every run and job records."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class CostRate(models.Model):
    """The price of an hour of a queue's workers and of tokens, set by a site admin."""

    queue = models.CharField(max_length=40, unique=True, help_text="`gpu` or `cpu`.")
    per_worker_hour = models.FloatField(default=0.0, help_text="Per hour of one worker process.")
    per_million_generated_tokens = models.FloatField(default=0.0)
    per_million_judge_tokens = models.FloatField(default=0.0)
    currency = models.CharField(max_length=8, default="USD")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["queue"]

    def __str__(self) -> str:
        return f"{self.queue}: {self.per_worker_hour} {self.currency}/worker-hour"


class TeamQuota(models.Model):
    """Limits a site admin sets on a team; a missing row or a null limit means no limit."""

    team = models.OneToOneField("accounts.Team", on_delete=models.CASCADE, related_name="quota")
    max_concurrent_runs = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Runs queued or running at once (paused ones do not count).",
    )
    max_worker_hours_per_month = models.FloatField(
        null=True, blank=True, help_text="Worker-hours of every queue per calendar month (UTC)."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"quota of {self.team}"


class Usage(models.Model):
    """Resources one piece of work used, per family, queue and month, added to as it works.

    A run has one row per (family, queue, month) it used; a job that is not a run (measuring
    a pool's difficulty) has a row per job. ``family`` is blank where the work cannot be
    split by family. ``cost`` is priced at the rates in force when the usage was added.
    """

    id = models.BigAutoField(primary_key=True)
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    run = models.ForeignKey(
        "experiments.Run", on_delete=models.SET_NULL, null=True, blank=True, related_name="usage"
    )
    kind = models.CharField(max_length=20, default="training")
    """``training``, ``grading``... what the work was."""
    family = models.CharField(max_length=120, blank=True)
    queue = models.CharField(max_length=40)
    month = models.DateField()
    """The first day of the (UTC) month the usage falls in."""
    worker_seconds = models.FloatField(default=0.0)
    generated_tokens = models.BigIntegerField(default=0)
    judge_tokens = models.BigIntegerField(default=0)
    cost = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["team", "month"], name="usage_team_month"),
            models.Index(fields=["run", "family", "queue", "month"], name="usage_run_key"),
        ]
