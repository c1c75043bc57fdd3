"""Browser policies on every response: ``Content-Security-Policy`` and ``Permissions-Policy``.

Django 5.2 has neither. The policies themselves are settings (``CONTENT_SECURITY_POLICY``,
``PERMISSIONS_POLICY``); an empty one is not sent. A view that sets its own header keeps it,
so a page that needs a stricter policy can say so.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        headers = {
            "Content-Security-Policy": settings.CONTENT_SECURITY_POLICY,
            "Permissions-Policy": settings.PERMISSIONS_POLICY,
        }
        for name, value in headers.items():
            if value and name not in response:
                response[name] = value
        return response
