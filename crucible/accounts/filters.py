"""Query parameters of the audit log: who, what, on which kind of object, and when."""

from __future__ import annotations

import django_filters

from .models import AuditEvent


class AuditFilter(django_filters.FilterSet):
    actor = django_filters.CharFilter(
        field_name="actor__username", label="The username of whoever acted."
    )
    since = django_filters.IsoDateTimeFilter(
        field_name="created_at", lookup_expr="gte", label="Events at or after this time."
    )
    until = django_filters.IsoDateTimeFilter(
        field_name="created_at", lookup_expr="lt", label="Events before this time."
    )

    class Meta:
        model = AuditEvent
        fields = ["action", "target_type", "actor", "since", "until"]
