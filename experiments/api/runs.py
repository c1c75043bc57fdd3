"""Run endpoints: list and watch runs, cancel one, its checkpoints, inspect and flag its rollouts,
compare runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import TeamRolePermission, TeamScopedMixin
from crucible.api.serializers import StrictIntegerField, StrictSerializer, documented_json
from tasks_app.api.environments import ConversationMessageSerializer
from training.lora import is_adapter_dir

from .. import config as cfg
from ..models import Checkpoint, Experiment, Rollout, Run, RunSource
from ..run_filter import MAX_FILTER_CHARS, FilterError
from ..services import outside_runs, run_search
from ..services import rollouts as inspector
from ..services import runs as services
from ..services.recording import ROLLOUT_FIELDS
from .health import RunHealthSerializer, run_health
from .outside_runs import FinishSerializer, OutsideRunSerializer
from .promotion import PromotionSerializer
from .usage import BudgetSerializer

MAX_COMPARED = 10


class RunSerializer(serializers.ModelSerializer):
    team = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    experiment_name = serializers.CharField(
        source="experiment.name",
        read_only=True,
        allow_null=True,
        help_text="Null: an outside run linked to no experiment.",
    )
    title = serializers.CharField(
        read_only=True, help_text="What its pages call it: its name, else its experiment's."
    )
    source = serializers.ChoiceField(
        choices=RunSource.choices,
        read_only=True,
        help_text="platform: launched from an experiment, trained by a worker; external: "
        "trained outside (a TRL script) and streamed in.",
    )
    params = serializers.DictField(read_only=True, help_text="An outside run's configuration.")
    tags = serializers.DictField(child=serializers.CharField(), read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    summary = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="The last value of every metric (null for NaN).",
    )
    budget = serializers.SerializerMethodField(
        help_text="What the run may use; crossing it pauses the run."
    )
    health = serializers.SerializerMethodField(
        help_text="Reward-hacking and drift signals as last checked; a breach may pause the run."
    )
    heartbeat_stale_after_s = serializers.SerializerMethodField(
        help_text="A running run silent this many seconds is taken for lost and queued again "
        "(RUN_STALE_SECONDS)."
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "team",
            "experiment",
            "experiment_name",
            "title",
            "source",
            "name",
            "params",
            "tags",
            "notes",
            "base_model",
            "number",
            "state",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
            "worker",
            "heartbeat_at",
            "attempts",
            "cancel_requested",
            "pause_requested",
            "pause_reason",
            "budget",
            "worker_seconds",
            "generated_tokens",
            "judge_tokens",
            "cost",
            "step",
            "max_steps",
            "resumed_from_step",
            "failure_reason",
            "log_tail",
            "summary",
            "health",
            "heartbeat_stale_after_s",
        ]
        read_only_fields = fields

    @extend_schema_field(BudgetSerializer)
    def get_budget(self, run: Run) -> dict[str, float | None]:
        return {key: (run.budget or {}).get(key) for key in cfg.BUDGET_KEYS}

    @extend_schema_field(RunHealthSerializer)
    def get_health(self, run: Run) -> dict[str, Any]:
        return run_health(run)

    def get_heartbeat_stale_after_s(self, run: Run) -> int:
        return int(settings.RUN_STALE_SECONDS)


class RunListSerializer(RunSerializer):
    """A run without its log lines (GET the run for them)."""

    class Meta(RunSerializer.Meta):
        fields = [f for f in RunSerializer.Meta.fields if f != "log_tail"]
        read_only_fields = fields


class CheckpointSerializer(serializers.ModelSerializer):
    name = serializers.SerializerMethodField(help_text="The directory's name, `step-000042`.")
    metrics = serializers.DictField(child=serializers.FloatField(allow_null=True))
    promotion = PromotionSerializer(
        read_only=True, allow_null=True, help_text="Null until promoted on an approved report."
    )
    adapter = serializers.SerializerMethodField(
        help_text="Whether the checkpoint holds a LoRA adapter (exportable merged into its base, "
        "or alone) rather than full weights."
    )

    class Meta:
        model = Checkpoint
        fields = [
            "id",
            "step",
            "name",
            "metrics",
            "size_bytes",
            "created_at",
            "promotion",
            "adapter",
        ]
        read_only_fields = fields

    def get_name(self, checkpoint: Checkpoint) -> str:
        return Path(checkpoint.path).name

    def get_adapter(self, checkpoint: Checkpoint) -> bool:
        return is_adapter_dir(Path(checkpoint.path) / "model")


class RolloutSerializer(serializers.ModelSerializer):
    messages = documented_json(
        ConversationMessageSerializer(many=True),
        read_only=True,
        allow_null=True,
        help_text="Null for a single response; an episode's conversation, with per-turn verdicts.",
    )
    parts = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Reward parts: outcome, process, constraint...",
    )
    layers = serializers.ListField(
        child=serializers.DictField(),
        help_text="The layered verdict: each layer's name, kind, stage, passed, score, "
        "error_type, detail.",
    )

    class Meta:
        model = Rollout
        fields = ["id", "step", "group", "sample", *ROLLOUT_FIELDS]
        read_only_fields = fields


class RolloutFlagSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The proposal (GET /example-proposals/<id>/).")
    status = serializers.CharField(help_text="proposed, accepted or rejected.")
    label = serializers.CharField(help_text="The label proposed for the completion: good or bad.")
    verifier = serializers.IntegerField()
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    turn = serializers.IntegerField(
        allow_null=True,
        help_text="The flagged turn's index in the episode's messages; null when the whole "
        "verdict was flagged.",
    )


class InspectedRolloutSerializer(RolloutSerializer):
    matches = serializers.SerializerMethodField(help_text="It passes the filters.")
    flag = serializers.SerializerMethodField(help_text="Its verdict's flag, if flagged.")
    turn_flags = serializers.SerializerMethodField(
        help_text="For an episode: the flags of its turns' verdicts, by turn."
    )

    class Meta(RolloutSerializer.Meta):
        fields = [*RolloutSerializer.Meta.fields, "matches", "flag", "turn_flags"]
        read_only_fields = fields

    def get_matches(self, rollout: Rollout) -> bool:
        return rollout.pk in self.context["matched"]

    @extend_schema_field(RolloutFlagSerializer(allow_null=True))
    def get_flag(self, rollout: Rollout) -> dict[str, Any] | None:
        flag = self.context["flags"].get(rollout.pk)
        return None if flag is None else RolloutFlagSerializer(flag).data

    @extend_schema_field(RolloutFlagSerializer(many=True))
    def get_turn_flags(self, rollout: Rollout) -> list[dict[str, Any]]:
        flags = self.context["turn_flags"].get(rollout.pk, [])
        return RolloutFlagSerializer(flags, many=True).data


class RolloutGroupSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    group = serializers.IntegerField()
    rollouts = serializers.SerializerMethodField(help_text="All its stored completions.")

    @extend_schema_field(InspectedRolloutSerializer(many=True))
    def get_rollouts(self, shown: inspector.ShownGroup) -> list[dict[str, Any]]:
        context = {"matched": shown.matched, "flags": shown.flags, "turn_flags": shown.turn_flags}
        return InspectedRolloutSerializer(shown.rollouts, many=True, context=context).data


class FlagSerializer(StrictSerializer):
    note = serializers.CharField(
        max_length=300,
        required=False,
        allow_blank=True,
        default="",
        help_text="Why the verdict is wrong, for the verifier's team.",
    )
    turn = StrictIntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=100_000,
        help_text="For an episode: the index in its messages of the assistant turn whose "
        "verdict is wrong (a tool call judged malformed that was fine, an environment error "
        "blamed on the model). Without it, the whole rollout's verdict is flagged.",
    )


ROLLOUT_FILTERS = [
    OpenApiParameter("step", OpenApiTypes.INT),
    OpenApiParameter("family", OpenApiTypes.STR),
    OpenApiParameter("difficulty", OpenApiTypes.INT),
    OpenApiParameter("passed", OpenApiTypes.BOOL, description="The verdict."),
    OpenApiParameter("error_type", OpenApiTypes.STR),
    OpenApiParameter("reward_min", OpenApiTypes.NUMBER),
    OpenApiParameter("reward_max", OpenApiTypes.NUMBER),
    OpenApiParameter(
        "search",
        OpenApiTypes.STR,
        description="Text in the prompt or the completion, any case "
        f"(at most {inspector.MAX_SEARCH_CHARS} characters).",
    ),
]


class ComparedRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    experiment = serializers.IntegerField(allow_null=True)
    experiment_name = serializers.CharField(help_text="The run's title (its experiment's name).")
    source = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    step = serializers.IntegerField()
    max_steps = serializers.IntegerField()


class MetricRowSerializer(serializers.Serializer):
    key = serializers.CharField()
    values = serializers.ListField(
        child=serializers.FloatField(allow_null=True),
        help_text="The final value for each run, in the order of `runs` (null: none or NaN).",
    )


class ConfigRowSerializer(serializers.Serializer):
    path = serializers.CharField()
    values = serializers.ListField(
        child=serializers.JSONField(allow_null=True), help_text="One per run, in order."
    )


class ComparisonSerializer(serializers.Serializer):
    runs = ComparedRunSerializer(many=True)
    metrics = MetricRowSerializer(many=True)
    config_differences = ConfigRowSerializer(many=True)


SEARCH_FILTER = OpenApiParameter(
    "filter",
    OpenApiTypes.STR,
    description="Conditions joined by `and`, as MLflow's search_runs: "
    "`metrics.reward/mean > 0.5 and params.lr = 0.001 and tags.stage = sweep`. Names: "
    "`metrics.<key>` (last value), `params.<path>` (an outside run's params, a platform run's "
    "experiment configuration), `tags.<name>`, and `state`, `source`, `name`, `step`, "
    "`experiment`; a name with other characters in backticks. Operators = != > >= < <= and "
    "`like` (% and _ wildcards). Values: numbers, quoted strings or bare words. At most "
    f"{MAX_FILTER_CHARS} characters; a mistake is a 400 naming the token.",
)
OUTSIDE_RUN_ERRORS = {
    400: OpenApiResponse(ApiErrorsSerializer, description="A field is wrong: the error names it."),
    403: OpenApiResponse(ApiErrorsSerializer, description="The editor role is needed."),
    404: OpenApiResponse(ApiErrorsSerializer, description="No such team, run or experiment."),
}


@extend_schema_view(list=extend_schema(parameters=[SEARCH_FILTER]))
class RunViewSet(TeamScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Runs of the caller's teams; POST creates an outside run; POST cancel/ stops one,
    finish/ ends an outside one."""

    queryset = Run.objects.none()
    serializer_class = RunSerializer
    permission_classes = [TeamRolePermission]
    filterset_fields = ["experiment", "state", "source"]
    search_fields = ["experiment__name", "name"]
    ordering_fields = ["created_at", "number", "step"]

    def get_queryset(self) -> QuerySet[Run]:
        runs = self.scope(Run.objects.select_related("team", "experiment", "created_by"))
        text = self.request.query_params.get("filter", "")
        if self.action != "list" or not text.strip():
            return runs
        try:
            return run_search.filtered(runs, text)
        except FilterError as exc:
            raise serializers.ValidationError({"filter": [str(exc)]}) from exc

    @extend_schema(
        request=OutsideRunSerializer,
        responses={201: RunSerializer, 200: RunSerializer, **OUTSIDE_RUN_ERRORS},
    )
    def create(self, request: Request) -> Response:
        """Create an outside run (201), trained outside the platform and streamed in through
        metrics/; no worker claims it. With `resume`, continue one (200)."""
        body = OutsideRunSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        team = self.team_for_write(data["team"])
        if "resume" in data:
            run = get_object_or_404(Run.objects.filter(team=team), pk=data["resume"])
            run = outside_runs.resume(request.user, run, data["tags"])
            return Response(RunSerializer(run).data)
        experiment = None
        if data["experiment"] is not None:
            experiment = get_object_or_404(
                Experiment.objects.filter(team=team), pk=data["experiment"]
            )
        spec = outside_runs.OutsideRun(
            name=data["name"],
            params=data["params"],
            tags=data["tags"],
            notes=data["notes"],
            base_model=data["base_model"],
            experiment=experiment,
            max_steps=data["max_steps"],
        )
        run = outside_runs.create(request.user, team, spec)
        return Response(RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=FinishSerializer, responses={200: RunSerializer, **OUTSIDE_RUN_ERRORS})
    @action(detail=True, methods=["post"])
    def finish(self, request: Request, pk: str | None = None) -> Response:
        """End an outside run as its trainer says: finished (succeeded), failed or killed
        (cancelled). Sent again with the same status it is a no-op; a platform run is a 400."""
        run = self.get_object()
        body = FinishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run = outside_runs.finish(request.user, run, data["status"], data["reason"])
        return Response(RunSerializer(run).data)

    def get_serializer_class(self) -> type[serializers.Serializer]:
        return RunListSerializer if self.action == "list" else RunSerializer

    @extend_schema(request=None, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        """A queued run is cancelled at once; a running one at its next step boundary."""
        run = services.cancel(request.user, self.get_object())
        return Response(RunSerializer(run).data)

    @extend_schema(responses=CheckpointSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def checkpoints(self, request: Request, pk: str | None = None) -> Response:
        run = self.get_object()
        rows = run.checkpoints.select_related(
            "promotion__team", "promotion__promoted_by", "promotion__report__candidate"
        ).order_by("step")
        return Response(CheckpointSerializer(rows, many=True).data)

    @extend_schema(parameters=ROLLOUT_FILTERS, responses=RolloutSerializer(many=True))
    @action(detail=True, methods=["get"], filterset_fields=None, filter_backends=[])
    def rollouts(self, request: Request, pk: str | None = None) -> Response:
        """Stored completions with their layered verdicts, by step, group and sample."""
        found = inspector.parse_filter(request.query_params)
        page = self.paginate_queryset(inspector.matching(self.get_object(), found))
        return self.get_paginated_response(RolloutSerializer(page, many=True).data)

    @extend_schema(parameters=ROLLOUT_FILTERS, responses=RolloutGroupSerializer(many=True))
    @action(
        detail=True,
        methods=["get"],
        url_path="rollout-groups",
        filterset_fields=None,
        filter_backends=[],
    )
    def rollout_groups(self, request: Request, pk: str | None = None) -> Response:
        """The inspector: each step's groups with a completion that matches the filters, with
        all of the group's completions (``matches`` says which), their verdicts and flags."""
        run = self.get_object()
        found = inspector.parse_filter(request.query_params)
        pairs = self.paginate_queryset(inspector.matching_groups(run, found))
        shown = inspector.shown_groups(run, list(pairs or []), found)
        return self.get_paginated_response(RolloutGroupSerializer(shown, many=True).data)

    @extend_schema(request=FlagSerializer, responses={201: RolloutFlagSerializer})
    @action(
        detail=True,
        methods=["post"],
        url_path=r"rollouts/(?P<rollout_id>\d+)/flag",
        permission_classes=[IsAuthenticated],  # any member may flag; editors decide
    )
    def flag(
        self, request: Request, pk: str | None = None, rollout_id: str | None = None
    ) -> Response:
        """Flag the completion's verdict as wrong: it is proposed as a labelled example (known
        good if the verifier failed it, known bad if it passed it) to the verifier's team. With
        ``turn``, one assistant turn of an episode is flagged: the proposal holds the
        conversation up to and including it (known good if the environment found an error in
        it, known bad if it found none)."""
        rollout = get_object_or_404(self.get_object().rollouts, pk=rollout_id)
        body = FlagSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        flag = inspector.flag(request.user, rollout, data["note"], data["turn"])
        return Response(RolloutFlagSerializer(flag).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "ids", OpenApiTypes.STR, required=True, description="Run ids, comma separated."
            )
        ],
        responses=ComparisonSerializer,
    )
    @action(detail=False, methods=["get"], filterset_fields=None, filter_backends=[])
    def compare(self, request: Request) -> Response:
        """Final metrics of several runs side by side, and where their configurations differ."""
        ids = _compared_ids(request.query_params.get("ids", ""))
        found = {r.pk: r for r in self.get_queryset().filter(pk__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            raise Http404(f"no runs {missing} among your teams'")
        return Response(ComparisonSerializer(comparison([found[i] for i in ids])).data)


def _compared_ids(text: str) -> list[int]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts or not all(p.isdigit() for p in parts):
        raise serializers.ValidationError({"ids": ["must be run ids separated by commas"]})
    ids = list(dict.fromkeys(int(p) for p in parts))
    if not 2 <= len(ids) <= MAX_COMPARED:
        why = f"compare 2 to {MAX_COMPARED} different runs"
        raise serializers.ValidationError({"ids": [why]})
    return ids


def comparison(compared: list[Run]) -> dict[str, Any]:
    keys = sorted({key for run in compared for key in (run.summary or {})})
    configs = [cfg.leaves(run.config_of_record) for run in compared]
    paths = sorted({path for config in configs for path in config})
    differing = [
        {"path": path, "values": [config.get(path) for config in configs]}
        for path in paths
        if len({repr(config.get(path)) for config in configs}) > 1
    ]
    return {
        "runs": [
            {
                "id": run.pk,
                "experiment": run.experiment_id,
                "experiment_name": run.title,
                "source": run.source,
                "number": run.number,
                "state": run.state,
                "step": run.step,
                "max_steps": run.max_steps,
            }
            for run in compared
        ],
        "metrics": [
            {"key": key, "values": [(run.summary or {}).get(key) for run in compared]}
            for key in keys
        ],
        "config_differences": differing,
    }
