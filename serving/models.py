"""Deployments, the replicas that serve them, canary releases and every request served.

A deployment serves one version of a registered model (the one its ``production`` alias
points at) through ``POST /api/v1/deployments/<slug>/generate``. Generation runs in a
replica: a worker process on the ``serve`` queue that holds the model and answers over
HTTP on the worker's host. A canary sends a share (split) or a copy (shadow) of the traffic
to a candidate version's replica, step by step, and ends promoted or rolled back.

The tables keep the names the ``experiments`` app gave them when it held these models
(``db_table``): moving the models here changed no row.
"""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Deployment(models.Model):
    team = models.ForeignKey("accounts.Team", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=60)
    registered_model = models.ForeignKey(
        "experiments.RegisteredModel", on_delete=models.PROTECT, related_name="deployments"
    )
    version = models.ForeignKey(
        "experiments.ModelVersion", on_delete=models.PROTECT, related_name="deployments"
    )
    """The version production traffic is answered by."""
    served_format = models.JSONField(default=dict)
    """What the deployment states about how it formats prompts (``model_format.SERVED_KEYS``)."""
    max_new_tokens = models.PositiveIntegerField(default=32)
    temperature = models.FloatField(default=0.0)
    timeout_s = models.FloatField(default=30.0)
    max_queue = models.PositiveIntegerField(default=64)
    max_batch = models.PositiveIntegerField(default=8)
    stopped = models.BooleanField(default=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "experiments_deployment"
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["team", "slug"], name="deployment_slug_per_team")
        ]

    def __str__(self) -> str:
        return self.slug

    @property
    def audit_label(self) -> str:
        return f"deployment {self.slug}"


class ReplicaRole(models.TextChoices):
    PRODUCTION = "production"
    CANDIDATE = "candidate"


class ReplicaState(models.TextChoices):
    STARTING = "starting"
    READY = "ready"
    STOPPING = "stopping"
    STOPPED = "stopped"
    FAILED = "failed"


LIVE_REPLICA_STATES = (ReplicaState.STARTING, ReplicaState.READY)


def new_replica_secret() -> str:
    """256 random bits: a replica's key for the platform's signed requests."""
    return secrets.token_urlsafe(32)


class Replica(models.Model):
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="replicas")
    version = models.ForeignKey(
        "experiments.ModelVersion", on_delete=models.PROTECT, related_name="replicas"
    )
    role = models.CharField(max_length=20, choices=ReplicaRole.choices)
    state = models.CharField(
        max_length=20, choices=ReplicaState.choices, default=ReplicaState.STARTING
    )
    address = models.CharField(max_length=200, blank=True)
    """Where the replica answers (``http://host:port``), once ready; for the platform only."""
    secret = models.CharField(max_length=64, default=new_replica_secret, editable=False)
    """The key the web process signs each request to the replica with (``training.serving.
    sign``), made when the replica is. The replica's job reads it from this row: it never
    travels over the task queue, in a request, in the API or in a log line."""
    worker = models.CharField(max_length=200, blank=True)
    message = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "experiments_replica"
        ordering = ["-id"]

    def __str__(self) -> str:
        return f"{self.deployment.slug} {self.role} replica {self.pk}"


class CanaryMode(models.TextChoices):
    SHADOW = "shadow"
    """The candidate answers a copy of the traffic; callers get production's answers."""
    SPLIT = "split"
    """A share of the traffic (sticky per request key) is answered by the candidate."""


class CanaryState(models.TextChoices):
    RUNNING = "running"
    AWAITING_DECISION = "awaiting_decision"
    PAUSED = "paused"
    PROMOTED = "promoted"
    ROLLED_BACK = "rolled_back"
    CANCELLED = "cancelled"


ACTIVE_CANARY_STATES = (CanaryState.RUNNING, CanaryState.AWAITING_DECISION, CanaryState.PAUSED)


