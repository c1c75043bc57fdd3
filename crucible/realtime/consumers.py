"""Websocket consumers: transport only. Access is checked on connect and again whenever the
user's memberships, tokens or sessions change (or the socket's token expires); events are
forwarded.

A socket outlives a channel-layer outage (Redis down or restarted): instead of the consumer
ending with 1011 on the failed read, it waits for the layer to come back, joins its groups
again (a restarted Redis has forgotten them) and handles ``layer.reconnected``, which
re-checks access (changes published during the outage were lost) and lets a subclass catch
up on what it missed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils import timezone

from crucible.accounts.services import live_team_ids, session_user

from .groups import team_group, user_group

# Application close codes (4000-4999): the client can tell why it was turned away.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403

# The control message a socket sends itself when its token's expiry comes.
ACCESS_CHANGED = {"type": "access.changed"}
# What a socket hands itself once the channel layer answers again after failing.
LAYER_RECONNECTED = {"type": "layer.reconnected"}
# Waits between tries while the channel layer is down: short at first, so a restarted Redis
# is used again within a fraction of a second, then no more often than this.
LAYER_RETRY_FIRST_S = 0.1
LAYER_RETRY_MAX_S = 2.0

logger = logging.getLogger(__name__)


async def wait_for_layer(attempt: Callable[[], Awaitable[None]]) -> None:
    """Run ``attempt`` until it succeeds, waiting longer between failures (up to a limit)."""
    delay_s = LAYER_RETRY_FIRST_S
    while True:
        await asyncio.sleep(delay_s)
        try:
            await attempt()
            return
        except Exception:  # noqa: BLE001 - any failure of the layer is waited out
            delay_s = min(delay_s * 2, LAYER_RETRY_MAX_S)


class AuthenticatedConsumer(AsyncJsonWebsocketConsumer):
    groups_joined: list[str]
    expiry_watch: asyncio.Task | None = None
    _layer_receive: Callable[[], Awaitable[dict[str, Any]]]

    # Channels sets ``channel_receive`` to the layer's receive for this socket's channel and
    # reads from it for as long as the socket lives; a failed read would end the consumer.
    # The property hands it the read below instead, which waits out the failure.
    @property
    def channel_receive(self) -> Callable[[], Awaitable[dict[str, Any]]]:
        return self.receive_from_layer

    @channel_receive.setter
    def channel_receive(self, receive: Callable[[], Awaitable[dict[str, Any]]]) -> None:
        self._layer_receive = receive

    async def receive_from_layer(self) -> dict[str, Any]:
        try:
            return await self._layer_receive()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the layer's failure must not end the socket
            logger.warning(
                "socket.layer_unavailable",
                extra={"channel": self.channel_name, "error": f"{type(exc).__name__}: {exc}"},
            )
        groups = list(getattr(self, "groups_joined", []))

        async def rejoin() -> None:
            for group in groups:
                await self.channel_layer.group_add(group, self.channel_name)

        await wait_for_layer(rejoin)
        return dict(LAYER_RECONNECTED)

    async def connect(self) -> None:
        self.groups_joined = []
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            # Accept then close so browsers receive the code (a refused handshake shows as 1006).
            await self.accept()
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        groups = await self.groups_for(user)
        if groups is None:
            await self.accept()
            await self.close(code=CLOSE_FORBIDDEN)
            return
        await self.join(groups)
        await self.accept()
        self.watch_token_expiry()
        await self.send_json({"type": "hello", "user": user.get_username(), "groups": groups})

    async def groups_for(self, user: Any) -> list[str] | None:
        """The groups this socket may follow now; None when it must close."""
        raise NotImplementedError

    async def join(self, groups: list[str]) -> None:
        for group in groups:
            if group not in self.groups_joined:
                # Counted as joined even when the layer is down: the socket's read fails
                # too, and ``receive_from_layer`` joins every group again once it is back.
                self.groups_joined.append(group)
                await self.layer_call(self.channel_layer.group_add, group)

    async def leave(self, groups: list[str]) -> None:
        for group in groups:
            self.groups_joined.remove(group)
            # A layer that is down has already lost the membership (or expires it).
            await self.layer_call(self.channel_layer.group_discard, group)

    async def layer_call(self, method: Callable[[str, str], Awaitable[None]], group: str) -> None:
        try:
            await method(group, self.channel_name)
        except Exception as exc:  # noqa: BLE001 - see join and leave
            logger.warning(
                "socket.layer_unavailable",
                extra={"group": group, "error": f"{type(exc).__name__}: {exc}"},
            )

    def watch_token_expiry(self) -> None:
        # Nothing is published when a token expires, so the socket reminds itself.
        token = self.scope.get("token")
        if token is None or token.expires_at is None:
            return
        delay_s = max(0.0, (token.expires_at - timezone.now()).total_seconds())
        self.expiry_watch = asyncio.ensure_future(self.recheck_after(delay_s))

    async def recheck_after(self, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        await self.channel_layer.send(self.channel_name, ACCESS_CHANGED)

    async def access_changed(self, message: dict[str, Any]) -> None:
        """Handler for ``access.changed``: close once the user or token lost all access, or
        the session was signed out; else keep only the groups the socket may still see."""
        groups = await self.groups_for(self.scope["user"])
        if groups is None:
            await self.shut(CLOSE_FORBIDDEN)
            return
        if not await self.still_signed_in():
            await self.shut(CLOSE_UNAUTHENTICATED)
            return
        lost = [g for g in self.groups_joined if g not in groups]
        gained = [g for g in groups if g not in self.groups_joined]
        await self.leave(lost)
        await self.join(gained)
        if lost or gained:
            # "teams.*" lets the page refresh its list of teams.
            await self.send_json({"type": "teams.changed", "groups": groups})

    async def layer_reconnected(self, message: dict[str, Any]) -> None:
        """Handler for ``layer.reconnected``: what was published during the outage is lost,
        access changes included, so access is checked again."""
        await self.access_changed(message)

    async def still_signed_in(self) -> bool:
        """A socket opened with the session cookie lasts as long as that session: logging
        out, or changing the password (which ends every other session), closes it. A
        token's socket is judged by its token, in ``groups_for``."""
        if self.scope.get("token") is not None:
            return True
        session = self.scope.get("session")
        user = await database_sync_to_async(session_user)(getattr(session, "session_key", None))
        return user is not None and user.pk == self.scope["user"].pk

    async def shut(self, code: int) -> None:
        # Leave first: nothing more reaches a socket that has lost its access.
        await self.disconnect(code)
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.expiry_watch is not None:
            self.expiry_watch.cancel()
        await self.leave(list(getattr(self, "groups_joined", [])))

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong", "echo": content.get("echo")})
        else:
            await self.send_json({"type": "error", "message": "unknown message type"})

    async def event_message(self, event: dict[str, Any]) -> None:
        """Handler for ``group_send(group, {"type": "event.message", "event": {...}})``."""
        # An event queued for a group the socket has since left is no longer its to see.
        group = event.get("group")
        if group is not None and group not in self.groups_joined:
            return
        await self.send_json(event["event"])


class EventsConsumer(AuthenticatedConsumer):
    """Every event of the user's teams: the SPA's one live connection."""

    async def groups_for(self, user: Any) -> list[str] | None:
        token = self.scope.get("token")
        team_ids = await database_sync_to_async(live_team_ids)(
            user.pk, token.pk if token is not None else None
        )
        if team_ids is None:
            return None
        return [user_group(user.pk), *(team_group(t) for t in team_ids)]
