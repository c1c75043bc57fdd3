"""Oversized request bodies are refused with a 413 before they are read (WSGI and ASGI)."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from channels.db import database_sync_to_async
from django.contrib.sessions.backends.db import SessionStore
from django.core.files.uploadedfile import SimpleUploadedFile, TemporaryUploadedFile
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import close_old_connections
from django.test import Client

from crucible.accounts.services import create_token
from crucible.asgi import application
from tasks_app.api import uploads as uploads_api
from tasks_app.services import pools

HUGE = 200 * 1024 * 1024
BOUNDARY = "crucible-boundary"
MULTIPART = f"multipart/form-data; boundary={BOUNDARY}"


class ExplodingInput(io.RawIOBase):
    """A request body that fails the test if more than a few KB of it are read."""

    def __init__(self, allowed: int = 4096) -> None:
        self.allowed = allowed
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        self.read_bytes += len(buffer)
        assert self.read_bytes <= self.allowed, "the body was read"
        buffer[: len(buffer)] = b"x" * len(buffer)
        return len(buffer)


def call_wsgi(environ: dict) -> tuple[str, dict]:
    answer: dict[str, str] = {}

    def start_response(status: str, headers: list) -> None:
        answer["status"] = status

    # As Django's test client does: the test's transaction holds the connection open.
    request_started.disconnect(close_old_connections)
    try:
        body = b"".join(WSGIHandler()(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
    return answer["status"], json.loads(body)


def wsgi_environ(path: str, body: io.RawIOBase, length: int, content_type: str) -> dict:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(length),
        "wsgi.input": body,
        "wsgi.url_scheme": "http",
    }


@pytest.mark.django_db
def test_it_refuses_a_huge_upload_from_its_content_length_without_reading_it(owner, team):
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    token = create_token(owner, "uploads")
    body = ExplodingInput()
    environ = wsgi_environ(f"/api/v1/families/{family.pk}/versions/upload/", body, HUGE, MULTIPART)
    environ["HTTP_AUTHORIZATION"] = f"Bearer {token.secret}"
    status, answer = call_wsgi(environ)
    assert status.startswith("413") and body.read_bytes == 0
    (error,) = answer["errors"]
    assert error["code"] == "too_large"
    assert "200.0 MB" in error["message"] and "50.0 MB" in error["message"]


@pytest.mark.django_db
def test_it_refuses_an_upload_just_over_the_limit_in_the_api_shape(api, owner, team, settings):
    settings.UPLOAD_MAX_BYTES = 64 * 1024
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    rows = b"x" * (64 * 1024)  # with the form's framing, just over the limit

    response = api.post(
        f"/api/v1/families/{family.pk}/versions/upload/",
        {"file": SimpleUploadedFile("tasks.jsonl", rows)},
        format="multipart",
    )
    assert response.status_code == 413
    (error,) = response.json()["errors"]
    assert "64.0 KB (65536 bytes)" in error["message"] and "uploads" in error["message"]
    assert family.versions.count() == 0


@pytest.mark.django_db
def test_it_refuses_a_json_body_over_the_data_upload_limit_before_parsing_it(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 16 * 1024
    body = ExplodingInput()
    environ = wsgi_environ("/api/v1/families/", body, 20 * 1024, "application/json")
    status, answer = call_wsgi(environ)
    assert status.startswith("413") and body.read_bytes == 0
    assert "16.0 KB" in answer["errors"][0]["message"]


async def call_asgi(scope: dict, receive) -> list[dict]:  # type: ignore[no-untyped-def]
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    await application(scope, receive, send)
    return sent


def asgi_scope(headers: list[tuple[bytes, bytes]]) -> dict:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": "POST",
        "path": "/api/v1/families/1/versions/upload/",
        "raw_path": b"/api/v1/families/1/versions/upload/",
        "root_path": "",
        "scheme": "http",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"content-type", MULTIPART.encode()), *headers],
        "client": ["127.0.0.1", 5000],
        "server": ["testserver", 80],
    }


async def test_it_answers_a_huge_asgi_upload_before_receiving_any_of_it() -> None:
    async def receive() -> dict:
        raise AssertionError("the body was received")

    sent = await call_asgi(asgi_scope([(b"content-length", str(HUGE).encode())]), receive)
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["errors"][0]["code"] == "too_large"


async def test_it_stops_receiving_a_chunked_asgi_upload_once_it_passes_the_limit(settings) -> None:
    settings.UPLOAD_MAX_BYTES = 256 * 1024
    chunk = 64 * 1024
    received = 0

    async def receive() -> dict:
        nonlocal received
        received += chunk
        return {"type": "http.request", "body": b"x" * chunk, "more_body": received < HUGE}

    sent = await call_asgi(asgi_scope([]), receive)
    assert received <= 256 * 1024 + chunk
    assert sent[0]["status"] == 413
    assert "256.0 KB" in json.loads(sent[1]["body"])["errors"][0]["message"]


@pytest.mark.django_db
def test_it_keeps_an_upload_over_the_memory_threshold_on_disk(
    api, owner, team, settings, monkeypatch
):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    family = pools.create_family(owner, team, name="Sums", slug="sums", kind="arithmetic")
    kinds: list[type] = []
    real = uploads_api.uploaded_path

    def spy(upload):  # type: ignore[no-untyped-def]
        kinds.append(type(upload))
        return real(upload)

    monkeypatch.setattr(uploads_api, "uploaded_path", spy)
    rows = "".join(
        json.dumps({"prompt": f"What is {i} + 1?", "answer": str(i + 1)}) + "\n" for i in range(100)
    )
    response = api.post(
        f"/api/v1/families/{family.pk}/versions/upload/",
        {"file": SimpleUploadedFile("tasks.jsonl", rows.encode())},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    assert kinds == [TemporaryUploadedFile]


# --- callers who are not signed in get a small cap (ASGI) ---------------------------------


def json_scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict:
    scope = asgi_scope([(b"content-type", b"application/json"), *headers])
    scope["headers"] = [h for h in scope["headers"] if h != (b"content-type", MULTIPART.encode())]
    return scope | {"path": path, "raw_path": path.encode()}


class JsonBody:
    """A client sending a JSON string of ``size`` bytes in 64 KB chunks, then waiting for
    the answer (as a real one does: no disconnect until the response is out)."""

    def __init__(self, size: int) -> None:
        body = json.dumps({"name": "x" * (size - 12)}).encode()
        self.size = len(body)
        self.chunks = [body[i : i + 65536] for i in range(0, len(body), 65536)]
        self.received = 0

    async def receive(self) -> dict:
        if not self.chunks:
            await asyncio.Event().wait()
        chunk = self.chunks.pop(0)
        self.received += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(self.chunks)}


async def test_it_refuses_an_anonymous_body_past_the_cap_before_receiving_it() -> None:
    async def receive() -> dict:
        raise AssertionError("the body was received")

    length = (b"content-length", str(2 * 1024 * 1024).encode())
    sent = await call_asgi(json_scope("/api/v1/auth/login/", [length]), receive)
    assert sent[0]["status"] == 413
    message = json.loads(sent[1]["body"])["errors"][0]["message"]
    assert "not signed in is 1.0 MB" in message


async def test_it_cuts_off_an_anonymous_chunked_body_at_the_cap(settings) -> None:
    settings.ANONYMOUS_BODY_MAX_BYTES = 128 * 1024
    body = JsonBody(1024 * 1024)
    sent = await call_asgi(json_scope("/api/v1/auth/login/", []), body.receive)
    assert sent[0]["status"] == 413
    assert "not signed in is 128.0 KB" in json.loads(sent[1]["body"])["errors"][0]["message"]


@database_sync_to_async
def bearer(user) -> tuple[bytes, bytes]:  # type: ignore[no-untyped-def]
    return (b"authorization", f"Bearer {create_token(user, 'big').secret}".encode())


@database_sync_to_async
def session_cookie(user) -> tuple[bytes, bytes]:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.session.session_key}".encode())


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
@pytest.mark.parametrize("credential", [bearer, session_cookie], ids=["token", "session"])
async def test_it_lets_a_signed_in_caller_send_past_the_anonymous_cap(
    owner, team, settings, declared, credential
) -> None:
    settings.ANONYMOUS_BODY_MAX_BYTES = 128 * 1024
    body = JsonBody(512 * 1024)
    headers = [await credential(owner)]
    if declared:
        headers.append((b"content-length", str(body.size).encode()))
    sent = await call_asgi(json_scope("/api/v1/families/", headers), body.receive)
    # Django took the whole body and the view answered it (a token's create lacks fields;
    # a session's lacks its CSRF token): no refusal for its size.
    assert body.received == body.size
    assert sent[0]["status"] in {400, 403}
    assert json.loads(sent[1]["body"])["errors"][0]["code"] != "too_large"


@pytest.mark.django_db(transaction=True)
async def test_it_treats_a_logged_out_sessions_cookie_as_anonymous(owner, settings) -> None:
    settings.ANONYMOUS_BODY_MAX_BYTES = 128 * 1024
    cookie = await session_cookie(owner)
    key = cookie[1].decode().split("=", 1)[1]
    await database_sync_to_async(lambda: SessionStore(key).delete())()
    body = JsonBody(512 * 1024)
    sent = await call_asgi(json_scope("/api/v1/families/", [cookie]), body.receive)
    assert sent[0]["status"] == 413 and body.received < body.size
