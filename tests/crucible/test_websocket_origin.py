"""Websocket handshakes without an ``Origin`` header, as scripts make them.

Before, ``AllowedHostsOriginValidator`` refused every handshake without an Origin with a bare
HTTP 403, so a script holding a valid token could not open a socket (Python's ``websockets``
sends no Origin) and an unauthenticated one never got the documented 4401. Browsers always
send an Origin, and are still checked against ALLOWED_HOSTS.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator

import pytest
import websockets
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from crucible.accounts.services import create_token
from crucible.asgi import application
from tests.conftest import need_service
from tests.web_server import WebServer, serving_for_tests
from tests.websockets import close_code

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://127.0.0.1:8000")


@pytest.fixture(scope="module")
def server(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[WebServer]:  # type: ignore[no-untyped-def]
    redis = os.environ.get("REDIS_URL")
    if not redis:
        need_service("REDIS_URL is not set: the server's channel layer needs Redis")
    with serving_for_tests(redis, tmp_path_factory.mktemp("server")) as running:
        yield running


def ws_url(server: WebServer, path: str) -> str:
    return server.url.replace("http://", "ws://") + path


@pytest.mark.slow
def test_it_accepts_a_script_with_a_token_and_no_origin(server, owner, team):
    token = create_token(owner, "script").secret

    async def hello(**kwargs: object) -> dict:
        async with websockets.connect(ws_url(server, "/ws/events/"), **kwargs) as socket_:
            return json.loads(await asyncio.wait_for(socket_.recv(), 10))

    by_header = asyncio.run(hello(additional_headers={"Authorization": f"Bearer {token}"}))
    assert by_header["type"] == "hello" and f"team.{team.pk}" in by_header["groups"]
    by_query = asyncio.run(hello_at(ws_url(server, f"/ws/events/?token={token}")))
    assert by_query["type"] == "hello"


async def hello_at(url: str) -> dict:
    async with websockets.connect(url) as socket_:
        return json.loads(await asyncio.wait_for(socket_.recv(), 10))


@pytest.mark.slow
def test_it_closes_a_script_without_a_token_with_4401(server):
    async def closed() -> int | None:
        async with websockets.connect(ws_url(server, "/ws/events/")) as socket_:
            with pytest.raises(websockets.ConnectionClosed) as ended:
                await asyncio.wait_for(socket_.recv(), 10)
            return ended.value.rcvd.code if ended.value.rcvd else None

    assert asyncio.run(closed()) == 4401


@pytest.mark.slow
def test_it_still_refuses_a_browser_from_another_site(server, owner):
    token = create_token(owner, "script").secret
    url = ws_url(server, f"/ws/events/?token={token}")

    async def refused() -> None:
        async with websockets.connect(url, origin="https://evil.example"):
            pass

    with pytest.raises(websockets.InvalidStatus) as refusal:
        asyncio.run(refused())
    assert refusal.value.response.status_code == 403


def session_cookie(user: object) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


@pytest.mark.asyncio
async def test_it_ignores_a_session_cookie_without_an_origin(owner):
    cookie = (b"cookie", await database_sync_to_async(session_cookie)(owner))
    scripted = WebsocketCommunicator(application, "/ws/events/", headers=[cookie])
    assert (await scripted.connect(timeout=5))[0]
    assert await close_code(scripted) == 4401

    browser = WebsocketCommunicator(application, "/ws/events/", headers=[cookie, ORIGIN])
    assert (await browser.connect(timeout=5))[0]
    assert (await browser.receive_json_from(timeout=5))["type"] == "hello"
    await browser.disconnect()


def test_it_documents_the_socket_protocol_in_the_api_schema():
    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    description = schema["info"]["description"]
    for term in ("4401", "4403", "Origin", "?since=", "replaced", "resume", "history"):
        assert term in description, term
