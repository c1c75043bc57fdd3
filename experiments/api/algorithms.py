"""GET /api/v1/algorithms/: what an experiment's ``algorithm`` and ``hyperparameters`` accept;
GET /api/v1/algorithms/presets/: the named recipes (GRPO, Dr. GRPO, DAPO...) as values of them.

Read-only and the same for everyone signed in: the engine's configs, their defaults and the
sentence documenting each field (``experiments.algorithms``), for the experiment wizard.
"""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from .. import algorithms


class RangeSerializer(serializers.Serializer):
    low = serializers.FloatField(help_text="The smallest accepted value (unless `low_open`).")
    high = serializers.FloatField(help_text="The largest accepted value (unless `high_open`).")
    low_open = serializers.BooleanField(help_text="`low` itself is refused.")
    high_open = serializers.BooleanField(help_text="`high` itself is refused.")
    text = serializers.CharField(help_text="The range in words, as errors state it.")


class HyperparameterSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="`learning_rate`, or `sampling.temperature` (nested).")
    type = serializers.ChoiceField(choices=["int", "float", "bool", "str", "float_pair"])
    nullable = serializers.BooleanField(help_text="null is accepted (it switches the field off).")
    default = serializers.JSONField(allow_null=True, help_text="What the engine uses if unset.")
    help = serializers.CharField(help_text="One sentence from the engine's config.")
    choices = serializers.ListField(
        child=serializers.CharField(), allow_null=True, help_text="The accepted values, if few."
    )
    range = RangeSerializer(
        allow_null=True,
        help_text="What a numeric field accepts (each number of a pair); null for the others. "
        "Experiments outside it are refused with this range in the error.",
    )


class AlgorithmSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="What `config.algorithm` names.")
    summary = serializers.CharField(help_text="The algorithm and its paper.")
    fields = HyperparameterSerializer(many=True)
    min_prompts = serializers.IntegerField(
        allow_null=True,
        help_text="Planned prompts (max_steps x prompts_per_step) below this are too few to "
        "move the policy: the wizard and pre-flight warn. Measured on the demo task; null for "
        "supervised fine-tuning.",
    )


class PresetValueSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="The hyper-parameter, as in `fields`.")
    value = serializers.JSONField(help_text="The value the preset gives it.")
    help = serializers.CharField(help_text="What the field is (the engine config's sentence).")
    why = serializers.CharField(help_text="Why the recipe sets it so (may be empty).")


class PresetSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="Its id, e.g. `dr-grpo`.")
    title = serializers.CharField()
    algorithm = serializers.CharField(help_text="The `config.algorithm` it fills.")
    summary = serializers.CharField()
    source = serializers.CharField(help_text="The paper it follows.")
    values = PresetValueSerializer(many=True, help_text="What it sets; the rest keep yours.")
    measured = serializers.CharField(
        help_text="What its run size did to held-out success on the demo task, and how."
    )


class PresetsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=PresetSerializer(many=True),
        description="Named, validated algorithm presets, every value explained.",
    )
    def get(self, request: Request) -> Response:
        specs = [asdict(spec) for spec in algorithms.presets()]
        return Response(PresetSerializer(specs, many=True).data)


class AlgorithmsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses=AlgorithmSerializer(many=True),
        description="Every algorithm with its hyper-parameters: type, default, range and help.",
    )
    def get(self, request: Request) -> Response:
        specs = [asdict(spec) for spec in algorithms.algorithms()]
        return Response(AlgorithmSerializer(specs, many=True).data)
