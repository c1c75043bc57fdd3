"""One error format for the whole API: ``{"errors": [{"field", "code", "message"}]}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from crucible.accounts.services import AccessDenied


def flatten(detail: Any, field: str | None = None) -> list[dict[str, Any]]:
    """Flatten DRF's nested error detail into a list; nested fields become ``a.b[2].c``."""
    if isinstance(detail, dict):
        items: list[dict[str, Any]] = []
        for key, value in detail.items():
            name = None if key in {"non_field_errors", "detail"} else str(key)
            path = _join(field, name)
            items.extend(flatten(value, path))
        return items
    if isinstance(detail, list):
        items = []
        for index, value in enumerate(detail):
            if isinstance(value, (dict, list)) and not isinstance(value, exceptions.ErrorDetail):
                items.extend(flatten(value, f"{field or ''}[{index}]"))
            else:
                items.extend(flatten(value, field))
        return items
    code = getattr(detail, "code", None) or "invalid"
    return [{"field": field, "code": str(code), "message": str(detail)}]


def _join(parent: str | None, name: str | None) -> str | None:
    if parent and name:
        return f"{parent}.{name}"
    return parent or name


def error_response(errors: list[dict[str, Any]], status_code: int) -> Response:
    return Response({"errors": errors}, status=status_code)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, AccessDenied):
        exc = exceptions.PermissionDenied(str(exc))
    if isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "Not found.")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException):
        errors = flatten(exc.detail)
        if isinstance(exc, exceptions.ValidationError):
            pass
        elif errors:
            for error in errors:
                error["field"] = None
                if error["code"] in {"invalid", "error"}:
                    error["code"] = exc.default_code
        response.data = {"errors": errors}
    return response
