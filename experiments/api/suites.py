"""Evaluation suites: a team's saved sets of held-out families and evaluation settings.

Members read; editors create, change and delete. A suite used by an evaluation job or an
experiment keeps its families and settings and cannot be deleted (409, naming its users);
``services.suites`` has the rules.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from crucible.api.serializers import documented_json

from ..models import EvaluationSuite
from ..services import suites
from .reports import (
    EvaluatedFamilySerializer,
    EvaluationSettingsSerializer,
    FamilyChoiceSerializer,
    given_settings,
)


class EvaluationSuiteSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    families = documented_json(EvaluatedFamilySerializer(many=True), read_only=True)
    jobs = serializers.SerializerMethodField(help_text="Evaluation jobs started from it.")
    experiments = serializers.SerializerMethodField(
        help_text="Experiments naming it in eval.suite."
    )

    class Meta:
        model = EvaluationSuite
        fields = [
            "id", "team", "name", "description", "families", "k", "temperature",
            "max_new_tokens", "max_tasks", "seed", "jobs", "experiments", "created_by",
            "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_jobs(self, suite: EvaluationSuite) -> int:
        return suite.jobs.count()

    def get_experiments(self, suite: EvaluationSuite) -> int:
        return suites.experiments_using(suite)


class EvaluationSuiteWriteSerializer(EvaluationSettingsSerializer):
    team = serializers.SlugField(
        required=False, help_text="The owning team (editor role); on create only."
    )
    name = serializers.CharField(max_length=120, help_text="Unique in the team.")
    description = serializers.CharField(max_length=10_000, allow_blank=True, required=False)
    families = FamilyChoiceSerializer(
        many=True,
        allow_empty=False,
        help_text="Pool versions, each with its verifier version and threshold.",
    )

    def validate_families(self, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """A PATCH may leave out fields, not parts of a family: DRF passes ``partial`` down
        to nested serializers, so the families are checked whole here."""
        if not self.partial:
            return value
        whole = FamilyChoiceSerializer(data=self.initial_data.get("families"), many=True)
        if not whole.is_valid():
            raise serializers.ValidationError(whole.errors)
        return list(whole.validated_data)


IN_USE = OpenApiResponse(
    ApiErrorsSerializer,
    description="The suite is used by evaluation jobs or experiments (the message says by "
    "how many): its families and settings stay as they are, and it is kept.",
)


class EvaluationSuiteViewSet(TeamScopedMixin, viewsets.ModelViewSet):
    """Evaluation suites of the caller's teams, by name."""

    queryset = EvaluationSuite.objects.none()
    serializer_class = EvaluationSuiteSerializer
    permission_classes = [TeamRolePermission]
    http_method_names = ["get", "post", "patch", "delete"]
    search_fields = ["name", "description"]

    def get_queryset(self) -> QuerySet[EvaluationSuite]:
        return self.scope(EvaluationSuite.objects.select_related("team", "created_by"))

    @extend_schema(
        request=EvaluationSuiteWriteSerializer, responses={201: EvaluationSuiteSerializer}
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = EvaluationSuiteWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        team = self.team_for_write(data.get("team"))
        suite = suites.create_suite(
            request.user, team, name=data["name"], families=data["families"],
            settings_=given_settings(data), description=data.get("description", ""),
        )  # fmt: skip
        return Response(EvaluationSuiteSerializer(suite).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=EvaluationSuiteWriteSerializer,
        responses={200: EvaluationSuiteSerializer, 409: IN_USE},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        suite = self.get_object()
        body = EvaluationSuiteWriteSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        changes = dict(body.validated_data)
        if changes.pop("team", suite.team.slug) != suite.team.slug:
            raise serializers.ValidationError({"team": ["a suite's team never changes"]})
        suite = suites.update_suite(request.user, suite, **changes)
        return Response(EvaluationSuiteSerializer(suite).data)

    @extend_schema(responses={204: None, 409: IN_USE})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance: EvaluationSuite) -> None:
        suites.delete_suite(self.request.user, instance)
