"""Deployments, serving and canaries over the API.

``/deployments/``: a team's deployments by slug (create serves the model's production
version; ``POST .../{slug}/stop/`` and ``.../start/``; DELETE once stopped).
``POST /deployments/{slug}/generate`` answers a prompt (any member, by token or session);
``GET .../{slug}/requests/`` is the request log. ``POST .../{slug}/canary/`` starts a canary;
``/canaries/{id}/`` reads one, with ``decide/``, ``pause/``, ``resume/`` and ``report/``.
"""

from __future__ import annotations

import time
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.field_errors import query_choice
from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin, visible_teams
from crucible.api.serializers import StrictSerializer, documented_json
from experiments.models import ModelVersion, RegisteredModel

from ..models import (
    Canary,
    CanaryMode,
    Deployment,
    Replica,
    ReplicaRole,
    ServedRequest,
)
from ..services import canaries, deployments, serving

CONFLICT = OpenApiResponse(ApiErrorsSerializer, description="Refused now; the field says why.")
UNAVAILABLE = OpenApiResponse(
    ApiErrorsSerializer, description="No replica can answer now (starting, or gone): "
    "Retry-After says when to try again.",
)  # fmt: skip
QUEUE_FULL = OpenApiResponse(
    ApiErrorsSerializer, description="The replica's queue is full (code `throttled`): slow "
    "down, and retry after Retry-After seconds.",
)  # fmt: skip


# --- shapes ----------------------------------------------------------------------------------


class VersionLabelSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    label = serializers.CharField()


extend_schema_field_version = extend_schema_field(VersionLabelSerializer(allow_null=True))


def _version(version: ModelVersion | None) -> dict[str, Any] | None:
    if version is None:
        return None
    return {"id": version.pk, "number": version.number, "label": str(version)}


class ReplicaSerializer(serializers.ModelSerializer):
    version = serializers.SerializerMethodField()
    stale = serializers.SerializerMethodField(help_text="Ready, but its worker stopped beating.")

    class Meta:
        model = Replica
        # Not its address (nor its secret): only the platform talks to a replica.
        fields = [
            "id", "role", "state", "version", "worker", "message", "heartbeat_at",
            "started_at", "stopped_at", "stale",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field_version
    def get_version(self, replica: Replica) -> dict[str, Any] | None:
        return _version(replica.version)

    def get_stale(self, replica: Replica) -> bool:
        return deployments.is_stale(replica)


class CheckSerializer(serializers.Serializer):
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=["pass", "fail", "pending"])
    value = serializers.FloatField(allow_null=True)
    limit = serializers.FloatField(allow_null=True)
    detail = serializers.CharField()


class PassRateSerializer(serializers.Serializer):
    production = serializers.FloatField(allow_null=True)
    candidate = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(allow_null=True)


class SideStatsSerializer(serializers.Serializer):
    requests = serializers.IntegerField()
    errors = serializers.IntegerField()
    verified = serializers.IntegerField()
    passed = serializers.IntegerField()
    pass_rate = serializers.FloatField(allow_null=True)
    latency_p95_ms = serializers.FloatField(allow_null=True)
    mean_output_tokens = serializers.FloatField(allow_null=True)
    reference_free_judged = serializers.IntegerField(
        required=False, help_text="Answers to real traffic judged without a reference (shadow "
        "canary): shown, never counted in the decision.",
    )  # fmt: skip
    reference_free_passed = serializers.IntegerField(required=False)
    reference_free_pass_rate = serializers.FloatField(allow_null=True, required=False)


class SidesSerializer(serializers.Serializer):
    production = SideStatsSerializer()
    candidate = SideStatsSerializer()


class SourceSideSerializer(serializers.Serializer):
    judged = serializers.IntegerField()
    passed = serializers.IntegerField()
    pass_rate = serializers.FloatField(allow_null=True)


class VerdictSourceSerializer(serializers.Serializer):
    source = serializers.ChoiceField(choices=["pool", "reference_free"])
    label = serializers.CharField()
    counted = serializers.BooleanField(
        help_text="Whether the canary's decision counts these verdicts: only references from "
        "the team's pool, which no caller can forge."
    )
    why = serializers.CharField()
    production = SourceSideSerializer()
    candidate = SourceSideSerializer()


