"""GET /api/v1/metrics/catalogue/: every metric name a run records, with its unit, what it
measures and what healthy looks like, and which algorithms produce it.

Read-only and the same for everyone signed in: the engine's catalogue
(``training.metric_catalogue``), so the charts describe a metric in the engine's words.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from training import metric_catalogue


class MetricSpecSerializer(serializers.Serializer):
    name = serializers.CharField(
        help_text="The recorded key (`reward/mean`), or a template whose `{placeholders}` each "
        "stand for one path segment (`success/{family}/d{difficulty}`)."
    )
    unit = serializers.CharField(
        allow_blank=True,
        help_text="`share` (0 to 1), `reward`, `loss`, `nats`, `tokens`, `seconds`, `count`, "
        "a rate such as `tokens/s`, or empty for a plain number.",
    )
    description = serializers.CharField(
        help_text="What it measures, then what healthy looks like; a template's `{placeholders}` "
        "stand for the values the key holds."
    )
    algorithms = serializers.ListField(
        child=serializers.CharField(),
        help_text="The algorithms whose runs record it, as `config.algorithm` names them.",
    )
    placeholders = serializers.ListField(
        child=serializers.CharField(), help_text="A template's placeholders in order; [] if none."
    )
    pattern = serializers.CharField(
        help_text="An anchored regular expression for the keys it stands for, one capturing "
        "group per placeholder in order (valid in JavaScript and Python)."
    )


class MetricCatalogueView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=MetricSpecSerializer(many=True),
        description="Every metric a run records. A key is described by its exact entry if "
        "there is one, else by the one template whose pattern it matches.",
    )
    def get(self, request: Request) -> Response:
        return Response(MetricSpecSerializer(metric_catalogue.CATALOGUE, many=True).data)
