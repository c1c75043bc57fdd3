"""Run endpoints: list and watch runs, cancel one, its checkpoints and rollouts, compare runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin

from .. import config as cfg
from ..models import Checkpoint, Rollout, Run
from ..services import runs as services
from ..services.recording import ROLLOUT_FIELDS

MAX_COMPARED = 10


class RunSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    experiment_name = serializers.CharField(source="experiment.name", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    summary = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="The last value of every metric (null for NaN).",
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "team",
            "experiment",
            "experiment_name",
            "number",
            "state",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "worker",
            "heartbeat_at",
            "attempts",
            "cancel_requested",
            "step",
            "max_steps",
            "resumed_from_step",
            "failure_reason",
            "log_tail",
            "summary",
        ]
        read_only_fields = fields


class RunListSerializer(RunSerializer):
    """A run without its log lines (GET the run for them)."""

    class Meta(RunSerializer.Meta):
        fields = [f for f in RunSerializer.Meta.fields if f != "log_tail"]
        read_only_fields = fields


class CheckpointSerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField(help_text="The directory's name, `step-000042`.")
    metrics = serializers.DictField(child=serializers.FloatField(allow_null=True))

    class Meta:
        model = Checkpoint
        fields = ["id", "step", "name", "metrics", "size_bytes", "created_at"]
        read_only_fields = fields

    def get_name(self, checkpoint: Checkpoint) -> str:
        return Path(checkpoint.path).name


class RolloutSerializer(serializers.ModelSerializer):
    parts = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Reward parts: outcome, process, constraint...",
    )
    layers = serializers.ListField(
        child=serializers.DictField(),
        help_text="The layered verdict: each layer's name, kind, stage, passed, score, "
        "error_type, detail.",
    )

    class Meta:
        model = Rollout
        fields = ["id", "step", "group", "sample", *ROLLOUT_FIELDS]
        read_only_fields = fields


class ComparedRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    experiment = serializers.IntegerField()
    experiment_name = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    step = serializers.IntegerField()
    max_steps = serializers.IntegerField()


class MetricRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    values = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        help_text="The final value for each run, in the order of `runs` (null: none or NaN).",
    )


class ConfigRowSerializer(serializers.Serializer):
    path = serializers.CharField()
    values = serializers.ListField(
        child=serializers.JSONField(allow_null=True), help_text="One per run, in order."
    )


class ComparisonSerializer(serializers.Serializer):
    runs = ComparedRunSerializer(many=True)
    metrics = MetricRowSerializer(many=True)
    config_differences = ConfigRowSerializer(many=True)


def _flag(value: str, name: str) -> bool:
    if value not in ("true", "false"):
        raise serializers.ValidationError({name: ["must be true or false"]})
    return value == "true"


def _whole(value: str, name: str) -> int:
    if not value.isdigit():
        raise serializers.ValidationError({name: ["must be a whole number"]})
    return int(value)


class RunViewSet(TeamScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Runs of the caller's teams' experiments; POST cancel/ stops one."""

    queryset = Run.objects.none()
    serializer_class = RunSerializer
    permission_classes = [TeamRolePermission]
    filterset_fields = ["experiment", "state"]
    search_fields = ["experiment__name"]
    ordering_fields = ["created_at", "number", "step"]

    def get_queryset(self) -> QuerySet[Run]:
        return self.scope(Run.objects.select_related("team", "experiment", "created_by"))

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return RunListSerializer if self.action == "list" else RunSerializer

    @extend_schema(request=None, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """A queued run is cancelled at once; a running one at its next step boundary."""
        run = services.cancel(request.user, self.get_object())
        return Response(RunSerializer(run).data)

    @extend_schema(responses=CheckpointSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def checkpoints(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        return Response(CheckpointSerializer(run.checkpoints.order_by("step"), many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("step", OpenApiTypes.INT),
            OpenApiParameter("family", OpenApiTypes.STR),
            OpenApiParameter("passed", OpenApiTypes.BOOL),
        ],
        responses=RolloutSerializer(many=True),
    )
    @action(detail=True, methods=["get"], filterset_fields=None, filter_backends=[])
    def rollouts(self, request: Request, pk: str | None = None) -> Response:
        """Stored completions with their layered verdicts, by step, group and sample."""
        rows = self.get_object().rollouts.order_by("step", "group", "sample")
        params = request.query_params
        if "step" in params:
            rows = rows.filter(step=_whole(params["step"], "step"))
        if params.get("family"):
            rows = rows.filter(family=params["family"])
        if "passed" in params:
            rows = rows.filter(passed=_flag(params["passed"], "passed"))
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(RolloutSerializer(page, many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "ids", OpenApiTypes.STR, required=True, description="Run ids, comma separated."
            )
        ],
        responses=ComparisonSerializer,
    )
    @action(detail=False, methods=["get"], filterset_fields=None, filter_backends=[])
    def compare(self, request: Request) -> Response:
        """Final metrics of several runs side by side, and where their configurations differ."""
        ids = _compared_ids(request.query_params.get("ids", ""))
        found = {r.pk: r for r in self.get_queryset().filter(pk__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise Http404(f"no runs {missing} among your teams'")
        return Response(ComparisonSerializer(comparison([found[i] for i in ids])).data)


def _compared_ids(text: str) -> list[int]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise serializers.ValidationError({"ids": ["must be run ids separated by commas"]})
    ids = list(dict.fromkeys(int(p) for p in parts))
    if not 2 <= len(ids) <= MAX_COMPARED:
        why = f"compare 2 to {MAX_COMPARED} different runs"
        raise serializers.ValidationError({"ids": [why]})
    return ids


def comparison(compared: list[Run]) -> dict[str, Any]:
    keys = sorted({key for run in compared for key in (run.summary or {})})
    configs = [cfg.leaves(run.experiment.config) for run in compared]
    paths = sorted({path for config in configs for path in config})
    differing = [
        {"path": path, "values": [config.get(path) for config in configs]}
        for path in paths
        if len({repr(config.get(path)) for config in configs}) > 1
    ]
    return {
        "runs": [
            {
                "id": run.pk,
                "experiment": run.experiment_id,
                "experiment_name": run.experiment.name,
                "number": run.number,
                "state": run.state,
                "step": run.step,
                "max_steps": run.max_steps,
            }
            for run in compared
        ],
        "metrics": [
            {"key": key, "values": [(run.summary or {}).get(key) for run in compared]}
            for key in keys
        ],
        "config_differences": differing,
    }

