"""Publishing events to websocket groups from anywhere (views, services, workers)."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .groups import team_group


def publish(group: str, event: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, {"type": "event.message", "event": event})


def publish_to_team(team_id: int, event: dict[str, Any]) -> None:
    publish(team_group(team_id), event)
