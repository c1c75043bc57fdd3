"""The OpenAI API's request and answer shapes, for chat completions and completions.

``parse`` checks a request body as OpenAI's API does (an unknown argument is refused, every
refusal names its ``param``) within the platform's limits, and returns what to generate;
``chat_body`` / ``text_body`` and ``chunks`` build the answer, whole or as server-sent
events; ``ApiError`` is OpenAI's error shape, ``{"error": {"message", "type", "param",
"code"}}``. Pure: no Django, no model.

A chat is a whole conversation: at most one system (or developer) message first, then user,
assistant and tool turns, ending with a user or tool turn; ``tools`` (function definitions)
go to the chat template with it. Whether the served model can take it (a raw-format model
takes one user turn; tools need a template that renders them) is the caller's
(``app.encoded``) to decide, from the model version's recorded format. ``echo``,
``best_of``, penalties and top alternatives in ``logprobs`` are refused with the reason
rather than silently ignored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from serving.openai_api.tool_output import split_calls

CHAT, TEXT = "chat", "text"
MAX_TOKENS = 512
"""The most tokens a completion may ask for (a replica's own limit)."""
MAX_N = 8
MAX_STOPS = 4
MAX_STOP_CHARS = 200
MAX_KEY_CHARS = 200
MAX_MODEL_CHARS = 200
MAX_SEED = 2**63 - 1
MAX_MESSAGES = 64
MAX_TOOLS = 32
MAX_NAME_CHARS = 64
ROLES = ("user", "assistant", "tool")
"""The turns of a conversation after its system message."""
COMMON = {
    "model", "max_tokens", "temperature", "top_p", "n", "stop", "seed", "logprobs", "stream",
    "stream_options", "user", "frequency_penalty", "presence_penalty",
}  # fmt: skip
CHAT_ONLY = {
    "messages", "max_completion_tokens", "top_logprobs", "response_format", "tools",
    "tool_choice",
}  # fmt: skip
ACCEPTED = {
    CHAT: COMMON | CHAT_ONLY,
    TEXT: COMMON | {"prompt", "echo", "best_of", "suffix"},
}
TYPES = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
    404: "invalid_request_error", 405: "invalid_request_error", 409: "invalid_request_error",
    413: "invalid_request_error", 429: "rate_limit_error", 500: "server_error",
    503: "server_error", 504: "server_error",
}  # fmt: skip


