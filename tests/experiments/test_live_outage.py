"""Run sockets through a Redis outage: a real web server on a Redis of the test's own, which
the test kills and starts again under open sockets.

Before, a socket that watched a run through the outage ended with 1011 without leaving its
run's hub, whose listening task had died with the outage; the hub stayed registered, so every
socket opened afterwards in that process joined a hub that handed out nothing. A socket
opened during the outage ended with 1011 as it joined its groups.
"""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import websockets

from crucible.accounts.services import create_token
from tests.experiments.metrics_setup import make_run
from tests.redis_server import RedisServer, redis_server
from tests.web_server import WebServer, serving_for_tests

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]
FRAME_WAIT_S = 20


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def server(redis, tmp_path) -> Iterator[WebServer]:  # type: ignore[no-untyped-def]
    with serving_for_tests(redis.url, tmp_path) as running:
        yield running


class Watcher:
    """A run socket and the steps of ``kl`` it has been sent so far."""

    def __init__(self, socket_: Any) -> None:
        self.socket = socket_
        self.steps: set[int] = set()
        self.kinds: list[str] = []

    async def until(self, done: Callable[[Watcher], bool]) -> None:
        async with asyncio.timeout(FRAME_WAIT_S):
            while not done(self):
                frame = json.loads(await self.socket.recv())
                self.kinds.append(frame["type"])
                if frame["type"] in {"points", "history"}:
                    self.steps.update(frame["points"].get("kl", {}).get("step", []))


def has_steps(*steps: int) -> Callable[[Watcher], bool]:
    return lambda watcher: set(steps) <= watcher.steps


def test_it_keeps_sending_live_frames_after_redis_restarts_under_open_sockets(
    redis, server, editor, team
):
    run = make_run(team)
    token = create_token(editor, "watcher", team=team).secret
    socket_url = server.url.replace("http://", "ws://") + f"/ws/runs/{run.pk}/?token={token}"

    def ingest(*steps: int) -> None:
        request = urllib.request.Request(
            f"{server.url}/api/v1/runs/{run.pk}/metrics/",
            data=json.dumps([{"key": "kl", "step": s, "value": float(s)} for s in steps]).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200

    async def scenario() -> None:
        async with websockets.connect(socket_url) as through:
            watcher = Watcher(through)
            await watcher.until(lambda w: "history" in w.kinds)
            await asyncio.to_thread(ingest, 0)
            await watcher.until(has_steps(0))

            await asyncio.to_thread(redis.stop)
            await asyncio.to_thread(ingest, 1, 2, 3)  # stored; their live frames are lost
            # A socket opened during the outage is served from the database.
            during = Watcher(await websockets.connect(socket_url))
            await during.until(lambda w: "history" in w.kinds)
            assert during.steps == {0, 1, 2, 3}
            await asyncio.to_thread(redis.start)

            # The socket that lived through it is sent what it missed, then live frames.
            await watcher.until(has_steps(1, 2, 3))
            await asyncio.to_thread(ingest, 4)
            await watcher.until(has_steps(4))
            await during.until(has_steps(4))
            await during.socket.close()

            async with websockets.connect(socket_url) as after:
                newcomer = Watcher(after)
                await newcomer.until(lambda w: "history" in w.kinds)
                assert newcomer.steps == {0, 1, 2, 3, 4}
                await asyncio.to_thread(ingest, 5)
                await newcomer.until(has_steps(5))
                await watcher.until(has_steps(5))

    asyncio.run(scenario())
