"""The canary page's websocket: ``/ws/canaries/<id>/`` streams one canary as it changes.

Server to client: ``{"type": "hello", ...}`` on connect (``AuthenticatedConsumer``), then
``{"type": "canary", "canary": {...}}`` (the API's canary) at once and whenever its
``revision`` moves: a new analysis, a step, a pause, a decision, the end. The socket follows
the canary's row (every ``POLL_S``) rather than a channel group, so it is live in both run
modes: the replicas that write the analyses run in worker processes that an in-memory
channel layer cannot reach. Closes with 4401 when unauthenticated and 4403 for a canary
outside the caller's teams (or one that does not exist); loses access as the user does.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async

from crucible.accounts.services import live_team_ids
from crucible.realtime.consumers import AuthenticatedConsumer
from crucible.realtime.groups import user_group

from .api.deployments import CanarySerializer, canaries_with_relations
from .models import Canary

POLL_S = 0.5


class CanaryConsumer(AuthenticatedConsumer):
    canary_id: int
    watcher: asyncio.Task | None = None

    async def connect(self) -> None:
        self.canary_id = int(self.scope["url_route"]["kwargs"]["canary_id"])
        await super().connect()
        if not self.groups_joined:
            return  # turned away: closed with 4401 or 4403
        self.watcher = asyncio.ensure_future(self.watch())

    async def groups_for(self, user: Any) -> list[str] | None:
        token = self.scope.get("token")
        visible = await database_sync_to_async(_visible)(
            user.pk, token.pk if token is not None else None, self.canary_id
        )
        return [user_group(user.pk)] if visible else None

    async def watch(self) -> None:
        seen = -1
        while True:
            revision, frame = await database_sync_to_async(_frame)(self.canary_id, seen)
            if frame is not None:
                seen = revision
                await self.send_json(frame)
            await asyncio.sleep(POLL_S)

    async def disconnect(self, code: int) -> None:
        if self.watcher is not None:
            self.watcher.cancel()
        await super().disconnect(code)


def _visible(user_id: int, token_id: int | None, canary_id: int) -> bool:
    team_ids = live_team_ids(user_id, token_id)
    if team_ids is None:
        return False
    return Canary.objects.filter(pk=canary_id, deployment__team_id__in=team_ids).exists()


def _frame(canary_id: int, seen: int) -> tuple[int, dict[str, Any] | None]:
    """The canary's revision, and its frame when that is not ``seen``."""
    revision = (
        canaries_with_relations().filter(pk=canary_id).values_list("revision", flat=True).first()
    )
    if revision is None or revision == seen:
        return seen, None
    canary = canaries_with_relations().get(pk=canary_id)
    return canary.revision, {"type": "canary", "canary": CanarySerializer(canary).data}
