"""Tool calls a model writes as text come back as OpenAI's ``tool_calls``, whole and streamed,
read by the official ``openai`` client's own types and stream accumulator."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from serving.openai_api import protocol
from serving.openai_api.app import OpenAIApp
from serving.openai_api.protocol import CHAT, Answered
from serving.openai_api.tool_output import HeldText, split_calls

TOOLS = [{"type": "function", "function": {"name": "python", "description": "Run code",
          "parameters": {"type": "object", "properties": {"code": {"type": "string"}}}}}]  # fmt: skip
NAMES = frozenset({"python"})
CALL = '<tool_call>\n{"name": "python", "arguments": {"code": "print(17 * 23)"}}\n</tool_call>'
ANSWER = f"Let me compute it.{CALL}"


def answered(text: str) -> Answered:
    return Answered(
        id="chatcmpl-0123456789abcdef", created=1, model="sorter",
        choices=[{"text": text, "finish_reason": "stop", "output_tokens": 12}],
        prompt_tokens=5, fingerprint="sorter-v1", extra={},
    )  # fmt: skip


def test_an_answer_made_of_calls_of_offered_tools_is_split_into_content_and_calls() -> None:
    content, calls = split_calls(f"{ANSWER}\n{CALL.replace('17', '18')}", NAMES, "x_0")
    assert content == "Let me compute it."
    assert [c["id"] for c in calls] == ["call_x_0_0", "call_x_0_1"]
    assert json.loads(calls[1]["function"]["arguments"]) == {"code": "print(18 * 23)"}
    as_string = json.dumps({"name": "python", "arguments": json.dumps({"code": "print(17 * 23)"})})
    only, [call] = split_calls(f"<tool_call>{as_string}</tool_call>", NAMES, "y")
    assert only is None and json.loads(call["function"]["arguments"]) == {"code": "print(17 * 23)"}


@pytest.mark.parametrize(
    "text",
    [
        "no call at all",
        ANSWER.replace('"python"', '"shell"'),  # a function nobody offered
        ANSWER.replace("print(17 * 23)\"}", "print("),  # not JSON
        ANSWER + "<tool_call>[1, 2]</tool_call>",  # one good call and one that is not
        '<tool_call>{"name": "python", "arguments": [1]}</tool_call>',
        "<tool_call>" + "x" * 30_000,
    ],
)
def test_anything_else_is_returned_as_the_model_wrote_it(text: str) -> None:
    assert split_calls(text, NAMES, "z") == (text, [])
    assert split_calls(ANSWER, frozenset(), "z") == (ANSWER, [])  # no tools offered


@pytest.mark.parametrize("size", [1, 2, 3, 5, 11, 64])
def test_held_text_sends_what_cannot_begin_a_call_and_holds_the_rest(size: int) -> None:
    for text in (ANSWER, "a < b and x<tool_c is not a tag", "ends with <tool_"):
        held, sent = HeldText(), ""
        for at in range(0, len(text), size):
            sent += held.feed(text[at : at + size])
        assert sent + held.rest() == text
        assert "<tool_call>" not in sent
        if "<tool_call>" in text:
            assert sent == text[: text.index("<tool_call>")]
        else:
            assert text.startswith(sent) and len(held.rest()) < len("<tool_call>")


def test_the_whole_answer_reads_as_tool_calls_in_the_openai_client() -> None:
    body = protocol.chat_body(answered(ANSWER), NAMES)
    completion = ChatCompletion.model_validate(body)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Let me compute it."
    [call] = choice.message.tool_calls or []
    assert call.function.name == "python" and call.id.startswith("call_")
    assert json.loads(call.function.arguments) == {"code": "print(17 * 23)"}
    plain = ChatCompletion.model_validate(protocol.chat_body(answered("42"), NAMES))
    assert plain.choices[0].message.tool_calls is None
    assert plain.choices[0].finish_reason == "stop"


def accumulated(chunks: list[dict[str, Any]]) -> ChatCompletion:
    state = ChatCompletionStreamState(input_tools=TOOLS)  # type: ignore[arg-type]
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    return state.get_final_completion()


def test_a_replica_answer_sent_as_a_stream_reads_as_tool_calls() -> None:
    chunks = protocol.chunks(CHAT, answered(ANSWER), include_usage=False, tools=NAMES)
    final = accumulated(chunks).choices[0]
    assert final.finish_reason == "tool_calls" and final.message.content == "Let me compute it."
    assert [c.function.name for c in final.message.tool_calls or []] == ["python"]


def relayed(text: str, piece: int) -> list[dict[str, Any]]:
    """What the lean path sends for a replica streaming ``text`` in pieces of ``piece``."""
    ask = protocol.parse(CHAT, json.dumps({
        "model": "sorter", "stream": True, "tools": TOOLS,
        "messages": [{"role": "user", "content": "17 * 23?"}],
    }).encode(), 1000)  # fmt: skip

    async def replica() -> AsyncGenerator[dict[str, Any], None]:
        for at in range(0, len(text), piece):
            yield {"index": 0, "text": text[at : at + piece]}
        yield {"done": True, "prompt_tokens": 5,
               "choices": [{"text": text, "finish_reason": "stop", "output_tokens": 12}]}  # fmt: skip

    async def collect() -> list[bytes]:
        head = answered("")
        return [e async for e in OpenAIApp().relay(None, ask, head, None, replica())]  # type: ignore[arg-type]

    events = asyncio.run(collect())
    assert events[-1] == protocol.DONE
    return [json.loads(e.decode().removeprefix("data: ")) for e in events[:-1]]


@pytest.mark.parametrize("piece", [1, 4, 9, 200])
def test_a_streamed_answer_never_shows_the_tags_of_the_calls_it_reports(piece: int) -> None:
    chunks = relayed(ANSWER, piece)
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert streamed == "Let me compute it." and "<tool" not in streamed
    final = accumulated(chunks).choices[0]
    assert final.finish_reason == "tool_calls"
    [call] = final.message.tool_calls or []
    assert json.loads(call.function.arguments) == {"code": "print(17 * 23)"}


def test_a_streamed_answer_without_calls_arrives_whole_with_its_held_end() -> None:
    text = "It is 391 <tool_ or so"
    chunks = relayed(text, 3)
    final = accumulated(chunks).choices[0]
    assert final.message.content == text and final.finish_reason == "stop"
    assert final.message.tool_calls is None
