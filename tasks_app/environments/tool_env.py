"""What the built-in tool environments share: a turn either calls tools or answers.

Pure Python: no Django import. An assistant message with tool calls gets one ``tool`` message
per call (its output, or why it did not run) and the episode goes on; a message without any is
the final answer, which ends the episode and is what the family's verifier judges
(``final_state()["answer"]``). A kind supplies its tools, its instructions and ``run_tool``.

Each turn's verdict (``StepResult.error``): ``tool_call_parse`` when a call did not parse or
named no tool, else ``tool_error`` when a tool failed, else None; ``info`` counts them.
"""

from __future__ import annotations

import time
from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tasks_app.environments.base import (
    TOOL_CALL_PARSE,
    TOOL_ERROR,
    Environment,
    Message,
    Opening,
    StepResult,
    Tool,
    ToolCall,
)
from tasks_app.environments.tool_calls import CallProblem, parse_calls, without_calls
from tasks_app.families import common
from tasks_app.families.base import Task

MAX_CALLS_PER_TURN = 4
"""Calls run in one turn; more are answered "not run", so a turn's cost stays bounded."""
TOOL_BUDGET_S = 20.0
"""Wall seconds of tool runs in one episode; later calls are answered "not run", so an episode
(a playground request included) ends within this plus one call's time limit."""


@dataclass(frozen=True)
class ToolOutcome:
    """A tool's answer: the text the model reads, and why it failed (None when it ran)."""

    text: str
    error: str | None = None
    info: dict[str, Any] = field(default_factory=dict)


def text_tool(name: str, description: str, argument: str, what: str) -> Tool:
    """A tool taking one non-empty string argument (a program, a query)."""
    properties = {argument: {"type": "string", "minLength": 1, "description": what}}
    schema = {
        "type": "object",
        "properties": properties,
        "required": [argument],
        "additionalProperties": False,
    }
    return Tool(name, description, schema)


def timed_params(**properties: dict[str, Any]) -> dict[str, Any]:
    """A kind's params schema: a tool call's time limit in seconds, and ``properties``."""
    timeout = {"type": "number", "minimum": 0.1, "maximum": 10, "default": 2.0}
    return {
        "type": "object",
        "properties": {"timeout_s": timeout, **properties},
        "additionalProperties": False,
    }


def call_instructions(tool: Tool, example: str) -> str:
    """How to call ``tool`` in the text format, for a model whose chat template has no tools."""
    return (
        f'To call it, write <tool_call>{{"name": "{tool.name}", "arguments": {example}}}'
        "</tool_call>; its result comes back in the next message."
    )


class ToolEnvironment(Environment):
    """One episode of a task answered with the help of tools."""

    tools: tuple[Tool, ...] = ()
    params_schema: dict[str, Any] = {"type": "object", "properties": {}}
    purpose = ""
    """The system message's first sentence: what the tool is for."""
    example_arguments = "{}"
    """JSON arguments of a sample call of the first tool."""
    answer_rule = ""
    """How the final answer must be given (the family verifier's format)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        self.params = common.validate_params(self.params_schema, params)
        self.task: Task | None = None
        self.turn = 0
        self.answer: str | None = None
        self.calls = self.call_problems = self.tool_errors = 0
        self.tool_seconds = 0.0

    def instructions(self) -> str:
        """The system message: what the tools do and how the answer must be given."""
        calling = call_instructions(self.tools[0], self.example_arguments)
        return f"{self.purpose} {calling} {self.answer_rule}"

    @abstractmethod
    def run_tool(self, call: ToolCall) -> ToolOutcome:
        """Run one well-formed call; never raises on what the model wrote."""

    def reset(self, task: Task) -> Opening:
        self.task = task
        opening = (Message("system", self.instructions()), Message("user", task.prompt))
        return Opening(opening, self.tools)

    def step(self, message: Message) -> StepResult:
        self.turn += 1
        calls, problems = parse_calls(message, self.tools, turn=self.turn)
        if not calls and not problems:
            self.answer = message.content
            return StepResult(done=True, info={"answered": True})
        replies = [self._refused(p) for p in problems]
        outcomes = [self._run(call, i) for i, call in enumerate(calls)]
        replies += [
            self._reply(call, outcome) for call, outcome in zip(calls, outcomes, strict=True)
        ]
        failed = [o for o in outcomes if o.error is not None]
        self.calls += len(calls)
        self.call_problems += len(problems)
        self.tool_errors += len(failed)
        error = TOOL_CALL_PARSE if problems else TOOL_ERROR if failed else None
        info = {
            "calls": len(calls),
            "call_problems": [p.reason for p in problems],
            "tool_errors": [o.error for o in failed],
            "tools": [o.info for o in outcomes],
        }
        return StepResult(messages=tuple(replies), error=error, info=info)

    def _run(self, call: ToolCall, index: int) -> ToolOutcome:
        if index >= MAX_CALLS_PER_TURN:
            return ToolOutcome(f"not run: at most {MAX_CALLS_PER_TURN} calls a turn", "not_run")
        if self.tool_seconds >= TOOL_BUDGET_S:
            return ToolOutcome(
                f"not run: this episode's {TOOL_BUDGET_S:g} s of tools are spent", "not_run"
            )
        started = time.monotonic()
        try:
            return self.run_tool(call)
        finally:
            self.tool_seconds += time.monotonic() - started

    @staticmethod
    def _reply(call: ToolCall, outcome: ToolOutcome) -> Message:
        return Message("tool", outcome.text, tool_call_id=call.id, name=call.name)

    @staticmethod
    def _refused(problem: CallProblem) -> Message:
        return Message("tool", f"tool call refused: {problem.reason}", tool_call_id=problem.id)

    def final_state(self) -> dict[str, Any]:
        """The final answer (empty when the episode ended before one) and the tool counts."""
        return {
            "answer": without_calls(self.answer or ""),
            "answered": self.answer is not None,
            "tool_calls": self.calls,
            "tool_call_problems": self.call_problems,
            "tool_errors": self.tool_errors,
        }
