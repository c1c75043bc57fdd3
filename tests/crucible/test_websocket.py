"""Websocket round trips through the full ASGI application (auth, routing, channel layer)."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from crucible.accounts import services
from crucible.asgi import application
from crucible.realtime.publish import publish_to_team

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]
ORIGIN = [(b"origin", b"http://127.0.0.1:8000")]


@database_sync_to_async
def issue_token(owner, team) -> str:
    return services.create_token(owner, "ws", team=None).secret


async def connect(path: str) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, path, headers=ORIGIN)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def test_it_closes_an_unauthenticated_socket_with_4401():
    communicator = await connect("/ws/events/")
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4401}


async def test_it_closes_a_socket_with_a_revoked_token(owner, team):
    secret = await issue_token(owner, team)
    await database_sync_to_async(
        lambda: services.revoke_token(owner, services.authenticate_token(secret))
    )()
    communicator = await connect(f"/ws/events/?token={secret}")
    assert (await communicator.receive_output(timeout=5))["code"] == 4401


async def test_it_answers_a_ping_and_delivers_team_events(owner, team):
    secret = await issue_token(owner, team)
    communicator = await connect(f"/ws/events/?token={secret}")
    hello = await communicator.receive_json_from(timeout=5)
    assert hello["type"] == "hello" and f"team.{team.id}" in hello["groups"]
    await communicator.send_json_to({"type": "ping", "echo": 7})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong", "echo": 7}
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 3})
    assert await communicator.receive_json_from(timeout=5) == {"type": "run.metrics", "step": 3}
    await communicator.disconnect()


async def test_it_does_not_deliver_another_teams_events(owner, team, outsider):
    secret = await database_sync_to_async(lambda: services.create_token(outsider, "ws").secret)()
    communicator = await connect(f"/ws/events/?token={secret}")
    await communicator.receive_json_from(timeout=5)
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 1})
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


async def test_it_round_trips_through_the_redis_channel_layer(owner, team, redis_url, settings):
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [redis_url]},
        }
    }
    channel_layers.backends.clear()
    try:
        secret = await issue_token(owner, team)
        communicator = await connect(f"/ws/events/?token={secret}")
        await communicator.receive_json_from(timeout=5)
        await database_sync_to_async(publish_to_team)(
            team.id, {"type": "run.state", "state": "running"}
        )
        assert await communicator.receive_json_from(timeout=5) == {
            "type": "run.state",
            "state": "running",
        }
        await communicator.disconnect()
    finally:
        channel_layers.backends.clear()


async def test_it_streams_audited_changes_to_the_team(owner, team):
    secret = await issue_token(owner, team)
    communicator = await connect(f"/ws/events/?token={secret}")
    await communicator.receive_json_from(timeout=5)
    await database_sync_to_async(lambda: services.create_token(owner, "ci", team=team))()
    event = await communicator.receive_json_from(timeout=5)
    assert event["type"] == "token.created" and event["target_type"] == "accounts.apitoken"
    await communicator.disconnect()
