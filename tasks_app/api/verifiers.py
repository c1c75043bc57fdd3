"""Verifier endpoints: CRUD, versions, labelled examples, FP/FN evaluation, playground."""

from __future__ import annotations

import json
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Team
from crucible.api.scoping import TeamMemberPermission, visible_teams
from crucible.api.serializers import StrictModelSerializer, StrictSerializer
from tasks_app import sandbox
from tasks_app import verifiers as pure
from tasks_app.families.registry import UnknownKind
from tasks_app.models import LabelledExample, Verifier, VerifierVersion
from tasks_app.services import verifiers as services

from . import verifier_reports as reports
from .common import SlugFreeInTeamMixin, TeamOwnedViewSet, TeamSlugField

MAX_RESPONSE_CHARS = 200_000
MAX_JSON_BYTES = 1024 * 1024
"""An example's or a playground call's ``expected`` and ``context``, as JSON: every example is
loaded and judged on each evaluation."""


def check_json_size(value: object) -> None:
    size = len(json.dumps(value, default=str))
    if size > MAX_JSON_BYTES:
        raise serializers.ValidationError(
            f"is {size} bytes as JSON; at most {MAX_JSON_BYTES} bytes are accepted"
        )


class VerifierVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    spec = reports.spec_field(read_only=True)
    warnings = serializers.SerializerMethodField(
        help_text="Layers placed below a layer of a later stage, which skips them when it fails."
    )

    class Meta:
        model = VerifierVersion
        fields = [
            "id",
            "verifier",
            "number",
            "spec",
            "spec_hash",
            "warnings",
            "note",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields

    def get_warnings(self, version: VerifierVersion) -> list[str]:
        return pure.stage_warnings(version.spec)


class VerifierSerializer(SlugFreeInTeamMixin, StrictModelSerializer):
    team = TeamSlugField()
    slug = serializers.SlugField(max_length=60, required=False)
    spec = reports.spec_field(write_only=True, required=False, help_text="Initial layered spec.")
    latest_version = serializers.SerializerMethodField()
    version_count = serializers.IntegerField(read_only=True, source="versions.count")
    example_count = serializers.IntegerField(read_only=True, source="examples.count")

    class Meta:
        model = Verifier
        fields = [
            "id",
            "team",
            "name",
            "slug",
            "description",
            "family_kind",
            "spec",
            "latest_version",
            "version_count",
            "example_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators: list = []  # slug uniqueness per team is checked once the team is resolved

    @extend_schema_field(VerifierVersionSerializer(allow_null=True))
    def get_latest_version(self, verifier: Verifier) -> dict | None:
        version = verifier.latest_version()
        return VerifierVersionSerializer(version).data if version else None

    def validate_family_kind(self, value: str) -> str:
        if value:
            try:
                services.default_spec(value)
            except UnknownKind as exc:
                raise serializers.ValidationError(str(exc.args[0])) from exc
        return value


class VersionCreateSerializer(StrictSerializer):
    spec = reports.spec_field()
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class ExampleSerializer(StrictModelSerializer):
    expected = reports.json_object(required=False, help_text="What a judge compares against.")
    messages = serializers.ListField(
        child=serializers.DictField(),
        read_only=True,
        allow_null=True,
        help_text="For a labelled turn of an episode (an accepted turn flag): the conversation "
        "up to and including it.",
    )
    turn = serializers.IntegerField(
        read_only=True,
        allow_null=True,
        help_text="The labelled turn's index in messages; null for a response. The verifier's "
        "rates leave labelled turns out: their verdict is the environment's.",
    )

    class Meta:
        model = LabelledExample
        fields = ["id", "response", "expected", "label", "note", "messages", "turn", "created_at"]
        read_only_fields = ["id", "messages", "turn", "created_at"]
        extra_kwargs = {"response": {"max_length": MAX_RESPONSE_CHARS}}

    def validate_expected(self, value: object) -> object:
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be an object")
        check_json_size(value)
        return value


class CalibrateSerializer(StrictSerializer):
    layer = serializers.CharField(required=False, allow_blank=True, help_text="Judge layer name.")


# A playground call's ``expected`` and ``context``, each at most MAX_JSON_BYTES as JSON (a
# comment, not a docstring: the schema would take it as every request body's description).
class SizedInputsMixin:
    def validate_expected(self, value: dict) -> dict:
        check_json_size(value)
        return value

    def validate_context(self, value: dict) -> dict:
        check_json_size(value)
        return value


class PlaygroundSerializer(SizedInputsMixin, StrictSerializer):
    spec = reports.spec_field(
        required=False, help_text="The spec to run; or give verifier_version."
    )
    verifier_version = serializers.IntegerField(
        required=False, help_text="Id of a saved verifier version of your teams to run instead."
    )
    response = serializers.CharField(
        allow_blank=True, trim_whitespace=False, max_length=MAX_RESPONSE_CHARS
    )
    expected = serializers.DictField(required=False)
    task = serializers.IntegerField(
        required=False,
        help_text="Id of a pool task of your teams: its expected data instead of expected, and "
        "its prompt as the context's prompt.",
    )
    context = serializers.DictField(required=False, default=dict)

    def validate(self, attrs: dict) -> dict:
        if ("spec" in attrs) == ("verifier_version" in attrs):
            field = "verifier_version" if "spec" in attrs else "spec"
            raise serializers.ValidationError({field: ["give either spec or verifier_version"]})
        if "expected" in attrs and "task" in attrs:
            raise serializers.ValidationError({"task": ["give either expected or task"]})
        return attrs


class VerifierViewSet(TeamOwnedViewSet):
    """Layered verifiers: immutable spec versions, labelled examples and their FP/FN rates."""

    queryset = Verifier.objects.none()
    model = Verifier
    serializer_class = VerifierSerializer
    filterset_fields = ["family_kind"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return self.scope(Verifier.objects.select_related("team"))

    def create_object(self, team: Team, slug: str, data: dict[str, Any]) -> Verifier:
        return services.create_verifier(self.request.user, team, slug=slug, **data)

    def perform_update(self, serializer: VerifierSerializer) -> None:
        if "spec" in serializer.validated_data:
            raise serializers.ValidationError(
                {"spec": ["Create a new version instead (POST .../versions/)."]}
            )
        super().perform_update(serializer)

    def perform_destroy(self, instance: Verifier) -> None:
        self.refuse_delete_if_versioned(instance, "verifier")
        services.delete_verifier(self.request.user, instance)

    @extend_schema(methods=["GET"], responses=VerifierVersionSerializer(many=True))
    @extend_schema(
        methods=["POST"],
        request=VersionCreateSerializer,
        responses={201: VerifierVersionSerializer, 200: VerifierVersionSerializer},
        description="201 with a new version; 200 with the latest when the spec is unchanged.",
    )
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def versions(self, request: Request, pk: str | None = None) -> Response:
        verifier = self.get_object()
        if request.method == "GET":
            return Response(VerifierVersionSerializer(verifier.versions.all(), many=True).data)
        body = VersionCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        version, created = services.create_version(request.user, verifier, **body.validated_data)
        return Response(
            VerifierVersionSerializer(version).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(methods=["GET"], responses=ExampleSerializer(many=True))
    @extend_schema(methods=["POST"], request=ExampleSerializer, responses={201: ExampleSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def examples(self, request: Request, pk: str | None = None) -> Response:
        verifier = self.get_object()
        if request.method == "GET":
            return Response(ExampleSerializer(verifier.examples.all(), many=True).data)
        body = ExampleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        example = services.add_example(request.user, verifier, **body.validated_data)
        return Response(ExampleSerializer(example).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={204: None})
    @action(detail=True, methods=["delete"], url_path=r"examples/(?P<example_id>\d+)")
    def delete_example(
        self, request: Request, pk: str | None = None, example_id: str | None = None
    ) -> Response:
        verifier = self.get_object()
        services.delete_example(request.user, get_object_or_404(verifier.examples, pk=example_id))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        request=CalibrateSerializer,
        responses=reports.CalibrationSerializer,
    )
    @action(detail=True, methods=["post"], url_path=r"versions/(?P<number>\d+)/calibrate")
    def calibrate(
        self, request: Request, pk: str | None = None, number: str | None = None
    ) -> Response:
        version = get_object_or_404(self.get_object().versions, number=number)
        body = CalibrateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(services.calibrate(version, body.validated_data.get("layer") or None))

    @extend_schema(request=None, responses=reports.EvaluationSerializer)
    @action(detail=True, methods=["post"], url_path=r"versions/(?P<number>\d+)/evaluate")
    def evaluate(
        self, request: Request, pk: str | None = None, number: str | None = None
    ) -> Response:
        version = get_object_or_404(self.get_object().versions, number=number)
        return Response(services.evaluate(version))


class PlaygroundView(APIView):
    @extend_schema(
        request=PlaygroundSerializer,
        responses=reports.VerdictSerializer,
    )
    def post(self, request: Request) -> Response:
        body = PlaygroundSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        return Response(services.playground(visible_teams(request), **data))


class LayerKindsView(APIView):
    @extend_schema(responses=reports.VerifierCatalogueSerializer)
    def get(self, request: Request) -> Response:
        return Response(
            {"layers": pure.describe_layer_kinds(), "extractors": pure.describe_extractors()}
        )


class SandboxView(APIView):
    permission_classes = [TeamMemberPermission]

    @extend_schema(responses=reports.SandboxStatusSerializer)
    def get(self, request: Request) -> Response:
        return Response(sandbox.capabilities())