class ApiError(Exception):
    """A refusal in OpenAI's error shape."""

    def __init__(
        self,
        status: int,
        message: str,
        param: str | None = None,
        code: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.param, self.code = status, message, param, code
        self.headers = dict(headers or {})

    def body(self) -> dict[str, Any]:
        kind = TYPES.get(self.status, "invalid_request_error")
        return {"error": {"message": self.message, "type": kind, "param": self.param,
                          "code": self.code}}  # fmt: skip


def invalid(param: str, message: str) -> ApiError:
    return ApiError(400, f"{param}: {message}", param, "invalid_value")


@dataclass(frozen=True)
class Ask:
    """A completion request, checked."""

    kind: str
    """``chat`` or ``text``."""
    model: str
    prompt: str
    """A chat's user turn (its transcript when it has more turns), or a completion's prompt."""
    system: str | None
    """A chat's system message; None when it sent none."""
    max_tokens: int | None
    """None: the deployment's default."""
    temperature: float | None
    """None: the deployment's default."""
    top_p: float
    n: int
    stop: tuple[str, ...]
    seed: int | None
    logprobs: bool
    stream: bool
    include_usage: bool
    key: str
    """The ``user`` field: keeps a caller on one side of a split canary."""
    turns: tuple[dict[str, Any], ...] = ()
    """A conversation's turns after its system message (as chat templates read them); empty
    for one user turn, which ``prompt`` holds."""
    tools: tuple[dict[str, Any], ...] = ()
    """The functions the chat's template is told the model may call."""
    has_tool_turns: bool = False
    """A turn is a tool's result, or an assistant's tool calls."""


def parse(kind: str, raw: bytes, max_prompt_chars: int) -> Ask:
    """The request in ``raw``; ApiError (400) naming the param otherwise."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the parser's depth
        raise ApiError(400, "the body is not valid JSON", None, "invalid_json") from None
    if not isinstance(body, dict):
        raise ApiError(400, "the body must be a JSON object", None, "invalid_json")
    unknown = sorted(set(body) - ACCEPTED[kind])
    if unknown:
        raise ApiError(
            400, f"Unrecognized request argument supplied: {unknown[0]}", unknown[0],
            "unrecognized_argument",
        )  # fmt: skip
    _refuse_unsupported(kind, body)
    model = _string(body, "model", MAX_MODEL_CHARS, required=True)
    turns: tuple[dict[str, Any], ...] = ()
    tools: tuple[dict[str, Any], ...] = ()
    if kind == CHAT:
        system, turns = _messages(body.get("messages"))
        tools = _tools(body.get("tools"), body.get("tool_choice"))
        prompt = turns[0]["content"] if len(turns) == 1 else transcript(turns)
        turns = () if len(turns) == 1 and not tools else turns
        tokens = body.get("max_completion_tokens", body.get("max_tokens"))
        logprobs = _flag(body, "logprobs")
    else:
        system, prompt = None, _prompt(body.get("prompt"))
        tokens = body.get("max_tokens")
        logprobs = _text_logprobs(body.get("logprobs"))
    if len(prompt) + len(system or "") > max_prompt_chars:
        param = "messages" if kind == CHAT else "prompt"
        raise invalid(param, f"longer than {max_prompt_chars} characters")
    return Ask(
        kind=kind, model=model, prompt=prompt, system=system,
        max_tokens=_whole("max_tokens", tokens, None, 1, MAX_TOKENS),
        temperature=_number(body, "temperature", None, 0.0, 2.0),
        top_p=_number(body, "top_p", 1.0, 0.0, 1.0, low_open=True) or 1.0,
        n=_whole("n", body.get("n"), 1, 1, MAX_N) or 1,
        stop=_stops(body.get("stop")), seed=_whole("seed", body.get("seed"), None, 0, MAX_SEED),
        logprobs=logprobs, stream=_flag(body, "stream"), include_usage=_include_usage(body),
        key=_string(body, "user", MAX_KEY_CHARS), turns=turns, tools=tools,
        has_tool_turns=any(t["role"] == "tool" or "tool_calls" in t for t in turns),
    )  # fmt: skip


def _refuse_unsupported(kind: str, body: Mapping[str, Any]) -> None:
    for name in ("frequency_penalty", "presence_penalty"):
        if body.get(name) not in (None, 0, 0.0):
            raise invalid(name, "penalties are not supported; send 0 or leave it out")
    if body.get("echo"):
        raise invalid("echo", "echoing the prompt is not supported")
    if body.get("best_of") not in (None, 1):
        raise invalid("best_of", "only 1 is supported")
    if body.get("suffix"):
        raise invalid("suffix", "inserting before a suffix is not supported")
    if body.get("top_logprobs") not in (None, 0):
        raise invalid("top_logprobs", "top alternatives are not reported; send 0")
    response_format = body.get("response_format")
    if response_format is not None and response_format != {"type": "text"}:
        raise invalid("response_format", 'only {"type": "text"} is supported')


def _string(body: Mapping[str, Any], name: str, limit: int, required: bool = False) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value or len(value) > limit:
        raise invalid(name, f"expected a non-empty string of at most {limit} characters")
    return value


def _text(value: Any, param: str) -> str:
    """A message's content: a string, or text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        for p in value
    ):
        return "".join(p["text"] for p in value)
    raise invalid(param, "expected a string or a list of text parts")


