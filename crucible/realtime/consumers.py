"""Websocket consumers: transport only. Access is checked on connect; events are forwarded."""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from crucible.accounts.services import teams_visible_to

from .groups import team_group, user_group

# Application close codes (4000-4999): the client can tell why it was turned away.
CLOSE_UNAUTHENTICATED = 4401
CLOSE_FORBIDDEN = 4403


class AuthenticatedConsumer(AsyncJsonWebsocketConsumer):
    groups_joined: list[str]

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
        for group in groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_joined = groups
        await self.accept()
        await self.send_json({"type": "hello", "user": user.get_username(), "groups": groups})

    async def groups_for(self, user: Any) -> list[str] | None:
        raise NotImplementedError

    async def disconnect(self, code: int) -> None:
        for group in getattr(self, "groups_joined", []):
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong", "echo": content.get("echo")})
        else:
            await self.send_json({"type": "error", "message": "unknown message type"})

    async def event_message(self, event: dict[str, Any]) -> None:
        """Handler for ``group_send(group, {"type": "event.message", "event": {...}})``."""
        await self.send_json(event["event"])


class EventsConsumer(AuthenticatedConsumer):
    """Every event of the user's teams: the SPA's one live connection."""

    async def groups_for(self, user: Any) -> list[str] | None:
        team_ids = await database_sync_to_async(
            lambda: list(
                teams_visible_to(user, self.scope.get("token")).values_list("id", flat=True)
            )
        )()
        return [user_group(user.pk), *(team_group(t) for t in team_ids)]
