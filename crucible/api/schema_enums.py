"""The vocabularies the OpenAPI schema names as enum components beside the generated ones:
error codes and websocket frame types. Plain data, so the settings can import it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from crucible.api.error_codes import ERROR_CODES
from crucible.realtime.event_types import (
    CANARY_FRAMES,
    CLIENT_MESSAGES,
    RUN_FRAMES,
    SOCKET_FRAMES,
    TEAM_EVENTS,
)


def _enum(values: Sequence[str], description: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


SCHEMA_ENUMS: dict[str, Any] = {
    "schemas": {
        "ApiErrorCode": _enum(
            ERROR_CODES,
            "The `code` of an error in `ApiErrors`: what went wrong with the request, a field "
            "or the object's state. A field's validator may also use a code of its own.",
        ),
        "LiveEventType": _enum(
            TEAM_EVENTS,
            "The `type` of an event on `/ws/events/`: what one of the caller's teams changed.",
        ),
        "RunFrameType": _enum(RUN_FRAMES, "The `type` of a frame on `/ws/runs/<id>/`."),
        "CanaryFrameType": _enum(CANARY_FRAMES, "The `type` of a frame on `/ws/canaries/<id>/`."),
        "ClientMessageType": _enum(
            CLIENT_MESSAGES, "The `type` of a message a client sends on a stream's socket."
        ),
        "SocketFrameType": _enum(
            SOCKET_FRAMES, "The `type` of a frame about the connection itself, on every socket."
        ),
    }
}
