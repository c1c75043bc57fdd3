"""The web server as production runs it, attacked over real sockets by a caller who is not
signed in, while another client times ``GET /healthz`` and the server's memory is watched.

A server that receives and parses a whole form before the app runs stalls every other
request while it does, and holds the body in memory; the app's limits must apply while the
body streams in. These tests start ``python -m crucible.serve`` on the test database.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import threading
import time
import urllib.request
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pytest
import websockets

from crucible.accounts.services import create_token
from crucible.realtime.publish import publish_to_team
from tasks_app.services import pools
from tests.conftest import need_service
from tests.web_server import WebServer, serving_for_tests

pytestmark = pytest.mark.slow
MB = 1024 * 1024
HUGE = 200 * MB
CHUNK = 256 * 1024
# What the server may grow by while refusing a body: a few buffers, never the body.
RSS_GROWTH_LIMIT = 64 * MB
BOUNDARY = b"crucible-attack"


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[WebServer]:  # type: ignore[no-untyped-def]
    redis = os.environ.get("REDIS_URL")
    if not redis:
        need_service("REDIS_URL is not set: the server's channel layer and cache need Redis")
    with serving_for_tests(redis, tmp_path_factory.mktemp("server")) as running:
        yield running


def rss(server: WebServer) -> int:
    with open(f"/proc/{server.process.pid}/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


class HealthProbe(threading.Thread):
    """``GET /healthz`` again and again, timing each answer, until stopped."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.seconds: list[float] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            started = time.perf_counter()
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=60) as answer:
                answer.read()
            self.seconds.append(time.perf_counter() - started)
            time.sleep(0.02)

    def __enter__(self) -> HealthProbe:
        self.start()
        while not self.seconds:  # one answer before the attack: the server is warm
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep(0.2)  # and a few after it
        self.done.set()
        self.join(timeout=60)


@dataclass
class Attack:
    sent: int = 0
    answer: bytes = b""
    reader: threading.Thread | None = field(default=None, repr=False)

    @property
    def status(self) -> int | None:
        parts = self.answer.split(b" ", 2)
        return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None

    @property
    def body(self) -> dict:
        return json.loads(self.answer.split(b"\r\n\r\n", 1)[1])


def attack(server: WebServer, head: bytes, body: Iterable[bytes]) -> Attack:
    """Send ``head`` then ``body`` as fast as the server takes it, reading its answer
    meanwhile; stops sending when the server closes the connection."""
    result = Attack()
    port = int(server.url.rsplit(":", 1)[1])
    conn = socket.create_connection(("127.0.0.1", port), timeout=60)

    def read() -> None:
        try:
            while chunk := conn.recv(65536):
                result.answer += chunk
        except OSError:
            pass

    result.reader = threading.Thread(target=read, daemon=True)
    result.reader.start()
    try:
        conn.sendall(head)
        for chunk in body:
            conn.sendall(chunk)
            result.sent += len(chunk)
    except OSError:
        pass  # the server hung up: what matters is how much it took first
    result.reader.join(timeout=60)
    conn.close()
    return result


