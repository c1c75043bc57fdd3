"""Request bodies over their size limit are refused with a 413 before they are read.

A file upload (a ``multipart/`` body) may be up to ``UPLOAD_MAX_BYTES``; any other body up to
Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``. A body that declares a larger ``Content-Length`` is
refused on that header alone, so none of it is buffered; a body that declares no length
(chunked) is counted as it streams and cut off once it passes the limit.

Under ASGI a request that is not signed in (no valid bearer token, no live session) may send
at most ``ANONYMOUS_BODY_MAX_BYTES``, whatever its type: anyone can send one, and the web
process's event loop receives it, so it must stay cheap. The credentials are only looked up
for a body past that cap.

The check sits where each server hands the body over: under ASGI, Django's handler spools
the whole body before any middleware runs, so ``BodySizeLimit`` wraps that handler; under
WSGI the body is read lazily and ``BodySizeLimitMiddleware`` answers first. Under WSGI a body
without a ``Content-Length`` is never read by Django at all, and each request has a thread of
its own, so there is no anonymous cap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.cookie import parse_cookie

from crucible.accounts.services import signed_in

from .errors import json_error

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

TOO_LARGE = 413
ANONYMOUS = "requests that are not signed in"
Grant = Callable[[], Awaitable[bool]]


def body_limit(content_type: str) -> tuple[int | None, str]:
    """The most bytes a body of ``content_type`` may have (None: no limit), and what it is."""
    if content_type.lower().startswith("multipart/"):
        return settings.UPLOAD_MAX_BYTES, "uploads"
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "request bodies"


def declared_length(value: str | None) -> int | None:
    try:
        return int(value) if value else None
    except ValueError:
        return None  # Django and the server answer a malformed header themselves


def human_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / 1024 / 1024:.1f} MB"
    return f"{size / 1024:.1f} KB"


def too_large_message(size: int | None, limit: int, what: str) -> str:
    limit_text = f"the limit for {what} is {human_size(limit)} ({limit} bytes)"
    if size is None:
        return f"The request body passed {human_size(limit)}; {limit_text}."
    return f"The request body is {human_size(size)}; {limit_text}."


def refusal(content_type: str, length: int | None) -> str | None:
    """Why a body of ``length`` declared bytes is refused, or None when it may be read."""
    limit, what = body_limit(content_type)
    if limit is None or length is None or length <= limit:
        return None
    return too_large_message(length, limit, what)


class BodySizeLimitMiddleware:
    """WSGI: refuse from the ``Content-Length`` header, before the view reads the body."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        length = declared_length(request.META.get("CONTENT_LENGTH"))
        message = refusal(request.META.get("CONTENT_TYPE", ""), length)
        if message is not None:
            return too_large(message)
        return self.get_response(request)


class BodySizeLimit:
    """ASGI: refuse from the ``content-length`` header before receiving any of the body; count
    a body without one as it arrives and stop receiving once it passes the limit. Past the
    anonymous cap, the caller must be signed in."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.lower(): value for name, value in scope.get("headers", [])}
        content_type = headers.get(b"content-type", b"").decode("latin-1")
        length = declared_length(headers.get(b"content-length", b"").decode("latin-1"))
        limit, what = body_limit(content_type)
        cap = settings.ANONYMOUS_BODY_MAX_BYTES
        message = refusal(content_type, length)
        if message is None and length is not None and length > cap:
            if not await caller_signed_in(headers):
                message = too_large_message(length, cap, ANONYMOUS)
        if message is not None:
            await send_too_large(send, message)
            return
        if length is not None:
            await self.app(scope, receive, send)
            return
        counted = CountedBody(receive, cap, limit, grant=lambda: caller_signed_in(headers))
        await self.app(scope, counted.receive, send)
        if counted.exceeded:
            what = what if counted.signed_in else ANONYMOUS
            await send_too_large(send, too_large_message(None, int(counted.limit), what))


async def caller_signed_in(headers: dict[bytes, bytes]) -> bool:
    """Whether the request's bearer token or session cookie belongs to an active user."""
    auth = headers.get(b"authorization", b"").decode("latin-1").split()
    token = auth[1] if len(auth) == 2 and auth[0].lower() in {"bearer", "token"} else None
    cookies = parse_cookie(headers.get(b"cookie", b"").decode("latin-1"))
    session_key = cookies.get(settings.SESSION_COOKIE_NAME)
    if token is None and not session_key:
        return False  # no lookup for a caller without credentials
    return await database_sync_to_async(signed_in)(token, session_key)


class CountedBody:
    """Passes body chunks on until the limit has gone by, then reports a disconnect: Django's
    handler stops spooling the body there and answers nothing, so the caller can.

    The limit starts at the anonymous cap (or the body's own limit, if smaller); the first
    chunk past the cap asks ``grant`` once whether the caller is signed in, and if so the
    limit becomes the body's own (``None``: none)."""

    def __init__(self, receive: Receive, cap: int, limit: int | None, grant: Grant) -> None:
        self._receive = receive
        self._own_limit = float("inf") if limit is None else limit
        self.limit = min(cap, self._own_limit)
        self.signed_in = self.limit == self._own_limit  # nothing to ask: the cap is the limit
        self._grant = grant
        self.received = 0
        self.exceeded = False

    async def receive(self) -> Message:
        if self.exceeded:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit and not await self._raised():
                self.exceeded = True
                return {"type": "http.disconnect"}
        return message

    async def _raised(self) -> bool:
        """Whether the body fits once a signed-in caller's limit applies (asked once)."""
        if self.signed_in or not await self._grant():
            return False
        self.signed_in, self.limit = True, self._own_limit
        return self.received <= self.limit


def too_large(message: str) -> JsonResponse:
    return json_error(TOO_LARGE, "too_large", message)


async def send_too_large(send: Send, message: str) -> None:
    body = too_large(message).content
    await send(
        {
            "type": "http.response.start",
            "status": TOO_LARGE,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                # The rest of the body is not read, so the connection cannot be reused.
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
