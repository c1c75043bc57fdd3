"""Task family endpoints: CRUD, preview, versions (generate / upload / dataset / edit), tasks."""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role
from crucible.api import parsers
from crucible.api.field_errors import query_choice, query_flag
from crucible.api.scoping import TeamScopedMixin, check_role
from crucible.api.serializers import StrictModelSerializer, StrictSerializer, documented_json
from tasks_app.families.registry import describe_kinds
from tasks_app.models import PoolJob, PoolTask, PoolVersion, TaskFamily
from tasks_app.services import diffs, families, model_choices, pool_jobs
from tasks_app.services import pools as services
from tasks_app.services import uploads as upload_services

from . import pool_reports, uploads
from .common import SlugFreeInTeamMixin, TeamOwnedViewSet, TeamSlugField
from .verifier_reports import spec_field

MAX_GENERATE = 100_000
MULTIPART = [parsers.MultiPartParser, parsers.FormParser]


class DiffExampleSerializer(serializers.Serializer):
    content_hash = serializers.CharField()
    prompt = serializers.CharField(help_text="The prompt's first 200 characters.")
    difficulty = serializers.IntegerField()


class VersionDiffSerializer(serializers.Serializer):
    against = serializers.IntegerField(required=False, help_text="The parent version's number.")
    added = serializers.IntegerField(required=False)
    removed = serializers.IntegerField(required=False)
    unchanged = serializers.IntegerField(required=False)
    added_examples = DiffExampleSerializer(many=True, required=False)
    removed_examples = DiffExampleSerializer(many=True, required=False)


class EpisodeLimitsSerializer(serializers.Serializer):
    max_turns = serializers.IntegerField(help_text="Assistant messages per episode at most.")
    max_tokens_per_turn = serializers.IntegerField(
        help_text="Tokens one assistant message may have."
    )
    max_total_tokens = serializers.IntegerField(
        help_text="Tokens of the conversation after the opening, the environment's included."
    )


class FamilyEnvironmentSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="An environment kind that plays this family's kind.")
    limits = EpisodeLimitsSerializer(
        help_text="Stored complete; on input any limit left out is the kind's default."
    )


class PoolVersionSerializer(serializers.ModelSerializer):
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    family_slug = serializers.CharField(source="family.slug", read_only=True)
    source_detail = pool_reports.json_object(
        read_only=True, help_text="How it was made (seed, dataset, file...), by source."
    )
    difficulty_histogram = documented_json(
        pool_reports.SplitHistogramSerializer, read_only=True, help_text="Tasks per level."
    )
    dedup = documented_json(pool_reports.DedupReportSerializer, read_only=True)
    diff = serializers.SerializerMethodField(help_text="Against the parent version; {} for v1.")
    environment = documented_json(
        FamilyEnvironmentSerializer,
        read_only=True,
        allow_null=True,
        help_text="The family's environment when the version was made, frozen with it: what "
        "runs and evaluations of this version play its tasks in. Null: single-turn.",
    )

    @extend_schema_field(VersionDiffSerializer)
    def get_diff(self, version: PoolVersion) -> dict[str, Any]:
        return diffs.described_diff(version)

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
            "environment",
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


class VersionDefaultsSerializer(serializers.Serializer):
    near_duplicates = serializers.BooleanField()
    mode = serializers.ChoiceField(choices=["append", "replace"])
    prompt_mode = serializers.ChoiceField(choices=["template", "as_is"])


class FamilySerializer(SlugFreeInTeamMixin, StrictModelSerializer):
    team = TeamSlugField()
    slug = serializers.SlugField(max_length=60, required=False)
    latest_version = serializers.SerializerMethodField()
    version_defaults = serializers.SerializerMethodField(
        help_text="What a new version does where its request says nothing."
    )
    version_count = serializers.IntegerField(read_only=True)
    held_out_fraction = serializers.FloatField(min_value=0.0, max_value=0.9, required=False)
    params = pool_reports.json_object(
        required=False, help_text="Generator parameters, as the kind's params_schema says."
    )
    environment = documented_json(
        FamilyEnvironmentSerializer,
        required=False,
        allow_null=True,
        help_text="Null for a single-turn family; else the environment kind it is played as "
        "and the episode limits. Each new version freezes it; an edit never changes what "
        "existing versions play.",
    )

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
            "environment",
            "latest_version",
            "version_count",
            "version_defaults",
            "archived_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "archived_at", "created_at", "updated_at"]
        validators: list = []

    @extend_schema_field(PoolVersionSerializer(allow_null=True))
    def get_latest_version(self, family: TaskFamily) -> dict | None:
        version = family.latest_version()
        return PoolVersionSerializer(version).data if version else None

    @extend_schema_field(VersionDefaultsSerializer)
    def get_version_defaults(self, family: TaskFamily) -> dict[str, Any]:
        return upload_services.version_defaults(family)

    def validate(self, attrs: dict) -> dict:
        if self.instance is not None and "kind" in attrs and attrs["kind"] != self.instance.kind:
            raise serializers.ValidationError({"kind": ["The kind of a family cannot change."]})
        return attrs


class PinSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text='What pins the family, e.g. "curriculum".')
    id = serializers.IntegerField()
    name = serializers.CharField()
    versions = serializers.ListField(child=serializers.IntegerField(), help_text="Numbers.")
    reason = serializers.CharField()


class RemovalSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        choices=["delete", "archive"],
        help_text="archive when something pins a version of the family, else delete.",
    )
    message = serializers.CharField(help_text="What removing does and why, in a sentence.")
    versions = serializers.IntegerField()
    tasks = serializers.IntegerField()
    pins = PinSerializer(many=True)


class GenerateSerializer(StrictSerializer):
    counts = serializers.DictField(
        child=serializers.IntegerField(min_value=0, max_value=MAX_GENERATE),
        help_text='Tasks per difficulty level, e.g. {"1": 200, "2": 200}.',
    )
    seed = serializers.IntegerField(default=0)
    near_duplicates = serializers.BooleanField(default=services.NEAR_DUPLICATES_DEFAULT)
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


class DatasetSerializer(StrictSerializer):
    dataset = serializers.ChoiceField(choices=sorted(services.BUNDLED_DATASETS))
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class EditSerializer(StrictSerializer):
    base = serializers.IntegerField(min_value=1, help_text="Version number to start from.")
    remove = serializers.ListField(child=serializers.CharField(max_length=64), allow_empty=False)
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class GradeSerializer(StrictSerializer):
    model_path = serializers.CharField(
        max_length=500,
        help_text="A model a running worker can load: a name from GET /api/v1/models/?queue=cpu.",
    )
    k = serializers.IntegerField(
        min_value=1, max_value=64, default=8, help_text="Samples per task."
    )
    temperature = serializers.FloatField(min_value=0.0, max_value=2.0, default=1.0)
    max_new_tokens = serializers.IntegerField(min_value=1, max_value=4096, default=64)
    levels = serializers.IntegerField(min_value=2, max_value=10, default=5)
    spec = spec_field(required=False, help_text="Verifier spec; default: the kind's default.")

    def validate_model_path(self, value: str) -> str:
        # Refused here, naming the field, rather than failing later in the job on the worker.
        problem = model_choices.problem(value, "cpu")
        if problem is not None:
            raise serializers.ValidationError(problem, code="unknown_model")
        return value


class PoolJobSerializer(serializers.ModelSerializer):
    params = pool_reports.json_object(read_only=True, help_text="The job's request.")

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
    expected = pool_reports.json_object(
        read_only=True, help_text="What the verifier needs to judge an answer."
    )
    meta = pool_reports.json_object(read_only=True)

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