def _messages(value: Any) -> tuple[str | None, tuple[dict[str, Any], ...]]:
    """(the system message, the turns after it); the last turn is a user's or a tool's."""
    if not isinstance(value, list) or not value or len(value) > MAX_MESSAGES:
        raise invalid("messages", f"expected a list of 1 to {MAX_MESSAGES} messages")
    for i, message in enumerate(value):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise invalid(f"messages[{i}]", "expected an object with a role and content")
    system = None
    if value[0]["role"] in ("system", "developer"):
        system = _text(value[0].get("content"), "messages[0].content")
    start = 0 if system is None else 1
    turns = tuple(_turn(i, m) for i, m in enumerate(value[start:], start))
    last = len(value) - 1
    if not turns or turns[-1]["role"] not in ("user", "tool"):
        raise invalid(f"messages[{last}].role", "the last message must be the user's (or a "
                      "tool's result)")  # fmt: skip
    if not any(t["role"] == "user" for t in turns):
        raise invalid("messages", "expected a user message")
    return system, turns


def _turn(i: int, message: dict[str, Any]) -> dict[str, Any]:
    """One turn as chat templates read it; a 400 naming ``messages[i]``'s field otherwise."""
    role, at = message["role"], f"messages[{i}]"
    if role in ("system", "developer"):
        raise invalid(f"{at}.role", "a system message may only come first")
    if role not in ROLES:
        raise invalid(f"{at}.role", f"expected system, developer, {', '.join(ROLES)}")
    if role == "assistant" and message.get("tool_calls"):
        content = message.get("content")
        turn = {"role": role, "content": "" if content is None else _text(content, f"{at}.content"),
                "tool_calls": _tool_calls(message["tool_calls"], f"{at}.tool_calls")}  # fmt: skip
        return turn
    content = _text(message.get("content"), f"{at}.content")
    if role == "user" and not content.strip():
        raise invalid(f"{at}.content", "expected a non-empty prompt")
    if role != "tool":
        return {"role": role, "content": content}
    call = message.get("tool_call_id")
    if not isinstance(call, str) or not 0 < len(call) <= MAX_NAME_CHARS:
        raise invalid(f"{at}.tool_call_id", "expected the id of the tool call it answers")
    return {"role": role, "content": content, "tool_call_id": call}


def _tool_calls(value: Any, at: str) -> list[dict[str, Any]]:
    """An assistant's tool calls, their JSON arguments as objects (what templates print)."""
    if not isinstance(value, list) or not 0 < len(value) <= MAX_TOOLS:
        raise invalid(at, f"expected a list of 1 to {MAX_TOOLS} tool calls")
    calls = []
    for j, call in enumerate(value):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if (
            not isinstance(function, dict)
            or not isinstance(name, str)
            or not 0 < len(name) <= MAX_NAME_CHARS
        ):
            raise invalid(f"{at}[{j}].function.name", "expected the function's name")
        try:
            arguments = json.loads(function.get("arguments") or "{}")
        except (TypeError, ValueError, RecursionError):
            arguments = None
        if not isinstance(arguments, dict):
            raise invalid(f"{at}[{j}].function.arguments", "expected a JSON object as a string")
        calls.append({"id": str(call.get("id") or "")[:MAX_NAME_CHARS], "type": "function",
                      "function": {"name": name, "arguments": arguments}})  # fmt: skip
    return calls


