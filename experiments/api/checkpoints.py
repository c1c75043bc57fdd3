"""Checkpoint endpoints: download one as a Hugging Face model directory, zipped."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request

from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from training.export import EXPORT_DTYPE_CHOICES

from ..models import Checkpoint
from ..services import exports


class ExportQuerySerializer(serializers.Serializer):
    adapter_only = serializers.BooleanField(
        default=False,
        help_text="A LoRA checkpoint's adapter alone, instead of merged into its base model.",
    )
    dtype = serializers.ChoiceField(
        choices=EXPORT_DTYPE_CHOICES,
        default="auto",
        help_text="The precision the weights are written in; `auto` is the one the base "
        "model shipped in (its config's dtype), float32 when it records none.",
    )


class CheckpointViewSet(TeamScopedMixin, viewsets.GenericViewSet):
    """Checkpoints of the caller's teams' runs."""

    queryset = Checkpoint.objects.none()
    permission_classes = [TeamRolePermission]
    team_path = "run__team"

    def get_queryset(self) -> QuerySet[Checkpoint]:
        return self.scope(Checkpoint.objects.select_related("run__experiment", "run__team"))

    @extend_schema(
        parameters=[ExportQuerySerializer],
        responses={
            (200, "application/zip"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="A Hugging Face model directory, zipped: safetensors weights, "
                "the tokenizer with its chat template, the generation config and a model card "
                "(README.md) with the checkpoint's lineage.",
            ),
            409: OpenApiResponse(
                ApiErrorsSerializer,
                description="The checkpoint is no longer on disk, or holds full weights and "
                "the adapter alone was asked for: the error names the field and why.",
            ),
        },
    )
    @action(detail=True, methods=["get"], filter_backends=[], pagination_class=None)
    def export(self, request: Request, pk: str | None = None) -> StreamingHttpResponse:
        """The checkpoint as a Hugging Face model directory, zipped and streamed; 409 when it
        is no longer on disk, or holds full weights and the adapter alone was asked for."""
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        adapter_only = query.validated_data["adapter_only"]
        checkpoint = self.get_object()
        directory = exports.export_to_temporary(
            checkpoint, adapter_only=adapter_only, dtype=query.validated_data["dtype"]
        )
        response = StreamingHttpResponse(
            exports.zip_stream(directory, remove=True), content_type="application/zip"
        )
        name = exports.archive_name(checkpoint, adapter_only)
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