class FamilyViewSet(TeamOwnedViewSet):
    """Task families of your teams: a kind of verifiable work, its generator settings and pool versions."""

    queryset = TaskFamily.objects.none()
    model = TaskFamily
    serializer_class = FamilySerializer
    filterset_fields = ["kind"]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        families = self.scope(
            TaskFamily.objects.select_related("team")
            .annotate(version_count=Count("versions"))
            .order_by("name", "id")
        )
        if self.action == "list":  # an archived family is still found by its id
            archived = query_flag(self.request.query_params, "archived")
            families = families.filter(archived_at__isnull=not archived)
        return families

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "archived", bool, description="true: only archived families; default: the rest"
            )
        ]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def perform_create(self, serializer: FamilySerializer) -> None:  # type: ignore[override]
        data = serializer.validated_data
        team = self.team_for_write(data.pop("team", None))
        family = families.create_family(self.request.user, team, **data)
        family.version_count = 0
        serializer.instance = family

    def perform_update(self, serializer: FamilySerializer) -> None:  # type: ignore[override]
        data = {k: v for k, v in serializer.validated_data.items() if k != "team"}
        serializer.instance = families.update_family(self.request.user, serializer.instance, **data)
        serializer.instance.version_count = serializer.instance.versions.count()

    @extend_schema(
        responses={
            204: OpenApiResponse(description="Deleted with all its versions."),
            200: OpenApiResponse(RemovalSerializer, description="Archived: something pins it."),
        }
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Delete the family with its versions, or archive it when something pins a version;
        ``GET removal/`` says beforehand which, and why."""
        family = self.get_object()
        done = families.remove_family(request.user, family)
        if done.action == "delete":
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(RemovalSerializer(done.to_dict()).data)

    @extend_schema(responses=RemovalSerializer)
    @action(detail=True, methods=["get"])
    def removal(self, request: Request, pk: str | None = None) -> Response:
        """What deleting the family would do: delete it with its versions, or archive it
        because something pins them (named)."""
        return Response(RemovalSerializer(families.removal(self.get_object()).to_dict()).data)

    @extend_schema(request=None, responses=FamilySerializer)
    @action(detail=True, methods=["post"])
    def archive(self, request: Request, pk: str | None = None) -> Response:
        """Hide the family from lists and make it read-only; its versions stay as they are."""
        family = families.archive_family(request.user, self.get_object())
        return Response(self.get_serializer(self.get_queryset().get(pk=family.pk)).data)

    @extend_schema(request=None, responses=FamilySerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request: Request, pk: str | None = None) -> Response:
        family = families.restore_family(request.user, self.get_object())
        return Response(self.get_serializer(self.get_queryset().get(pk=family.pk)).data)

    def _respond(self, version: PoolVersion, created: bool) -> Response:
        return Response(
            PoolVersionSerializer(version).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    @extend_schema(
        request=GenerateSerializer,
        responses=pool_reports.TasksPreviewSerializer,
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
            "near_duplicates": data["near_duplicates"],
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
        request={"multipart/form-data": uploads.InspectSerializer},
        responses={200: uploads.FileSummarySerializer},
    )
    @action(detail=True, methods=["post"], url_path="versions/inspect", parser_classes=MULTIPART)
    def inspect(self, request: Request, pk: str | None = None) -> Response:
        """The columns, first rows and text labels of a file, to map it before uploading."""
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = uploads.InspectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fmt = body.validated_data.get("format")
        with uploads.uploaded_path(body.validated_data["file"]) as path, uploads.refusals():
            return Response(upload_services.inspect_upload(family, path, fmt=fmt))

    @extend_schema(
        request={"multipart/form-data": uploads.UploadOptionsSerializer},
        responses={200: uploads.UploadPreviewSerializer},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="versions/upload/preview",
        parser_classes=MULTIPART,
    )
    def upload_preview(self, request: Request, pk: str | None = None) -> Response:
        """What uploading the file would freeze, counted against the latest version; nothing is
        saved. Send ``base`` from this answer with the upload to freeze exactly this."""
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = uploads.UploadOptionsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with uploads.uploaded_path(body.validated_data["file"]) as path, uploads.refusals():
            return Response(upload_services.preview_upload(family, path, body.options()))

    @extend_schema(
        request={"multipart/form-data": uploads.UploadSerializer},
        responses={201: PoolVersionSerializer, 200: PoolVersionSerializer},
    )
    @action(detail=True, methods=["post"], url_path="versions/upload", parser_classes=MULTIPART)
    def upload(self, request: Request, pk: str | None = None) -> Response:
        """Freeze a file as a new version, appended to the latest one or replacing it."""
        family = self.get_object()
        self.check_object_permissions(request, family)
        body = uploads.UploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with uploads.uploaded_path(data["file"]) as path, uploads.refusals():
            result = upload_services.import_file(
                request.user,
                family,
                path,
                body.options(),
                note=data["note"],
                filename=data["file"].name,
            )
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
        split = query_choice(request.query_params, "split", ["train", "held_out"])
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

    @extend_schema(
        parameters=[OpenApiParameter("side", str, enum=["added", "removed"], required=True)],
        responses=PoolTaskSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def changes(self, request: Request, pk: str | None = None) -> Response:
        """Every task this version added to its parent, or every one of the parent's it removed."""
        side = request.query_params.get("side")
        if side not in ("added", "removed"):
            raise serializers.ValidationError({"side": ["must be added or removed"]})
        rows = diffs.changed_tasks(self.get_object(), side).order_by("position")
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
        families.ensure_active(version.family)
        body = GradeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        job = pool_jobs.start_grading(request.user, version, body.validated_data)
        return Response(PoolJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class FamilyKindsView(APIView):
    @extend_schema(responses=pool_reports.FamilyKindSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(describe_kinds(services.extra_kinds()))
