"""Reward-hacking and drift signals: a run's states and a team's thresholds.

The states come with the run (``RunSerializer.health``, and live in the run's websocket
frame). ``GET /teams/<slug>/health-thresholds/`` reads a team's thresholds (any member);
``PUT`` changes some of them (editor role), each bad field named in a 400.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role
from crucible.api.scoping import check_role, visible_teams

from .. import health
from ..models import Run
from ..services import health as health_service

STATES = [health.OK, health.WARNING, health.BREACHED, health.UNAVAILABLE]


class SignalSerializer(serializers.Serializer):
    name = serializers.ChoiceField(choices=list(health.DEFAULT_SIGNALS))
    label = serializers.CharField()
    state = serializers.ChoiceField(choices=STATES)
    sentence = serializers.CharField(help_text="What the signal sees, in words.")
    since_step = serializers.IntegerField(
        allow_null=True, help_text="The step its current state (warning, breached) began."
    )
    value = serializers.FloatField(allow_null=True, help_text="The signal's measure now.")
    threshold = serializers.FloatField(allow_null=True)
    pause_on_breach = serializers.BooleanField()


class RunHealthSerializer(serializers.Serializer):
    step = serializers.IntegerField(
        allow_null=True, help_text="The step last checked; null: never."
    )
    signals = SignalSerializer(many=True)


def run_health(run: Run) -> dict[str, Any]:
    return health.stored_states(run.health)


class SignalSettingSerializer(serializers.Serializer):
    threshold = serializers.FloatField(
        help_text="Reward rise, length ratio, KL z-score, entropy floor (nats), steps, share, flip rate."
    )
    pause_on_breach = serializers.BooleanField()
    enabled = serializers.BooleanField()


class HealthSettingsSerializer(serializers.Serializer):
    window = serializers.IntegerField(help_text="Steps over which slopes and shares are taken.")
    every = serializers.IntegerField(help_text="The signals are checked every this many steps.")
    heldout_min_rise = serializers.FloatField(
        help_text="Held-out success rising less than this over the window counts as flat."
    )
    kl_max = serializers.FloatField(help_text="A KL above this is a spike whatever its history.")
    curriculum_mass = serializers.FloatField(
        help_text="Share of a family's sampling on one level that counts as stuck there."
    )
    signals = serializers.DictField(
        child=SignalSettingSerializer(), help_text="Per signal name: threshold and switches."
    )


class HealthSettingsView(APIView):
    """GET: a team's signal thresholds; PUT (editor role): change some of them."""

    @extend_schema(responses={200: HealthSettingsSerializer})
    def get(self, request: Request, team_slug: str) -> Response:
        team = get_object_or_404(visible_teams(request), slug=team_slug)
        return Response(health.settings_dict(health_service.team_settings(team)))

    @extend_schema(
        request=HealthSettingsSerializer(partial=True), responses={200: HealthSettingsSerializer}
    )
    def put(self, request: Request, team_slug: str) -> Response:
        team = get_object_or_404(visible_teams(request), slug=team_slug)
        check_role(request, team, Role.EDITOR)
        settings = health_service.update_settings(request.user, team, request.data)
        return Response(health.settings_dict(settings))
