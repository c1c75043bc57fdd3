"""Request and answer shapes of the upload endpoints (inspect, preview, upload) and how an
import refused by the pipeline becomes the API's field-named errors."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rest_framework import exceptions, serializers

from crucible.api.serializers import JSONField, StrictSerializer
from tasks_app.pools.importers import ImportRejected, MappingRejected
from tasks_app.services.pools import NEAR_DUPLICATES_DEFAULT
from tasks_app.services.uploads import UploadOptions

from . import pool_reports

FORMATS = ["jsonl", "csv", "parquet"]


class InspectSerializer(StrictSerializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=FORMATS, required=False)


class FileSummarySerializer(serializers.Serializer):
    format = serializers.CharField()
    columns = serializers.ListField(child=serializers.CharField())
    rows_read = serializers.IntegerField(help_text="Rows read to find columns and labels.")
    sample = serializers.ListField(child=serializers.DictField(), help_text="The first rows.")
    labels = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Columns holding a few short texts (e.g. a difficulty), with those texts.",
    )
    fields = serializers.ListField(child=serializers.CharField(), help_text="Fields to map.")
    required_fields = serializers.ListField(child=serializers.CharField())
    suggested_mapping = serializers.DictField(
        child=serializers.CharField(), help_text="Field -> the column of the same name."
    )


class UploadOptionsSerializer(StrictSerializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=FORMATS, required=False)
    mapping = JSONField(
        required=False, default=dict, help_text='Kind field -> column, e.g. {"prompt": "question"}.'
    )
    difficulty_labels = JSONField(
        required=False,
        default=dict,
        help_text='Text difficulty -> level, e.g. {"easy": 1, "medium": 3, "hard": 5}; a text '
        "value without an entry rejects its row.",
    )
    prompt_mode = serializers.ChoiceField(
        choices=["template", "as_is"],
        default="template",
        help_text="template: each prompt is the family's prompt template filled with the row; "
        "as_is: the row's prompt column, unchanged.",
    )
    mode = serializers.ChoiceField(
        choices=["append", "replace"],
        required=False,
        help_text="append: the latest version's tasks plus the new ones, de-duplicated; "
        "replace: only the file's tasks. Default: append when the family has a version.",
    )
    near_duplicates = serializers.BooleanField(default=NEAR_DUPLICATES_DEFAULT)
    base = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="The version number the preview was made against (0: none); refused when "
        "another version is the latest by now.",
    )

    def validate_mapping(self, value: object) -> dict[str, str]:
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise serializers.ValidationError("must be an object of field name -> column name")
        return value

    def validate_difficulty_labels(self, value: object) -> dict[str, int]:
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and k.strip() and isinstance(v, int) and not isinstance(v, bool)
            for k, v in value.items()
        ):
            raise serializers.ValidationError("must be an object of label -> whole level")
        return value

    def options(self) -> UploadOptions:
        data = self.validated_data
        return UploadOptions(
            fmt=data.get("format"),
            mapping=data["mapping"],
            difficulty_labels=data["difficulty_labels"],
            prompt_mode=data["prompt_mode"],
            mode=data.get("mode"),
            near_duplicates=data["near_duplicates"],
            base=data.get("base"),
        )


class UploadSerializer(UploadOptionsSerializer):
    note = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class ChangesSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["append", "replace"])
    previous = serializers.IntegerField(help_text="Tasks of the latest version.")
    added = serializers.IntegerField()
    removed = serializers.IntegerField()
    kept = serializers.IntegerField(help_text="Tasks of the latest version still in the new one.")
    duplicates_dropped = serializers.IntegerField(
        help_text="Rows left out as repeats of an earlier row or of a task already there."
    )


class UploadPreviewSerializer(serializers.Serializer):
    rows_read = serializers.IntegerField()
    dedup = pool_reports.DedupReportSerializer()
    version = pool_reports.PlannedVersionSerializer(help_text="What freezing would make.")
    changes = ChangesSerializer()
    base = serializers.IntegerField(help_text="The latest version's number (0: none).")
    samples = pool_reports.TaskSampleSerializer(
        many=True, help_text="The first new tasks, with their final prompts."
    )


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


@contextmanager
def refusals() -> Iterator[None]:
    """An import the pipeline refuses answers 400 in the API's error shape."""
    try:
        yield
    except ImportRejected as exc:
        raise rejected(exc) from exc


def rejected(exc: ImportRejected) -> exceptions.ValidationError:
    """The whole import refused: one error per mapping field that cannot work, or a summary on
    ``file`` plus one error per bad row (first 100)."""
    if isinstance(exc, MappingRejected):
        return exceptions.ValidationError(
            {
                f"mapping.{field}": [exceptions.ErrorDetail(reason, code="invalid_mapping")]
                for field, reason in exc.problems.items()
            }
        )
    detail: dict[str, list[exceptions.ErrorDetail]] = {
        "file": [exceptions.ErrorDetail(str(exc), code="rejected")]
    }
    for issue in exc.errors:
        key = f"rows[{issue.row}].{issue.field}"
        detail.setdefault(key, []).append(exceptions.ErrorDetail(issue.reason, code="invalid_row"))
    return exceptions.ValidationError(detail)
