"""Websocket round trips through the full ASGI application (auth, routing, channel layer)."""

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from crucible.accounts import services
from crucible.asgi import application
from crucible.realtime.publish import publish_to_team
from crucible.settings.env import redis_channel_layer
from tests.websockets import close_code

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
    assert await close_code(communicator) == 4401


async def test_it_closes_a_socket_with_a_revoked_token(owner, team):
    secret = await issue_token(owner, team)
    await database_sync_to_async(
        lambda: services.revoke_token(owner, services.authenticate_token(secret))
    )()
    communicator = await connect(f"/ws/events/?token={secret}")
    assert await close_code(communicator) == 4401


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


@pytest.fixture
def redis_layer(redis_url, settings):  # type: ignore[no-untyped-def]
    """The production channel layer, built by the same helper the settings use."""
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {"default": redis_channel_layer(redis_url)}
    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


async def test_it_round_trips_through_the_redis_channel_layer(owner, team, redis_layer):
    secret = await issue_token(owner, team)
    communicator = await connect(f"/ws/events/?token={secret}")
    await communicator.receive_json_from(timeout=5)
    running = {"type": "run.state", "state": "running"}
    await database_sync_to_async(publish_to_team)(team.id, running)
    assert await communicator.receive_json_from(timeout=5) == running
    await communicator.disconnect()


@pytest.mark.slow
@pytest.mark.services
async def test_it_keeps_an_idle_socket_open_over_the_redis_channel_layer(owner, team, redis_layer):
    # The layer's blocking read waits 5 s for a message; an idle socket must outlast many.
    secret = await issue_token(owner, team)
    communicator = await connect(f"/ws/events/?token={secret}")
    await communicator.receive_json_from(timeout=5)
    assert await communicator.receive_nothing(timeout=30, interval=0.5)
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.state", "state": "idle"})
    assert await communicator.receive_json_from(timeout=5) == {"type": "run.state", "state": "idle"}
    await communicator.disconnect()


async def test_it_streams_audited_changes_to_the_team(owner, team):
    secret = await issue_token(owner, team)
    communicator = await connect(f"/ws/events/?token={secret}")
    await communicator.receive_json_from(timeout=5)
    await database_sync_to_async(lambda: services.create_token(owner, "ci", team=team))()
    event = await communicator.receive_json_from(timeout=5)
    assert event["type"] == "token.created" and event["target_type"] == "accounts.apitoken"
    await communicator.disconnect()


@database_sync_to_async
def session_cookie(user) -> tuple[bytes, bytes]:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())


async def connect_as(user=None, *, secret: str | None = None) -> WebsocketCommunicator:
    """An open socket past its hello: by session cookie, or by token when ``secret`` is given."""
    if secret is not None:
        communicator = await connect(f"/ws/events/?token={secret}")
    else:
        communicator = WebsocketCommunicator(
            application, "/ws/events/", headers=[*ORIGIN, await session_cookie(user)]
        )
        assert (await communicator.connect(timeout=5))[0]
    assert (await communicator.receive_json_from(timeout=5))["type"] == "hello"
    return communicator


async def receive_until(communicator: WebsocketCommunicator, event_type: str) -> dict:
    """Skip the live events a change itself causes (``member.removed``...) up to ``event_type``."""
    while True:
        event = await communicator.receive_json_from(timeout=5)
        if event["type"] == event_type:
            return event


async def test_it_stops_a_removed_members_sockets_from_receiving_that_teams_events(
    owner, team, teammate
):
    side = await database_sync_to_async(lambda: services.create_team(teammate, "Side", "side"))()
    secret = await database_sync_to_async(lambda: services.create_token(teammate, "ws").secret)()
    sockets = [await connect_as(teammate), await connect_as(secret=secret)]
    membership = await database_sync_to_async(lambda: team.memberships.get(user=teammate))()
    await database_sync_to_async(services.remove_member)(owner, membership)
    for socket in sockets:
        changed = await receive_until(socket, "teams.changed")
        assert f"team.{team.id}" not in changed["groups"]
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 9})
    await database_sync_to_async(publish_to_team)(side.id, {"type": "run.metrics", "step": 10})
    for socket in sockets:
        # The other team's event arrives; the removed team's, sent just before it, never does.
        assert await socket.receive_json_from(timeout=5) == {"type": "run.metrics", "step": 10}
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()



