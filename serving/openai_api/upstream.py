"""JSON POSTs from the event loop to replicas over kept-alive HTTP/1.1 connections.

The asynchronous twin of ``serving.keepalive``: idle connections wait in a pool per replica
address, so a request costs the web process one write and one read, no TCP handshake and no
thread. A kept connection the replica closed while idle fails before any answer arrives;
that request is sent again, once, on a new connection (a fresh connection that fails is
never retried: the request may have arrived). Pure asyncio: no Django.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

MAX_IDLE_PER_HOST = 256
"""Idle connections kept per replica; more are closed once answered."""
MAX_LINE_BYTES = 1024 * 1024
"""A streamed event longer than this is a broken replica."""
MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""An answer larger than this is a broken replica, not an answer."""
_CLOSED_WHILE_IDLE = (asyncio.IncompleteReadError, ConnectionResetError, BrokenPipeError)


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    retry_after: str = ""


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class Upstream:
    """A pool of kept-alive connections, for the event loop it is first used on."""

    def __init__(self) -> None:
        self._idle: dict[str, list[Connection]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None

    async def post(self, url: str, body: bytes, headers: dict[str, str], timeout: float) -> Answer:
        """POST ``body`` to ``url``; TimeoutError after ``timeout`` s, OSError when the replica
        cannot be reached or drops the connection."""
        answer, events = await self.open(url, body, headers, timeout)
        if events is not None:
            await events.aclose()
            raise ConnectionResetError("the replica streamed an answer nobody asked to stream")
        return answer

    async def open(
        self, url: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[Answer, AsyncGenerator[dict[str, Any], None] | None]:
        """POST ``body`` to ``url``: the answer, and, when the replica streams it (chunked
        JSON lines), its events, read as they come until ``timeout`` s from now. Errors as
        ``post``'s."""
        self._own_loop()
        parts = urlsplit(url)
        path = parts.path or "/"
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        request = (
            f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n{head}\r\n"
        ).encode() + body
        deadline = asyncio.get_running_loop().time() + timeout
        async with asyncio.timeout_at(deadline):
            for attempt in (0, 1):
                connection, reused = await self._connection(parts.netloc)
                try:
                    connection[1].write(request)
                    status, found = await _head(connection[0])
                    if found.get("transfer-encoding", "").lower() == "chunked":
                        answer = Answer(status, b"", found.get("retry-after", ""))
                        return answer, self._events(parts.netloc, connection, deadline)
                    answer, keep = await _body(connection[0], status, found)
                except BaseException as lost:
                    connection[1].close()
                    if reused and attempt == 0 and isinstance(lost, _CLOSED_WHILE_IDLE):
                        continue
                    if isinstance(lost, asyncio.IncompleteReadError):
                        raise ConnectionResetError("the replica closed the connection") from None
                    raise
                self._release(parts.netloc, connection, keep)
                return answer, None
        raise AssertionError("unreachable")

    async def _events(
        self, netloc: str, connection: Connection, deadline: float
    ) -> AsyncGenerator[dict[str, Any], None]:
        """Each JSON line of a chunked answer; the connection is kept once it is read whole."""
        reader, pending, whole = connection[0], b"", False
        try:
            while not whole:
                async with asyncio.timeout_at(deadline):
                    size_line = await reader.readuntil(b"\r\n")
                    size = int(size_line.split(b";")[0].strip() or b"x", 16)
                    if not 0 <= size <= MAX_LINE_BYTES:
                        raise ConnectionResetError(f"the replica sent a {size}-byte chunk")
                    data = (await reader.readexactly(size + 2))[:-2]
                whole = size == 0
                pending += data
                if len(pending) > MAX_LINE_BYTES:
                    raise ConnectionResetError("the replica sent an endless line")
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    yield json.loads(line)
        except asyncio.IncompleteReadError:
            raise ConnectionResetError("the replica closed the connection") from None
        except ValueError:
            raise ConnectionResetError("the replica streamed something else than JSON lines") from None
        finally:
            if whole:
                self._release(netloc, connection, True)
            else:
                connection[1].close()

    def _own_loop(self) -> None:
        """Connections belong to one event loop: a new loop (a test's) starts a new pool."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._idle, self._loop = {}, loop

    async def _connection(self, netloc: str) -> tuple[Connection, bool]:
        idle = self._idle.get(netloc)
        while idle:
            reader, writer = idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return (reader, writer), True
            writer.close()
        split = urlsplit(f"//{netloc}")
        reader, writer = await asyncio.open_connection(split.hostname, split.port or 80)
        return (reader, writer), False

    def _release(self, netloc: str, connection: Connection, keep: bool) -> None:
        idle = self._idle.setdefault(netloc, [])
        if keep and len(idle) < MAX_IDLE_PER_HOST:
            idle.append(connection)
        else:
            connection[1].close()


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """An answer's status and headers (lower-cased names)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def _body(
    reader: asyncio.StreamReader, status: int, headers: dict[str, str]
) -> tuple[Answer, bool]:
    """The answer with its ``Content-Length`` body; whether the connection may be kept."""
    length = int(headers.get("content-length", "0"))
    if not 0 <= length <= MAX_ANSWER_BYTES:
        raise ConnectionResetError(f"the replica announced a {length}-byte answer")
    body = await reader.readexactly(length)
    keep = headers.get("connection", "").lower() != "close"
    return Answer(status, body, headers.get("retry-after", "")), keep
