"""Checkpoint uploads of outside runs (see ``experiments.services.checkpoint_uploads``):

- ``POST /runs/<id>/checkpoint-uploads/`` ``{step, files: [{path, size, sha256}]}``: 201 a new
  upload; 200 the open one with the same files (resume it);
- ``GET /checkpoint-uploads/<id>/``: what each file has received (send from there);
- ``PUT /checkpoint-uploads/<id>/files/?path=<p>&offset=<n>``: a chunk's raw bytes;
- ``POST /checkpoint-uploads/<id>/complete/``: 201 the checkpoint;
- ``DELETE /checkpoint-uploads/<id>/``: drop an open upload and its bytes.

Every call needs the editor role in the run's team.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from crucible.accounts.models import Role
from crucible.api.parsers import JSONParser
from crucible.api.schema import ApiErrorsSerializer
from crucible.api.scoping import check_role, visible_teams
from crucible.api.serializers import StrictSerializer

from ..checkpoint_files import CHUNK_MAX_BYTES, MAX_FILES
from ..models import CheckpointUpload, UploadState
from ..services import checkpoint_uploads as uploads
from .metrics import visible_run
from .runs import CheckpointSerializer

ERRORS = {
    400: OpenApiResponse(ApiErrorsSerializer, description="A field is wrong: the error names it."),
    403: OpenApiResponse(ApiErrorsSerializer, description="The editor role is needed."),
    404: OpenApiResponse(ApiErrorsSerializer, description="No such run or upload."),
}
CONFLICT = OpenApiResponse(
    ApiErrorsSerializer,
    description="The upload cannot take it now: the error names the field and what to do "
    "(the offset to send from, the files still missing, a step already saved).",
)


class DeclaredFileSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="Relative POSIX path in the model directory.")
    size = serializers.IntegerField(min_value=0, help_text="Bytes.")
    sha256 = serializers.CharField(help_text="64 lowercase hexadecimal digits.")


class UploadStartSerializer(StrictSerializer):
    step = serializers.IntegerField(min_value=0, max_value=2**31 - 1)
    files = serializers.ListField(
        child=serializers.JSONField(),
        help_text=f"Every file of the directory (at most {MAX_FILES}): config.json, the "
        "tokenizer, *.safetensors weights; no pickled files.",
    )


class UploadFileSerializer(DeclaredFileSerializer):
    received = serializers.IntegerField(help_text="Bytes it holds: send from this offset.")


class UploadSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    run = serializers.IntegerField(source="run_id")
    step = serializers.IntegerField()
    state = serializers.ChoiceField(choices=UploadState.choices)
    total_bytes = serializers.IntegerField()
    files = serializers.SerializerMethodField()
    checkpoint = serializers.IntegerField(
        source="checkpoint_id", allow_null=True, help_text="Set once complete."
    )
    created_at = serializers.DateTimeField()

    @extend_schema_field(UploadFileSerializer(many=True))
    def get_files(self, upload: CheckpointUpload) -> list[dict[str, Any]]:
        have = uploads.received(upload)
        return [{**item, "received": have[item["path"]]} for item in upload.files]


class ChunkQuerySerializer(serializers.Serializer):
    path = serializers.CharField(max_length=255)
    offset = serializers.IntegerField(min_value=0)


class ChunkResultSerializer(serializers.Serializer):
    path = serializers.CharField()
    received = serializers.IntegerField(help_text="Bytes the file now holds.")


def editable_upload(request: Request, upload_id: int) -> CheckpointUpload:
    rows = CheckpointUpload.objects.filter(run__team__in=visible_teams(request))
    upload = get_object_or_404(rows.select_related("run__team"), pk=upload_id)
    check_role(request, upload.run.team, Role.EDITOR)
    return upload


class RunUploadsView(APIView):
    parser_classes = [JSONParser]

    @extend_schema(
        operation_id="runs_checkpoint_uploads_create",
        request=UploadStartSerializer,
        responses={201: UploadSerializer, 200: UploadSerializer, **ERRORS, 409: CONFLICT},
        description="Start uploading an outside run's checkpoint (a Hugging Face model "
        "directory) at a step; the same files for the same step again return the open upload.",
    )
    def post(self, request: Request, run_id: int) -> Response:
        run = visible_run(request, run_id)
        check_role(request, run.team, Role.EDITOR)
        body = UploadStartSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        upload, new = uploads.start(request.user, run, data["step"], data["files"])
        code = status.HTTP_201_CREATED if new else status.HTTP_200_OK
        return Response(UploadSerializer(upload).data, status=code)


class UploadView(APIView):
    @extend_schema(
        operation_id="checkpoint_uploads_retrieve",
        responses={200: UploadSerializer, **ERRORS},
        description="The upload, with the bytes each file has received.",
    )
    def get(self, request: Request, upload_id: int) -> Response:
        return Response(UploadSerializer(editable_upload(request, upload_id)).data)

    @extend_schema(
        operation_id="checkpoint_uploads_destroy",
        responses={204: None, **ERRORS, 409: CONFLICT},
        description="Drop an open upload and the bytes it received.",
    )
    def delete(self, request: Request, upload_id: int) -> Response:
        upload = editable_upload(request, upload_id)
        if upload.state != UploadState.OPEN:
            raise uploads.conflict("upload", "a complete upload is its checkpoint now")
        uploads.discard(upload)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UploadChunkView(APIView):
    @extend_schema(
        operation_id="checkpoint_uploads_files_update",
        parameters=[
            OpenApiParameter("path", OpenApiTypes.STR, required=True, description="A declared file."),
            OpenApiParameter(
                "offset",
                OpenApiTypes.INT,
                required=True,
                description="Where the chunk starts: the bytes the file holds (else 409).",
            ),
        ],
        request={"application/octet-stream": OpenApiTypes.BINARY},
        responses={200: ChunkResultSerializer, **ERRORS, 409: CONFLICT},
        description=f"A chunk of one file's bytes (at most {CHUNK_MAX_BYTES} bytes).",
    )
    def put(self, request: Request, upload_id: int) -> Response:
        upload = editable_upload(request, upload_id)
        query = ChunkQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        path, offset = query.validated_data["path"], query.validated_data["offset"]
        held = uploads.write_chunk(upload, path, offset, request.body)
        return Response({"path": path, "received": held})


class UploadCompleteView(APIView):
    @extend_schema(
        operation_id="checkpoint_uploads_complete_create",
        request=None,
        responses={201: CheckpointSerializer, **ERRORS, 409: CONFLICT},
        description="Check every file (size, sha256) and that the directory loads as a causal "
        "LM, and make it the run's checkpoint at the upload's step. Sent again, it returns "
        "the same checkpoint.",
    )
    def post(self, request: Request, upload_id: int) -> Response:
        checkpoint = uploads.complete(request.user, editable_upload(request, upload_id))
        return Response(CheckpointSerializer(checkpoint).data, status=status.HTTP_201_CREATED)
