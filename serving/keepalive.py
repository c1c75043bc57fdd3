"""JSON POSTs on kept-alive HTTP connections, one pool per thread. Pure Python: no Django.

Opening a TCP connection per request costs more than the tiny model's generation, so the
web process (forwarding to replicas) and traffic clients (``serving.traffic``) keep one
connection per host and thread. A kept connection the server closed while idle fails on its
next request before the request reaches it; that request is sent again, once, on a new
connection. A fresh connection that fails is never retried (the request may have arrived).
"""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

_connections = threading.local()
_CLOSED_WHILE_IDLE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    retry_after: str = ""

    def json(self) -> dict[str, Any]:
        """The body as a JSON object; {} when it is not one."""
        try:
            found = json.loads(self.body)
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}


def post_json(
    url: str,
    payload: Any,
    *,
    timeout: float,
    headers: dict[str, str] | None = None,
    sign: Callable[[str, bytes], Mapping[str, str]] | None = None,
) -> Answer:
    """POST ``payload`` as JSON to ``url``, with the headers ``sign(path, body)`` gives for
    the exact bytes sent. Raises OSError / http.client.HTTPException when the server cannot
    be reached or drops the connection."""
    parts = urlsplit(url)
    pool: dict[str, http.client.HTTPConnection] = _connections.__dict__.setdefault("pool", {})
    data = json.dumps(payload).encode()
    sent = {"Content-Type": "application/json", "Content-Length": str(len(data)), **(headers or {})}
    if sign is not None:
        sent.update(sign(parts.path or "/", data))
    for attempt in (0, 1):
        connection = pool.get(parts.netloc)
        reused = connection is not None
        if connection is None:
            host = parts.hostname or "localhost"
            connection = http.client.HTTPConnection(host, parts.port, timeout=timeout)
            pool[parts.netloc] = connection
        connection.timeout = timeout
        try:
            connection.request("POST", parts.path or "/", body=data, headers=sent)
            answer = connection.getresponse()
            body = answer.read()
        except BaseException as lost:
            connection.close()
            pool.pop(parts.netloc, None)
            if reused and attempt == 0 and isinstance(lost, _CLOSED_WHILE_IDLE):
                continue
            raise
        if answer.will_close:
            connection.close()
            pool.pop(parts.netloc, None)
        return Answer(answer.status, body, answer.getheader("Retry-After") or "")
    raise AssertionError("unreachable")
