"""The JSON reports of the pool endpoints, documented: de-duplication, difficulty histograms,
previews of tasks before they are frozen, and the catalogue of family kinds.

Each serializer describes a dict a pure module builds (``tasks_app.pools.dedup``,
``tasks_app.pools.versions``, ``tasks_app.families.registry``); the endpoints answer with those
dicts as they are, so these only give the OpenAPI schema, and the types generated from it, their
shape. A test checks each endpoint's answers against its documented schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from rest_framework import serializers

from crucible.api.serializers import documented_json
from tasks_app.models import Split

from .verifier_reports import spec_field


def level_counts(**kwargs: Any) -> serializers.DictField:
    """``{level: count}``; JSON keys are strings, so a level is its decimal text."""
    return serializers.DictField(child=serializers.IntegerField(), **kwargs)


def json_object(**kwargs: Any) -> serializers.JSONField:
    """A JSON object whose keys depend on the family kind (or the source)."""
    return documented_json(OpenApiTypes.OBJECT, **kwargs)


class RemovedRowSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="The row's position among those read, from 0.")
    duplicate_of = serializers.IntegerField(
        help_text="The row kept in its place; a task of the previous version when negative."
    )
    kind = serializers.ChoiceField(choices=["exact", "near"])
    similarity = serializers.FloatField(help_text="1.0 for an exact duplicate.")


class DedupReportSerializer(serializers.Serializer):
    total = serializers.IntegerField(help_text="Rows read.")
    kept = serializers.IntegerField()
    exact_duplicates = serializers.IntegerField()
    near_duplicates = serializers.IntegerField()
    removed = RemovedRowSerializer(many=True, help_text="The first 100 rows left out.")


class SplitHistogramSerializer(serializers.Serializer):
    train = level_counts()
    held_out = level_counts()


class PlannedVersionSerializer(serializers.Serializer):
    content_hash = serializers.CharField()
    task_count = serializers.IntegerField()
    train_count = serializers.IntegerField()
    held_out_count = serializers.IntegerField()
    held_out_fraction = serializers.FloatField()
    difficulty_histogram = level_counts(help_text="Tasks per level, both splits together.")


class TaskSampleSerializer(serializers.Serializer):
    prompt = serializers.CharField()
    expected = json_object()
    difficulty = serializers.IntegerField()
    split = serializers.ChoiceField(choices=Split.choices)
    content_hash = serializers.CharField()
    source_id = serializers.CharField(allow_blank=True)


class TasksPreviewSerializer(serializers.Serializer):
    rows_read = serializers.IntegerField()
    dedup = DedupReportSerializer()
    version = PlannedVersionSerializer(help_text="What freezing would make.")
    samples = TaskSampleSerializer(many=True, help_text="The first tasks, as they would be kept.")


class FamilyKindSerializer(serializers.Serializer):
    name = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField()
    difficulty_levels = serializers.ListField(child=serializers.IntegerField())
    prompt_template = serializers.CharField(help_text="With the kind's {placeholders}.")
    params_schema = json_object(help_text="JSON Schema of a family's params.")
    procedural = serializers.BooleanField(help_text="Generates tasks at a chosen difficulty.")
    importable = serializers.BooleanField(help_text="Takes tasks from an uploaded file.")
    record_fields = serializers.ListField(
        child=serializers.CharField(), help_text="The fields an imported row is mapped onto."
    )
    required_fields = serializers.ListField(
        child=serializers.CharField(), help_text="Those an imported row must have."
    )
    default_verifier = spec_field(
        help_text="The spec a family of the kind is judged by when no verifier is chosen."
    )
