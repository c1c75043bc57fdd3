"""Websocket authentication: the browser's session cookie, or an API token for scripts.

A token comes as ``Authorization: Bearer <token>`` or, where a client cannot set headers,
as the ``token`` query parameter.

The ``Origin`` header is what stops another site's page from opening a socket with the
visitor's cookie (cross-site websocket hijacking); every browser sends it. A handshake
without one comes from a script (Python's ``websockets`` sends none), so it is let through
with its cookies dropped: only a token can authenticate it, and without one it is closed
with 4401 like any unauthenticated socket. A handshake with an Origin is checked against
``ALLOWED_HOSTS`` as before.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.security.websocket import AllowedHostsOriginValidator
from django.contrib.auth.models import AnonymousUser

from crucible.accounts import services


@database_sync_to_async
def _user_for_token(raw: str) -> tuple[Any, Any]:
    try:
        token = services.authenticate_token(raw)
    except services.TokenRejected:
        return AnonymousUser(), None
    return token.user, token


def _raw_token(scope: dict[str, Any]) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            parts = value.decode("latin-1").split()
            if len(parts) == 2 and parts[0].lower() in {"bearer", "token"}:
                return parts[1]
    query = parse_qs(scope.get("query_string", b"").decode())
    return query.get("token", [None])[0]


class _TokenMiddleware:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        raw = _raw_token(scope)
        if raw is not None:
            user, token = await _user_for_token(raw)
            scope = dict(scope, user=user, token=token)
        return await self.inner(scope, receive, send)


def TokenOrSessionAuthMiddleware(inner: Any) -> Any:  # noqa: N802 - mirrors AuthMiddlewareStack
    # Session auth runs first and sets scope["user"]; a presented token then overrides it.
    return AuthMiddlewareStack(_TokenMiddleware(inner))


class BrowserOriginValidator:
    """Checks a browser's Origin; a client without one may authenticate by token only."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.checked = AllowedHostsOriginValidator(inner)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = scope.get("headers", [])
        if any(name == b"origin" for name, _ in headers):
            return await self.checked(scope, receive, send)
        # Without an Origin the session cookie cannot count: nothing vouches that a page of
        # this site sent it.
        scope = dict(scope, headers=[(n, v) for n, v in headers if n != b"cookie"])
        return await self.inner(scope, receive, send)
