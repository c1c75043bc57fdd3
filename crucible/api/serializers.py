"""Serializer bases shared by every app's API."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


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


class StrictSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    pass


class StrictModelSerializer(RejectUnknownFieldsMixin, serializers.ModelSerializer):
    pass
