"""The contract of a multi-turn environment: the model acts, the environment answers.

Pure Python: no Django import. An *episode* opens with ``reset(task)`` (the opening messages
and the tools the model may call), then alternates one assistant message with
``step(message)`` (the environment's answer: a tool result, feedback, or the end) until the
environment says it is done or a limit in ``EpisodeLimits`` is reached. ``final_state()`` is
what the family's verifier judges (the outcome); each step's ``error`` is a per-turn verdict
the reward spec may weigh as a process part (a tool call that did not parse, a tool that
failed, a move the rules do not allow).

Messages and tools are written in the OpenAI chat shape (``to_dict``), the shape chat
templates (``tokenizer.apply_chat_template(messages, tools=...)``) and serving both take, so
the engine, the playground and the rollout inspector pass them on unchanged. Copy
``tasks_app.environments.guess_number`` to add an environment kind, and list it in
``tasks_app.environments.registry``.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tasks_app.families.base import Task

ROLES = ("system", "user", "assistant", "tool")
TOOL_CALL_PARSE = "tool_call_parse"
"""Per-turn error: the assistant's tool call is not valid JSON or names no known tool."""
TOOL_ERROR = "tool_error"
"""Per-turn error: the tool ran and failed (an exception, a timeout, a refused query)."""
INVALID_MOVE = "invalid_move"
"""Per-turn error: the message is well formed but the environment's rules do not allow it."""
TURN_ERRORS = (TOOL_CALL_PARSE, TOOL_ERROR, INVALID_MOVE)


@dataclass(frozen=True)
class Tool:
    """A function the model may call, described as chat templates and the OpenAI API take it."""

    name: str
    description: str
    parameters: dict[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    """JSON Schema of the call's arguments (an object schema)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolCall:
    """One call in an assistant message: the tool's name and its JSON arguments."""

    name: str
    arguments: dict[str, Any]
    id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolCall:
        """From the OpenAI shape; ValueError when the arguments are not a JSON object."""
        function = data.get("function") or {}
        arguments = function.get("arguments", {})
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                raise ValueError(f"tool_calls.arguments: not JSON ({exc.msg})") from exc
        if not isinstance(arguments, dict):
            raise ValueError("tool_calls.arguments: must be a JSON object")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("tool_calls.function.name: is required")
        return cls(name, arguments, str(data.get("id", "")))


@dataclass(frozen=True)
class Message:
    """One turn of a conversation."""

    role: str
    """``system``, ``user`` (the task, or an environment's feedback), ``assistant`` (the
    model) or ``tool`` (a tool's result)."""
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    """Assistant only: the tools it calls this turn."""
    tool_call_id: str | None = None
    """Tool only: the id of the call this message answers."""
    name: str | None = None
    """Tool only: the tool's name."""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"role: must be one of {', '.join(ROLES)}, not {self.role!r}")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Message:
        content = data.get("content") or ""
        if not isinstance(content, str):
            raise ValueError("content: must be a string")
        return cls(
            role=str(data.get("role", "")),
            content=content,
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
        )


@dataclass(frozen=True)
class Opening:
    """What ``reset`` gives: the conversation so far and the tools the model may call."""

    messages: tuple[Message, ...]
    tools: tuple[Tool, ...] = ()


@dataclass(frozen=True)
class StepResult:
    """The environment's answer to one assistant message."""

    messages: tuple[Message, ...] = ()
    """Appended to the conversation (tool results, feedback); empty when it has nothing to say."""
    done: bool = False
    """The episode is over (solved, given up, or the environment's own budget spent)."""
    error: str | None = None
    """This turn's verdict: None when the message was fine, else one of ``TURN_ERRORS`` (or
    a kind's own error type), for the reward spec's process parts and the inspector."""
    info: dict[str, Any] = field(default_factory=dict)
    """JSON-able detail of the turn (a tool's exit status, the move made), shown, not judged."""


@dataclass(frozen=True)
class EpisodeLimits:
    """Bounds on one episode, enforced by whoever drives it (the engine, the playground)."""

    max_turns: int = 8
    """Assistant messages at most; the episode ends after the last one is answered."""
    max_tokens_per_turn: int = 64
    """Tokens one assistant message may have (generation stops there)."""
    max_total_tokens: int = 1024
    """Tokens of the whole conversation after the opening, the environment's included."""

    def problems(self) -> list[tuple[str, str]]:
        found = []
        for name, low, high in (
            ("max_turns", 1, 64),
            ("max_tokens_per_turn", 1, 32_768),
            ("max_total_tokens", 1, 131_072),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                found.append((name, f"must be an integer from {low} to {high}"))
        return found

    def validate(self) -> None:
        """ValueError naming each field (as ``limits.<field>``) out of range."""
        found = self.problems()
        if found:
            raise ValueError("; ".join(f"limits.{name}: {why}" for name, why in found))


class Environment(ABC):
    """One episode's environment; a fresh instance per episode (it may hold state: a
    sandbox, a database, the secret of a game)."""

    @abstractmethod
    def reset(self, task: Task) -> Opening:
        """Open an episode on ``task``."""

    @abstractmethod
    def step(self, message: Message) -> StepResult:
        """Answer one assistant message. Never raises on what the model wrote: a message
        that does not parse is a turn with ``error`` set."""

    @abstractmethod
    def final_state(self) -> dict[str, Any]:
        """JSON-able state the verifier judges once the episode is over (e.g. the final
        answer, whether the goal was reached)."""


@dataclass
class Episode:
    """A finished episode: the conversation, each turn's verdict, and why it ended."""

    messages: list[Message]
    tools: tuple[Tool, ...]
    turns: int
    """Assistant messages written."""
    errors: list[str | None]
    """Per assistant turn: its ``StepResult.error``."""
    final_state: dict[str, Any]
    ended_by: str
    """``environment`` (it said done), ``max_turns`` or ``max_total_tokens``."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": [m.to_dict() for m in self.messages],
            "tools": [t.to_dict() for t in self.tools],
            "turns": self.turns,
            "errors": list(self.errors),
            "final_state": self.final_state,
            "ended_by": self.ended_by,
        }


Policy = Callable[[Sequence[Message], tuple[Tool, ...]], Message]
"""A scripted or model policy: the conversation so far and the tools -> the next message."""


def run_episode(
    env: Environment,
    task: Task,
    policy: Policy,
    limits: EpisodeLimits,
    count_tokens: Callable[[str], int] = lambda text: len(text.split()),
) -> Episode:
    """Drive one episode with ``policy`` one message at a time (the playground's loop; the
    engine batches generation across episodes instead). ``count_tokens`` measures text for
    ``max_total_tokens`` (whitespace words unless a tokenizer's count is given)."""
    limits.validate()
    opening = env.reset(task)
    messages = list(opening.messages)
    errors: list[str | None] = []
    used, ended_by = 0, "max_turns"
    while len(errors) < limits.max_turns:
        reply = policy(messages, opening.tools)
        result = env.step(reply)
        messages += [reply, *result.messages]
        errors.append(result.error)
        used += sum(count_tokens(m.content) for m in (reply, *result.messages))
        if result.done:
            ended_by = "environment"
            break
        if used >= limits.max_total_tokens:
            ended_by = "max_total_tokens"
            break
    return Episode(messages, opening.tools, len(errors), errors, env.final_state(), ended_by)
