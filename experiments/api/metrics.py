"""A run's metrics over REST: batch ingest (for trainers outside the platform), the chart
query (downsampled per key, or what came after a sequence number) and raw pages.

- ``POST /runs/<id>/metrics/``: a JSON list of ``{key, step, value, wall_time?, tokens?}``, at
  most 1,000 points and 1 MB (else 413). Each item is accepted or refused with its reasons;
  a re-sent point (same key and step) overwrites. Needs the editor role in the run's team; a
  finished run answers 409.
- ``GET /runs/<id>/metrics/?keys=a,b&max_points=N&since=seq``: per key, columns of points.
- ``GET /runs/<id>/metrics/raw/?key=k&after_step=s&limit=n``: full resolution, a page at a time.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role
from crucible.api.errors import error_response
from crucible.api.parsers import JSONParser
from crucible.api.request_size import human_size
from crucible.api.schema import ApiErrorSerializer, ApiErrorsSerializer
from crucible.api.scoping import check_role, visible_teams

from ..ingest import MAX_BATCH_BYTES, MAX_KEY_LENGTH, MAX_POINTS_PER_BATCH, MAX_STEP
from ..models import Run
from ..services import metric_queries, metrics, outside_runs

MULTI_STATUS = 207
CONFLICT = 409
TOO_LARGE = 413
DEFAULT_MAX_POINTS = 2_000
FULL_RESOLUTION_MAX = 100_000
"""Points per key one query may return; past it, the raw endpoint pages through them."""
RAW_PAGE_MAX = 10_000


# --- request and response bodies -------------------------------------------------------------


class PointInSerializer(serializers.Serializer):
    """One point to record (documentation of the body; items are checked one by one)."""

    key = serializers.CharField(
        max_length=MAX_KEY_LENGTH,
        help_text="The metric, e.g. `reward/mean`, `kl`: letters, digits, spaces and "
        "_ - . / : @ % + = ( ) [ ].",
    )
    step = serializers.IntegerField(min_value=0, max_value=MAX_STEP)
    value = serializers.FloatField(allow_null=True, help_text="null stands for NaN or infinity.")
    wall_time = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0,
        help_text="Seconds since the epoch when it was measured; the server's time if absent.",
    )
    tokens = serializers.IntegerField(
        required=False, allow_null=True, min_value=0, help_text="Tokens seen up to this step."
    )


class ItemResultSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The item's position in the batch.")
    status = serializers.ChoiceField(choices=["accepted", "refused"])
    errors = ApiErrorSerializer(many=True, help_text="Why it was refused (empty if accepted).")


class IngestResultSerializer(serializers.Serializer):
    accepted = serializers.IntegerField()
    refused = serializers.IntegerField()
    seq = serializers.IntegerField(
        help_text="The run's last sequence number after this write (GET ?since= for later ones)."
    )
    results = ItemResultSerializer(many=True, help_text="One per item, in order.")


class SeriesSerializer(serializers.Serializer):
    step = serializers.ListField(child=serializers.IntegerField())
    value = serializers.ListField(child=serializers.FloatField(allow_null=True))
    wall_time = serializers.ListField(child=serializers.FloatField())
    tokens = serializers.ListField(child=serializers.IntegerField(allow_null=True))


class CountedSeriesSerializer(SeriesSerializer):
    total = serializers.IntegerField(help_text="Points before downsampling.")
    downsampled = serializers.BooleanField()


class RunMetricsSerializer(serializers.Serializer):
    run = serializers.IntegerField()
    state = serializers.CharField()
    seq = serializers.IntegerField(
        help_text="Every point up to this sequence number is in the answer (or was "
        "downsampled out of it): ask ?since=seq for what comes after."
    )
    keys = serializers.ListField(
        child=serializers.CharField(), help_text="Every metric key the run has."
    )
    points = serializers.DictField(
        child=CountedSeriesSerializer(),
        help_text="Per key, its points in columns sorted by step (min-max downsampled).",
    )


class RawPageSerializer(serializers.Serializer):
    key = serializers.CharField()
    points = SeriesSerializer()
    next_after_step = serializers.IntegerField(
        allow_null=True, help_text="Pass as after_step for the next page; null on the last one."
    )


class MetricsQuerySerializer(serializers.Serializer):
    keys = serializers.CharField(required=False)
    max_points = serializers.IntegerField(
        required=False, min_value=0, max_value=FULL_RESOLUTION_MAX, default=DEFAULT_MAX_POINTS
    )
    since = serializers.IntegerField(required=False, min_value=0, default=0)


class RawQuerySerializer(serializers.Serializer):
    key = serializers.CharField(max_length=MAX_KEY_LENGTH, help_text="The metric.")
    after_step = serializers.IntegerField(
        required=False, min_value=-1, default=-1,
        help_text="Only steps after this one (the previous page's).",
    )  # fmt: skip
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=RAW_PAGE_MAX, default=1000,
        help_text=f"Points a page (at most {RAW_PAGE_MAX}).",
    )  # fmt: skip


# --- views -------------------------------------------------------------------------------------


def visible_run(request: Request, run_id: int) -> Run:
    return get_object_or_404(
        Run.objects.filter(team__in=visible_teams(request)).select_related("team"), pk=run_id
    )


def too_large(message: str) -> Response:
    return error_response([{"field": None, "code": "too_large", "message": message}], TOO_LARGE)


class RunMetricsView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="runs_metrics_create",
        request=PointInSerializer(many=True),
        responses={
            200: IngestResultSerializer,
            MULTI_STATUS: OpenApiResponse(
                IngestResultSerializer, description="Some items were refused: see results."
            ),
            CONFLICT: OpenApiResponse(
                ApiErrorsSerializer,
                description="The run has finished (the message names its state).",
            ),
            TOO_LARGE: OpenApiResponse(
                ApiErrorsSerializer,
                description=f"More than {MAX_POINTS_PER_BATCH} points or "
                f"{human_size(MAX_BATCH_BYTES)} in one request.",
            ),
        },
        description=(
            "Record a batch of metric points. Idempotent: (key, step) is a point's identity, "
            "so a retried batch overwrites; points may come in any order. 200 when every item "
            "was accepted, 207 when some were refused (each with its field and reason). Needs "
            "the editor role in the run's team."
        ),
    )
    def post(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        check_role(request, run.team, Role.EDITOR)
        if len(request.body) > MAX_BATCH_BYTES:
            return too_large(
                f"The batch is {human_size(len(request.body))}; the limit is "
                f"{human_size(MAX_BATCH_BYTES)} a request: send it in smaller batches."
            )
        items = request.data
        if not isinstance(items, list):
            raise exceptions.ValidationError(
                {"non_field_errors": ["Expected a JSON list of points {key, step, value}."]}
            )
        if len(items) > MAX_POINTS_PER_BATCH:
            return too_large(
                f"The batch has {len(items)} points; the limit is {MAX_POINTS_PER_BATCH} a "
                "request: send it in smaller batches."
            )
        try:
            result = metrics.ingest(run, items)
        except metrics.RunFinished as exc:
            return error_response(
                [{"field": None, "code": "run_finished", "message": str(exc)}], CONFLICT
            )
        outside_runs.ingested(run, result.points)
        # Bodies are built as plain data (the serializers document them): a thousand results
        # or a hundred thousand points through serializer fields would cost more than the query.
        body = {
            "accepted": result.accepted,
            "refused": result.refused,
            "seq": result.seq,
            "results": result.results,
        }
        return Response(body, status=MULTI_STATUS if result.refused else 200)

    @extend_schema(
        operation_id="runs_metrics_retrieve",
        parameters=[
            OpenApiParameter(
                "keys", str, description="Comma-separated keys (repeatable); all by default."
            ),
            OpenApiParameter(
                "max_points",
                int,
                description=f"Points per key at most (default {DEFAULT_MAX_POINTS}), min-max "
                f"downsampled; 0: full resolution (up to {FULL_RESOLUTION_MAX} a key).",
            ),
            OpenApiParameter("since", int, description="Only points after this sequence number."),
        ],
        responses=RunMetricsSerializer,
        description="A run's metrics for charts, per key, and the sequence number to resume from.",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        query = MetricsQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        keys = requested_keys(request)
        max_points, since = query.validated_data["max_points"], query.validated_data["since"]
        if max_points == 0:
            refuse_past_full_resolution(run.pk, keys, since)
        snapshot = metric_queries.read_series(run.pk, keys=keys, max_points=max_points, since=since)
        body = {
            "run": run.pk,
            "state": run.state,
            "seq": snapshot.seq,
            "keys": metric_queries.keys_of(run.pk),
            "points": {key: series_body(s, counted=True) for key, s in snapshot.series.items()},
        }
        return Response(body)


class RunMetricsRawView(APIView):
    @extend_schema(
        operation_id="runs_metrics_raw_retrieve",
        # The serializer that checks the query documents it: lengths, bounds and defaults.
        parameters=[RawQuerySerializer],
        responses=RawPageSerializer,
        description="One metric at full resolution, a page of steps at a time.",
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        query = RawQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        key, limit = query.validated_data["key"], query.validated_data["limit"]
        page = metric_queries.read_raw(
            run.pk, key, after_step=query.validated_data["after_step"], limit=limit
        )
        body = {
            "key": key,
            "points": series_body(page),
            "next_after_step": page.step[-1] if len(page.step) == limit else None,
        }
        return Response(body)


def requested_keys(request: Request) -> list[str] | None:
    values = request.query_params.getlist("keys")
    if not values:
        return None
    return [key.strip() for value in values for key in value.split(",") if key.strip()]


def refuse_past_full_resolution(run_id: int, keys: list[str] | None, since: int) -> None:
    counts = metric_queries.counts_by_key(run_id, since=since)
    for key, count in sorted(counts.items()):
        if (keys is None or key in keys) and count > FULL_RESOLUTION_MAX:
            raise exceptions.ValidationError(
                {
                    "max_points": [
                        f"'{key}' has {count} points, more than {FULL_RESOLUTION_MAX} at full "
                        "resolution: downsample (max_points > 0) or page through "
                        "metrics/raw/."
                    ]
                }
            )


def series_body(series: metric_queries.Series, *, counted: bool = False) -> dict:
    body = {
        "step": series.step,
        "value": series.value,
        "wall_time": series.wall_time,
        "tokens": series.tokens,
    }
    if counted:
        body.update(total=series.total, downsampled=series.downsampled)
    return body
