"""Tool calls in a chat answer, as OpenAI's clients read them.

A model trained with a tool-using chat template (Hermes, Qwen 2.5) writes each call as text,
a JSON object inside a tag::

    <tool_call>
    {"name": "python", "arguments": {"code": "print(17 * 23)"}}
    </tool_call>

When a request offered ``tools``, an answer whose every block is such a call of an offered
function comes back as the message's ``tool_calls`` (arguments as a JSON string), the text
left around them as ``content`` (``None`` when nothing is left), and ``finish_reason``
``tool_calls``. An answer with a malformed block, or one naming a function that was not
offered, is returned as the text the model wrote: the caller sees what it did. Arguments are
not checked against the caller's JSON schema (a schema is the caller's hostile input, and
OpenAI does not promise it either outside strict mode).

``HeldText`` streams a choice's text until a call may begin, and holds the rest for
``split_calls`` at the end, so a stream never shows the raw tags of calls it then reports.

Pure: no Django, no model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

TAG = "<tool_call>"
_BLOCK_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
MAX_CALL_CHARS = 20_000


def offered(tools: Sequence[dict[str, Any]]) -> frozenset[str]:
    """The function names a request's ``tools`` offer."""
    return frozenset(tool["function"]["name"] for tool in tools)


def split_calls(
    text: str, names: frozenset[str], id_prefix: str
) -> tuple[str | None, list[dict[str, Any]]]:
    """(the content, the calls) of an answer; ``(text, [])`` unless every block is a call
    of one of ``names``. Each call's id is ``call_<id_prefix>_<index>``."""
    blocks = [body.strip() for body in _BLOCK_RE.findall(text)]
    if not blocks or not names:
        return text, []
    calls = []
    for i, block in enumerate(blocks):
        call = _call(block, names)
        if call is None:
            return text, []
        name, arguments = call
        calls.append({"id": f"call_{id_prefix}_{i}", "type": "function",
                      "function": {"name": name, "arguments": arguments}})  # fmt: skip
    content = _BLOCK_RE.sub("", text).strip()
    return content or None, calls


def _call(block: str, names: frozenset[str]) -> tuple[str, str] | None:
    if len(block) > MAX_CALL_CHARS:
        return None
    try:
        data = json.loads(block)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("name") not in names:
        return None
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):  # some templates' models write the JSON string itself
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return None
    if not isinstance(arguments, dict):
        return None
    return str(data["name"]), json.dumps(arguments)


class HeldText:
    """One streamed choice's text: what may be sent now, and what waits for the end.

    Text is sent as it comes until ``<tool_call>`` (or a beginning of it) shows; from there
    on it is held, and ``rest`` is what ``split_calls`` decides at the end."""

    def __init__(self) -> None:
        self.held = ""
        self.holding = False

    def feed(self, text: str) -> str:
        """Take the next piece; return the part that may be sent now."""
        if self.holding:
            self.held += text
            return ""
        seen = self.held + text
        at = seen.find(TAG)
        if at >= 0:
            self.holding = True
            self.held = seen[at:]
            return seen[:at]
        keep = _partial_tag(seen)
        self.held = seen[len(seen) - keep :]
        return seen[: len(seen) - keep]

    def rest(self) -> str:
        return self.held


def _partial_tag(text: str) -> int:
    """The length of the longest end of ``text`` that begins ``TAG`` (it may yet become one)."""
    for size in range(min(len(TAG) - 1, len(text)), 0, -1):
        if TAG.startswith(text[-size:]):
            return size
    return 0
