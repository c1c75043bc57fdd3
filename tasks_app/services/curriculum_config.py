"""A saved curriculum's config as the API takes it and the database keeps it.

Defined once, by ``tasks_app.curriculum.SavedCurriculum`` (the policy's knobs and a
``PinnedFamily`` per family, each field's type, default, range and help on the field):
``training.field_spec.load`` checks JSON against it, naming every bad field by its path, and
the schema's serializer is generated from it. The checks that need the pinned versions (their
levels, the floor over them) stay in ``CurriculumConfig``, which the service resolves to.
"""

from __future__ import annotations

from typing import Any

from crucible.api.dataclass_serializers import DataclassSerializers
from crucible.api.field_errors import field_errors
from tasks_app.curriculum import PinnedFamily, SavedCurriculum
from training.field_spec import Problems, load

serializer_for = DataclassSerializers(
    {SavedCurriculum: "CurriculumConfig", PinnedFamily: "FamilyEntry"}, input_suffix=""
)
CurriculumConfigSerializer = serializer_for(SavedCurriculum, "input")
"""Describes a config in the schema; a stored one may predate a default (filled in on save)."""


def validated(config: Any) -> dict[str, Any]:
    """``config`` in its stored form, defaults filled in; a ValidationError whose paths are
    relative to the config (``families[0].weight``) when a field is refused."""
    try:
        return load(SavedCurriculum, config).stored()
    except Problems as exc:
        raise field_errors(exc.errors) from exc
