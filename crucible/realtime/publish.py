"""Publishing events to websocket groups from anywhere (views, services, workers)."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import team_group


def publish(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    send = async_to_sync(layer.group_send)
    message = {"type": "event.message", "event": event}
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
