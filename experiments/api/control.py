"""Live control of a run: pause, resume, curriculum changes, the events they leave, its usage.

``POST /runs/<id>/pause/`` and ``/resume/`` (optionally raising the run's budget),
``GET /runs/<id>/curriculum/`` (the curriculum as the run trains it now) and
``POST /runs/<id>/curriculum/`` (a change the worker applies at its next step boundary),
``GET /runs/<id>/events/`` (pauses, resumes, budget stops and changes, each with the step it
took effect at: the charts' markers) and ``GET /runs/<id>/usage/``. Writes need the editor
role in the run's team; another team's run is a 404; a finished run refuses with a 400
(except the resume of a failed run that has a checkpoint).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from training import metric_catalogue as metric

from ..models import Run, RunEvent
from ..services import control, usage
from .runs import RunSerializer
from .usage import BudgetInputSerializer, TotalsSerializer, UsageRowSerializer


class RunEventSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="Who asked; null when the run paused itself (its budget).",
    )
    change = serializers.DictField(
        help_text='A curriculum change: {"band": [low, high], "families": {name: {"weight", '
        '"distribution"}}}; a resume that raised the budget: {"budget": {...}}.'
    )
    summary = serializers.SerializerMethodField(help_text="The event in a few words.")

    class Meta:
        model = RunEvent
        fields = [
            "id",
            "kind",
            "change",
            "reason",
            "summary",
            "created_by",
            "created_at",
            "requested_at_step",
            "applied_at_step",
            "applied_at",
        ]
        read_only_fields = fields

    def get_summary(self, event: RunEvent) -> str:
        return control.describe(event)


class FamilyChangeSerializer(serializers.Serializer):
    weight = serializers.FloatField(required=False, help_text="New mixture weight (0 or more).")
    distribution = serializers.ListField(
        child=serializers.FloatField(),
        required=False,
        help_text="A share per level of the family, in level order (normalised; floor applied).",
    )


class CurriculumChangeSerializer(serializers.Serializer):
    """For the schema only: ``control.change_curriculum`` checks the change."""

    band = serializers.ListField(
        child=serializers.FloatField(), required=False, help_text="New target band [low, high]."
    )
    families = serializers.DictField(
        child=FamilyChangeSerializer(), required=False, help_text="Changes by family name."
    )


class RunFamilySerializer(serializers.Serializer):
    name = serializers.CharField()
    levels = serializers.ListField(child=serializers.IntegerField())
    weight = serializers.FloatField()
    distribution = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        help_text="Its sampling probability per level at the last step (null before the first).",
    )


class RunCurriculumSerializer(serializers.Serializer):
    band = serializers.ListField(child=serializers.FloatField())
    floor = serializers.FloatField()
    dynamic = serializers.BooleanField()
    families = RunFamilySerializer(many=True)


class RunBudgetSerializer(serializers.Serializer):
    max_worker_hours = serializers.FloatField(allow_null=True)
    max_cost = serializers.FloatField(allow_null=True)
    problem = serializers.CharField(
        allow_null=True, help_text="Why the run may not go on under it, if it may not."
    )


class RunUsageSerializer(serializers.Serializer):
    run = serializers.IntegerField()
    currency = serializers.CharField()
    totals = TotalsSerializer()
    by_family = UsageRowSerializer(many=True)
    by_queue = UsageRowSerializer(many=True)
    budget = RunBudgetSerializer()


def run_curriculum(run: Run) -> dict[str, Any]:
    config = control.current_curriculum(run)
    summary = run.summary or {}
    return {
        "band": list(config.band),
        "floor": config.floor,
        "dynamic": config.dynamic,
        "families": [
            {
                "name": fam.name,
                "levels": list(fam.levels),
                "weight": fam.weight,
                "distribution": [
                    summary.get(metric.CURRICULUM_LEVEL.format(family=fam.name, difficulty=lv))
                    for lv in fam.levels
                ],
            }
            for fam in config.families
        ],
    }


class RunControlViewSet(TeamScopedMixin, viewsets.GenericViewSet):
    """Pause, resume and steer the runs of the caller's teams."""

    queryset = Run.objects.none()
    serializer_class = RunSerializer
    permission_classes = [TeamRolePermission]

    def get_queryset(self) -> QuerySet[Run]:
        return self.scope(Run.objects.select_related("team", "experiment", "created_by"))

    @extend_schema(request=None, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """A queued run pauses at once; a running one at its next step boundary, after saving
        a checkpoint, and gives its worker back."""
        return Response(RunSerializer(control.pause(request.user, self.get_object())).data)

    @extend_schema(
        request=inline_serializer("ResumeRun", {"budget": BudgetInputSerializer(required=False)}),
        responses=RunSerializer,
    )
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Queue a paused run, or a failed one that has a checkpoint, again: a worker
        continues it from its last checkpoint. `budget` replaces the run's budget (raise it to
        resume a run that ran out of it)."""
        budget = request.data.get("budget") if isinstance(request.data, dict) else None
        run = control.resume(request.user, self.get_object(), budget)
        return Response(RunSerializer(run).data)

    @extend_schema(methods=["GET"], request=None, responses=RunCurriculumSerializer)
    @extend_schema(
        methods=["POST"],
        request=CurriculumChangeSerializer,
        responses={201: RunEventSerializer},
    )
    @action(detail=True, methods=["get", "post"])
    def curriculum(self, request: Request, pk: str | None = None) -> Response:
        """GET: the curriculum as the run trains it now. POST: a change of distributions,
        mixture weights or target band, applied by the worker at its next step boundary."""
        run = self.get_object()
        if request.method == "GET":
            return Response(RunCurriculumSerializer(run_curriculum(run)).data)
        event = control.change_curriculum(request.user, run, request.data)
        return Response(RunEventSerializer(event).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=RunEventSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def events(self, request: Request, pk: str | None = None) -> Response:
        """Pauses, resumes, budget stops and curriculum changes, oldest first."""
        return Response(RunEventSerializer(control.events(self.get_object()), many=True).data)

    @extend_schema(responses=RunUsageSerializer)
    @action(detail=True, methods=["get"])
    def usage(self, request: Request, pk: str | None = None) -> Response:
        """Worker time, tokens and cost of the run, by family and queue, and its budget."""
        return Response(RunUsageSerializer(usage.run_report(self.get_object())).data)