def _tools(value: Any, choice: Any) -> tuple[dict[str, Any], ...]:
    if choice not in (None, "auto"):
        raise invalid("tool_choice", 'only "auto" is supported: the model decides')
    if value is None:
        return ()
    if not isinstance(value, list) or not 0 < len(value) <= MAX_TOOLS:
        raise invalid("tools", f"expected a list of 1 to {MAX_TOOLS} function definitions")
    tools = []
    for i, tool in enumerate(value):
        function = tool.get("function") if isinstance(tool, dict) else None
        if (
            not isinstance(tool, dict)
            or tool.get("type") != "function"
            or not isinstance(function, dict)
        ):
            raise invalid(f"tools[{i}]", 'expected {"type": "function", "function": {...}}')
        name = function.get("name")
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME_CHARS:
            raise invalid(f"tools[{i}].function.name", "expected the function's name")
        made: dict[str, Any] = {"name": name}
        if function.get("description") is not None:
            made["description"] = _text(function["description"], f"tools[{i}].function."
                                        "description")  # fmt: skip
        if function.get("parameters") is not None:
            if not isinstance(function["parameters"], dict):
                raise invalid(f"tools[{i}].function.parameters", "expected a JSON schema object")
            made["parameters"] = function["parameters"]
        tools.append({"type": "function", "function": made})
    return tuple(tools)


def transcript(turns: tuple[dict[str, Any], ...]) -> str:
    """A conversation as the request log shows it: each turn after its role."""
    lines = []
    for turn in turns:
        calls = "".join(
            f"\n[calls {c['function']['name']}({json.dumps(c['function']['arguments'])})]"
            for c in turn.get("tool_calls") or ()
        )  # fmt: skip
        lines.append(f"{turn['role']}: {turn['content']}{calls}")
    return "\n\n".join(lines)


def _prompt(value: Any) -> str:
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    if not isinstance(value, str) or not value.strip():
        raise invalid("prompt", "expected one non-empty string (token arrays and batches of "
                      "prompts are not supported)")  # fmt: skip
    return value


def _number(
    body: Mapping[str, Any],
    name: str,
    default: float | None,
    low: float,
    high: float,
    low_open: bool = False,
) -> float | None:
    value = body.get(name)
    if value is None:
        return default
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not (low < value if low_open else low <= value)
        or value > high
    ):
        above = f"above {low:g}" if low_open else f"from {low:g}"
        raise invalid(name, f"expected a number {above} to {high:g}")
    return float(value)


def _whole(name: str, value: Any, default: int | None, low: int, high: int) -> int | None:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise invalid(name, f"expected an integer from {low} to {high}")
    return value


def _flag(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name)
    if value is not None and not isinstance(value, bool):
        raise invalid(name, "expected true or false")
    return bool(value)


def _text_logprobs(value: Any) -> bool:
    """A completion's ``logprobs``: null, or 0 (each sampled token's log-probability)."""
    if value is None:
        return False
    if isinstance(value, bool) or not isinstance(value, int) or value != 0:
        raise invalid("logprobs", "top alternatives are not reported; send 0 for each "
                      "sampled token's log-probability")  # fmt: skip
    return True


def _stops(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    stops = [value] if isinstance(value, str) else value
    if (
        not isinstance(stops, list)
        or len(stops) > MAX_STOPS
        or not all(isinstance(s, str) and 0 < len(s) <= MAX_STOP_CHARS for s in stops)
    ):
        raise invalid("stop", f"expected a string or up to {MAX_STOPS} non-empty strings of "
                      f"at most {MAX_STOP_CHARS} characters")  # fmt: skip
    return tuple(stops)


def _include_usage(body: Mapping[str, Any]) -> bool:
    options = body.get("stream_options")
    if options is None:
        return False
    if not isinstance(options, dict) or set(options) - {"include_usage"}:
        raise invalid("stream_options", 'expected {"include_usage": true or false}')
    if not body.get("stream"):
        raise invalid("stream_options", "only allowed when stream is true")
    return _flag(options, "include_usage")


# --- answers ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answered:
    """What the replica answered, and what the caller is told about it."""

    id: str
    created: int
    model: str
    choices: list[dict[str, Any]]
    """The replica's: ``text``, ``output_tokens``, ``finish_reason``, maybe ``logprobs``."""
    prompt_tokens: int
    fingerprint: str
    extra: dict[str, Any]
    """The platform's own fields (the request's id in the log, side, version, warnings)."""

    def usage(self) -> dict[str, int]:
        completion = sum(int(c.get("output_tokens") or 0) for c in self.choices)
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": completion,
                "total_tokens": self.prompt_tokens + completion}  # fmt: skip