class Canary(models.Model):
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="canaries")
    production = models.ForeignKey(
        "experiments.ModelVersion", on_delete=models.PROTECT, related_name="+"
    )
    """The version production traffic went to when the canary started."""
    candidate = models.ForeignKey(
        "experiments.ModelVersion", on_delete=models.PROTECT, related_name="canaries"
    )
    replica = models.ForeignKey(
        Replica, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    mode = models.CharField(max_length=10, choices=CanaryMode.choices)
    steps = models.JSONField(default=list)
    """Percent of the traffic the candidate takes at each step (split), or copies (shadow)."""
    step = models.PositiveIntegerField(default=0)
    """Index into ``steps``."""
    step_started_at = models.DateTimeField(default=timezone.now)
    guardrails = models.JSONField(default=dict)
    state = models.CharField(
        max_length=20, choices=CanaryState.choices, default=CanaryState.RUNNING
    )
    reason = models.TextField(blank=True)
    """Why it is paused, waiting for a decision, or ended."""
    analysis = models.JSONField(default=dict)
    """The current step's latest analysis (``canary_analysis.Analysis.to_dict``)."""
    history = models.JSONField(default=list)
    """Each step's final analysis and what was decided, and who decided, in order."""
    series = models.JSONField(default=list)
    """Pass rates per side and the confidence interval over time, for the live chart."""
    revision = models.PositiveIntegerField(default=0)
    """Bumped on every change: the canary's websocket follows it."""
    shadow_dropped = models.PositiveIntegerField(default=0)
    """Shadow copies the candidate refused (its queue was full): answers its side lacks."""
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "experiments_canary"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["deployment"],
                condition=Q(state__in=["running", "awaiting_decision", "paused"]),
                name="one_active_canary_per_deployment",
            )
        ]

    def __str__(self) -> str:
        return f"canary {self.pk} of {self.deployment.slug}"

    @property
    def audit_label(self) -> str:
        return f"canary {self.pk} of deployment {self.deployment.slug}"

    @property
    def share(self) -> int:
        return int(self.steps[min(self.step, len(self.steps) - 1)]) if self.steps else 0


class RequestStatus(models.TextChoices):
    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"


class JudgedAgainst(models.TextChoices):
    """What a request's verdict was judged against, which decides whether a canary counts it."""

    NOTHING = ""
    POOL = "pool"
    """A task of the team's pool (its reference looked up by the platform), judged by the
    verifier the served model was trained with: the only verdicts a canary weighs."""
    CALLER = "caller"
    """An expected answer or verifier version the caller named: logged for them to read,
    never counted by a canary."""
    REFERENCE_FREE = "ref_free"
    """Real traffic in a shadow canary, judged by the trained verifier's layers that need no
    reference (syntax, constraints, model judge): shown beside a canary's decision, never
    counted in it (the caller picked the prompt)."""


def storable(text: str) -> str:
    """``text`` as a text column can hold it: PostgreSQL refuses NUL characters, which a
    caller can send and a sampling model can write."""
    return text.replace("\x00", "\ufffd")


class ServedRequest(models.Model):
    """One request as served: what was asked, answered, how fast, and the verifier's verdict."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="requests")
    canary = models.ForeignKey(
        Canary, on_delete=models.SET_NULL, null=True, blank=True, related_name="requests"
    )
    step = models.IntegerField(null=True, blank=True)
    """The canary step the request was routed at."""
    version = models.ForeignKey(
        "experiments.ModelVersion", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    side = models.CharField(max_length=20, choices=ReplicaRole.choices)
    shadow = models.BooleanField(default=False)
    """A copy the candidate answered in shadow mode; the caller never saw it."""
    key = models.CharField(max_length=200, blank=True)
    prompt = models.TextField()
    completion = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=RequestStatus.choices)
    error = models.CharField(max_length=500, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    family = models.CharField(max_length=100, blank=True)
    task = models.CharField(max_length=100, blank=True)
    passed = models.BooleanField(null=True)
    """The verifier's verdict; null when the request named nothing to verify against."""
    judged_against = models.CharField(
        max_length=10, choices=JudgedAgainst.choices, blank=True, default=JudgedAgainst.NOTHING
    )
    reward = models.FloatField(null=True, blank=True)
    verdict = models.JSONField(default=dict, blank=True)
    format_warnings = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "experiments_servedrequest"
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["deployment", "-created_at"], name="served_by_deployment"),
            models.Index(fields=["canary", "step", "side"], name="served_by_canary_step"),
        ]
