"""Sends an HTTP request whose path starts with a prefix to that prefix's ASGI app, and every
other request to Django."""

from __future__ import annotations

from collections.abc import Mapping

from .request_size import ASGIApp, Receive, Scope, Send


class PrefixRouter:
    def __init__(self, apps: Mapping[str, ASGIApp], default: ASGIApp) -> None:
        self.apps = tuple(apps.items())
        self.default = default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        for prefix, app in self.apps:
            if path.startswith(prefix):
                await app(scope, receive, send)
                return
        await self.default(scope, receive, send)
