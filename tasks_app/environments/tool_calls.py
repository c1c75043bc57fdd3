"""Tool calls written by a model: found in its message, checked against the tools it was given.

Pure Python: no Django import. A call arrives either already structured (``Message.tool_calls``,
as the OpenAI API and an engine that parsed the chat template's output give it), or as text in
the format chat templates with tool support emit (Hermes, Qwen 2.5): a JSON object per call
inside a tag::

    <tool_call>
    {"name": "python", "arguments": {"code": "print(17 * 23)"}}
    </tool_call>

Everything here is hostile input: a block that is not JSON, names a tool the episode does not
offer, or has arguments its JSON schema refuses becomes a :class:`CallProblem` (the turn's
``tool_call_parse`` verdict, which the reward spec can weigh), never an exception.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jsonschema

from tasks_app.environments.base import Message, Tool, ToolCall

_CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
MAX_CALL_CHARS = 20_000
"""One call's JSON: a program or a query, not a data set."""


@dataclass(frozen=True)
class CallProblem:
    id: str
    reason: str


def call_blocks(content: str) -> list[str]:
    """The text of every ``<tool_call>`` block; an unclosed last block counts."""
    return [body.strip() for body in _CALL_RE.findall(content)]


def without_calls(content: str) -> str:
    """The message with its tool-call blocks taken out: what is left to judge as an answer."""
    return _CALL_RE.sub("", content).strip()


def call_text(call: ToolCall) -> str:
    """A structured call written back as the text format, for a conversation kept as text."""
    body = json.dumps({"name": call.name, "arguments": call.arguments})
    return f"<tool_call>\n{body}\n</tool_call>"


def parse_calls(
    message: Message, tools: Sequence[Tool], *, turn: int
) -> tuple[list[ToolCall], list[CallProblem]]:
    """The well-formed calls of one assistant message, and a problem for each one that is not.

    Structured ``tool_calls`` win over text; each call gets an id (``call_<turn>_<index>``)
    unless it came with one, so every tool message can name the call it answers.
    """
    schemas = {tool.name: tool.parameters for tool in tools}
    found: list[ToolCall | CallProblem]
    if message.tool_calls:
        found = [
            _checked(call, schemas, call.id or _call_id(turn, i))
            for i, call in enumerate(message.tool_calls)
        ]
    else:
        blocks = call_blocks(message.content)
        found = [parse_call(block, schemas, _call_id(turn, i)) for i, block in enumerate(blocks)]
    calls = [item for item in found if isinstance(item, ToolCall)]
    return calls, [item for item in found if isinstance(item, CallProblem)]


def _call_id(turn: int, index: int) -> str:
    return f"call_{turn}_{index}"


def parse_call(block: str, schemas: dict[str, Any], call_id: str) -> ToolCall | CallProblem:
    """One text block as a call of a tool in ``schemas`` (tool name -> arguments schema)."""
    if len(block) > MAX_CALL_CHARS:
        return CallProblem(call_id, f"is longer than {MAX_CALL_CHARS} characters")
    try:
        data = json.loads(block)
    except (ValueError, RecursionError) as exc:
        return CallProblem(call_id, f"is not JSON ({str(exc)[:200]})")
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return CallProblem(call_id, 'must be an object {"name": ..., "arguments": {...}}')
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):  # the OpenAI shape sends arguments as a JSON string
        arguments = _loads(arguments)
    if not isinstance(arguments, dict):
        return CallProblem(call_id, f"{data['name']}: arguments must be an object")
    return _checked(ToolCall(data["name"], arguments, call_id), schemas, call_id)


def _checked(call: ToolCall, schemas: dict[str, Any], call_id: str) -> ToolCall | CallProblem:
    if call.name not in schemas:
        offered = ", ".join(sorted(schemas)) or "none"
        return CallProblem(call_id, f"names no tool of this episode: {call.name!r} ({offered})")
    problem = argument_problem(call.arguments, schemas[call.name])
    if problem:
        return CallProblem(call_id, f"{call.name}: {problem}")
    return ToolCall(call.name, call.arguments, call_id)


def argument_problem(arguments: dict[str, Any], schema: dict[str, Any]) -> str | None:
    """Why ``arguments`` do not fit the tool's JSON schema, naming the field; None if they do."""
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(arguments),
        key=lambda e: [str(p) for p in e.absolute_path],
    )
    if not errors:
        return None
    where = "".join(f".{p}" for p in errors[0].absolute_path)
    return f"arguments{where}: {errors[0].message[:300]}"


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return text


def truncated(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… ({len(text) - limit} more characters not shown)"
