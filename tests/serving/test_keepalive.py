"""JSON POSTs on kept-alive connections: reused, sent again once when the server closed the
kept connection, never re-sent on a fresh connection that fails."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from serving import keepalive


class _Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    connections: set[tuple[str, int]] = set()
    requests = 0

    def do_POST(self) -> None:  # noqa: N802
        # The client's address and port name a connection; an object's id can be reused
        # once the first connection's socket is freed.
        type(self).connections.add(self.client_address)
        type(self).requests += 1
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        raw = json.dumps({"echo": body, "auth": self.headers.get("Authorization")}).encode()
        self.send_response(503 if body.get("full") else 200)
        if body.get("full"):
            self.send_header("Retry-After", "3")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)
        # Hang up silently, as a server does with an idle connection it times out.
        self.close_connection = bool(body.get("hang_up"))

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    _Echo.connections, _Echo.requests = set(), 0
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _url(httpd: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{httpd.server_address[1]}/generate"


def test_it_keeps_one_connection_for_many_posts(server: ThreadingHTTPServer) -> None:
    for i in range(5):
        answer = keepalive.post_json(
            _url(server), {"i": i}, timeout=5, headers={"Authorization": "Bearer t"}
        )
        assert answer.status == 200
        assert answer.json() == {"echo": {"i": i}, "auth": "Bearer t"}
    assert len(_Echo.connections) == 1 and _Echo.requests == 5


def test_it_reports_the_status_and_retry_after(server: ThreadingHTTPServer) -> None:
    answer = keepalive.post_json(_url(server), {"full": True}, timeout=5)
    assert (answer.status, answer.retry_after) == (503, "3")


def test_it_sends_again_once_when_the_kept_connection_was_closed_while_idle(
    server: ThreadingHTTPServer,
) -> None:
    assert keepalive.post_json(_url(server), {"hang_up": True}, timeout=5).status == 200
    answer = keepalive.post_json(_url(server), {"i": 2}, timeout=5)
    assert answer.status == 200 and answer.json()["echo"] == {"i": 2}
    assert len(_Echo.connections) == 2  # the dead one, then a new one
    assert _Echo.requests == 2  # each request reached the server once


def test_it_raises_when_nobody_listens() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(OSError):
        keepalive.post_json(f"http://127.0.0.1:{port}/generate", {}, timeout=2)


def test_it_reads_a_body_that_is_not_an_object_as_empty() -> None:
    assert keepalive.Answer(200, b"[1]").json() == {}
    assert keepalive.Answer(200, b"not json").json() == {}
