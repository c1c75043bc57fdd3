"""A run: one execution of an experiment, and what it records (metrics, checkpoints, rollouts)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class RunState(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    PAUSED = "paused"
    """Stopped at a step boundary with a checkpoint, holding no worker; resume queues it."""
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


FINISHED_STATES = (RunState.SUCCEEDED, RunState.FAILED, RunState.CANCELLED)


class RunSource(models.TextChoices):
    PLATFORM = "platform"
    """Launched from an experiment and trained by a worker."""
    EXTERNAL = "external"
    """Trained outside the platform (a TRL script...), which streams into it over REST; no
    worker claims it, and only its trainer (or a person) finishes it."""


class Run(models.Model):
    experiment = models.ForeignKey(
        "experiments.Experiment",
        on_delete=models.PROTECT,
        related_name="runs",
        null=True,
        blank=True,
    )
    """Always set on a platform run; an outside run may name one it reproduces, or none."""
    source = models.CharField(max_length=16, choices=RunSource.choices, default=RunSource.PLATFORM)
    name = models.CharField(max_length=120, blank=True)
    """An outside run's name (a platform run is named by its experiment)."""
    params = models.JSONField(default=dict, blank=True)
    """An outside run's configuration as its trainer gave it (hyper-parameters...)."""
    tags = models.JSONField(default=dict, blank=True)
    """``{name: value}`` strings, searchable (``tags.<name> = value``)."""
    notes = models.TextField(blank=True)
    base_model = models.CharField(max_length=300, blank=True)
    """The model an outside run trains from (a catalogue name or a hub id), for its lineage."""
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    """The experiment's team, kept on the row so every query scopes in one join."""
    number = models.PositiveIntegerField()
    """1, 2, ... within the experiment (an outside run without one: within its team's)."""
    state = models.CharField(max_length=16, choices=RunState.choices, default=RunState.QUEUED)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    """How many times a worker has claimed it: more than one means it was resumed."""
    queued_at = models.DateTimeField(default=timezone.now)
    """When it was last sent to the queue (launch, requeue, resume, resend): a run queued longer
    than ``RUN_QUEUED_RESEND_SECONDS`` is sent again, in case the broker lost its message."""
    database_retries = models.PositiveIntegerField(default=0)
    """Attempts given back to the queue after a transient database error (a dropped connection),
    at most ``RUN_DATABASE_RETRIES``; past that the run fails."""
    cancel_requested = models.BooleanField(default=False)
    pause_requested = models.BooleanField(default=False)
    """The worker pauses the run at its next step boundary (a person asked, or its budget ran out)."""
    pause_reason = models.TextField(blank=True)
    """Why the run is paused (or pausing), in words for its page."""
    budget = models.JSONField(default=dict)
    """``{"max_worker_hours", "max_cost"}`` (null: no limit), from the experiment at launch; a
    resume may raise it."""
    worker_seconds = models.FloatField(default=0.0)
    """Seconds its workers spent on it, times its processes, over every attempt."""
    generated_tokens = models.BigIntegerField(default=0)
    judge_tokens = models.BigIntegerField(default=0)
    """Tokens its verifiers' model judges read."""
    cost = models.FloatField(default=0.0)
    """What it used, at the cost rates in force when it used it."""
    step = models.PositiveIntegerField(default=0)
    max_steps = models.PositiveIntegerField(default=0)
    resumed_from_step = models.PositiveIntegerField(null=True, blank=True)
    failure_reason = models.TextField(blank=True)
    log_tail = models.TextField(blank=True)
    """The last lines of the run's log, kept on the row for the page and the API."""
    summary = models.JSONField(default=dict)
    """The last value of every metric, for tables and comparisons."""
    health = models.JSONField(default=dict, blank=True)
    """The reward-hacking and drift signals as last checked: ``{"step", "signals": [...]}``
    (``experiments.health.Signal.as_dict`` each); empty until the first check."""

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "number"], name="run_number_per_experiment"
            )
        ]
        indexes = [models.Index(fields=["team", "-created_at"]), models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.title} #{self.number}"

    @property
    def external(self) -> bool:
        return self.source == RunSource.EXTERNAL

    @property
    def title(self) -> str:
        """What the run is called on its pages: its name, else its experiment's."""
        if self.name or self.experiment_id is None:
            return self.name or f"outside run {self.number}"
        return self.experiment.name

    @property
    def config_of_record(self) -> dict[str, Any]:
        """The configuration the run trained with: its experiment's, or for an outside run
        without one, its model and parameters (no curriculum, raw prompts)."""
        if self.experiment_id is not None:
            return self.experiment.config
        return {"model": self.base_model, "params": self.params, "source": self.source}

    @property
    def finished(self) -> bool:
        return self.state in FINISHED_STATES


class MetricPoint(models.Model):
    """One value of one metric at one step. (run, key, step) is the identity: a re-sent point
    overwrites, so a retried batch or a resumed run never duplicates a step."""

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="metrics")
    key = models.CharField(max_length=120)
    step = models.PositiveIntegerField()
    value = models.FloatField(null=True)
    """None for NaN or infinity, which JSON cannot carry."""
    wall_time = models.FloatField()
    """Seconds since the epoch when the point was measured."""
    tokens = models.BigIntegerField(null=True, blank=True)
    """Completion tokens seen by the run up to this step."""
    replaces = models.BooleanField(default=False)
    """It replaced a point stored before at its key and step (a changed value): a viewer
    catching up from the database is told so, as the live frame told viewers then."""

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "key", "step"], name="metric_point_identity")
        ]
        # The id is the run's sequence number for live viewers ("what came after seq"): a
        # rewrite gets a new id. This index answers "the run's last seq" and "since seq".
        indexes = [models.Index(fields=["run", "id"], name="metric_point_run_seq")]


class Checkpoint(models.Model):
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="checkpoints")
    step = models.PositiveIntegerField()
    path = models.CharField(max_length=1000)
    metrics = models.JSONField(default=dict)
    size_bytes = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="checkpoint_per_step")]


class Rollout(models.Model):
    """One sampled completion with its verdict: every reward traces to the verifier version,
    pool version and task that produced it."""

    id = models.BigAutoField(primary_key=True)
    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="rollouts")
    step = models.PositiveIntegerField()
    group = models.PositiveIntegerField()
    sample = models.PositiveIntegerField()
    family = models.CharField(max_length=120)
    difficulty = models.IntegerField(default=0)
    task_hash = models.CharField(max_length=64, blank=True)
    pool_version = models.PositiveIntegerField(null=True, blank=True)
    verifier_version = models.PositiveIntegerField(null=True, blank=True)
    prompt = models.TextField()
    completion = models.TextField()
    passed = models.BooleanField(default=False)
    reward = models.FloatField(null=True)
    parts = models.JSONField(default=dict)
    advantage = models.FloatField(null=True)
    error_type = models.CharField(max_length=40, blank=True)
    layers = models.JSONField(default=list)
    messages = models.JSONField(
        null=True,
        blank=True,
        default=None,
        help_text=(
            "Null for a single response; for an episode, the conversation in the chat shape "
            "(role, content, tool_calls, tool_call_id, name), each assistant message with its "
            "turn's verdict as 'verdict': {'error': null when the turn was fine, 'info'}."
        ),
    )

    class Meta:
        ordering = ["step", "group", "sample"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "step", "group", "sample"], name="rollout_identity"
            )
        ]
        indexes = [models.Index(fields=["run", "step"])]
