"""Error codes and websocket frame types are named once and served in the schema as enums;
the code sends no code or event type that the lists do not name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from crucible.api.error_codes import ERROR_CODES
from crucible.realtime.event_types import (
    CANARY_FRAMES,
    CLIENT_MESSAGES,
    INTERNAL,
    RUN_FRAMES,
    SOCKET_FRAMES,
    TEAM_EVENTS,
)

ROOT = Path(__file__).parents[2]
APPS = ("crucible", "tasks_app", "experiments", "serving")

EVENT_PATTERNS = (
    r"\brecord\(\s*[\w.]+,\s*\"([a-z_]+\.[a-z_]+)\"",  # an audit action, published to the team
    r"\"type\": \"([a-z_]+(?:\.[a-z_]+)?)\"",  # an event or frame built in place
    r"\"([a-z_]+\.[a-z_]+)\" if .* else \"([a-z_]+\.[a-z_]+)\"",  # an action chosen in place
)
CODE_PATTERNS = (
    r"\bcode=\"([a-z_]+)\"",
    r"\"code\": \"([a-z_]+)\"",
    r"\bjson_error\(\d+, \"([a-z_]+)\"",
    r"\bdefault_code = \"([a-z_]+)\"",
    r"\bProblem\([^,()]+, \"([a-z_]+)\"",
)
NOT_SOCKET_TYPES = {
    "http",
    "http.disconnect",
    "healthz.ping",
    "memory.max",
    "memory.limit_in_bytes",
    "function",
    "text",
}
"""ASGI and channel-layer messages, cgroup files, and OpenAI's tool and response-format types."""


def used(patterns: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            text = path.read_text()
            for pattern in patterns:
                for match in re.finditer(pattern, text):
                    found.update(g for g in match.groups() if g)
    return found


def test_it_names_every_event_type_the_code_publishes():
    named = {*TEAM_EVENTS, *RUN_FRAMES, *CANARY_FRAMES, *SOCKET_FRAMES, *CLIENT_MESSAGES, *INTERNAL}
    json_schema_types = {"object", "array", "string", "number", "integer", "boolean", "null"}
    unnamed = used(EVENT_PATTERNS) - named - NOT_SOCKET_TYPES - json_schema_types
    assert sorted(unnamed) == []


def test_it_names_every_error_code_the_code_sends():
    assert sorted(used(CODE_PATTERNS) - set(ERROR_CODES)) == []


def test_it_names_each_once():
    for values in (ERROR_CODES, TEAM_EVENTS, RUN_FRAMES, CANARY_FRAMES, SOCKET_FRAMES):
        assert len(values) == len(set(values))


@pytest.mark.parametrize(
    ("component", "values"),
    [
        ("ApiErrorCode", ERROR_CODES),
        ("LiveEventType", TEAM_EVENTS),
        ("RunFrameType", RUN_FRAMES),
        ("CanaryFrameType", CANARY_FRAMES),
        ("ClientMessageType", CLIENT_MESSAGES),
        ("SocketFrameType", SOCKET_FRAMES),
    ],
)
def test_it_serves_each_vocabulary_as_an_enum_in_the_schema(openapi, component, values):
    schema = openapi["components"]["schemas"][component]
    assert schema["type"] == "string"
    assert schema["enum"] == list(values)
    assert schema["description"]
