"""The Django admin, with its login throttled like the API's."""

from __future__ import annotations

from typing import Any

from django.contrib.admin import AdminSite
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest

from .throttling import refuse_login_attempt


class ThrottledAdminSite(AdminSite):
    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        if request.method == "POST":
            refused = refuse_login_attempt(request)
            if refused is not None:
                return refused
        return super().login(request, extra_context)


class ThrottledAdminConfig(AdminConfig):
    default_site = "crucible.accounts.admin_site.ThrottledAdminSite"