async def test_it_drops_a_team_whose_membership_is_deleted_outside_the_api(owner, team, teammate):
    # The admin's membership inline and a deleted team's cascade bypass the services.
    socket = await connect_as(teammate)
    await database_sync_to_async(lambda: team.memberships.filter(user=teammate).delete())()
    assert (await receive_until(socket, "teams.changed"))["groups"] == [f"user.{teammate.pk}"]
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 2})
    assert await socket.receive_nothing(timeout=0.5)
    await socket.disconnect()


async def test_it_follows_a_team_the_user_joins_while_connected(owner, team, make_user):
    newcomer = await database_sync_to_async(make_user)("newcomer")
    socket = await connect_as(newcomer)
    await database_sync_to_async(services.add_member)(owner, team, newcomer, "viewer")
    assert f"team.{team.id}" in (await receive_until(socket, "teams.changed"))["groups"]
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 4})
    assert await receive_until(socket, "run.metrics") == {"type": "run.metrics", "step": 4}
    await socket.disconnect()

async def test_it_closes_the_socket_of_a_revoked_token_with_4403(owner, team):
    secret = await issue_token(owner, team)
    by_token, by_session = await connect_as(secret=secret), await connect_as(owner)
    await database_sync_to_async(
        lambda: services.revoke_token(owner, services.authenticate_token(secret))
    )()
    assert await close_code(by_token) == 4403
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 1})
    assert await receive_until(by_session, "run.metrics") == {"type": "run.metrics", "step": 1}
    await by_session.disconnect()


async def test_it_closes_a_team_bound_tokens_socket_when_its_user_leaves_that_team(
    owner, team, teammate
):
    secret = await database_sync_to_async(
        lambda: services.create_token(teammate, "ws", team=team).secret
    )()
    socket = await connect_as(secret=secret)
    membership = await database_sync_to_async(lambda: team.memberships.get(user=teammate))()
    await database_sync_to_async(services.remove_member)(owner, membership)
    assert await close_code(socket) == 4403


async def test_it_closes_a_tokens_socket_when_the_token_expires(owner, team):
    from datetime import timedelta

    from django.utils import timezone

    from crucible.accounts.models import ApiToken

    secret = await issue_token(owner, team)
    await database_sync_to_async(
        lambda: ApiToken.objects.update(expires_at=timezone.now() + timedelta(seconds=1))
    )()
    socket = await connect_as(secret=secret)
    assert await close_code(socket) == 4403



async def test_it_closes_every_socket_of_a_deactivated_user(owner, team):
    secret = await issue_token(owner, team)
    sockets = [await connect_as(secret=secret), await connect_as(owner)]
    owner.is_active = False
    await database_sync_to_async(owner.save)()
    for socket in sockets:
        assert await close_code(socket) == 4403


@database_sync_to_async
def signed_in_browser(user):  # type: ignore[no-untyped-def]
    """A browser signed in through the login endpoint, and its session cookie."""
    from django.test import Client

    browser = Client()
    answer = browser.post(
        "/api/v1/auth/login/",
        {"username": user.username, "password": "correct horse battery"},
        content_type="application/json",
    )
    assert answer.status_code == 200
    return browser, (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode())


async def connect_with(cookie: tuple[bytes, bytes]) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(application, "/ws/events/", headers=[*ORIGIN, cookie])
    assert (await communicator.connect(timeout=5))[0]
    assert (await communicator.receive_json_from(timeout=5))["type"] == "hello"
    return communicator


async def test_it_closes_a_sessions_sockets_when_it_logs_out(owner, team):
    browser, cookie = await signed_in_browser(owner)
    logged_out, elsewhere = await connect_with(cookie), await connect_as(owner)
    answer = await database_sync_to_async(browser.post)("/api/v1/auth/logout/")
    assert answer.status_code == 204
    assert await close_code(logged_out) == 4401
    # The user's other session is still signed in and keeps its events.
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 6})
    assert await receive_until(elsewhere, "run.metrics") == {"type": "run.metrics", "step": 6}
    await elsewhere.disconnect()


async def test_it_closes_every_session_socket_when_the_password_changes(owner, team):
    secret = await issue_token(owner, team)
    _, cookie = await signed_in_browser(owner)
    by_session, by_token = await connect_with(cookie), await connect_as(secret=secret)

    def change_password() -> None:
        owner.set_password("a brand new passphrase")
        owner.save()

    await database_sync_to_async(change_password)()
    assert await close_code(by_session) == 4401
    # A token is not a session: it lives until it is revoked or expires.
    await database_sync_to_async(publish_to_team)(team.id, {"type": "run.metrics", "step": 7})
    assert await receive_until(by_token, "run.metrics") == {"type": "run.metrics", "step": 7}
    await by_token.disconnect()
