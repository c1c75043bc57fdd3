"""A Python tool for math word problems: the model runs code, reads its output, then answers.

Pure Python: no Django import. The model's code is untrusted exactly like a candidate solution,
so it runs in the sandbox (``tasks_app.sandbox.run_program``: its own process, no network, no
secrets, CPU, memory, file and process limits, a wall timeout, the process group killed after);
only its printed output, cut to ``output_chars``, comes back. The final answer (a message
without a tool call) is judged by the math-word family's verifier.
"""

from __future__ import annotations

import re
from typing import Any

from tasks_app import sandbox
from tasks_app.environments.base import EpisodeLimits, ToolCall
from tasks_app.environments.tool_calls import call_text, truncated
from tasks_app.environments.tool_env import (
    ToolEnvironment,
    ToolOutcome,
    text_tool,
    timed_params,
)

name = "python-tool"
label = "Python tool (math word problems)"
description = (
    "Math word problems with a Python tool: the model may run code in the sandbox and read its "
    "output before giving the final '#### <number>' answer."
)
family = "math-word"
PYTHON = text_tool(
    "python",
    "Run a Python 3 program in a sandbox (no network, no files kept) and read what it prints.",
    "code",
    "The program.",
)
tools = (PYTHON,)
default_limits = EpisodeLimits(max_turns=4, max_tokens_per_turn=512, max_total_tokens=4096)
MEMORY_MB = 256
params_schema = timed_params(
    output_chars={"type": "integer", "minimum": 100, "maximum": 20_000, "default": 2000}
)
_SANDBOX_FRAME = re.compile(r'^  File "(?!<program>).*\n(?:    .*\n)?', re.MULTILINE)


class PythonToolEnvironment(ToolEnvironment):
    tools = (PYTHON,)
    params_schema = params_schema

    purpose = "You can run Python to compute."
    example_arguments = '{"code": "print(17 * 23)"}'
    answer_rule = (
        "When you know the answer, reply without a tool call and end your reply with "
        "a line '#### <number>'."
    )

    def run_tool(self, call: ToolCall) -> ToolOutcome:
        limit = self.params["output_chars"]
        result = sandbox.run_program(
            call.arguments["code"],
            timeout=float(self.params["timeout_s"]),
            memory_mb=MEMORY_MB,
            output_limit=limit,
        )
        info = {"status": result.status, "seconds": result.seconds, "truncated": result.truncated}
        text = truncated(result.stdout, limit)
        if result.status == "output_limit":  # printing a lot is not a failure: it is cut
            return ToolOutcome(f"{text}\n… (output cut at {limit} characters)", None, info)
        if result.status == "ok":
            return ToolOutcome(text or "(no output)", None, info)
        return ToolOutcome(_failure(result, text, limit), result.status, info)


def _failure(result: sandbox.ProgramResult, stdout: str, limit: int) -> str:
    """What a failed run shows the model: its output, then the traceback of its own code only
    (the sandbox's frames name paths of the platform) or the limit it ran into."""
    why = _SANDBOX_FRAME.sub("", result.stderr) if result.stderr else result.detail
    why = truncated(why.strip() or result.status, limit)
    return f"{stdout}\n{why}".strip() if stdout else why


def call_text_for(code: str) -> str:
    """A call of the tool in the text format: for scripted episodes and samples."""
    return call_text(ToolCall(PYTHON.name, {"code": code}))


def make(params: dict[str, Any] | None = None) -> PythonToolEnvironment:
    return PythonToolEnvironment(params)