def _scored(choice: Mapping[str, Any], skip: int) -> tuple[list[str], list[float]] | None:
    """A choice's tokens and their log-probabilities after the first ``skip`` (streamed)."""
    found = choice.get("logprobs")
    if not found:
        return None
    return list(found["tokens"])[skip:], list(found["token_logprobs"])[skip:]


def _chat_logprobs(choice: Mapping[str, Any], skip: int = 0) -> dict[str, Any] | None:
    found = _scored(choice, skip)
    if found is None:
        return None
    return {"content": [
        {"token": t, "logprob": lp, "bytes": list(t.encode()), "top_logprobs": []}
        for t, lp in zip(*found, strict=False)
    ], "refusal": None}  # fmt: skip


def _text_logprobs_body(choice: Mapping[str, Any], skip: int = 0) -> dict[str, Any] | None:
    """A completion's ``logprobs``; ``text_offset`` counts from the completion's start."""
    found = choice.get("logprobs")
    scored = _scored(choice, skip)
    if found is None or scored is None:
        return None
    offsets, at = [], 0
    for i, token in enumerate(found["tokens"]):
        if i >= skip:
            offsets.append(at)
        at += len(token)
    return {"tokens": scored[0], "token_logprobs": scored[1], "top_logprobs": None,
            "text_offset": offsets}  # fmt: skip


