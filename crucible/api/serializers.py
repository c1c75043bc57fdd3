"""Serializer bases shared by every app's API."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty

from .parsers import TooDeep, first_problems, unstorable_json


class JSONField(serializers.JSONField):
    """Free-form JSON held to the rules of a JSON body wherever it comes from.

    A JSON body was checked by its parser; a form or multipart field's JSON text is parsed
    here, so its nesting and its text are checked here too, and named under this field.
    """

    def to_internal_value(self, data: Any) -> Any:
        try:
            value = super().to_internal_value(data)
            problems = first_problems(unstorable_json(value))
        except (RecursionError, TooDeep):
            raise serializers.ValidationError(TooDeep.default_detail, code="too_deep") from None
        if problems:
            detail = {path: [problem] for path, problem in problems}
            # A bare string is this field itself; anything inside is named by its path.
            raise serializers.ValidationError(detail.get("") or detail)
        return value


def documented_json(schema: Any, *, component_name: str | None = None, **kwargs: Any) -> JSONField:
    """A JSON field whose value the OpenAPI schema describes as ``schema`` (a serializer, an
    ``OpenApiTypes`` member or a JSON Schema dict); the value itself passes through unchanged.

    For a JSON column or document whose shape is defined elsewhere (a pure module's report, a
    spec's JSON Schema): the schema then types it instead of leaving it bare.
    """
    field_class = type("DocumentedJSONField", (JSONField,), {})
    return extend_schema_field(schema, component_name=component_name)(field_class)(**kwargs)


class RejectUnknownFieldsMixin:
    """Unknown keys in a request body are an error, not silently dropped."""

    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, list] = {}
        if isinstance(data, dict):
            known = set(self.fields)  # type: ignore[attr-defined]
            unknown = {
                name: [serializers.ErrorDetail("Unknown field.", code="unknown_field")]
                for name in sorted(set(data) - known)
            }
        try:
            value = super().to_internal_value(data)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            # Report the unknown fields together with every other problem in one answer.
            detail = (
                exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
            )
            raise serializers.ValidationError({**detail, **unknown}) from exc
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


class FormOmissionMixin:
    """A field a form or multipart body leaves out is left out, as in a JSON body.

    DRF reads form data as an HTML form, where an unticked checkbox is not sent: a boolean
    missing from it becomes False. A PUT sent as a form that merely omits a boolean would then
    switch it off. Here an omitted field is omitted whatever the body's encoding: required
    ones are a 400 naming them, optional ones keep their default (or their current value).
    """

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()  # type: ignore[misc]
        for field in fields.values():
            field.default_empty_html = empty
        return fields


class StrictSerializer(FormOmissionMixin, RejectUnknownFieldsMixin, serializers.Serializer):
    pass


class StrictModelSerializer(
    FormOmissionMixin, RejectUnknownFieldsMixin, serializers.ModelSerializer
):
    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.JSONField: JSONField,
    }


# --- JSON values of one type -------------------------------------------------------------
# DRF's fields coerce: "0.5" and True are numbers to a FloatField, 1 and "yes" booleans to a
# BooleanField. Inside a JSON document (a config) a value of the wrong JSON type is a mistake
# to name, not to guess at.


class StrictFloatField(serializers.FloatField):
    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each annotated attribute of ``cls`` or a class it extends (the
    nearest wins), on one line each.

    Lets a serializer document a dataclass's fields in the dataclass's own words, so the
    OpenAPI schema and the code say the same thing.
    """
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass.__module__ not in ("builtins", "typing"):
            docs |= _own_field_docs(klass)
    return docs


def _own_field_docs(cls: type) -> dict[str, str]:
    (node,) = ast.parse(textwrap.dedent(inspect.getsource(cls))).body
    assert isinstance(node, ast.ClassDef)
    docs = {}
    for item, after in zip(node.body, node.body[1:], strict=False):
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[item.target.id] = " ".join(after.value.value.split())
    return docs