class NeededSerializer(serializers.Serializer):
    answers = serializers.IntegerField(
        help_text="More verified candidate answers this step needs to be decided, if both "
        "sides keep their rates (0: decided)."
    )
    requests = serializers.IntegerField(
        help_text="More requests to the deployment for those answers, at the step's share."
    )
    outcome = serializers.CharField(
        help_text="What the step would then be at today's rates: successful, failed or "
        "inconclusive (max_samples reached first)."
    )
    detail = serializers.CharField()


class AnalysisSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(
        choices=["collecting", "successful", "failed", "inconclusive"], required=False
    )
    reason = serializers.CharField(required=False)
    checks = CheckSerializer(many=True, required=False)
    pass_rate = PassRateSerializer(required=False)
    sides = SidesSerializer(required=False)
    sources = VerdictSourceSerializer(
        many=True, required=False, help_text="Where the step's verdicts came from, and which "
        "the decision counts (canary_analysis.verdict_sources).",
    )  # fmt: skip
    needed = NeededSerializer(
        required=False, help_text="How much more traffic the step needs (canary_analysis)."
    )
    at = serializers.DateTimeField(required=False)


class StepRecordSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    share = serializers.IntegerField()
    outcome = serializers.CharField(help_text="successful, failed, proceed, extend or rollback.")
    reason = serializers.CharField()
    decided_by = serializers.CharField(allow_null=True, help_text="null: decided by the analysis.")
    at = serializers.DateTimeField()
    started_at = serializers.DateTimeField()
    analysis = AnalysisSerializer()


class SeriesPointSerializer(serializers.Serializer):
    t = serializers.DateTimeField()
    step = serializers.IntegerField()
    share = serializers.IntegerField()
    production_verified = serializers.IntegerField()
    candidate_verified = serializers.IntegerField()
    production = serializers.FloatField(allow_null=True)
    candidate = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)


class GuardrailsSerializer(serializers.Serializer):
    min_samples = serializers.IntegerField(required=False)
    max_samples = serializers.IntegerField(required=False)
    max_pass_drop = serializers.FloatField(required=False)
    max_error_rate = serializers.FloatField(required=False)
    max_latency_p95_ratio = serializers.FloatField(required=False)
    max_length_ratio = serializers.FloatField(required=False)
    alpha = serializers.FloatField(required=False)


