"""Task family endpoints: CRUD, preview, versions (generate / upload / dataset / edit), tasks."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import exceptions, parsers, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role, Team
from crucible.api.scoping import TeamScopedMixin, check_role
from crucible.api.serializers import StrictModelSerializer, StrictSerializer
from tasks_app.families.registry import describe_kinds
from tasks_app.models import PoolJob, PoolTask, PoolVersion, TaskFamily
from tasks_app.pools.importers import ImportRejected
from tasks_app.services import pools as services

from .common import TeamOwnedViewSet, TeamSlugField

MAX_GENERATE = 100_000


class PoolVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    family_slug = serializers.CharField(source="family.slug", read_only=True)

    class Meta:
        model = PoolVersion
        fields = [
            "id",
            "family",
            "family_slug",
            "number",
            "content_hash",
            "source",
            "source_detail",
            "held_out_fraction",
            "task_count",
            "train_count",
            "held_out_count",
            "difficulty_histogram",
            "dedup",
            "diff",
            "note",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class FamilySerializer(StrictModelSerializer):
    team = TeamSlugField()
    slug = serializers.SlugField(max_length=60, required=False)
    latest_version = serializers.SerializerMethodField()
    version_count = serializers.IntegerField(read_only=True)
    held_out_fraction = serializers.FloatField(min_value=0.0, max_value=0.9, required=False)

    class Meta:
        model = TaskFamily
        fields = [
            "id",
            "team",
            "name",
            "slug",
            "kind",
            "description",
            "params",
            "prompt_template",
            "held_out_fraction",
            "latest_version",
            "version_count",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "created_at", "updated_at"]
        validators: list = []

    @extend_schema_field(PoolVersionSerializer(allow_null=True))
    def get_latest_version(self, family: TaskFamily) -> dict | None:
        version = family.latest_version()
        return PoolVersionSerializer(version).data if version else None

    def validate(self, attrs: dict) -> dict:
        if self.instance is not None and "kind" in attrs and attrs["kind"] != self.instance.kind:
            raise serializers.ValidationError({"kind": ["The kind of a family cannot change."]})
        return attrs


class GenerateSerializer(StrictSerializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_GENERATE),
        help_text='Tasks per difficulty level, e.g. {"1": 200, "2": 200}.',
    )
    seed = serializers.IntegerField(default=0)
    near_duplicates = serializers.BooleanField(default=False)
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")

    def validate_counts(self, value: dict) -> dict[int, int]:
        try:
            counts = {int(level): n for level, n in value.items() if n}
        except ValueError as exc:
            raise serializers.ValidationError("levels must be whole numbers") from exc
        if not counts:
            raise serializers.ValidationError("ask for at least one task")
        if sum(counts.values()) > MAX_GENERATE:
            raise serializers.ValidationError(f"at most {MAX_GENERATE} tasks per version")
        return counts


class UploadSerializer(StrictSerializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=["jsonl", "csv", "parquet"], required=False)
    mapping = serializers.JSONField(
        required=False, default=dict, help_text='Kind field -> column, e.g. {"prompt": "question"}.'
    )
    near_duplicates = serializers.BooleanField(default=True)
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")

    def validate_mapping(self, value: object) -> dict[str, str]:
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise serializers.ValidationError("must be an object of field name -> column name")
        return value


class DatasetSerializer(StrictSerializer):
    dataset = serializers.ChoiceField(choices=sorted(services.BUNDLED_DATASETS))
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class EditSerializer(StrictSerializer):
    base = serializers.IntegerField(min_value=1, help_text="Version number to start from.")
    remove = serializers.ListField(child=serializers.CharField(max_length=64), allow_empty=False)
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class GradeSerializer(StrictSerializer):
    model_path = serializers.CharField(
        max_length=500, help_text="A Hugging Face model directory on the worker."
    )
    k = serializers.IntegerField(
        min_value=1, max_value=64, default=8, help_text="Samples per task."
    )
    temperature = serializers.FloatField(min_value=0.0, max_value=2.0, default=1.0)
    max_new_tokens = serializers.IntegerField(min_value=1, max_value=4096, default=64)
    levels = serializers.IntegerField(min_value=2, max_value=10, default=5)
    spec = serializers.JSONField(
        required=False, help_text="Verifier spec; default: the kind's default."
    )


class PoolJobSerializer(serializers.ModelSerializer):
    class Meta:
        model = PoolJob
        fields = [
            "id",
            "version",
            "kind",
            "params",
            "status",
            "progress",
            "message",
            "result_version",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields


class PoolTaskSerializer(serializers.ModelSerializer):
    class Meta:
        model = PoolTask
        fields = [
            "id",
            "position",
            "content_hash",
            "prompt",
            "expected",
            "difficulty",
            "split",
            "source_id",
            "meta",
        ]
        read_only_fields = fields


@contextmanager
def uploaded_path(upload) -> Iterator[Path]:  # type: ignore[no-untyped-def]
    """A path to the uploaded bytes: Django's temp file when large, else a copy on disk."""
    if hasattr(upload, "temporary_file_path"):
        yield Path(upload.temporary_file_path())
        return
    suffix = Path(upload.name or "").suffix
    with tempfile.NamedTemporaryFile(suffix=suffix) as handle:
        upload.seek(0)
        shutil.copyfileobj(upload, handle)
        handle.flush()
        yield Path(handle.name)


