"""A team's counts of families, pool versions, verifiers and curricula, for its overview."""

from __future__ import annotations

from dataclasses import asdict

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.api.scoping import visible_teams
from tasks_app.services.summary import team_summary


class TeamSummarySerializer(serializers.Serializer):
    team = serializers.SlugField(help_text="The team's slug.")
    families = serializers.IntegerField(help_text="Task families.")
    pool_versions = serializers.IntegerField(help_text="Frozen pool versions of its families.")
    verifiers = serializers.IntegerField(help_text="Verifiers.")
    curricula = serializers.IntegerField(help_text="Curricula.")


class TeamSummaryView(APIView):
    @extend_schema(
        responses=TeamSummarySerializer,
        description="How many of each thing the team has made; any member may read it.",
    )
    def get(self, request: Request, team_slug: str) -> Response:
        team = get_object_or_404(visible_teams(request), slug=team_slug)
        return Response(TeamSummarySerializer(asdict(team_summary(team))).data)
