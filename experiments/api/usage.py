"""Usage and cost: ``GET /usage/?team=<slug>&month=YYYY-MM`` (a team's month, by queue, kind,
family and run, with its quota) and ``GET /usage/rates/`` (the cost rate of each queue).

Rates and quotas are set by site admins (the Django admin); any member of a team reads its
usage; another team's is a 404.
"""

from __future__ import annotations

from datetime import date

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Team
from crucible.api.scoping import TeamMemberPermission, visible_teams

from .. import config as cfg
from ..services import usage
from .config_fields import serializer_for

BudgetSerializer = serializer_for(cfg.BudgetSpec, "stored")
BudgetInputSerializer = serializer_for(cfg.BudgetSpec, "input")


class TotalsSerializer(serializers.Serializer):
    worker_seconds = serializers.FloatField(help_text="Seconds of workers, times processes.")
    generated_tokens = serializers.IntegerField()
    judge_tokens = serializers.IntegerField(help_text="Tokens model judges read.")
    cost = serializers.FloatField(help_text="At the rates in force when it was used.")


class UsageRowSerializer(TotalsSerializer):
    key = serializers.CharField(
        help_text="The queue, kind or family (blank: work not split by family)."
    )


class KindUsageRowSerializer(UsageRowSerializer):
    label = serializers.CharField(
        help_text="What the kind of work is called: Training, Evaluation, Pre-flight, "
        "Difficulty grading, Serving replica hours."
    )


class RunUsageRowSerializer(TotalsSerializer):
    run = serializers.IntegerField()
    experiment_name = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()


class QuotaSerializer(serializers.Serializer):
    max_concurrent_runs = serializers.IntegerField(
        allow_null=True, help_text="Runs queued or running at once (null: no limit)."
    )
    active_runs = serializers.IntegerField(help_text="Runs queued or running now.")
    max_worker_hours_per_month = serializers.FloatField(allow_null=True)
    used_worker_hours = serializers.FloatField(help_text="Worker-hours used this month (UTC).")


class RateSerializer(serializers.Serializer):
    queue = serializers.CharField()
    per_worker_hour = serializers.FloatField()
    per_million_generated_tokens = serializers.FloatField()
    per_million_judge_tokens = serializers.FloatField()
    currency = serializers.CharField()


class TeamUsageSerializer(serializers.Serializer):
    team = serializers.CharField()
    month = serializers.CharField(help_text="YYYY-MM (UTC).")
    currency = serializers.CharField()
    totals = TotalsSerializer()
    by_queue = UsageRowSerializer(many=True)
    by_kind = KindUsageRowSerializer(
        many=True,
        help_text="training, evaluation, preflight, grading (pool difficulty), serving "
        "(replica hours on the serve queue).",
    )
    by_family = UsageRowSerializer(many=True)
    by_run = RunUsageRowSerializer(many=True)
    quota = QuotaSerializer()
    rates = RateSerializer(many=True)


def _month(text: str | None) -> date:
    if not text:
        return usage.month_start()
    try:
        year, month = (int(part) for part in text.split("-"))
        return date(year, month, 1)
    except ValueError as exc:
        raise serializers.ValidationError({"month": ["must be YYYY-MM"]}) from exc


def _team(request: Request) -> Team:
    teams = visible_teams(request)
    slug = request.query_params.get("team")
    if slug:
        return get_object_or_404(teams, slug=slug)
    if teams.count() == 1:
        return teams.get()
    raise serializers.ValidationError({"team": ["name the team (its slug): you are in several"]})


class TeamUsageView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("team", OpenApiTypes.STR, description="Team slug."),
            OpenApiParameter("month", OpenApiTypes.STR, description="YYYY-MM; default: now."),
        ],
        responses=TeamUsageSerializer,
        description="A team's usage in a month: totals, by queue, kind, family and run.",
    )
    def get(self, request: Request) -> Response:
        report = usage.team_report(_team(request), _month(request.query_params.get("month")))
        return Response(TeamUsageSerializer(report).data)


class CostRatesView(APIView):
    permission_classes = [TeamMemberPermission]

    @extend_schema(responses=RateSerializer(many=True), description="Each queue's cost rate.")
    def get(self, request: Request) -> Response:
        return Response(RateSerializer([r.__dict__ for r in usage.rates()], many=True).data)