def rejected(exc: ImportRejected) -> exceptions.ValidationError:
    """The whole import refused: a summary on ``file`` plus one error per bad row (first 100)."""
    detail: dict[str, list[exceptions.ErrorDetail]] = {
        "file": [exceptions.ErrorDetail(str(exc), code="rejected")]
    }
    for issue in exc.errors:
        key = f"rows[{issue.row}].{issue.field}"
        detail.setdefault(key, []).append(exceptions.ErrorDetail(issue.reason, code="invalid_row"))
    return exceptions.ValidationError(detail)


class FamilyViewSet(TeamOwnedViewSet):
    """Task families of your teams: a kind of verifiable work, its generator settings and pool versions."""

    queryset = TaskFamily.objects.none()
    model = TaskFamily
    serializer_class = FamilySerializer
    filterset_fields = ["kind"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return self.scope(
            TaskFamily.objects.select_related("team")
            .annotate(version_count=Count("versions"))
            .order_by("name", "id")
        )

    def create_object(self, team: Team, slug: str, data: dict[str, Any]) -> TaskFamily:
        family = services.create_family(self.request.user, team, slug=slug, **data)
        family.version_count = 0
        return family

    def perform_update(self, serializer: FamilySerializer) -> None:
        if "params" in serializer.validated_data:
            kind = services.kind_module(serializer.instance.kind)
            serializer.validated_data["params"] = services.checked_params(
                kind, serializer.validated_data["params"]
            )
        super().perform_update(serializer)

    def perform_destroy(self, instance: TaskFamily) -> None:
        self.refuse_delete_if_versioned(instance, "family")
        instance.delete()

    def _respond(self, version: PoolVersion, created: bool) -> Response:
        return Response(
            PoolVersionSerializer(version).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        request=GenerateSerializer,
        responses=OpenApiResponse(description="samples, histogram, dedup"),
    )
    @action(detail=True, methods=["post"])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        family = self.get_object()
        body = GenerateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        tasks = services.generated_tasks(
            family, body.validated_data["counts"], body.validated_data["seed"]
        )
        return Response(
            services.preview(tasks, family, near=body.validated_data["near_duplicates"])
        )

    @extend_schema(responses=PoolVersionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def versions(self, request: Request, pk: str | None = None) -> Response:
        return Response(PoolVersionSerializer(self.get_object().versions.all(), many=True).data)

    @extend_schema(
        request=GenerateSerializer,
        responses={201: PoolVersionSerializer, 200: PoolVersionSerializer},
    )
    @action(detail=True, methods=["post"], url_path="versions/generate")
    def generate(self, request: Request, pk: str | None = None) -> Response:
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = GenerateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        tasks = services.generated_tasks(family, data["counts"], data["seed"])
        detail = {
            "counts": {str(k): v for k, v in data["counts"].items()},
            "seed": data["seed"],
            "params": family.params,
        }
        return self._respond(
            *services.version_from_tasks(
                request.user,
                family,
                tasks,
                source=PoolVersion.Source.GENERATOR,
                detail=detail,
                near=data["near_duplicates"],
                note=data["note"],
            )
        )

    @extend_schema(
        request={"multipart/form-data": UploadSerializer}, responses={201: PoolVersionSerializer}
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="versions/upload",
        parser_classes=[parsers.MultiPartParser, parsers.FormParser],
    )
    def upload(self, request: Request, pk: str | None = None) -> Response:
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = UploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with uploaded_path(data["file"]) as path:
            try:
                result = services.import_file(
                    request.user,
                    family,
                    path,
                    fmt=data.get("format"),
                    mapping=data["mapping"],
                    near=data["near_duplicates"],
                    note=data["note"],
                    filename=data["file"].name,
                )
            except ImportRejected as exc:
                raise rejected(exc) from exc
        return self._respond(*result)

    @extend_schema(
        request=DatasetSerializer,
        responses={201: PoolVersionSerializer, 200: PoolVersionSerializer},
    )
    @action(detail=True, methods=["post"], url_path="versions/dataset")
    def dataset(self, request: Request, pk: str | None = None) -> Response:
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = DatasetSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._respond(*services.import_bundled(request.user, family, **body.validated_data))

    @extend_schema(
        request=EditSerializer, responses={201: PoolVersionSerializer, 200: PoolVersionSerializer}
    )
    @action(detail=True, methods=["post"], url_path="versions/edit")
    def edit(self, request: Request, pk: str | None = None) -> Response:
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = EditSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        base = get_object_or_404(family.versions, number=body.validated_data["base"])
        return self._respond(
            *services.edit_version(
                request.user,
                base,
                remove=body.validated_data["remove"],
                note=body.validated_data["note"],
            )
        )


class PoolVersionViewSet(TeamScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Immutable, content-hashed pool versions with their splits, tasks and grading jobs."""

    queryset = PoolVersion.objects.none()
    serializer_class = PoolVersionSerializer
    team_path = "family__team"
    filterset_fields = ["family", "source"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return self.scope(PoolVersion.objects.select_related("family", "created_by"))

    @extend_schema(
        parameters=[
            OpenApiParameter("split", str, enum=["train", "held_out"]),
            OpenApiParameter("difficulty", int),
            OpenApiParameter("search", str),
        ],
        responses=PoolTaskSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def tasks(self, request: Request, pk: str | None = None) -> Response:
        rows = self.get_object().tasks.all()
        split = request.query_params.get("split")
        if split:
            rows = rows.filter(split=split)
        level = request.query_params.get("difficulty")
        if level:
            if not level.isdigit():
                raise serializers.ValidationError({"difficulty": ["must be a whole number"]})
            rows = rows.filter(difficulty=int(level))
        query = request.query_params.get("search")
        if query:
            rows = rows.filter(prompt__icontains=query)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(PoolTaskSerializer(page, many=True).data)

    @extend_schema(methods=["GET"], responses=PoolJobSerializer(many=True))
    @extend_schema(methods=["POST"], request=GradeSerializer, responses={202: PoolJobSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None)
    def jobs(self, request: Request, pk: str | None = None) -> Response:
        """Measured difficulty: POST queues a job sampling k completions per task with a model."""
        version = self.get_object()
        if request.method == "GET":
            return Response(PoolJobSerializer(version.jobs.all(), many=True).data)
        check_role(request, version.family.team, Role.EDITOR)
        body = GradeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        job = services.start_grading(request.user, version, body.validated_data)
        return Response(PoolJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class FamilyKindsView(APIView):
    @extend_schema(responses=OpenApiResponse(description="Registered family kinds"))
    def get(self, request: Request) -> Response:
        return Response(describe_kinds(services.extra_kinds()))