def request_head(
    path: str, content_type: bytes, length: int | None, extra: tuple[bytes, ...] = ()
) -> bytes:
    framing = b"Transfer-Encoding: chunked" if length is None else b"Content-Length: %d" % length
    lines = [
        b"POST %s HTTP/1.1" % path.encode(),
        b"Host: 127.0.0.1",
        b"Connection: close",  # the server hangs up after answering: the reader sees the end
        b"Content-Type: " + content_type,
        framing,
        *extra,
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def multipart_body(size: int) -> Iterator[bytes]:
    """One file field, ``size`` bytes in all, framing included."""
    start = b'--%s\r\nContent-Disposition: form-data; name="file"; filename="tasks.jsonl"\r\n\r\n'
    start %= BOUNDARY
    end = b"\r\n--%s--\r\n" % BOUNDARY
    yield start
    left = size - len(start) - len(end)
    while left > 0:
        yield b"x" * min(CHUNK, left)
        left -= CHUNK
    yield end


def chunked(body: Iterable[bytes]) -> Iterator[bytes]:
    for part in body:
        yield b"%x\r\n%s\r\n" % (len(part), part)
    yield b"0\r\n\r\n"


MULTIPART = b"multipart/form-data; boundary=" + BOUNDARY


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_it_refuses_an_anonymous_200_mb_upload_while_other_requests_are_answered(
    server, declared
):
    before = rss(server)
    head = request_head("/api/v1/auth/login/", MULTIPART, HUGE if declared else None)
    body = multipart_body(HUGE)
    with HealthProbe(server.url) as probe:
        sent = attack(server, head, body if declared else chunked(body))
    assert sent.status == 413, sent.answer[:300]
    assert sent.body["errors"][0]["code"] == "too_large"
    # Refused at the start: the kernel's buffers, not the body, are all it ever took.
    assert sent.sent < 32 * MB
    assert max(probe.seconds) < 1.0, probe.seconds
    assert rss(server) - before < RSS_GROWTH_LIMIT


def test_it_refuses_900k_form_fields_to_the_login_endpoint_without_stalling(server):
    before = rss(server)
    fields = b"&".join(b"f%d=1" % i for i in range(900_000))
    head = request_head("/api/v1/auth/login/", b"application/x-www-form-urlencoded", len(fields))
    with HealthProbe(server.url) as probe:
        sent = attack(server, head, [fields[i : i + CHUNK] for i in range(0, len(fields), CHUNK)])
    assert sent.status == 413, sent.answer[:300]
    assert "not signed in" in sent.body["errors"][0]["message"]
    assert max(probe.seconds) < 1.0, probe.seconds
    assert rss(server) - before < RSS_GROWTH_LIMIT


def test_it_answers_a_multipart_body_without_parts_in_the_api_error_shape(server):
    # As the app's login page sends it: with the CSRF cookie the page set, and its token.
    with urllib.request.urlopen(f"{server.url}/login", timeout=30) as page:
        cookie = page.headers["Set-Cookie"].split(";", 1)[0]
    token = cookie.split("=", 1)[1].encode()
    csrf = (b"Cookie: " + cookie.encode(), b"X-CSRFToken: " + token)
    body = b"--%s--\r\n" % BOUNDARY
    sent = attack(server, request_head("/api/v1/auth/login/", MULTIPART, len(body), csrf), [body])
    assert sent.status == 400
    assert {e["field"] for e in sent.body["errors"]} == {"username", "password"}


@pytest.mark.django_db(transaction=True)
def test_it_takes_a_signed_in_upload_past_the_anonymous_cap(server, owner, team):
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    token = create_token(owner, "uploads").secret
    rows = "".join(
        json.dumps({"prompt": f"What is {i} + 1? " + "pad " * 60, "answer": str(i + 1)}) + "\n"
        for i in range(8000)
    ).encode()
    assert len(rows) > 2 * MB  # past the anonymous cap, within the upload limit
    upload = urllib.request.Request(
        f"{server.url}/api/v1/families/{family.pk}/versions/upload/",
        data=multipart_file(rows),
        headers={"Authorization": f"Bearer {token}", "Content-Type": MULTIPART.decode()},
    )
    with urllib.request.urlopen(upload, timeout=120) as answer:
        assert answer.status == 201
    assert family.versions.count() == 1


def multipart_file(rows: bytes) -> bytes:
    return (
        b'--%s\r\nContent-Disposition: form-data; name="file"; filename="tasks.jsonl"\r\n'
        b"Content-Type: application/jsonl\r\n\r\n%s\r\n--%s--\r\n" % (BOUNDARY, rows, BOUNDARY)
    )


@pytest.mark.django_db(transaction=True)
def test_it_streams_live_events_over_its_websockets(server, owner, team):
    token = create_token(owner, "ws").secret
    ws_url = server.url.replace("http://", "ws://") + f"/ws/events/?token={token}"

    async def follow() -> dict:
        async with websockets.connect(ws_url, origin=server.url) as socket_:
            hello = json.loads(await asyncio.wait_for(socket_.recv(), 10))
            assert hello["type"] == "hello" and f"team.{team.pk}" in hello["groups"]
            await asyncio.to_thread(publish_to_team, team.pk, {"type": "run.metrics", "step": 5})
            return json.loads(await asyncio.wait_for(socket_.recv(), 10))

    assert asyncio.run(follow()) == {"type": "run.metrics", "step": 5}
