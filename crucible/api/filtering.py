"""The list filters' backend: a filter naming an object that is not among the caller's
answers 404, as the object's own URL would.

django-filter refuses an id it cannot find among the choices ("Select a valid choice") with a
400; the schema can only say the parameter is an integer, so a well-formed request was
refused as malformed. A value that is not an id at all still answers 400.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django_filters import rest_framework as filters
from django_filters import utils
from rest_framework.exceptions import NotFound
from rest_framework.request import Request


class FilterBackend(filters.DjangoFilterBackend):
    def filter_queryset(self, request: Request, queryset: QuerySet, view: Any) -> QuerySet:
        filterset = self.get_filterset(request, queryset, view)
        if filterset is None:
            return queryset
        if not filterset.is_valid():
            unknown = _unknown_references(filterset)
            if unknown:
                raise NotFound(f"no such {unknown} among your teams' (the `{unknown}` filter)")
            raise utils.translate_validation(filterset.errors)
        return filterset.qs


def _unknown_references(filterset: Any) -> str | None:
    """The first filter whose only fault is an id naming no object it may choose, when every
    fault is of that kind."""
    names = []
    for name, errors in filterset.errors.as_data().items():
        field = filterset.form.fields.get(name)
        value = filterset.form.data.get(name, "")
        is_id = isinstance(value, str) and value.isascii() and value.isdigit()
        if not (is_id and hasattr(field, "queryset")):
            return None
        if any(error.code != "invalid_choice" for error in errors):
            return None
        names.append(name)
    return names[0] if names else None
