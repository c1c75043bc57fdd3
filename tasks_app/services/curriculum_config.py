"""A curriculum config as the API takes it and the database keeps it, checked field by field.

The fields are those of the pure dataclasses in ``tasks_app.curriculum``: ``CurriculumConfig``'s
policy knobs, and ``PinnedFamily`` per family (a pool version where the policy has a name),
with the dataclasses' defaults and documentation; a test holds them together. These serializers
check JSON types and shapes; ranges and every check across fields stay in
``CurriculumConfig.__post_init__``, whose problems the service files under their field paths.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from rest_framework import serializers

from crucible.api.serializers import (
    StrictBooleanField,
    StrictFloatField,
    StrictIntegerField,
    StrictSerializer,
    field_docs,
)
from tasks_app import curriculum as policy

MAX_FAMILIES = 256
"""Families in one curriculum; each pins a pool version that is looked up and checked."""


def _defaults(cls: type) -> dict[str, Any]:
    return {f.name: f.default for f in dataclasses.fields(cls)}


_FAMILY = _defaults(policy.PinnedFamily)
_FAMILY_DOCS = field_docs(policy.PinnedFamily)
_POLICY = _defaults(policy.CurriculumConfig)
_POLICY_DOCS = field_docs(policy.CurriculumConfig)


class FamilyEntrySerializer(StrictSerializer):
    """A family of a curriculum, named by the pool version it samples from."""

    version = StrictIntegerField(help_text=_FAMILY_DOCS["version"])
    weight = StrictFloatField(default=_FAMILY["weight"], help_text=_FAMILY_DOCS["weight"])
    levels = serializers.ListField(
        child=StrictIntegerField(),
        allow_null=True,
        default=_FAMILY["levels"],
        help_text=_FAMILY_DOCS["levels"],
    )
    initial = serializers.ListField(
        child=StrictFloatField(),
        allow_null=True,
        default=_FAMILY["initial"],
        help_text=_FAMILY_DOCS["initial"],
    )


class CurriculumConfigSerializer(StrictSerializer):
    """The families a curriculum mixes and the policy that moves their difficulty."""

    families = FamilyEntrySerializer(
        many=True,
        allow_empty=False,
        max_length=MAX_FAMILIES,
        help_text="The pinned pool versions each batch mixes, in order.",
        error_messages={
            "empty": "add at least one family",
            "max_length": "at most {max_length} families",
        },
    )
    band = serializers.ListField(
        child=StrictFloatField(),
        min_length=2,
        max_length=2,
        default=list(_POLICY["band"]),
        help_text=_POLICY_DOCS["band"],
    )
    floor = StrictFloatField(default=_POLICY["floor"], help_text=_POLICY_DOCS["floor"])
    window = StrictIntegerField(default=_POLICY["window"], help_text=_POLICY_DOCS["window"])
    step = StrictFloatField(default=_POLICY["step"], help_text=_POLICY_DOCS["step"])
    dynamic = StrictBooleanField(default=_POLICY["dynamic"], help_text=_POLICY_DOCS["dynamic"])


def validated(config: Any) -> dict[str, Any]:
    """``config`` in its stored form, defaults filled in; a ValidationError whose paths are
    relative to the config (``families[0].weight``) when a field has the wrong type or shape."""
    serializer = CurriculumConfigSerializer(data=config)
    serializer.is_valid(raise_exception=True)
    return _plain(serializer.validated_data)


def _plain(value: Any) -> Any:
    """Plain dicts and lists (the serializers return their own mapping and list types)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value
