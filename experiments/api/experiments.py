"""Experiment endpoints: create (validated and frozen), list, retrieve, clone, diff, launch.

An experiment is never edited: a change is a clone with overrides. The configuration is
validated once, in ``experiments.config`` and ``experiments.services.experiments``; its
serializers are generated from the config's dataclasses (``config_fields``) and describe its
shape for the OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from crucible.api.serializers import JSONField, StrictSerializer, field_docs

from .. import config as cfg
from ..models import Experiment
from ..services import experiments as services
from ..services import runs as run_services
from .config_fields import serializer_for
from .runs import RunSerializer

# --- the configuration's shape (generated from its dataclasses; validation is the parser) --

ExperimentConfigSerializer = serializer_for(cfg.ExperimentConfig, "stored")


class SavedCurriculumSerializer(serializers.Serializer):
    saved = serializers.IntegerField(min_value=1, help_text="A saved curriculum of the team.")
    verifiers = serializers.DictField(
        child=serializers.IntegerField(min_value=1),
        help_text="The verifier version id for each pool version id of the curriculum.",
    )


CURRICULUM_INPUT = PolymorphicProxySerializer(
    component_name="CurriculumInput",
    serializers=[
        serializer_for(cfg.CurriculumSpec, "input"),
        SavedCurriculumSerializer,
    ],
    resource_type_field_name=None,
)


@extend_schema_field(CURRICULUM_INPUT)
class CurriculumInputField(JSONField):
    pass


ExperimentConfigInputSerializer = type(
    "ExperimentConfigInputSerializer",
    (serializer_for(cfg.ExperimentConfig, "input"),),
    {"curriculum": CurriculumInputField(help_text=field_docs(cfg.ExperimentConfig)["curriculum"])},
)


@extend_schema_field(ExperimentConfigInputSerializer)
class ConfigInputField(JSONField):
    """A configuration as a caller sends it (checked by the parser, which names each field)."""


@extend_schema_field(
    {
        "type": "object",
        "description": "Laid over the configuration: objects merge key by key, anything else "
        "(a list, a value) replaces.",
        "additionalProperties": True,
    }
)
class ConfigOverridesField(JSONField):
    pass


# --- experiments ---------------------------------------------------------------------------


class ExperimentSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    config = ExperimentConfigSerializer(read_only=True)  # type: ignore[operator]
    run_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Experiment
        fields = [
            "id",
            "team",
            "name",
            "description",
            "config",
            "config_hash",
            "parent",
            "created_by",
            "created_at",
            "run_count",
        ]
        read_only_fields = fields


class ExperimentCreateSerializer(StrictSerializer):
    team = serializers.SlugField(help_text="The owning team's slug (you need the editor role).")
    name = serializers.CharField(max_length=120)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    config = ConfigInputField()


class CloneSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    overrides = ConfigOverridesField(
        required=False,
        default=dict,
        help_text="Laid over the configuration: objects merge key by key, anything else "
        "(a list, a value) replaces.",
    )


class ChangeSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="`hyperparameters.learning_rate`, `a.b[2].c`.")
    old = serializers.JSONField(allow_null=True)
    new = serializers.JSONField(allow_null=True)


class DiffSerializer(serializers.Serializer):
    experiment = serializers.IntegerField()
    other = serializers.IntegerField()
    changes = ChangeSerializer(many=True, help_text="From `experiment` (old) to `other` (new).")


class ExperimentViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Frozen experiment configurations; a change is a clone."""

    queryset = Experiment.objects.none()
    serializer_class = ExperimentSerializer
    permission_classes = [TeamRolePermission]
    search_fields = ["name", "description"]
    filterset_fields = ["parent"]

    def get_queryset(self) -> QuerySet[Experiment]:
        queryset = Experiment.objects.select_related("team", "created_by")
        counted = queryset.annotate(run_count=Count("runs")).order_by("-created_at", "-id")
        return self.scope(counted)

    def _read(self, experiment: Experiment) -> Experiment:
        return self.get_queryset().get(pk=experiment.pk)

    @extend_schema(request=ExperimentCreateSerializer, responses={201: ExperimentSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = ExperimentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        team = self.team_for_write(data["team"])
        experiment = services.create_experiment(
            request.user,
            team,
            name=data["name"],
            description=data["description"],
            config=data["config"],
        )
        serialized = ExperimentSerializer(self._read(experiment)).data
        return Response(serialized, status=status.HTTP_201_CREATED)

    @extend_schema(request=CloneSerializer, responses={201: ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request: Request, pk: str | None = None) -> Response:
        """A new experiment from this one's configuration with `overrides` laid over it."""
        experiment = self.get_object()
        body = CloneSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        clone = services.clone_experiment(request.user, experiment, **body.validated_data)
        return Response(ExperimentSerializer(self._read(clone)).data, status=201)

    @extend_schema(
        parameters=[OpenApiParameter("other", OpenApiTypes.INT, required=True)],
        responses=DiffSerializer,
    )
    @action(detail=True, methods=["get"])
    def diff(self, request: Request, pk: str | None = None) -> Response:
        """The configuration paths that differ from this experiment to `?other=`."""
        experiment = self.get_object()
        other_id = request.query_params.get("other", "")
        if not other_id.isdigit():
            raise serializers.ValidationError({"other": ["must be an experiment id"]})
        other = get_object_or_404(self.get_queryset(), pk=int(other_id))
        changes = [vars(c) for c in services.diff(experiment, other)]
        body = {"experiment": experiment.pk, "other": other.pk, "changes": changes}
        return Response(DiffSerializer(body).data)

    @extend_schema(request=None, responses={202: RunSerializer})
    @action(detail=True, methods=["post"])
    def launch(self, request: Request, pk: str | None = None) -> Response:
        """Queue a new run of this experiment on the gpu queue."""
        run = run_services.launch(request.user, self.get_object())
        return Response(RunSerializer(run).data, status=status.HTTP_202_ACCEPTED)
