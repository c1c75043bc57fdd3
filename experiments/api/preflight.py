"""Pre-flight endpoints: start one on a configuration or an experiment, follow it, read it.

The report's numbers come from ``experiments.preflight``; the serializers here only give the
OpenAPI schema (and the front end's generated types) their shape.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin, check_role
from crucible.api.serializers import StrictSerializer, documented_json

from ..models import Experiment, PreflightReport
from ..services import preflight as services
from .experiments import ConfigInputField, ExperimentConfigSerializer

# --- the report's shape --------------------------------------------------------------------


class PreflightFiguresSerializer(serializers.Serializer):
    tasks = serializers.IntegerField(help_text="Tasks sampled (one group of G completions each).")
    completions = serializers.IntegerField()
    pass_rate = serializers.FloatField(allow_null=True, help_text="Share the verifier passed.")
    mean_reward = serializers.FloatField(allow_null=True)
    frac_reward_zero_std = serializers.FloatField(
        allow_null=True,
        help_text="Share of groups whose G rewards are all equal: no learning signal. Null "
        "with groups of one (an algorithm without groups).",
    )


class PreflightLevelSerializer(PreflightFiguresSerializer):
    level = serializers.IntegerField()


class LatencySerializer(serializers.Serializer):
    p50 = serializers.FloatField(allow_null=True)
    p95 = serializers.FloatField(allow_null=True)
    max = serializers.FloatField(allow_null=True)


class PreflightFamilySerializer(PreflightFiguresSerializer):
    family = serializers.CharField(help_text="The family's slug, as the run's metrics name it.")
    levels = PreflightLevelSerializer(many=True)
    latency_ms = LatencySerializer(help_text="The verifier's time per completion, in ms.")
    error_types = serializers.DictField(
        child=serializers.IntegerField(), help_text="Rejected completions by error type."
    )


class PreflightWarningSerializer(serializers.Serializer):
    family = serializers.CharField()
    code = serializers.CharField(
        help_text="all_solved, none_solved, move_up, out_of_reach, errors:<type>, "
        "zero_signal, slow_verifier, or too_few_prompts (about the whole run: family empty)."
    )
    severity = serializers.ChoiceField(choices=["warning", "info"])
    levels = serializers.ListField(child=serializers.IntegerField())
    message = serializers.CharField(help_text="What is wrong and what to change.")


class PreflightSettingsSerializer(serializers.Serializer):
    model = serializers.CharField()
    group_size = serializers.IntegerField()
    tasks_per_level = serializers.IntegerField()
    temperature = serializers.FloatField()
    max_new_tokens = serializers.IntegerField()


class PreflightResultSerializer(serializers.Serializer):
    families = PreflightFamilySerializer(many=True)
    warnings = PreflightWarningSerializer(many=True)
    pass_rate = serializers.FloatField(allow_null=True)
    frac_reward_zero_std = serializers.FloatField(allow_null=True)
    completions = serializers.IntegerField()
    settings = PreflightSettingsSerializer()


class PreflightSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    config = ExperimentConfigSerializer(read_only=True)
    result = documented_json(
        PreflightResultSerializer,
        allow_null=True,
        help_text="Null until the pre-flight succeeds.",
    )

    class Meta:
        model = PreflightReport
        fields = [
            "id",
            "team",
            "experiment",
            "config",
            "config_hash",
            "tasks_per_level",
            "state",
            "progress",
            "message",
            "result",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def to_representation(self, instance: PreflightReport) -> dict[str, Any]:
        data = super().to_representation(instance)
        data["result"] = instance.result or None
        return data


class PreflightCreateSerializer(StrictSerializer):
    team = serializers.SlugField(
        required=False, help_text="The team (editor role) whose versions `config` pins."
    )
    config = ConfigInputField(
        required=False, help_text="A configuration, as creating an experiment takes it."
    )
    experiment = serializers.IntegerField(
        required=False, help_text="Or the id of an experiment whose configuration to sample."
    )
    tasks_per_level = serializers.IntegerField(
        min_value=1,
        max_value=services.MAX_TASKS_PER_LEVEL,
        default=services.DEFAULT_TASKS_PER_LEVEL,
        help_text="Train tasks sampled per family and level, G completions each.",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("config" in attrs) == ("experiment" in attrs):
            field = "experiment" if "config" in attrs else "config"
            raise serializers.ValidationError({field: ["give either config or experiment"]})
        if "config" in attrs and not attrs.get("team"):
            raise serializers.ValidationError({"team": ["required with config"]})
        return attrs


# --- the endpoints -------------------------------------------------------------------------


class PreflightViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Pre-flights of the caller's teams, newest first; POST queues one on the cpu queue."""

    queryset = PreflightReport.objects.none()
    serializer_class = PreflightSerializer
    permission_classes = [TeamRolePermission]
    filterset_fields = ["experiment", "state", "config_hash"]

    def get_queryset(self) -> QuerySet[PreflightReport]:
        return self.scope(PreflightReport.objects.select_related("team", "created_by"))

    @extend_schema(request=PreflightCreateSerializer, responses={202: PreflightSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = PreflightCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        if "experiment" in data:
            experiments = self.scope(Experiment.objects.select_related("team"))
            experiment = get_object_or_404(experiments, pk=data["experiment"])
            check_role(request, experiment.team, self.write_role)
            team, config = experiment.team, experiment.config
        else:
            team, config, experiment = self.team_for_write(data["team"]), data["config"], None
        report = services.start(
            request.user,
            team,
            config,
            tasks_per_level=data["tasks_per_level"],
            experiment=experiment,
        )
        return Response(PreflightSerializer(report).data, status=status.HTTP_202_ACCEPTED)
