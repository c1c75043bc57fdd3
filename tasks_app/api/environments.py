"""Environment endpoints: the catalogue of kinds, and a scripted episode in the playground."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.api.scoping import visible_teams
from crucible.api.serializers import StrictSerializer
from tasks_app.environments.base import ROLES
from tasks_app.services import environments as services

from . import verifier_reports as reports
from .verifiers import SizedInputsMixin


class ToolFunctionSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    parameters = reports.json_object(help_text="JSON Schema of the call's arguments.")


class ToolSerializer(serializers.Serializer):
    type = serializers.CharField(help_text='Always "function".')
    function = ToolFunctionSerializer()


class LimitsSerializer(serializers.Serializer):
    max_turns = serializers.IntegerField()
    max_tokens_per_turn = serializers.IntegerField()
    max_total_tokens = serializers.IntegerField()


class EnvironmentKindSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField()
    family = serializers.CharField(help_text="The family kind whose tasks it plays and judges.")
    tools = ToolSerializer(many=True)
    default_limits = LimitsSerializer()


class ToolCallFunctionSerializer(serializers.Serializer):
    name = serializers.CharField()
    arguments = serializers.CharField(help_text="The call's arguments as a JSON object's text.")


class ToolCallSerializer(serializers.Serializer):
    id = serializers.CharField(allow_blank=True)
    type = serializers.CharField(help_text='Always "function".')
    function = ToolCallFunctionSerializer()


class TurnVerdictSerializer(serializers.Serializer):
    error = serializers.CharField(
        allow_null=True,
        help_text="Null for a clean turn, else tool_call_parse, tool_error, invalid_move or "
        "the environment's own.",
    )
    info = reports.json_object(help_text="What the environment noted: tool statuses, the move.")


class ConversationMessageSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=list(ROLES))
    content = serializers.CharField(allow_blank=True)
    tool_calls = ToolCallSerializer(many=True, required=False)
    tool_call_id = serializers.CharField(required=False)
    name = serializers.CharField(required=False, help_text="A tool message's tool.")
    verdict = TurnVerdictSerializer(required=False, help_text="An assistant turn's verdict.")


class EpisodeVerdictSerializer(reports.VerdictSerializer):
    """The verifier's verdict on the final state; timing and spec hash are the episode's."""

    seconds = None  # type: ignore[assignment]
    spec_hash = None  # type: ignore[assignment]


class EpisodeSerializer(serializers.Serializer):
    environment = serializers.CharField()
    messages = ConversationMessageSerializer(many=True)
    tools = ToolSerializer(many=True)
    turns = serializers.IntegerField(help_text="Assistant messages stepped.")
    turn_budget = serializers.IntegerField(help_text="The kind's max_turns in training.")
    ended_by = serializers.ChoiceField(
        choices=["environment", "max_turns", "max_total_tokens", "script"],
        help_text="environment: it said done (an answer, a win); script: the script ran out "
        "before the turn budget.",
    )
    final_state = reports.json_object(help_text="What the verifier judged (its answer).")
    verdict = EpisodeVerdictSerializer(help_text="Its parts include the turn parts.")
    seconds = serializers.FloatField()
    spec_hash = serializers.CharField()


class EpisodePlaygroundSerializer(SizedInputsMixin, StrictSerializer):
    environment = serializers.CharField(max_length=100, help_text="An environment kind's name.")
    script = serializers.ListField(
        child=serializers.CharField(
            allow_blank=True, trim_whitespace=False, max_length=services.MAX_MESSAGE_CHARS
        ),
        min_length=1,
        max_length=services.MAX_SCRIPT_TURNS,
        help_text="The assistant's messages, one per turn, in order.",
    )
    spec = reports.spec_field(
        required=False,
        help_text="The spec to judge with; else verifier_version, else the "
        "family's default verifier.",
    )
    verifier_version = serializers.IntegerField(required=False)
    expected = serializers.DictField(required=False)
    prompt = serializers.CharField(
        required=False, allow_blank=True, max_length=100_000, help_text="With expected."
    )
    task = serializers.IntegerField(
        required=False, help_text="Id of a pool task of your teams, of the environment's family."
    )
    context = serializers.DictField(required=False, default=dict)
    params = serializers.DictField(required=False, default=dict, help_text="The kind's params.")

    def validate(self, attrs: dict) -> dict:
        if "spec" in attrs and "verifier_version" in attrs:
            raise serializers.ValidationError({"verifier_version": ["give either spec or this"]})
        if "task" in attrs and ({"expected", "prompt"} & set(attrs)):
            raise serializers.ValidationError({"task": ["give either task or expected and prompt"]})
        return attrs


class EnvironmentKindsView(APIView):
    @extend_schema(responses=EnvironmentKindSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(services.environment_kinds())


class EpisodePlaygroundView(APIView):
    @extend_schema(
        request=EpisodePlaygroundSerializer,
        responses={200: EpisodeSerializer},
        description="Plays one episode with a scripted policy and judges it. 400 names the "
        "field at fault (an unknown environment, a task of another family, bad params).",
    )
    def post(self, request: Request) -> Response:
        body = EpisodePlaygroundSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(services.play_episode(visible_teams(request), **body.validated_data))
