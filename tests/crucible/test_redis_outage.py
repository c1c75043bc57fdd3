"""The REST API through a Redis outage: a real web server on a Redis of the test's own, which
the test kills and starts again.

Redis holds the throttle counters (the cache), the broker and the channel layer; none of them
is needed to answer a request. Before, every request answered 500 while Redis was down (the
throttle read the cache), ``/healthz`` answered 503, and pooled connections that died with
the old Redis failed requests after it came back.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from crucible.accounts.services import create_token
from crucible.accounts.throttling import SHARED_CACHE_RETRY_S
from tests.experiments.metrics_setup import make_run
from tests.redis_server import RedisServer, redis_server
from tests.web_server import WebServer, serving_for_tests

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def redis() -> Iterator[RedisServer]:
    with redis_server() as server:
        yield server


@pytest.fixture
def server(redis, tmp_path) -> Iterator[WebServer]:  # type: ignore[no-untyped-def]
    with serving_for_tests(redis.url, tmp_path) as running:
        yield running


def call(server: WebServer, path: str, token: str | None = None, body: object = None):  # type: ignore[no-untyped-def]
    request = urllib.request.Request(
        f"{server.url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def throttle_keys(redis: RedisServer) -> list[bytes]:
    return redis.client().keys("*throttle_user*")


def test_it_answers_the_api_and_ingest_while_redis_is_down_and_uses_it_again_at_once(
    redis, server, editor, team
):
    run = make_run(team)
    token = create_token(editor, "trainer", team=team).secret
    ingest = f"/api/v1/runs/{run.pk}/metrics/"
    assert call(server, ingest, token, [{"key": "kl", "step": 0, "value": 0.0}])[0] == 200
    assert throttle_keys(redis), "the throttle counts in Redis while it is up"

    redis.stop()
    for step in range(1, 21):
        status, body = call(server, ingest, token, [{"key": "kl", "step": step, "value": 1.0}])
        assert status == 200, body
        assert call(server, "/api/v1/teams/", token)[0] == 200
    status, health = call(server, "/healthz")
    assert status == 200 and health["status"] == "degraded", health
    assert health["checks"]["database"]["ok"] is True
    for name in ("cache", "channel_layer", "broker"):
        assert health["checks"][name]["ok"] is False, (name, health["checks"][name])

    redis.start()  # empty: nothing survived the outage
    # Throttles skip a failed cache for SHARED_CACHE_RETRY_S (so a hung Redis costs one
    # timeout a second, not one a request); the first request after that uses it again.
    back = time.monotonic()
    while not throttle_keys(redis) and time.monotonic() - back < 10:
        assert call(server, "/api/v1/teams/", token)[0] == 200
        time.sleep(0.1)
    assert throttle_keys(redis), "requests count in Redis again once it is back"
    assert time.monotonic() - back < SHARED_CACHE_RETRY_S + 2.0
    status, health = call(server, "/healthz")
    assert status == 200 and health["status"] == "ok", health


def test_it_replaces_pooled_connections_that_died_with_a_restarted_redis(redis, server, editor):
    token = create_token(editor, "script").secret
    for _ in range(5):  # connections in the process's pool
        assert call(server, "/api/v1/teams/", token)[0] == 200
    redis.stop()
    redis.start()  # no request in between: every pooled socket is now dead
    assert call(server, "/api/v1/teams/", token)[0] == 200
    # Counted in Redis, not in the process's fallback: the stale socket was replaced at once.
    assert throttle_keys(redis)
