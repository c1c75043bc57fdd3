"""Query parameters of the audit log: who, what, on which kind of object, and when."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import django_filters
from django import forms
from django_filters.fields import IsoDateTimeField

from .models import AuditEvent


class UtcDateTimeField(IsoDateTimeField):
    """An ISO 8601 time, given in UTC to the database: PostgreSQL refuses an offset beyond
    ±15:59 that Python accepts (``+21:56``), and a time at the edge of the calendar may have
    no UTC equivalent at all; either is a 400 naming the parameter, never a 500, and so is an
empty value (a filter left out is left out, not sent empty)."""

    def clean(self, value: Any) -> datetime | None:
        if value == "":  # given but empty: not the date-time the schema states
            raise forms.ValidationError("expected an ISO 8601 date and time, not an empty value")
        moment = super().clean(value)
        if moment is None:
            return None
        try:
            return moment.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError("out of the range of times") from None


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcDateTimeField


class AuditFilter(django_filters.FilterSet):
    actor = django_filters.CharFilter(
        field_name="actor__username", label="The username of whoever acted."
    )
    since = UtcDateTimeFilter(
        field_name="created_at", lookup_expr="gte", label="Events at or after this time."
    )
    until = UtcDateTimeFilter(
        field_name="created_at", lookup_expr="lt", label="Events before this time."
    )

    class Meta:
        model = AuditEvent
        fields = ["action", "target_type", "actor", "since", "until"]
