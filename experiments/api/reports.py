"""Evaluation jobs, regression reports and their review.

The figures come from ``experiments.stats`` through ``services.reports``; the serializers
here validate input and give the OpenAPI schema (and the front end's types) their shape.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import django_filters
from django import forms
from django.db.models import Count, Q, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role
from crucible.api.field_errors import query_choice
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin, check_role, visible_teams
from crucible.api.serializers import StrictSerializer, documented_json
from training.prompting import PromptFormat

from .. import report_export, stats
from ..models import (
    REPORT_CHARTS,
    EvaluationJob,
    EvaluationReport,
    EvaluationState,
    Promotion,
    ReportComment,
    ReportReview,
    ReportState,
    ReviewDecision,
)
from ..services import evaluation, releases, reports, suites
from .config_fields import serializer_for
from .health import SignalSerializer
from .promotion import PromotionSerializer

# --- evaluation jobs -----------------------------------------------------------------------


class EvaluatedFamilySerializer(serializers.Serializer):
    family = serializers.CharField(help_text="The family's slug.")
    pool_version = serializers.IntegerField(help_text="Pool version id (its held-out split).")
    version_number = serializers.IntegerField()
    verifier_version = serializers.IntegerField()
    threshold_pts = serializers.FloatField(
        help_text="A drop past this many percentage points is a regression."
    )


class EvaluationJobSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    families = documented_json(EvaluatedFamilySerializer(many=True), read_only=True)
    tasks = serializers.SerializerMethodField(help_text="Held-out tasks evaluated so far.")
    state = documented_json(
        {"type": "string", "enum": EvaluationState.values},
        component_name="EvaluationStateEnum",
        read_only=True,
    )
    prompt_format = serializers.SerializerMethodField(
        help_text="How each task became model input and where the answer starts: raw, or "
        "the model's chat template with its system prompt and reasoning tags."
    )

    class Meta:
        model = EvaluationJob
        fields = [
            "id", "team", "checkpoint", "model", "subject", "suite", "families", "k",
            "temperature", "max_new_tokens", "max_tasks", "seed", "prompt_format", "state",
            "progress", "message", "attempts", "tasks", "created_by", "created_at",
            "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(serializer_for(PromptFormat, "stored"))
    def get_prompt_format(self, job: EvaluationJob) -> dict[str, Any]:
        return evaluation.format_data(evaluation.prompt_format(job))

    def get_tasks(self, job: EvaluationJob) -> int:
        counted = getattr(job, "results_count", None)  # annotated by the list's queryset
        return job.results.count() if counted is None else counted


class FamilyResultSerializer(serializers.Serializer):
    family = serializers.CharField()
    tasks = serializers.IntegerField(help_text="Held-out tasks evaluated.")
    k = serializers.IntegerField(help_text="Samples per task (the smallest count of the family).")
    pass_at_1 = serializers.FloatField(help_text="Share of samples that passed.")
    pass_at_k = serializers.FloatField(help_text="Share of tasks with a pass among k samples.")
    mean_turns = serializers.FloatField(
        allow_null=True,
        help_text="A family played as an environment: the assistant turns its episodes used, "
        "on average; null for a single-turn family.",
    )
    agreement = serializers.FloatField(
        allow_null=True,
        help_text="A family played as an environment: the mean share of pairs of a task's "
        "repeated episodes with the same outcome; null for a single-turn family or k = 1.",
    )


class EvaluationJobDetailSerializer(EvaluationJobSerializer):
    results = serializers.SerializerMethodField(
        help_text="What the job found so far, family by family."
    )

    class Meta(EvaluationJobSerializer.Meta):
        fields = [*EvaluationJobSerializer.Meta.fields, "results"]
        read_only_fields = fields

    @extend_schema_field(FamilyResultSerializer(many=True))
    def get_results(self, job: EvaluationJob) -> list[dict[str, Any]]:
        return stats.family_results(evaluation.outcomes(job))


class FamilyChoiceSerializer(StrictSerializer):
    pool_version = serializers.IntegerField()
    verifier_version = serializers.IntegerField()
    threshold_pts = serializers.FloatField(
        min_value=0, max_value=100, default=stats.DEFAULT_THRESHOLD_PTS
    )


class EvaluationSettingsSerializer(StrictSerializer):
    k = serializers.IntegerField(
        min_value=1, max_value=evaluation.MAX_K, required=False,
        help_text="Samples per held-out task (default 4).",
    )  # fmt: skip
    temperature = serializers.FloatField(
        min_value=0.0, max_value=5.0, required=False, help_text="Default 1.0."
    )
    max_new_tokens = serializers.IntegerField(
        min_value=1, max_value=4096, required=False, help_text="Default 16."
    )
    max_tasks = serializers.IntegerField(
        min_value=1, max_value=evaluation.MAX_TASKS, required=False,
        help_text="Held-out tasks per family, at most (default 200).",
    )  # fmt: skip
    seed = serializers.IntegerField(
        min_value=-(2**31), max_value=2**31 - 1, required=False, help_text="Default 0."
    )  # the column is a 32-bit integer


def given_settings(data: dict[str, Any]) -> evaluation.Settings:
    """The settings in a validated body, the defaults for those it leaves out."""
    return evaluation.Settings(**{k: data[k] for k in suites.SETTINGS if k in data})


class EvaluationCreateSerializer(EvaluationSettingsSerializer):
    team = serializers.SlugField(help_text="The team (editor role) whose versions are used.")
    checkpoint = serializers.IntegerField(required=False, help_text="A checkpoint id, or:")
    model = serializers.CharField(required=False, help_text="A base model of the catalogue.")
    families = FamilyChoiceSerializer(
        many=True,
        allow_empty=False,
        required=False,
        help_text="What to evaluate, with the settings; or:",
    )
    suite = serializers.IntegerField(
        required=False,
        help_text="An evaluation suite of the team, whose families and settings are copied "
        "(give either a suite or families and settings, not both).",
    )
    prompt_format = documented_json(
        serializer_for(PromptFormat, "input"),
        required=False,
        help_text="How each task becomes model input: {kind: raw | chat, system_prompt, "
        "reasoning_tags}. Default: a checkpoint's recorded format (the one it trained in), "
        "raw for a base model; chat needs a model whose tokenizer has a chat template.",
    )
    format_of_checkpoint = serializers.IntegerField(
        required=False,
        help_text="Or: evaluate in the format this checkpoint of the team trained in (a base "
        "model evaluated to compare with it).",
    )

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if "suite" not in data:
            if "families" not in data:
                raise serializers.ValidationError({"families": ["give families or a suite"]})
            return data
        clash = [k for k in ("families", *suites.SETTINGS) if k in data]
        if clash:
            why = "comes from the suite; give either a suite or families and settings"
            raise serializers.ValidationError({k: [why] for k in clash})
        return data


class EvaluationViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Evaluation jobs of the caller's teams, newest first; POST queues one on the cpu queue."""

    queryset = EvaluationJob.objects.none()
    serializer_class = EvaluationJobSerializer
    permission_classes = [TeamRolePermission]
    filterset_fields = ["state", "checkpoint", "suite"]

    def get_queryset(self) -> QuerySet[EvaluationJob]:
        rows = EvaluationJob.objects.select_related("team", "created_by")
        # An aggregate drops the model's default ordering (GROUP BY): it is restated.
        rows = rows.annotate(results_count=Count("results")).order_by("-created_at", "-id")
        return self.scope(rows)

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return (
            EvaluationJobDetailSerializer
            if self.action == "retrieve"
            else super().get_serializer_class()
        )

    @extend_schema(request=EvaluationCreateSerializer, responses={202: EvaluationJobSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = EvaluationCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        team = self.team_for_write(data["team"])
        subject = {
            "checkpoint": data.get("checkpoint"),
            "model": data.get("model"),
            "prompt_format": data.get("prompt_format"),
            "format_of_checkpoint": data.get("format_of_checkpoint"),
        }
        if "suite" in data:
            suite = suites.in_team(team, data["suite"])
            job = suites.start_evaluation(request.user, suite, **subject)
        else:
            options = given_settings(data)
            job = evaluation.start(request.user, team, data["families"], options, **subject)
        return Response(EvaluationJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


# --- reports -------------------------------------------------------------------------------


class FamilyRowSerializer(serializers.Serializer):
    family = serializers.CharField()
    tasks = serializers.IntegerField(help_text="Held-out tasks both sides evaluated.")
    candidate = serializers.FloatField(help_text="Candidate success (pass@1 from k samples).")
    baseline = serializers.FloatField()
    difference = serializers.FloatField(help_text="Candidate minus baseline, as a fraction.")
    low = serializers.FloatField(help_text="95% paired-bootstrap interval, lower end.")
    high = serializers.FloatField()
    threshold_pts = serializers.FloatField()
    verdict = serializers.ChoiceField(choices=[stats.IMPROVED, stats.UNCHANGED, stats.REGRESSED])


class LevelSuccessSerializer(serializers.Serializer):
    difficulty = serializers.IntegerField()
    success = serializers.FloatField()
    tasks = serializers.IntegerField()


class WorstTaskSerializer(serializers.Serializer):
    task_hash = serializers.CharField()
    family = serializers.CharField()
    difficulty = serializers.IntegerField()
    passes = serializers.IntegerField()
    k = serializers.IntegerField()
    success = serializers.FloatField()
    errors = serializers.DictField(child=serializers.IntegerField())


class PassAtKSerializer(serializers.Serializer):
    k = serializers.IntegerField()
    pass_at_1 = serializers.FloatField()
    pass_at_k = serializers.FloatField()


class TurnsSuccessSerializer(serializers.Serializer):
    turns = serializers.IntegerField()
    episodes = serializers.IntegerField(help_text="Episodes that used this many turns.")
    success = serializers.FloatField()


class BudgetSuccessSerializer(serializers.Serializer):
    budget = serializers.IntegerField(help_text="A turn budget of some of the family's tasks.")
    episodes = serializers.IntegerField()
    success = serializers.FloatField()
    mean_turns = serializers.FloatField()


class WithinTurnsSerializer(serializers.Serializer):
    turns = serializers.IntegerField()
    success = serializers.FloatField(
        help_text="Share of all episodes passed within this many turns."
    )


class PassHatKSerializer(serializers.Serializer):
    k = serializers.IntegerField()
    value = serializers.FloatField(help_text="Chance that k episodes of a task all pass.")


class ConsistencySerializer(serializers.Serializer):
    agreement = serializers.FloatField(
        allow_null=True,
        help_text="Mean share of pairs of a task's repeated episodes with the same outcome; "
        "null with one episode per task.",
    )
    all_agree = serializers.FloatField(help_text="Share of tasks whose episodes all agree.")
    pass_hat_k = PassHatKSerializer(many=True)


class StabilitySerializer(serializers.Serializer):
    tasks = serializers.IntegerField()
    episodes = serializers.IntegerField()
    k = serializers.IntegerField(help_text="Episodes per task (the fewest of any task).")
    success = serializers.FloatField()
    mean_turns = serializers.FloatField()
    mean_budget = serializers.FloatField()
    tokens_per_episode = serializers.FloatField()
    turn_errors_per_episode = serializers.FloatField()
    tool_errors_per_episode = serializers.FloatField()
    by_turns_used = TurnsSuccessSerializer(many=True)
    by_budget = BudgetSuccessSerializer(many=True)
    within_turns = WithinTurnsSerializer(many=True)
    consistency = ConsistencySerializer()


class ProfileSerializer(serializers.Serializer):
    by_difficulty = serializers.DictField(child=LevelSuccessSerializer(many=True))
    errors_by_layer = serializers.DictField(
        child=serializers.DictField(child=serializers.DictField(child=serializers.IntegerField())),
        help_text="family → verifier stage → error type → failed samples.",
    )
    worst_tasks = WorstTaskSerializer(many=True)
    pass_at_k = serializers.DictField(child=PassAtKSerializer())
    stability = serializers.DictField(
        child=StabilitySerializer(),
        required=False,
        help_text="Stability over turns of each family played as an environment "
        "(experiments.stability); single-turn families have no entry (absent in older reports).",
    )


class ReportSettingsSerializer(serializers.Serializer):
    k = serializers.IntegerField()
    temperature = serializers.FloatField()
    bootstrap_resamples = serializers.IntegerField()
    confidence = serializers.FloatField()
    seed = serializers.IntegerField()


class TrainingSignalsSerializer(serializers.Serializer):
    run = serializers.IntegerField(help_text="The run that trained the candidate checkpoint.")
    run_step = serializers.IntegerField(help_text="The run's step when the report was made.")
    step = serializers.IntegerField(allow_null=True, help_text="The step last checked.")
    signals = SignalSerializer(many=True)


class ReportFiguresSerializer(serializers.Serializer):
    headline = serializers.CharField()
    families = FamilyRowSerializer(many=True)
    candidate_profile = ProfileSerializer()
    baseline_profile = ProfileSerializer()
    settings = ReportSettingsSerializer()
    signals = TrainingSignalsSerializer(
        required=False,
        allow_null=True,
        help_text="The candidate's training run's reward-hacking and drift signals, as they "
        "stood when the report was made; null for a base model (absent in older reports).",
    )


class CommentSerializer(serializers.ModelSerializer):
    author = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ReportComment
        fields = ["id", "parent", "family", "chart", "author", "body", "created_at"]
        read_only_fields = fields


class ReviewSerializer(serializers.ModelSerializer):
    reviewer = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ReportReview
        fields = ["id", "reviewer", "decision", "note", "override_reason", "created_at"]
        read_only_fields = fields


class ReportListSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    candidate_subject = serializers.CharField(source="candidate.subject", read_only=True)
    state = documented_json(
        {"type": "string", "enum": ReportState.values},
        component_name="ReportStateEnum",
        read_only=True,
        help_text="draft → in_review → approved / changes_requested.",
    )
    baseline_subject = serializers.CharField(source="baseline.subject", read_only=True)

    class Meta:
        model = EvaluationReport
        fields = [
            "id", "team", "candidate", "baseline", "candidate_subject", "baseline_subject",
            "lineage", "version", "headline", "state", "created_by", "created_at",
            "submitted_at", "decided_at",
        ]  # fmt: skip
        read_only_fields = fields


class ChartSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()


class ReportCanarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    deployment = serializers.CharField(help_text="The deployment's slug.")
    state = serializers.CharField()
    reason = serializers.CharField()
    candidate = serializers.CharField(help_text="The model version the canary tried.")
    created_at = serializers.DateTimeField()


class ReportSerializer(ReportListSerializer):
    figures = documented_json(ReportFiguresSerializer, read_only=True)
    comments = CommentSerializer(many=True, read_only=True)
    reviews = ReviewSerializer(many=True, read_only=True)
    required_approvals = serializers.SerializerMethodField()
    authors_may_approve = serializers.SerializerMethodField()
    approver_roles = serializers.SerializerMethodField(
        help_text="The team roles whose reviews count (the team's review policy)."
    )
    regressed_families = serializers.SerializerMethodField(
        help_text="Families the figures call regressed: approving needs an override_reason."
    )
    candidate_checkpoint = serializers.IntegerField(
        source="candidate.checkpoint_id",
        read_only=True,
        allow_null=True,
        help_text="The checkpoint the candidate evaluated; null for a base model.",
    )
    promotion = serializers.SerializerMethodField(
        help_text="The candidate checkpoint's promotion, once it is promoted."
    )
    charts = serializers.SerializerMethodField(
        help_text="The plots a comment can be about (``chart`` of a comment): key and title."
    )
    canaries = serializers.SerializerMethodField(
        help_text="Canary releases of the candidate checkpoint, newest first: their reports "
        "sit beside this one."
    )

    class Meta(ReportListSerializer.Meta):
        fields = [
            *ReportListSerializer.Meta.fields, "figures", "comments", "reviews",
            "required_approvals", "authors_may_approve", "approver_roles", "regressed_families",
            "candidate_checkpoint", "promotion", "charts", "canaries",
        ]  # fmt: skip
        read_only_fields = fields

    def get_required_approvals(self, report: EvaluationReport) -> int:
        return reports.policy(report.team).required_approvals

    def get_authors_may_approve(self, report: EvaluationReport) -> bool:
        return reports.policy(report.team).authors_may_approve

    @extend_schema_field(serializers.ListField(child=serializers.ChoiceField(Role.choices)))
    def get_approver_roles(self, report: EvaluationReport) -> list[str]:
        return list(reports.policy(report.team).approver_roles)

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_regressed_families(self, report: EvaluationReport) -> list[str]:
        return reports.regressed_families(report)

    @extend_schema_field(ChartSerializer(many=True))
    def get_charts(self, report: EvaluationReport) -> list[dict[str, str]]:
        return [{"key": k, "title": t} for k, t in reports.commentable_charts(report).items()]

    @extend_schema_field(ReportCanarySerializer(many=True))
    def get_canaries(self, report: EvaluationReport) -> list[dict[str, Any]]:
        checkpoint = report.candidate.checkpoint_id
        if checkpoint is None:
            return []
        return [asdict(c) for c in releases.canaries_of(report.team_id, checkpoint, 20)]

    @extend_schema_field(PromotionSerializer(allow_null=True))
    def get_promotion(self, report: EvaluationReport) -> dict[str, Any] | None:
        found = Promotion.objects.filter(checkpoint_id=report.candidate.checkpoint_id).first()
        return PromotionSerializer(found).data if found and report.candidate.checkpoint_id else None


class ReportCreateSerializer(StrictSerializer):
    candidate = serializers.IntegerField(help_text="A succeeded evaluation job.")
    baseline = serializers.IntegerField(help_text="Another succeeded job, on the same families.")


class CommentCreateSerializer(StrictSerializer):
    body = serializers.CharField(max_length=10_000)
    family = serializers.CharField(required=False, default="", allow_blank=True)
    chart = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="The plot it is about: " + ", ".join(REPORT_CHARTS) + ".",
    )
    parent = serializers.IntegerField(required=False, allow_null=True, default=None)


class ReviewCreateSerializer(StrictSerializer):
    decision = serializers.ChoiceField(choices=ReviewDecision.choices)
    note = serializers.CharField(required=False, default="", allow_blank=True, max_length=10_000)
    override_reason = serializers.CharField(
        required=False, default="", allow_blank=True, max_length=10_000,
        help_text="Required to approve a report with a regressed family: why the regression "
        "is accepted. Shown on the report, audited, and carried into the lineage of a model "
        "version promoted on it.",
    )  # fmt: skip


class WholeNumberFilter(django_filters.NumberFilter):
    """An id: a whole number (``1.5`` is a 400 naming the parameter, not a filter on 1)."""

    field_class = forms.IntegerField


class ReportFilter(django_filters.FilterSet):
    evaluation = WholeNumberFilter(
        method="with_evaluation",
        label="Reports whose candidate or baseline is this evaluation job.",
    )

    class Meta:
        model = EvaluationReport
        fields = ["state", "lineage", "evaluation"]

    def with_evaluation(
        self, rows: QuerySet[EvaluationReport], name: str, value: int
    ) -> QuerySet[EvaluationReport]:
        return rows.filter(Q(candidate_id=value) | Q(baseline_id=value))


class ReportViewSet(
    TeamScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Regression reports of the caller's teams, newest first. Anyone in the team may comment;
    the roles the team's review policy names review; making and submitting a report needs the
    editor role."""

    queryset = EvaluationReport.objects.none()
    permission_classes = [TeamRolePermission]
    filterset_class = ReportFilter

    def get_queryset(self) -> QuerySet[EvaluationReport]:
        rows = EvaluationReport.objects.select_related(
            "team", "created_by", "candidate", "baseline"
        )
        if self.action == "retrieve":
            rows = rows.prefetch_related("comments__author", "reviews__reviewer")
        return self.scope(rows)

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return ReportListSerializer if self.action == "list" else ReportSerializer

    def _report(self, pk: Any) -> EvaluationReport:
        return get_object_or_404(self.get_queryset(), pk=pk)

    def _answer(self, pk: Any, code: int = status.HTTP_200_OK) -> Response:
        self.action = "retrieve"
        return Response(ReportSerializer(self._report(pk)).data, status=code)

    def _member_input(
        self, request: Request, pk: Any, body_class: type[serializers.Serializer]
    ) -> tuple[EvaluationReport, dict[str, Any]]:
        """The report and the validated body of a request any member of its team may make."""
        report = self._report(pk)
        check_role(request, report.team, Role.VIEWER)
        body = body_class(data=request.data)
        body.is_valid(raise_exception=True)
        return report, dict(body.validated_data)

    @extend_schema(request=ReportCreateSerializer, responses={201: ReportSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        body = ReportCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        jobs = EvaluationJob.objects.filter(team__in=visible_teams(request))
        candidate = get_object_or_404(jobs, pk=body.validated_data["candidate"])
        baseline = get_object_or_404(jobs, pk=body.validated_data["baseline"], team=candidate.team)
        check_role(request, candidate.team, self.write_role)
        report = reports.create(request.user, candidate.team, candidate, baseline)
        return self._answer(report.pk, status.HTTP_201_CREATED)

    @extend_schema(request=None, responses={200: ReportSerializer})
    @action(detail=True, methods=["post"])
    def submit(self, request: Request, pk: Any = None) -> Response:
        report = self._report(pk)
        check_role(request, report.team, self.write_role)
        reports.submit(request.user, report)
        return self._answer(pk)

    @extend_schema(request=ReviewCreateSerializer, responses={200: ReportSerializer})
    @action(detail=True, methods=["post"])
    def review(self, request: Request, pk: Any = None) -> Response:
        report, data = self._member_input(request, pk, ReviewCreateSerializer)
        reports.review(request.user, report, **data)
        return self._answer(pk)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "as", str, enum=["html", "json"], description="html (default) or json."
            )
        ],
        responses={
            (200, "text/html"): OpenApiTypes.STR,
            (200, "application/json"): ReportSerializer,
        },
    )
    @action(detail=True, methods=["get"])
    def export(self, request: Request, pk: Any = None) -> HttpResponse:
        """The report as a download: a self-contained HTML page that opens offline, or JSON
        with every figure."""
        self.action = "retrieve"
        report = self._report(pk)
        data = ReportSerializer(report).data
        name = f"report-{report.pk}-v{report.version}"
        if query_choice(request.query_params, "as", ["html", "json"]) == "json":
            body, kind, name = report_export.report_json(data), "application/json", f"{name}.json"
        else:
            body, kind, name = report_export.report_html(data), "text/html", f"{name}.html"
        response = HttpResponse(body, content_type=f"{kind}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @extend_schema(request=CommentCreateSerializer, responses={201: CommentSerializer})
    @action(detail=True, methods=["post"])
    def comments(self, request: Request, pk: Any = None) -> Response:
        report, data = self._member_input(request, pk, CommentCreateSerializer)
        made = reports.comment(request.user, report, **data)
        return Response(CommentSerializer(made).data, status=status.HTTP_201_CREATED)


# --- the team's review rule ----------------------------------------------------------------


class ReviewPolicySerializer(StrictSerializer):
    required_approvals = serializers.IntegerField(min_value=1, max_value=20)
    authors_may_approve = serializers.BooleanField(
        help_text="Whether a report's author may review it (default false)."
    )
    approver_roles = serializers.ListField(
        child=serializers.ChoiceField(choices=Role.choices),
        min_length=1,
        help_text="The team roles whose reviews count (default editor and admin); the others "
        "may comment.",
    )

    def validate_approver_roles(self, value: list[str]) -> list[str]:
        return sorted(set(value), key=Role.rank)


class ReviewPolicyUpdateSerializer(ReviewPolicySerializer):
    """What a PUT changes: the fields it names; those it leaves out keep their value."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        for field in fields.values():
            field.required = False
        return fields


class ReviewPolicyView(APIView):
    """GET: a team's review rule; PUT (admin role): change the parts it names."""

    @extend_schema(responses={200: ReviewPolicySerializer})
    def get(self, request: Request, team_slug: str) -> Response:
        team = get_object_or_404(visible_teams(request), slug=team_slug)
        rule = reports.policy(team)
        return Response(ReviewPolicySerializer(rule).data)

    @extend_schema(request=ReviewPolicyUpdateSerializer, responses={200: ReviewPolicySerializer})
    def put(self, request: Request, team_slug: str) -> Response:
        team = get_object_or_404(visible_teams(request), slug=team_slug)
        check_role(request, team, Role.ADMIN)
        body = ReviewPolicyUpdateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        rule = reports.set_policy(request.user, team, **body.validated_data)
        return Response(ReviewPolicySerializer(rule).data)
