"""Curriculum endpoints: CRUD over a validated config, and the policy preview."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.accounts.models import Team
from crucible.api.scoping import visible_teams
from crucible.api.serializers import (
    JSONField,
    StrictFloatField,
    StrictIntegerField,
    StrictModelSerializer,
    StrictSerializer,
)
from tasks_app.models import Curriculum, PoolVersion
from tasks_app.services import curricula as services
from tasks_app.services import curriculum_config

from .common import SlugFreeInTeamMixin, TeamOwnedViewSet, TeamSlugField


@extend_schema_field(curriculum_config.CurriculumConfigSerializer)
class CurriculumConfigField(JSONField):
    """A curriculum config: a JSON object (or its text, in a form field), checked by the one
    config serializer so that each problem is named by its field."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        return curriculum_config.validated(super().to_internal_value(data))


class CurriculumSerializer(SlugFreeInTeamMixin, StrictModelSerializer):
    team = TeamSlugField()
    slug = serializers.SlugField(max_length=60, required=False)
    config = CurriculumConfigField()

    class Meta:
        model = Curriculum
        fields = [
            "id",
            "team",
            "name",
            "slug",
            "description",
            "config",
            "revision",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "revision", "created_at", "updated_at"]
        validators: list = []


# The body is JSON only (it nests): a value of another JSON type (``false``, ``"0.1"``) is
# refused by name, as the schema's number types state, rather than coerced.
class LearnerSerializer(StrictSerializer):
    ability = StrictFloatField(default=1.0, min_value=-5, max_value=20)
    slope = StrictFloatField(default=2.0, min_value=0.1, max_value=10)
    learning_rate = StrictFloatField(default=0.001, min_value=0, max_value=1)


class PreviewSerializer(StrictSerializer):
    config = CurriculumConfigField(required=False, help_text="Defaults to the saved config.")
    steps = StrictIntegerField(default=300, min_value=1, max_value=services.MAX_PREVIEW_STEPS)
    batch = StrictIntegerField(default=32, min_value=1, max_value=1024)
    seed = StrictIntegerField(default=0)
    learner = LearnerSerializer(required=False)


class TraceStepSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    distribution = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text="Per family, the probability of each of its levels, in their order.",
    )
    success_rate = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Per family, the share of its tasks in this step's batch the learner solved; "
        "null when the batch drew none of it.",
    )
    rolling_success = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Per family, the success rate over its last `window` outcomes; null before "
        "its first.",
    )
    ability = serializers.DictField(
        child=serializers.FloatField(), help_text="Per family, the synthetic learner's ability."
    )


class PreviewTraceSerializer(serializers.Serializer):
    band = serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2)
    floor = serializers.FloatField()
    levels = serializers.DictField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Per family (by slug), the levels it samples.",
    )
    steps = TraceStepSerializer(many=True)
    in_band = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Per family, the share of steps (once its window filled) whose rolling "
        "success rate sat inside the band; null when the window never filled.",
    )


class CurriculumViewSet(TeamOwnedViewSet):
    """Curricula over pinned pool versions, and a preview of the policy on a synthetic learner."""

    queryset = Curriculum.objects.none()
    model = Curriculum
    serializer_class = CurriculumSerializer

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return self.scope(Curriculum.objects.select_related("team"))

    def create_object(self, team: Team, slug: str, data: dict[str, Any]) -> Curriculum:
        return services.create_curriculum(self.request.user, team, slug=slug, **data)

    def perform_update(self, serializer: CurriculumSerializer) -> None:
        serializer.validated_data.pop("team", None)
        serializer.instance = services.update_curriculum(
            self.request.user, serializer.instance, **serializer.validated_data
        )

    def perform_destroy(self, instance: Curriculum) -> None:
        services.delete_curriculum(self.request.user, instance)

    @extend_schema(
        request=PreviewSerializer,
        responses=PreviewTraceSerializer,
        operation_id="curricula_preview_config",
    )
    @action(detail=False, methods=["post"], url_path="preview")
    def preview_config(self, request: Request) -> Response:
        return self._preview(request, None)

    @extend_schema(request=PreviewSerializer, responses=PreviewTraceSerializer)
    @action(detail=True, methods=["post"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        return self._preview(request, self.get_object())

    def _preview(self, request: Request, curriculum: Curriculum | None) -> Response:
        body = PreviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        config = data.get("config") or (curriculum.config if curriculum else None)
        if config is None:
            raise serializers.ValidationError({"config": ["This field is required."]})
        versions = PoolVersion.objects.filter(family__team__in=visible_teams(request))
        return Response(
            services.preview(
                config,
                versions,
                steps=data["steps"],
                batch=data["batch"],
                seed=data["seed"],
                learner=data.get("learner") or {},
            )
        )
