"""Workers and the models they can load: read-only, for members of any team.

Paths are shown relative to the workers' models folder; nothing about a worker's machine is
shown beyond its Celery node name, queues and devices.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import mixins, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.api.scoping import TeamMemberPermission
from experiments.models import Worker
from experiments.services import workers

QUEUES = ("gpu", "cpu", "default")


class LoadableModelSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="What a run or a job names.")
    path = serializers.CharField(help_text="Directory relative to the workers' models folder.")
    builtin = serializers.BooleanField(help_text="The tiny demo model every worker offers.")
    parameters = serializers.IntegerField(
        allow_null=True, help_text="Parameter count, when cheaply known."
    )
    ready = serializers.BooleanField(
        help_text="False for the built-in model until its first use builds it (about a minute)."
    )
    # Defaults: a worker that reported before these were listed has none.
    architecture = serializers.CharField(
        allow_null=True, default=None, help_text="Its architecture (Qwen2ForCausalLM...)."
    )
    dtype = serializers.CharField(
        allow_null=True, default=None, help_text="The dtype its weights are stored in."
    )
    context_length = serializers.IntegerField(
        allow_null=True, default=None, help_text="Longest sequence, in tokens, it was built for."
    )
    chat_template = serializers.BooleanField(
        allow_null=True,
        default=None,
        help_text="Its tokenizer has a chat template (needed for the chat prompt format).",
    )


class AvailableModelSerializer(LoadableModelSerializer):
    workers = serializers.ListField(
        child=serializers.CharField(), help_text="Running workers that can load it."
    )


class DevicesSerializer(serializers.Serializer):
    # Defaults: a row written before its first heartbeat (or by an older worker) has none.
    cuda = serializers.IntegerField(default=0, help_text="CUDA devices visible to the worker.")
    names = serializers.ListField(
        child=serializers.CharField(), default=list, help_text="Their names."
    )
    cpu = serializers.IntegerField(default=0, help_text="CPU cores.")
    gpu_memory = serializers.ListField(
        child=serializers.IntegerField(), default=list, help_text="Bytes of memory of each GPU."
    )
    memory = serializers.IntegerField(
        allow_null=True,
        default=None,
        help_text="Bytes of memory the worker offers runs; launches are sized against it.",
    )


class WorkerSerializer(serializers.ModelSerializer):
    queues = serializers.ListField(child=serializers.CharField())
    loadable = LoadableModelSerializer(many=True)
    devices = DevicesSerializer()
    running = serializers.SerializerMethodField(
        help_text="Its heartbeat is fresh and it has not stopped."
    )
    status = serializers.SerializerMethodField(
        help_text="running; stopped (it said so as it shut down); or gone (its heartbeat "
        "stopped without a word: killed, or dead after an outage; its runs are resumed "
        "elsewhere)."
    )

    class Meta:
        model = Worker
        fields = [
            "name",
            "queues",
            "loadable",
            "devices",
            "started_at",
            "heartbeat_at",
            "stopped_at",
            "running",
            "status",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_running(self, worker: Worker) -> bool:
        return self.get_status(worker) == workers.RUNNING

    @extend_schema_field(serializers.ChoiceField(choices=workers.STATUSES))
    def get_status(self, worker: Worker) -> str:
        return workers.status(worker, self.context.get("stale_before"))


class AvailableModelsSerializer(serializers.Serializer):
    models = AvailableModelSerializer(many=True)
    workers = serializers.IntegerField(help_text="Running workers considered.")
    detail = serializers.CharField(
        allow_blank=True,
        help_text="Why the list is empty (no worker is running, or none has models); else empty.",
    )


class WorkerViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Every worker that has reported, running or not, newest heartbeat first."""

    serializer_class = WorkerSerializer
    permission_classes = [TeamMemberPermission]
    pagination_class = None
    queryset = Worker.objects.order_by("-heartbeat_at", "name")

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "stale_before": workers.stale_before()}


class QuerySerializer(serializers.Serializer):
    queue = serializers.ChoiceField(choices=QUEUES, required=False)


class AvailableModelsView(APIView):
    permission_classes = [TeamMemberPermission]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "queue",
                str,
                enum=list(QUEUES),
                description="Only workers serving this queue (gpu: training, cpu: grading).",
            )
        ],
        responses=AvailableModelsSerializer,
        description="The models some running worker can load: what a run or a job may name.",
    )
    def get(self, request: Request) -> Response:
        query = QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        available = workers.available_models(query.validated_data.get("queue"))
        body = AvailableModelsSerializer(
            {"models": available.models, "workers": available.workers, "detail": available.detail}
        )
        return Response(body.data)
