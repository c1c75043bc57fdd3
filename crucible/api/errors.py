"""One error format for the whole API: ``{"errors": [{"field", "code", "message"}]}``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from crucible.accounts.services import AccessDenied


def flatten(detail: Any, field: str | None = None) -> list[dict[str, Any]]:
    """Flatten DRF's nested error detail into a list; nested fields become ``a.b[2].c``."""
    if isinstance(detail, dict):
        items: list[dict[str, Any]] = []
        for key, value in detail.items():
            if isinstance(key, int):  # a list's items, by index (ListField, many=True)
                items.extend(flatten(value, f"{field or ''}[{key}]"))
                continue
            name = None if key in {"non_field_errors", "detail"} else str(key)
            items.extend(flatten(value, _join(field, name)))
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


# --- Django-level error views ------------------------------------------------------------
# Errors raised outside DRF's views (no URL matched, an uncaught exception, a request Django
# refused before any view ran) reach these handlers; under /api/ they answer in the same
# JSON shape as everything else, elsewhere Django's own pages stay.


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def json_error(status: int, code: str, message: str, field: str | None = None) -> JsonResponse:
    return JsonResponse(
        {"errors": [{"field": field, "code": code, "message": message}]}, status=status
    )


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return json_error(413, "too_large", "The request body is too large.")
    return json_error(400, "bad_request", "The request could not be understood.")


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.permission_denied(request, exception)
    return json_error(403, "permission_denied", str(exception) or "Permission denied.")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if not is_api(request):
        return defaults.page_not_found(request, exception)
    return json_error(404, "not_found", "Not found.")


def server_error(request: HttpRequest) -> HttpResponse:
    if not is_api(request):
        return defaults.server_error(request)
    return json_error(500, "server_error", "A server error occurred; it has been logged.")
