"""The JSON the verifier endpoints answer with, documented: the spec, a verdict, the FP/FN
evaluation and the judge's calibration on labelled examples, the builder's catalogue of layer
kinds and extractors, and the sandbox's isolation status.

Each serializer describes a dict a pure module builds (``tasks_app.verifiers``,
``tasks_app.sandbox``) and takes its enumerations from there; the endpoints answer with those
dicts as they are, so these only give the OpenAPI schema, and the types generated from it, their
shape. A test checks each endpoint's answers against its documented schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from crucible.api.serializers import JSONField, documented_json
from tasks_app.models import LabelledExample
from tasks_app.verifiers.base import ErrorType, Stage
from tasks_app.verifiers.spec import SPEC_SCHEMA


def open_objects(schema: Any) -> Any:
    """``schema`` with every object that names no keys saying it takes any: JSON Schema means
    that already, but types generated from ``{"type": "object"}`` would take none."""
    if isinstance(schema, list):
        return [open_objects(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    opened = {key: open_objects(value) for key, value in schema.items()}
    if schema.get("type") == "object" and not {"properties", "additionalProperties"} & set(schema):
        opened["additionalProperties"] = True
    return opened


@extend_schema_field(open_objects(SPEC_SCHEMA), component_name="VerifierSpec")
class SpecField(JSONField):
    """A verifier spec, documented by the JSON Schema it is validated against (one component,
    so one field class: the schema tells components apart by the class that made them)."""


def spec_field(**kwargs: Any) -> serializers.JSONField:
    return SpecField(**kwargs)


def json_object(**kwargs: Any) -> serializers.JSONField:
    return documented_json(OpenApiTypes.OBJECT, **kwargs)


def stage_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[str(stage) for stage in Stage])


def error_type_field(**kwargs: Any) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[str(error) for error in ErrorType], **kwargs)


def rate_field(**kwargs: Any) -> serializers.FloatField:
    return serializers.FloatField(allow_null=True, **kwargs)


class LayerVerdictSerializer(serializers.Serializer):
    name = serializers.CharField()
    kind = serializers.CharField()
    stage = stage_field()
    passed = serializers.BooleanField()
    score = serializers.FloatField(help_text="In [0, 1], e.g. the share of tests passed.")
    error_type = error_type_field()
    detail = serializers.CharField(allow_blank=True)
    seconds = serializers.FloatField()
    skipped = serializers.BooleanField(help_text="Not run: an earlier layer failed.")
    biased = serializers.BooleanField(help_text="A model's judgement: calibrate it first.")
    info = json_object(help_text="The layer's own figures (tests run, P(yes)...).")


class VerdictSerializer(serializers.Serializer):
    passed = serializers.BooleanField()
    reward = serializers.FloatField()
    parts = serializers.DictField(
        child=serializers.FloatField(), help_text="The reward's parts by name (outcome, ...)."
    )
    error_type = error_type_field(help_text="That of the first failing layer.")
    extracted = serializers.CharField(
        allow_null=True, allow_blank=True, help_text="What was judged, after extraction."
    )
    layers = LayerVerdictSerializer(many=True)
    seconds = serializers.FloatField()
    spec_hash = serializers.CharField()


class ExampleRatesSerializer(serializers.Serializer):
    """Accept decisions on a verifier's labelled examples, against their labels."""

    total = serializers.IntegerField()
    good = serializers.IntegerField()
    bad = serializers.IntegerField()
    true_positives = serializers.IntegerField()
    true_negatives = serializers.IntegerField()
    false_positives = serializers.IntegerField(help_text="Bad examples accepted.")
    false_negatives = serializers.IntegerField(help_text="Good examples refused.")
    false_positive_rate = rate_field(help_text="Null without bad examples.")
    false_negative_rate = rate_field(help_text="Null without good examples.")
    accuracy = rate_field()
    version = serializers.IntegerField(help_text="The verifier version's number.")
    examples = serializers.IntegerField(help_text="Labelled examples judged.")


class MisjudgedSerializer(serializers.Serializer):
    index = serializers.IntegerField(help_text="The example's position among those judged.")
    example_id = serializers.IntegerField()
    label = serializers.ChoiceField(choices=LabelledExample.Label.choices)
    passed = serializers.BooleanField()
    reward = serializers.FloatField()
    error_type = error_type_field()
    layer = serializers.CharField(allow_null=True, help_text="The first failing layer.")
    detail = serializers.CharField(allow_blank=True)


class EvaluationSerializer(ExampleRatesSerializer):
    """A verifier version's FP/FN rates on its labelled examples."""

    error_types = serializers.DictField(
        child=serializers.IntegerField(), help_text="Refused examples by error type."
    )
    misjudged = MisjudgedSerializer(many=True)
    spec_hash = serializers.CharField()


class JudgeScoreSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    label = serializers.ChoiceField(choices=LabelledExample.Label.choices)
    p_yes = serializers.FloatField(help_text="The model judge's P(yes) alone.")


class CalibrationSerializer(ExampleRatesSerializer):
    """The model judge's best yes-threshold on the labelled examples and the rates there."""

    layer = serializers.CharField(help_text="The judge layer's name.")
    threshold = serializers.FloatField()
    scores = JudgeScoreSerializer(many=True, help_text="In example order.")
    spec = spec_field(help_text="The version's spec with this threshold: save it to use it.")


class LayerKindSerializer(serializers.Serializer):
    kind = serializers.CharField()
    stage = stage_field()
    description = serializers.CharField()
    biased = serializers.BooleanField()
    params_schema = json_object(help_text="JSON Schema of the layer's params.")


class ExtractorSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()


class VerifierCatalogueSerializer(serializers.Serializer):
    layers = LayerKindSerializer(many=True)
    extractors = ExtractorSerializer(many=True)


class SandboxStatusSerializer(serializers.Serializer):
    namespaces = serializers.DictField(
        child=serializers.BooleanField(), help_text="pid, mount, network, ipc, uts: active?"
    )
    readonly_root = serializers.BooleanField()
    seccomp = serializers.BooleanField()
    cgroups = serializers.BooleanField()
    cgroup_controllers = serializers.ListField(child=serializers.CharField())
    uid = serializers.IntegerField(allow_null=True, help_text="Null: runs as the service's user.")
    rlimits = serializers.BooleanField()
    empty_env = serializers.BooleanField()
    prefork = serializers.BooleanField()
    warnings = serializers.ListField(
        child=serializers.CharField(), help_text="One per isolation layer missing on this host."
    )
