"""Framing and the exact-typed plain-data codec spoken across the sandbox boundary.

Only int, float, str, bool, None, list, tuple, dict and set cross, and only their exact
types: a subclass could carry an ``__eq__`` that fakes a pass, so it is refused on the way
out of the sandbox and can never be rebuilt on the way in (the decoder only builds builtins).
Containers are tagged JSON arrays so that list, tuple, set and dict survive the trip.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

HEADER = struct.Struct("!I")
MAX_FRAME = 16 * 1024 * 1024  # bytes; a reply larger than this is refused, not parsed
MAX_DEPTH = 200  # nesting levels; deeper values are refused rather than recursed into

_TAGS: dict[type, str] = {list: "l", tuple: "t", set: "s"}
_BUILDERS = {"l": list, "t": tuple, "s": set}


class WireError(Exception):
    """A value or frame that does not follow the protocol."""


def encode(value: Any, depth: int = 0) -> Any:
    """Turn exact-typed plain data into a JSON-ready structure; anything else raises."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    kind = type(value)
    if value is None or kind in (bool, int, float, str):
        return value
    if kind in _TAGS:
        return [_TAGS[kind], [encode(item, depth + 1) for item in value]]
    if kind is dict:
        return ["d", [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]]
    raise WireError(f"unsupported type {kind.__name__}")


def decode(data: Any, depth: int = 0) -> Any:
    """Rebuild plain data from :func:`encode`'s output, refusing anything malformed."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not list or len(data) != 2 or type(data[1]) is not list:
        raise WireError("malformed value")
    tag, items = data
    try:
        if tag in _BUILDERS:
            return _BUILDERS[tag](decode(item, depth + 1) for item in items)
        if tag == "d":
            return {decode(k, depth + 1): decode(v, depth + 1) for k, v in _pairs(items)}
    except TypeError as exc:  # e.g. a list smuggled in as a set element or dict key
        raise WireError(f"malformed value: {exc}") from None
    raise WireError("malformed value")


def _pairs(items: list[Any]) -> list[tuple[Any, Any]]:
    if any(type(pair) is not list or len(pair) != 2 for pair in items):
        raise WireError("malformed dict")
    return [(pair[0], pair[1]) for pair in items]


def dumps(obj: Any) -> bytes:
    data = json.dumps(obj, separators=(",", ":")).encode()
    return HEADER.pack(len(data)) + data


def loads(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"unreadable frame: {type(exc).__name__}") from None


def send(sock: socket.socket, obj: Any) -> None:
    sock.sendall(dumps(obj))


def recv_exact(sock: socket.socket, size: int) -> bytes:
    """Read exactly ``size`` bytes and nothing beyond, so later frames stay in the kernel."""
    chunks: list[bytes] = []
    while size:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def recv(sock: socket.socket, limit: int = MAX_FRAME) -> Any:
    (size,) = HEADER.unpack(recv_exact(sock, HEADER.size))
    if size > limit:
        raise WireError(f"frame of {size} bytes exceeds {limit}")
    return loads(recv_exact(sock, size))


class FrameBuffer:
    """Incremental frame parser for a non-blocking reader."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self.data = bytearray()

    def feed(self, chunk: bytes) -> None:
        self.data += chunk

    def next(self) -> Any | None:
        if len(self.data) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self.data)
        if size > self.limit:
            raise WireError(f"frame of {size} bytes exceeds {self.limit}")
        if len(self.data) < HEADER.size + size:
            return None
        body = bytes(self.data[HEADER.size : HEADER.size + size])
        del self.data[: HEADER.size + size]
        return loads(body)
