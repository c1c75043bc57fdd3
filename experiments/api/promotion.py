"""Promotions: ``POST /promotions/`` promotes a checkpoint on an approved report (editor role);
``GET`` lists the caller's teams' promotions, newest first. A refusal is a 409 whose error
names the field at fault and says why (not approved, superseded, another checkpoint...)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.scoping import TeamRolePermission, TeamScopedMixin, check_role, visible_teams
from crucible.api.serializers import StrictSerializer

from ..models import Checkpoint, EvaluationReport, Promotion
from ..services import promotion


class PromotionSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    promoted_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    run = serializers.IntegerField(source="checkpoint.run_id", read_only=True)
    step = serializers.IntegerField(source="checkpoint.step", read_only=True)
    report_version = serializers.IntegerField(source="report.version", read_only=True)
    subject = serializers.CharField(source="report.candidate.subject", read_only=True)

    class Meta:
        model = Promotion
        fields = [
            "id", "team", "checkpoint", "run", "step", "subject", "report", "report_version",
            "note", "promoted_by", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


class PromotionCreateSerializer(StrictSerializer):
    checkpoint = serializers.IntegerField(help_text="The checkpoint to promote.")
    report = serializers.IntegerField(
        help_text="An approved report, the newest of its lineage, whose candidate is that checkpoint."
    )
    note = serializers.CharField(required=False, default="", allow_blank=True, max_length=10_000)


class PromotionViewSet(
    TeamScopedMixin, mixins.ListModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    queryset = Promotion.objects.none()
    serializer_class = PromotionSerializer
    permission_classes = [TeamRolePermission]
    filterset_fields = ["checkpoint", "report"]

    def get_queryset(self) -> QuerySet[Promotion]:
        return self.scope(
            Promotion.objects.select_related(
                "team", "promoted_by", "checkpoint", "report__candidate"
            )
        )

    @extend_schema(request=PromotionCreateSerializer, responses={201: PromotionSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = PromotionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        teams = visible_teams(request)
        checkpoint = get_object_or_404(
            Checkpoint.objects.select_related("run__experiment", "run__team"),
            pk=data["checkpoint"],
            run__team__in=teams,
        )
        report = get_object_or_404(
            EvaluationReport.objects.select_related("team", "candidate"),
            pk=data["report"],
            team__in=teams,
        )
        check_role(request, checkpoint.run.team, self.write_role)
        made = promotion.promote(request.user, checkpoint, report, data["note"])
        return Response(PromotionSerializer(made).data, status=status.HTTP_201_CREATED)
