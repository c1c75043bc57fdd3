"""Publishing events to websocket groups from anywhere (views, services, workers).

A publish is best effort: live pages are a view of what is stored, and a socket reads what
it missed from the database when it reconnects or catches up. So a channel layer that
cannot be reached (Redis down) is logged and skipped; it never fails the write that
published.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import team_group, user_group

logger = logging.getLogger(__name__)


def publish(group: str, event: dict[str, Any]) -> None:
    # The group travels with the event: a socket that has just left the group drops what
    # was already queued for it.
    _group_send(group, {"type": "event.message", "group": group, "event": event})


def publish_access_changed(user_id: int) -> None:
    """Tell the user's open sockets to re-check what they may see (memberships, tokens)."""
    _group_send(user_group(user_id), {"type": "access.changed"})


def _group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    group_send = async_to_sync(layer.group_send)

    def send(group: str, message: dict[str, Any]) -> None:
        try:
            group_send(group, message)
        except Exception as exc:  # noqa: BLE001 - an unreachable layer must not fail a write
            logger.warning(
                "publish.failed", extra={"group": group, "error": f"{type(exc).__name__}: {exc}"}
            )

    if _loop_running_here():
        # Sync code called under a running loop (a sync view inside an async test client, a
        # browser driver) cannot block on that loop; hand the send to a short-lived thread.
        worker = threading.Thread(target=send, args=(group, message), daemon=True)
        worker.start()
        worker.join(timeout=5)
    else:
        send(group, message)


def _loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def publish_to_team(team_id: int, event: dict[str, Any]) -> None:
    publish(team_group(team_id), event)