class CanarySerializer(serializers.ModelSerializer):
    deployment = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    production = serializers.SerializerMethodField()
    candidate = serializers.SerializerMethodField()
    share = serializers.IntegerField(read_only=True)
    replica = ReplicaSerializer(read_only=True, allow_null=True)
    guardrails = documented_json(GuardrailsSerializer, read_only=True)
    analysis = documented_json(AnalysisSerializer, read_only=True)
    history = documented_json(StepRecordSerializer(many=True), read_only=True)
    series = documented_json(SeriesPointSerializer(many=True), read_only=True)
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Canary
        fields = [
            "id", "deployment", "production", "candidate", "mode", "steps", "step", "share",
            "state", "reason", "guardrails", "analysis", "history", "series", "revision",
            "shadow_dropped", "replica", "created_by", "created_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field_version
    def get_production(self, canary: Canary) -> dict[str, Any] | None:
        return _version(canary.production)

    @extend_schema_field_version
    def get_candidate(self, canary: Canary) -> dict[str, Any] | None:
        return _version(canary.candidate)


class DeploymentSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    registered_model_name = serializers.CharField(source="registered_model.name", read_only=True)
    version = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField(
        help_text="serving, starting, down (no replica answering) or stopped."
    )
    replicas = serializers.SerializerMethodField()
    canary = serializers.SerializerMethodField(help_text="The active canary, if any.")
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Deployment
        fields = [
            "id", "team", "name", "slug", "registered_model", "registered_model_name", "version",
            "served_format", "max_new_tokens", "temperature", "timeout_s", "max_queue",
            "max_batch", "stopped", "status", "replicas", "canary", "created_by", "created_at",
            "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field_version
    def get_version(self, deployment: Deployment) -> dict[str, Any] | None:
        return _version(deployment.version)

    def get_status(self, deployment: Deployment) -> str:
        if deployment.stopped:
            return "stopped"
        replica = deployments.shown_replica(deployment, "production")
        if replica is None or deployments.is_stale(replica):
            return "down"
        return "serving" if replica.state == "ready" else "starting"

    @extend_schema_field(ReplicaSerializer(many=True))
    def get_replicas(self, deployment: Deployment) -> list[dict[str, Any]]:
        return list(ReplicaSerializer(deployments.recent_replicas(deployment), many=True).data)

    @extend_schema_field(CanarySerializer(allow_null=True))
    def get_canary(self, deployment: Deployment) -> dict[str, Any] | None:
        found = deployments.active_canary(deployment)
        return None if found is None else dict(CanarySerializer(found).data)


def limited(field: type[serializers.Field], key: str) -> serializers.Field:
    """An optional setting within the service's limits, so that the schema states them (the
    service checks them again, for callers that skip the serializer)."""
    low, high = deployments.LIMITS[key]
    why = f"must be between {low} and {high}"
    return field(
        required=False,
        min_value=low,
        max_value=high,
        error_messages={"min_value": why, "max_value": why},
    )


class DeploymentPatchSerializer(StrictSerializer):
    """What may change on a deployment: its name and how it generates."""

    name = serializers.CharField(max_length=120, required=False)
    served_format = serializers.JSONField(
        required=False, help_text="What the deployment states about its prompt format."
    )
    max_new_tokens = limited(serializers.IntegerField, "max_new_tokens")
    temperature = limited(serializers.FloatField, "temperature")
    timeout_s = limited(serializers.FloatField, "timeout_s")
    max_queue = limited(serializers.IntegerField, "max_queue")
    max_batch = limited(serializers.IntegerField, "max_batch")


class DeploymentWriteSerializer(DeploymentPatchSerializer):
    """A new deployment: what it serves and in which team, with the settings a patch may change."""

    team = serializers.SlugField(required=False, help_text="Default: your only team.")
    name = serializers.CharField(max_length=120)
    slug = serializers.SlugField(max_length=60)
    registered_model = serializers.IntegerField(help_text="Its production version is served.")


class ServePromptSerializer(StrictSerializer):
    """The body of a generate request (checked by ``services.serving.parse``)."""

    prompt = serializers.CharField(
        required=False,
        help_text="The prompt, as the model was trained to read it. Default with a task: the "
        "task's own prompt (a different one is refused).",
    )
    key = serializers.CharField(
        required=False,
        max_length=200,
        help_text="Keeps a caller on one side of a split canary (sticky).",
    )
    family = serializers.CharField(
        required=False, max_length=100, help_text="A task family's slug, to verify."
    )
    task = serializers.CharField(
        required=False,
        max_length=100,
        help_text="A task's content hash in the family: its reference in the pool judges the "
        "answer, and a canary counts that verdict.",
    )
    expected = serializers.JSONField(
        required=False,
        help_text="Or your own expected answer: judged for you to read in the log, never "
        "counted by a canary.",
    )
    verifier_version = serializers.IntegerField(
        required=False,
        help_text="Default: the one the served model was trained with; another one is judged "
        "for you to read, never counted by a canary.",
    )
    max_new_tokens = limited(serializers.IntegerField, "max_new_tokens")
    temperature = limited(serializers.FloatField, "temperature")
    format = serializers.JSONField(
        required=False,
        help_text="What the caller formats otherwise: prompt_template, chat_template, "
        "add_special_tokens, extract; differences come back as format_warnings.",
    )


class GenerateAnswerSerializer(serializers.Serializer):
    id = serializers.UUIDField(help_text="The request's id in the log.")
    completion = serializers.CharField()
    side = serializers.ChoiceField(choices=ReplicaRole.choices)
    version = VersionLabelSerializer()
    output_tokens = serializers.IntegerField()
    truncated = serializers.BooleanField()
    queue_ms = serializers.FloatField()
    generation_ms = serializers.FloatField()
    format_warnings = serializers.ListField(child=serializers.CharField())
    verification = serializers.ChoiceField(
        choices=["pending", "none"],
        help_text="pending: the verdict is written to the log shortly; none: nothing to verify.",
    )


class ServedRequestSerializer(serializers.ModelSerializer):
    version = serializers.SerializerMethodField()

    class Meta:
        model = ServedRequest
        fields = [
            "id", "canary", "step", "version", "side", "shadow", "key", "prompt", "completion",
            "status", "error", "latency_ms", "output_tokens", "family", "task", "passed",
            "judged_against", "reward", "verdict", "format_warnings", "created_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field_version
    def get_version(self, row: ServedRequest) -> dict[str, Any] | None:
        return _version(row.version)


class CanaryStartSerializer(StrictSerializer):
    candidate = serializers.IntegerField(help_text="A version of the deployment's model.")
    mode = serializers.ChoiceField(choices=CanaryMode.choices, default=CanaryMode.SPLIT)
    steps = serializers.JSONField(
        required=False, help_text="Traffic shares in percent, rising (default 5, 25, 50)."
    )
    guardrails = serializers.JSONField(required=False)


class CanaryDecisionSerializer(StrictSerializer):
    decision = serializers.ChoiceField(choices=list(canaries.DECISIONS))
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class PauseSerializer(StrictSerializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


# --- views -----------------------------------------------------------------------------------


class DeploymentViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Deployments of the caller's teams; members read and generate, editors change them."""

    queryset = Deployment.objects.none()
    serializer_class = DeploymentSerializer
    permission_classes = [TeamRolePermission]
    lookup_field = "slug"
    http_method_names = ["get", "post", "patch", "delete"]

    def get_queryset(self) -> QuerySet[Deployment]:
        rows = Deployment.objects.select_related("team", "registered_model", "created_by")
        if self.action in ("list", "retrieve"):
            # Only reads: an action that changes the deployment shows it as it is after.
            rows = deployments.with_shown(rows)
        return self.scope(rows.select_related("version__model"))

    def get_object(self) -> Deployment:
        found = self._by_slug(self.filter_queryset(self.get_queryset()))
        self.check_object_permissions(self.request, found)
        return found

    def _by_slug(self, rows: QuerySet[Deployment]) -> Deployment:
        """The deployment of the URL's slug (``?team=`` picks among teams that share it)."""
        rows = rows.filter(slug=self.kwargs["slug"])
        team = self.request.query_params.get("team")
        if team:
            rows = rows.filter(team__slug=team)
        found = list(rows[:2])
        if len(found) > 1:
            raise serializers.ValidationError(
                {"team": ["deployments of this slug exist in several of your teams; name one"]}
            )
        if not found:
            raise Http404
        return found[0]

    @extend_schema(
        request=DeploymentWriteSerializer, responses={201: DeploymentSerializer, 409: CONFLICT}
    )
    def create(self, request: Request) -> Response:
        body = DeploymentWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        team = self.team_for_write(data.pop("team", None))
        model = RegisteredModel.objects.filter(team=team, pk=data.pop("registered_model")).first()
        if model is None:
            raise serializers.ValidationError(
                {"registered_model": ["no such registered model in the team"]}
            )
        made = deployments.create(
            request.user, team, name=data.pop("name"), slug=data.pop("slug"),
            registered_model=model, served_format=data.pop("served_format", None), **data,
        )  # fmt: skip
        return Response(DeploymentSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=DeploymentPatchSerializer, responses={200: DeploymentSerializer})
    def partial_update(self, request: Request, slug: str | None = None) -> Response:
        deployment = self.get_object()
        body = DeploymentPatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        made = deployments.update(request.user, deployment, **body.validated_data)
        return Response(DeploymentSerializer(made).data)

    @extend_schema(responses={204: None, 409: CONFLICT})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        deployments.delete(request.user, self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses={200: DeploymentSerializer})
    @action(detail=True, methods=["post"])
    def stop(self, request: Request, slug: str | None = None) -> Response:
        """Stop serving: replicas stop, an active canary is cancelled."""
        made = canaries.stop_deployment(request.user, self.get_object())
        return Response(DeploymentSerializer(made).data)

    @extend_schema(request=None, responses={200: DeploymentSerializer})
    @action(detail=True, methods=["post"])
    def start(self, request: Request, slug: str | None = None) -> Response:
        """Serve again; a lost production replica is replaced."""
        made = deployments.restart(request.user, self.get_object())
        return Response(DeploymentSerializer(made).data)

    @extend_schema(
        request=ServePromptSerializer,
        responses={
            200: GenerateAnswerSerializer, 429: QUEUE_FULL, 503: UNAVAILABLE,
            504: OpenApiResponse(ApiErrorsSerializer, description="No answer within timeout_s."),
        },
    )  # fmt: skip
    @action(detail=True, methods=["post"])
    def generate(self, request: Request, slug: str | None = None) -> Response:
        """Answer a prompt with the deployment's model (or its canary's candidate)."""
        received = time.time()
        deployment = self._for_members()
        outcome = serving.generate(deployment, request.data, received_at=received)
        return Response(outcome.body, status=outcome.status, headers=outcome.headers)

    @extend_schema(
        parameters=[
            OpenApiParameter("side", str, enum=ReplicaRole.values),
            OpenApiParameter("canary", int),
            OpenApiParameter("status", str, enum=["ok", "error", "timeout"]),
        ],
        responses={200: ServedRequestSerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def requests(self, request: Request, slug: str | None = None) -> Response:
        """The request log, newest first."""
        deployment = self.get_object()
        rows = deployment.requests.select_related("version__model")
        choices = {"side": ReplicaRole.values, "status": ["ok", "error", "timeout"]}
        for name in ("side", "canary", "status"):
            value = request.query_params.get(name)
            if value:
                if name == "canary" and not value.isdigit():
                    raise serializers.ValidationError({"canary": ["expected a canary id"]})
                if name in choices:
                    query_choice(request.query_params, name, choices[name])
                rows = rows.filter(**{name: value})
        page = self.paginate_queryset(rows.order_by("-created_at"))
        return self.get_paginated_response(ServedRequestSerializer(page, many=True).data)

    @extend_schema(request=CanaryStartSerializer, responses={201: CanarySerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def canary(self, request: Request, slug: str | None = None) -> Response:
        """Start a canary of a candidate version."""
        deployment = self.get_object()
        body = CanaryStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        made = canaries.start(
            request.user, deployment, candidate=data["candidate"], mode=data["mode"],
            steps=data.get("steps"), guardrails=data.get("guardrails"),
        )  # fmt: skip
        return Response(
            CanarySerializer(canaries_with_relations().get(pk=made.pk)).data, status=201
        )

    def _for_members(self) -> Deployment:
        """The deployment, for any member of its team (generating is not editing)."""
        rows = Deployment.objects.select_related("team", "version__model")
        return self._by_slug(rows.filter(team__in=visible_teams(self.request)))

    def get_permissions(self) -> list[Any]:
        if self.action == "generate":
            return [MemberPermission()]
        return super().get_permissions()


class MemberPermission(TeamRolePermission):
    """Signed in (session or token); the team is checked on the deployment itself."""

    def has_permission(self, request: Request, view: Any) -> bool:
        return bool(request.user and request.user.is_authenticated)


def canaries_with_relations() -> QuerySet[Canary]:
    """Canaries with what their serializer reads."""
    return Canary.objects.select_related(
        "deployment__team", "production", "candidate", "replica__version", "created_by"
    )


class CanaryViewSet(
    TeamScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Canaries of the caller's teams' deployments, newest first."""

    queryset = Canary.objects.none()
    serializer_class = CanarySerializer
    permission_classes = [TeamRolePermission]
    team_path = "deployment__team"
    filterset_fields = ["deployment", "state"]

    def get_queryset(self) -> QuerySet[Canary]:
        return self.scope(canaries_with_relations()).order_by("-id")

    @extend_schema(
        request=CanaryDecisionSerializer, responses={200: CanarySerializer, 409: CONFLICT}
    )
    @action(detail=True, methods=["post"])
    def decide(self, request: Request, pk: str | None = None) -> Response:
        """Decide a canary waiting for a person: proceed, extend the step, or roll back."""
        canary = self.get_object()
        body = CanaryDecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        canaries.decide(request.user, canary, data["decision"], data.get("reason", ""))
        return Response(CanarySerializer(canaries_with_relations().get(pk=canary.pk)).data)

    @extend_schema(request=PauseSerializer, responses={200: CanarySerializer})
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """Stop sending the candidate traffic, saying why."""
        canary = self.get_object()
        body = PauseSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        why = body.validated_data.get("reason") or f"paused by {request.user.get_username()}"
        canaries.pause(canary, why, user=request.user)
        return Response(CanarySerializer(canaries_with_relations().get(pk=canary.pk)).data)

    @extend_schema(request=None, responses={200: CanarySerializer, 409: CONFLICT})
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Send the candidate traffic again (its replica is restarted if it was lost)."""
        canary = self.get_object()
        canaries.resume(request.user, canary)
        return Response(CanarySerializer(canaries_with_relations().get(pk=canary.pk)).data)

    @extend_schema(responses={200: OpenApiResponse(description="The canary report (JSON).")})
    @action(detail=True, methods=["get"])
    def report(self, request: Request, pk: str | None = None) -> Response:
        """What the canary did, step by step, and why it ended as it did."""
        return Response(canaries.report(self.get_object()))
