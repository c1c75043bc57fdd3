"""The model registry over the API.

``/registered-models/``: a team's named models (CRUD; the detail nests versions and aliases).
``/model-versions/``: list, read and register (a checkpoint or a catalogue base model into a
model); ``POST .../{id}/alias/`` points an alias at a version, ``DELETE .../{id}/alias/``
removes one of its aliases, ``POST .../{id}/check-format/`` compares a request's or a
deployment's format with the version's training format. Members read, editors write; the
``production`` alias on a version that is not a promoted checkpoint is a 409 on ``alias``.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin, check_role, visible_teams
from crucible.api.serializers import StrictSerializer, documented_json

from ..model_format import SERVED_KEYS
from ..models import ModelAlias, ModelVersion, Promotion, RegisteredModel
from ..services import registry

# --- shapes of the frozen JSON ---------------------------------------------------------------


class FamilyFormatSerializer(serializers.Serializer):
    family = serializers.CharField()
    prompt_template = serializers.CharField(
        allow_null=True, help_text="None: the dataset's prompts as written."
    )
    extract = serializers.CharField(help_text="The verifier's answer extractor.")
    pool_version = serializers.IntegerField(allow_null=True)
    verifier_version = serializers.IntegerField(allow_null=True)


class ModelFormatSerializer(serializers.Serializer):
    chat_template = serializers.CharField(
        allow_null=True, help_text="None: the raw prompt, no chat template."
    )
    add_special_tokens = serializers.BooleanField()
    families = FamilyFormatSerializer(many=True)


class VersionRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    number = serializers.IntegerField()


class NamedRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class PoolVersionRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    family = serializers.CharField()
    number = serializers.IntegerField()


class VerifierVersionRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    verifier = serializers.CharField()
    number = serializers.IntegerField()


class RegressionOverrideSerializer(serializers.Serializer):
    reviewer = serializers.CharField()
    reason = serializers.CharField(help_text="Why the approval accepted the regression.")
    families = serializers.ListField(
        child=serializers.CharField(), help_text="The families the report found regressed."
    )


class PromotionRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    report = serializers.IntegerField()
    report_version = serializers.IntegerField()
    overrides = RegressionOverrideSerializer(
        many=True,
        required=False,
        help_text="Approvals of the report over a regressed family, with their written "
        "reasons; empty when nothing regressed (absent in lineages frozen before overrides).",
    )


class LineageSerializer(serializers.Serializer):
    checkpoint = serializers.IntegerField(required=False)
    step = serializers.IntegerField(required=False)
    run = VersionRefSerializer(required=False)
    experiment = NamedRefSerializer(required=False)
    config_hash = serializers.CharField(required=False)
    model = serializers.CharField(required=False, help_text="The base model it was trained from.")
    pool_versions = PoolVersionRefSerializer(many=True, required=False)
    verifier_versions = VerifierVersionRefSerializer(many=True, required=False)
    promotion = PromotionRefSerializer(required=False, allow_null=True)
    base_model = serializers.CharField(required=False, help_text="For a base model version.")


# --- read ------------------------------------------------------------------------------------


class AliasSerializer(serializers.ModelSerializer):
    number = serializers.IntegerField(source="version.number", read_only=True)
    updated_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ModelAlias
        fields = ["alias", "version", "number", "updated_by", "updated_at"]
        read_only_fields = fields


class ModelVersionSerializer(serializers.ModelSerializer):
    model_name = serializers.CharField(source="model.name", read_only=True)
    team = serializers.SlugRelatedField(source="model.team", slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    lineage = documented_json(LineageSerializer, read_only=True)
    format = documented_json(ModelFormatSerializer, read_only=True)
    aliases = serializers.SlugRelatedField(
        many=True, slug_field="alias", read_only=True, help_text="Its aliases' names."
    )
    promotion = serializers.SerializerMethodField(help_text="Its checkpoint's promotion, now.")
    production_refusal = serializers.SerializerMethodField(
        help_text="Why it may not be production; null when it may."
    )

    class Meta:
        model = ModelVersion
        fields = [
            "id", "team", "model", "model_name", "number", "checkpoint", "base_model", "lineage",
            "format", "aliases", "promotion", "production_refusal", "description", "created_by",
            "created_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(PromotionRefSerializer(allow_null=True))
    def get_promotion(self, version: ModelVersion) -> dict[str, Any] | None:
        found = _promotion(version)
        return None if found is None else registry.promotion_ref(found)

    def get_production_refusal(self, version: ModelVersion) -> str | None:
        return registry.alias_refusal(version, registry.PRODUCTION)


class RegisteredModelSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    aliases = AliasSerializer(many=True, read_only=True)
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = RegisteredModel
        fields = [
            "id", "team", "name", "description", "aliases", "latest_version", "created_by",
            "created_at", "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_latest_version(self, model: RegisteredModel) -> int | None:
        numbers = [v.number for v in model.versions.all()]
        return max(numbers) if numbers else None


class RegisteredModelDetailSerializer(RegisteredModelSerializer):
    versions = ModelVersionSerializer(many=True, read_only=True)

    class Meta(RegisteredModelSerializer.Meta):
        fields = [*RegisteredModelSerializer.Meta.fields, "versions"]
        read_only_fields = fields


def _promotion(version: ModelVersion) -> Promotion | None:
    checkpoint = version.checkpoint
    return getattr(checkpoint, "promotion", None) if checkpoint is not None else None


# --- write bodies ----------------------------------------------------------------------------


class RegisteredModelWriteSerializer(StrictSerializer):
    team = serializers.SlugField(required=False, help_text="The owning team (editor role).")
    name = serializers.CharField(max_length=120, help_text="Unique in the team.")
    description = serializers.CharField(max_length=10_000, allow_blank=True, required=False)


class RegisterSerializer(StrictSerializer):
    model = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, help_text="The registered model to add a version to."
    )
    checkpoint = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=2**63 - 1,
        help_text="A checkpoint of the model's team.",
    )
    base_model = serializers.CharField(
        required=False, allow_null=True, max_length=300, help_text="Or a catalogue base model."
    )
    description = serializers.CharField(max_length=10_000, allow_blank=True, required=False)


class AliasBodySerializer(StrictSerializer):
    alias = serializers.CharField(
        max_length=60, help_text="A lowercase slug: production, candidate..."
    )


class ServedFormatSerializer(StrictSerializer):
    family = serializers.CharField(required=False, help_text="Which trained family it serves.")
    prompt_template = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, trim_whitespace=False
    )
    chat_template = serializers.CharField(
        required=False, allow_null=True, trim_whitespace=False,
        help_text="null: the raw prompt; else the chat template's name or text.",
    )  # fmt: skip
    add_special_tokens = serializers.BooleanField(required=False)
    extract = serializers.CharField(required=False, help_text="The answer extractor it uses.")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not set(attrs) - {"family"}:
            stated = ", ".join(k for k in SERVED_KEYS if k != "family")
            raise serializers.ValidationError({"format": [f"state at least one of {stated}"]})
        return attrs


FormatCheckSerializer = inline_serializer(
    "FormatCheck",
    {
        "matches": serializers.BooleanField(),
        "differences": serializers.ListField(child=serializers.CharField()),
    },
)


ALIAS_REFUSED = OpenApiResponse(
    ApiErrorsSerializer,
    description="production on a version that is not a promoted checkpoint, or deleting a "
    "model that has a production alias: the error on alias says why.",
)


# --- views -----------------------------------------------------------------------------------


class RegisteredModelViewSet(TeamScopedMixin, viewsets.ModelViewSet):
    """Registered models of the caller's teams, by name."""

    queryset = RegisteredModel.objects.none()
    serializer_class = RegisteredModelSerializer
    permission_classes = [TeamRolePermission]
    http_method_names = ["get", "post", "patch", "delete"]
    search_fields = ["name", "description"]

    def get_queryset(self) -> QuerySet[RegisteredModel]:
        return self.scope(
            RegisteredModel.objects.select_related("team", "created_by").prefetch_related(
                "aliases__version", "aliases__updated_by", "versions"
            )
        )

    def get_serializer_class(self) -> type[serializers.BaseSerializer]:
        if self.action == "retrieve":
            return RegisteredModelDetailSerializer
        return RegisteredModelSerializer

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        model = self.get_object()
        versions = _versions().filter(model=model)
        data = RegisteredModelSerializer(model).data | {
            "versions": ModelVersionSerializer(versions, many=True).data
        }
        return Response(data)

    @extend_schema(
        request=RegisteredModelWriteSerializer, responses={201: RegisteredModelSerializer}
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = RegisteredModelWriteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        team = self.team_for_write(data.get("team"))
        made = registry.create_model(
            request.user, team, name=data["name"], description=data.get("description", "")
        )
        return Response(RegisteredModelSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=RegisteredModelWriteSerializer, responses={200: RegisteredModelSerializer}
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        model = self.get_object()
        body = RegisteredModelWriteSerializer(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        changes = dict(body.validated_data)
        if changes.pop("team", model.team.slug) != model.team.slug:
            raise serializers.ValidationError({"team": ["a model's team never changes"]})
        model = registry.update_model(request.user, model, **changes)
        return Response(RegisteredModelSerializer(model).data)

    @extend_schema(responses={204: None, 409: ALIAS_REFUSED})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().destroy(request, *args, **kwargs)

    def perform_destroy(self, instance: RegisteredModel) -> None:
        registry.delete_model(self.request.user, instance)


def _versions() -> QuerySet[ModelVersion]:
    return ModelVersion.objects.select_related(
        "model__team", "created_by", "checkpoint__promotion__report"
    ).prefetch_related("aliases")


class ModelVersionViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Versions of the caller's teams' registered models, newest first."""

    queryset = ModelVersion.objects.none()
    serializer_class = ModelVersionSerializer
    permission_classes = [TeamRolePermission]
    team_path = "model__team"
    filterset_fields = ["model", "checkpoint"]

    def get_queryset(self) -> QuerySet[ModelVersion]:
        return self.scope(_versions()).order_by("-created_at", "-id")

    @extend_schema(request=RegisterSerializer, responses={201: ModelVersionSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = RegisterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        model = get_object_or_404(
            RegisteredModel.objects.select_related("team"),
            pk=data["model"],
            team__in=visible_teams(request),
        )
        check_role(request, model.team, self.write_role)
        version = registry.register(
            request.user, model, checkpoint=data.get("checkpoint"),
            base_model=data.get("base_model"), description=data.get("description", ""),
        )  # fmt: skip
        made = _versions().get(pk=version.pk)
        return Response(ModelVersionSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        methods=["POST"],
        request=AliasBodySerializer,
        responses={200: AliasSerializer, 409: ALIAS_REFUSED},
    )
    @extend_schema(methods=["DELETE"], request=AliasBodySerializer, responses={204: None})
    @action(detail=True, methods=["post", "delete"])
    def alias(self, request: Request, pk: str | None = None) -> Response:
        """POST: point the alias at this version (moving it); DELETE: remove it from the model,
        if it points here."""
        version = self.get_object()
        body = AliasBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        name = body.validated_data["alias"]
        if request.method == "DELETE":
            if not version.aliases.filter(alias=name).exists():
                raise serializers.ValidationError(
                    {"alias": [f"{version} does not carry alias {name!r}"]}
                )
            registry.remove_alias(request.user, version.model, name)
            return Response(status=status.HTTP_204_NO_CONTENT)
        made = registry.set_alias(request.user, version, name)
        return Response(AliasSerializer(made).data)

    @extend_schema(request=ServedFormatSerializer, responses={200: FormatCheckSerializer})
    @action(detail=True, methods=["post"], url_path="check-format")
    def check_format(self, request: Request, pk: str | None = None) -> Response:
        """Compare a request's or a deployment's format with the training format (read-only:
        any member may ask, so no write permission is checked)."""
        version = get_object_or_404(self.get_queryset(), pk=pk)
        body = ServedFormatSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        found = registry.check_format(version, body.validated_data)
        return Response({"matches": not found, "differences": found})
