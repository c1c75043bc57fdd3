"""OpenAI request checks and answer shapes, without a server or a database."""

from __future__ import annotations

import json

import pytest

from serving.openai_api import protocol
from serving.openai_api.protocol import CHAT, TEXT, Answered, ApiError


def parse(kind: str, **body):  # type: ignore[no-untyped-def]
    return protocol.parse(kind, json.dumps({"model": "m", **body}).encode(), 100)


def test_it_reads_a_chat_with_its_system_message_and_openai_defaults() -> None:
    ask = parse(CHAT, messages=[{"role": "system", "content": "S"}, {"role": "user", "content":
                [{"type": "text", "text": "hi"}]}], stop="\n", user="k", max_completion_tokens=9)  # fmt: skip
    assert (ask.system, ask.prompt, ask.stop, ask.key, ask.max_tokens) == (
        "S",
        "hi",
        ("\n",),
        "k",
        9,
    )
    assert (ask.temperature, ask.top_p, ask.n, ask.seed, ask.stream) == (None, 1.0, 1, None, False)
    assert parse(TEXT, prompt=["go"], logprobs=0).logprobs is True


@pytest.mark.parametrize(
    ("kind", "body", "param"),
    [
        (CHAT, {"messages": []}, "messages"),
        (CHAT, {"messages": [{"role": "user", "content": "x"}] * 65}, "messages"),
        (CHAT, {"messages": [{"role": "user", "content": 3}]}, "messages[0].content"),
        (CHAT, {"messages": [{"role": "user", "content": "x" * 101}]}, "messages"),
        (CHAT, {"messages": [{"role": "user", "content": "x"}], "stream_options": {}}, "stream_options"),
        (CHAT, {"messages": [{"role": "user", "content": "x"}], "presence_penalty": 1}, "presence_penalty"),
        (TEXT, {"prompt": [1, 2]}, "prompt"),
        (TEXT, {"prompt": "x", "logprobs": 3}, "logprobs"),
        (TEXT, {"prompt": "x", "echo": True}, "echo"),
        (TEXT, {"prompt": "x", "stop": ["a"] * 5}, "stop"),
        (TEXT, {"prompt": "x", "top_p": 0}, "top_p"),
        (TEXT, {"prompt": "x", "seed": True}, "seed"),
        (TEXT, {"prompt": "x", "messages": []}, "messages"),
        (TEXT, {"prompt": "x", "model": ""}, "model"),
    ],
)  # fmt: skip
def test_it_refuses_naming_the_param(kind: str, body: dict, param: str) -> None:
    with pytest.raises(ApiError) as refused:
        parse(kind, **body)
    error = refused.value.body()["error"]
    assert refused.value.status == 400 and error["param"] == param
    assert error["type"] == "invalid_request_error" and error["message"]


def test_a_body_that_is_not_a_json_object_is_refused() -> None:
    for raw in (b"{", b"[]", b"\xff"):
        with pytest.raises(ApiError, match="JSON"):
            protocol.parse(CHAT, raw, 100)


def test_a_stream_carries_each_choice_then_its_finish_then_the_usage() -> None:
    answered = Answered(
        id="chatcmpl-1", created=1, model="m", prompt_tokens=3, fingerprint="m-v1", extra={},
        choices=[{"text": "ab", "output_tokens": 2, "finish_reason": "stop",
                  "logprobs": {"tokens": ["a", "b"], "token_logprobs": [-0.1, -0.2]}},
                 {"text": "c", "output_tokens": 1, "finish_reason": "length"}],
    )  # fmt: skip
    chunks = protocol.chunks(CHAT, answered, include_usage=True)
    assert [c["choices"][0]["finish_reason"] for c in chunks[:4]] == [None, "stop", None, "length"]
    # a choice's text streams as it is generated; its tokens' log-probs come with its finish
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": "ab"}
    assert chunks[1]["choices"][0]["logprobs"]["content"][1]["token"] == "b"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] == 6
    whole = protocol.text_body(answered)
    assert whole["choices"][0]["logprobs"]["text_offset"] == [0, 1]
    assert protocol.event(chunks[0]).startswith(b"data: {") and protocol.DONE == b"data: [DONE]\n\n"


@pytest.mark.parametrize("kind", [CHAT, TEXT])
def test_a_text_piece_built_on_the_encoded_prefix_is_the_chunk_it_stands_for(kind: str) -> None:
    answered = Answered(
        id="chatcmpl-2", created=7, model='team/"m"', prompt_tokens=1, fingerprint="m-v2",
        extra={"request_id": "r"}, choices=[],
    )  # fmt: skip
    prefix = protocol.chunk_prefix(kind, answered)
    for index, text in ((0, "12"), (3, 'a "quoted"\\ line\n'), (1, "é ü 中 \U0001f600"), (0, "")):
        made = protocol.text_event(kind, prefix, index, text)
        assert made == protocol.event(protocol.piece(kind, answered, index, text, first=False))
        assert json.loads(made.removeprefix(b"data: "))["choices"][0]["index"] == index