def chat_body(answered: Answered, tools: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The whole answer; with ``tools`` (the offered function names) a choice made of tool
    calls comes back as the message's ``tool_calls`` (``tool_output.split_calls``)."""
    choices = []
    for i, c in enumerate(answered.choices):
        content, calls = split_calls(c["text"], tools, call_prefix(answered, i))
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        choices.append({"index": i, "message": message, "logprobs": _chat_logprobs(c),
                        "finish_reason": "tool_calls" if calls else c["finish_reason"]})  # fmt: skip
    return _whole_body(answered, "chat.completion", choices)


def call_prefix(answered: Answered, index: int) -> str:
    """What a choice's tool-call ids start with: unique per answer and choice."""
    return f"{answered.id.rsplit('-', 1)[-1][:16]}_{index}"


def text_body(answered: Answered) -> dict[str, Any]:
    choices = [
        {"index": i, "text": c["text"], "finish_reason": c["finish_reason"],
         "logprobs": _text_logprobs_body(c)}
        for i, c in enumerate(answered.choices)
    ]  # fmt: skip
    return _whole_body(answered, "text_completion", choices)


def _whole_body(answered: Answered, kind: str, choices: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": answered.id, "object": kind, "created": answered.created, "model": answered.model,
        "system_fingerprint": answered.fingerprint, "choices": choices,
        "usage": answered.usage(), "crucible": answered.extra,
    }  # fmt: skip


def chunks(
    kind: str, answered: Answered, include_usage: bool, tools: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """The answer as stream chunks: each choice's text (and its tool calls, as
    ``chat_body``), then its finish, then (when asked) the usage in a chunk of its own with
    no choices, as OpenAI's streams end."""
    out: list[dict[str, Any]] = []
    for i, c in enumerate(answered.choices):
        content, calls = split_calls(c["text"], tools, call_prefix(answered, i))
        out.append(piece(kind, answered, i, content or "", first=True))
        if calls:
            out.append(tool_calls_chunk(answered, i, calls))
        out.append(finish(kind, answered, i, c, reason="tool_calls" if calls else None))
    if out:
        out[0]["crucible"] = answered.extra
    if include_usage:
        out.append(usage_chunk(kind, answered))
    return out


def _chunk_head(kind: str, answered: Answered) -> dict[str, Any]:
    return {
        "id": answered.id, "object": "chat.completion.chunk" if kind == CHAT else
        "text_completion", "created": answered.created, "model": answered.model,
        "system_fingerprint": answered.fingerprint,
    }  # fmt: skip


def piece(
    kind: str,
    answered: Answered,
    index: int,
    text: str,
    first: bool,
    scored: Mapping[str, Any] | None = None,
    before: int = 0,
) -> dict[str, Any]:
    """A chunk with the next ``text`` of choice ``index`` (a chat's first names the role),
    and the log-probabilities of the tokens it completes (``scored``: ``tokens`` and
    ``token_logprobs``, after ``before`` characters of the completion) when asked."""
    held = {"logprobs": scored} if scored is not None else {}
    if kind == CHAT:
        delta = {"role": "assistant", "content": text} if first else {"content": text}
        made = {"index": index, "delta": delta, "logprobs": _chat_logprobs(held),
                "finish_reason": None}  # fmt: skip
    else:
        body = _text_logprobs_body(held)
        if body is not None:
            body["text_offset"] = [before + at for at in body["text_offset"]]
        made = {"index": index, "text": text, "logprobs": body, "finish_reason": None}
    return {**_chunk_head(kind, answered), "choices": [made]}


def chunk_prefix(kind: str, answered: Answered) -> bytes:
    """The bytes every streamed chunk of ``answered`` starts with (``data: ``, its head and
    the opening of its ``choices``), encoded once per stream for ``text_event``."""
    head = json.dumps(_chunk_head(kind, answered), separators=(",", ":"))
    return b"data: " + head[:-1].encode() + b',"choices":['


def text_event(kind: str, prefix: bytes, index: int, text: str) -> bytes:
    """``event(piece(kind, answered, index, text, first=False))`` built on ``chunk_prefix``'s
    bytes: a piece of text with no log-probabilities, only its text encoded anew."""
    body = json.dumps(text)
    if kind == CHAT:
        made = f'{{"index":{index},"delta":{{"content":{body}}},"logprobs":null,'
    else:
        made = f'{{"index":{index},"text":{body},"logprobs":null,'
    return prefix + made.encode() + b'"finish_reason":null}]}\n\n'


def tool_calls_chunk(answered: Answered, index: int, calls: list[dict[str, Any]]) -> dict[str, Any]:
    """A chat chunk carrying choice ``index``'s tool calls whole, each with its ``index``."""
    delta = {"tool_calls": [{"index": k, **call} for k, call in enumerate(calls)]}
    made = {"index": index, "delta": delta, "logprobs": None, "finish_reason": None}
    return {**_chunk_head(CHAT, answered), "choices": [made]}


def finish(
    kind: str,
    answered: Answered,
    index: int,
    choice: Mapping[str, Any],
    streamed: int = 0,
    reason: str | None = None,
) -> dict[str, Any]:
    """The chunk that ends choice ``index``: its finish reason (``reason`` when given) and,
    when asked, the log-probabilities of its tokens after the ``streamed`` sent with its text."""
    if kind == CHAT:
        made = {"index": index, "delta": {}, "logprobs": _chat_logprobs(choice, streamed),
                "finish_reason": reason or choice["finish_reason"]}  # fmt: skip
    else:
        made = {"index": index, "text": "", "logprobs": _text_logprobs_body(choice, streamed),
                "finish_reason": choice["finish_reason"]}  # fmt: skip
    return {**_chunk_head(kind, answered), "choices": [made]}


def usage_chunk(kind: str, answered: Answered) -> dict[str, Any]:
    return {**_chunk_head(kind, answered), "choices": [], "usage": answered.usage()}


def event(data: Mapping[str, Any] | str) -> bytes:
    """One server-sent event."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    return f"data: {text}\n\n".encode()


DONE = event("[DONE]")
