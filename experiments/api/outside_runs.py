"""Request bodies of outside runs: create (or resume) one, and finish it. The views are
actions of ``RunViewSet`` (``POST /runs/``, ``POST /runs/<id>/finish/``)."""

from __future__ import annotations

import json
import re
from typing import Any

from rest_framework import serializers

from crucible.api.serializers import JSONField, StrictSerializer

from ..services.outside_runs import FINAL_STATES

MAX_PARAMS_BYTES = 64 * 1024
MAX_TAGS = 50
TAG_NAME = re.compile(r"[A-Za-z0-9_.:/-]{1,64}")
MAX_TAG_VALUE_CHARS = 250
MAX_NOTES_CHARS = 10_000


class OutsideRunSerializer(StrictSerializer):
    team = serializers.SlugField(help_text="The team the run belongs to (editor role needed).")
    resume = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="Continue this outside run instead of creating one: a finished one runs "
        "again; its steps sent again are kept when unchanged and replaced when changed. "
        "Only `tags` (merged) is read with it.",
    )
    name = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    params = JSONField(
        required=False,
        default=dict,
        help_text="The trainer's configuration (a JSON object, at most 64 KiB), searchable as "
        "`params.<path>`.",
    )
    tags = serializers.DictField(
        child=serializers.CharField(max_length=MAX_TAG_VALUE_CHARS, allow_blank=True),
        required=False,
        default=dict,
        help_text=f"At most {MAX_TAGS} `{{name: value}}` strings, searchable as `tags.<name>`.",
    )
    notes = serializers.CharField(
        max_length=MAX_NOTES_CHARS, required=False, allow_blank=True, default=""
    )
    base_model = serializers.CharField(
        max_length=300,
        required=False,
        allow_blank=True,
        default="",
        help_text="The model it trains from (a catalogue name or a hub id).",
    )
    experiment = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=1,
        help_text="An experiment of the team this run reproduces (its format and evaluation "
        "suite then apply).",
    )
    max_steps = serializers.IntegerField(
        required=False, min_value=0, max_value=2**31 - 1, default=0, help_text="0: unknown."
    )

    def validate_params(self, params: Any) -> dict[str, Any]:
        if not isinstance(params, dict):
            raise serializers.ValidationError("must be a JSON object")
        try:
            size = len(json.dumps(params, allow_nan=False).encode())
        except ValueError as exc:  # NaN or infinity: not JSON
            raise serializers.ValidationError("must hold only JSON values (no NaN)") from exc
        if size > MAX_PARAMS_BYTES:
            raise serializers.ValidationError(f"is {size} bytes; at most {MAX_PARAMS_BYTES}")
        return params

    def validate_tags(self, tags: dict[str, str]) -> dict[str, str]:
        if len(tags) > MAX_TAGS:
            raise serializers.ValidationError(f"at most {MAX_TAGS} tags; got {len(tags)}")
        bad = [name for name in tags if not TAG_NAME.fullmatch(name)]
        if bad:
            raise serializers.ValidationError(
                f"a tag name is 1 to 64 letters, digits or _ . : / -; got {bad[0][:40]!r}"
            )
        return tags


class FinishSerializer(StrictSerializer):
    status = serializers.ChoiceField(
        choices=sorted(FINAL_STATES),
        help_text="finished (the run succeeded), failed or killed (cancelled).",
    )
    reason = serializers.CharField(
        max_length=2000, required=False, allow_blank=True, default="", help_text="Why it failed."
    )
