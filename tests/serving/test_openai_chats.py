"""Whole conversations on ``/v1/chat/completions``, driven by the official ``openai`` client:
a chat model's version renders every turn (system, user, assistant, tool) with its recorded
chat template on the replica; a raw-format version refuses more than one turn."""

from __future__ import annotations

import shutil
from types import SimpleNamespace

import openai
import pytest

from experiments.model_format import ModelFormat
from experiments.models import ModelVersion
from serving.openai_api import app as lean
from serving.openai_api import protocol
from serving.openai_api.protocol import CHAT, ApiError
from tests.serving.serving_setup import Served, replica_thread
from tests.serving.test_deployments import deploy, logged, production_replica
from tests.serving.test_openai import (
    client,
    server_url,  # noqa: F401 - the live server fixture
)
from training import tiny_models
from training.config import ModelConfig
from training.models import load_model
from training.prompting import CHAT as CHAT_KIND
from training.prompting import Conversation, PromptFormat, encode

pytestmark = [pytest.mark.django_db(transaction=True)]
SYSTEM = "Sort the digits."
TOOLS_TEMPLATE = (
    "{%- if tools %}<|im_start|>system\n{%- if messages[0].role == 'system' %}"
    "{{ messages[0].content }}\n\n{%- endif %}# Tools\n{%- for tool in tools %}\n"
    "{{ tool | tojson }}{%- endfor %}<|im_end|>\n"
    "{%- elif messages[0].role == 'system' %}<|im_start|>system\n{{ messages[0].content }}"
    "<|im_end|>\n{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'system' and loop.first %}"
    "{%- elif message.role == 'tool' %}<|im_start|>user\n<tool_response>\n{{ message.content }}"
    "\n</tool_response><|im_end|>\n"
    "{%- else %}<|im_start|>{{ message.role }}\n{{ message.content }}"
    "{%- for call in message.tool_calls or [] %}<tool_call>{{ call.function | tojson }}"
    "</tool_call>{%- endfor %}<|im_end|>\n{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}"
)
"""ChatML that renders tools and tool turns, as Qwen's template does."""
ADD = {"type": "function", "function": {"name": "add", "description": "Add two numbers.",
       "parameters": {"type": "object", "properties": {"a": {"type": "number"}}}}}  # fmt: skip


@pytest.fixture
def served(owner, team, tmp_path) -> Served:  # type: ignore[no-untyped-def]
    return Served(owner, tmp_path)


def _as_chat_model(version: ModelVersion) -> ModelConfig:
    """The version's checkpoint holds a tiny Qwen2 chat model whose template renders tools,
    recorded as trained in chat format with SYSTEM as its system prompt."""
    assert version.checkpoint is not None
    folder = f"{version.checkpoint.path}/model"
    shutil.rmtree(folder)
    tiny_models.build("qwen2", folder)
    model, tokenizer = load_model(ModelConfig(path=folder))
    tokenizer.chat_template = TOOLS_TEMPLATE
    tokenizer.save_pretrained(folder)
    fmt = ModelFormat(TOOLS_TEMPLATE, False, (), SYSTEM, ("<think>", "</think>"))
    ModelVersion.objects.filter(pk=version.pk).update(format=fmt.to_dict())
    return ModelConfig(path=folder)


@pytest.mark.slow
def test_the_openai_client_holds_whole_conversations_in_the_recorded_chat_format(  # type: ignore[no-untyped-def]
    api,
    owner,
    team,
    served,
    server_url,  # noqa: F811
) -> None:
    version = served.production(served.version(sft_steps=1, step=40))
    deployment = deploy(api, served)
    chat = client(server_url, owner, team)
    turns = [
        {"role": "user", "content": "sort 31="}, {"role": "assistant", "content": "1 3"},
        {"role": "user", "content": "sort 52="},
    ]  # fmt: skip

    # A raw-format version takes one user turn: a conversation is a clear 400.
    with pytest.raises(openai.BadRequestError) as raw:
        chat.chat.completions.create(model="sorter", messages=turns, max_tokens=4)  # type: ignore[arg-type]
    assert raw.value.code == "unsupported_conversation" and raw.value.param == "messages"
    assert "raw single prompts" in str(raw.value.message)

    config = _as_chat_model(version)
    lean.application.deployments.clear()  # the format read with the deployment is kept
    model, tokenizer = load_model(config)
    trained = PromptFormat(CHAT_KIND, SYSTEM, ("<think>", "</think>"))
    with replica_thread(production_replica(deployment)):
        answer = chat.chat.completions.create(
            model="sorter", messages=turns, max_tokens=6, temperature=0,  # type: ignore[arg-type]
        )  # fmt: skip
        extra = answer.model_extra["crucible"]  # type: ignore[index]
        assert extra["format_warnings"] == []  # the trained system prompt, the trained template
        # Every turn was encoded, after the trained system prompt: the replica read as many
        # prompt tokens as the template makes of the whole conversation.
        whole = Conversation("", turns)
        assert answer.usage is not None
        assert answer.usage.prompt_tokens == len(encode(tokenizer, whole, trained))
        assert answer.usage.prompt_tokens > len(encode(tokenizer, "sort 52=", trained))
        row = logged(extra["request_id"])
        assert row.prompt == "user: sort 31=\n\nassistant: 1 3\n\nuser: sort 52="

        # Tools, an assistant's call and the tool's result, through the template.
        called = [
            {"role": "system", "content": SYSTEM}, {"role": "user", "content": "add 2 and 3"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1",
             "type": "function", "function": {"name": "add", "arguments": '{"a": 2}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "5"},
        ]  # fmt: skip
        streamed = chat.chat.completions.create(
            model="sorter", messages=called, tools=[ADD], max_tokens=4, temperature=0,  # type: ignore[arg-type, list-item]
            stream=True, stream_options={"include_usage": True},
        )  # fmt: skip
        pieces = list(streamed)
        assert pieces[-1].usage is not None
        rendered = Conversation("", [
            called[1], {"role": "assistant", "content": "", "tool_calls": [{"id": "call_1",
             "type": "function", "function": {"name": "add", "arguments": {"a": 2}}}]},
            called[3],
        ], [ADD])  # fmt: skip
        assert pieces[-1].usage.prompt_tokens == len(encode(tokenizer, rendered, trained))
        assert "# Tools" in tokenizer.apply_chat_template(
            [dict(t) for t in rendered.turns], tools=[ADD], tokenize=False
        )
        row = logged(pieces[0].model_extra["crucible"]["request_id"])  # type: ignore[index]
        assert '[calls add({"a": 2})]' in row.prompt and row.prompt.endswith("tool: 5")


def test_it_parses_conversations_and_refuses_what_the_format_cannot_take() -> None:
    def parse(**body):  # type: ignore[no-untyped-def]
        return protocol.parse(CHAT, protocol.json.dumps({"model": "m", **body}).encode(), 10_000)

    one = parse(messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "q"}])
    assert (one.system, one.prompt, one.turns) == ("s", "q", ())
    many = parse(messages=[{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
                           {"role": "user", "content": "c"}])  # fmt: skip
    assert len(many.turns) == 3 and many.prompt == "user: a\n\nassistant: b\n\nuser: c"
    for messages, param in (
        ([{"role": "user", "content": "a"}, {"role": "system", "content": "s"}], "messages[1].role"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "messages[1].role"),
        ([{"role": "tool", "content": "5"}], "messages[0].tool_call_id"),
        ([{"role": "robot", "content": "a"}], "messages[0].role"),
        ([{"role": "user", "content": "a"}] * 65, "messages"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": [{"function": {
            "name": "f", "arguments": "[1"}}]}, {"role": "user", "content": "b"}],
         "messages[1].tool_calls[0].function.arguments"),
    ):  # fmt: skip
        with pytest.raises(ApiError) as refused:
            parse(messages=messages)
        assert refused.value.param == param, (refused.value.param, refused.value.message)
    for tools, param in (
        ([], "tools"),
        ([{"type": "code"}], "tools[0]"),
        ([{"type": "function", "function": {}}], "tools[0].function.name"),
    ):
        with pytest.raises(ApiError) as refused:
            parse(messages=[{"role": "user", "content": "a"}], tools=tools)
        assert refused.value.param == param
    with pytest.raises(ApiError, match="auto"):
        parse(messages=[{"role": "user", "content": "a"}], tool_choice="required")

    # A template with no tool turns refuses tools; a raw format, any second turn.
    def deployment(template):  # type: ignore[no-untyped-def]
        fmt = {"chat_template": template, "add_special_tokens": False}
        return SimpleNamespace(version=SimpleNamespace(
            format=fmt, number=3, model=SimpleNamespace(name="sorter")))  # fmt: skip

    tools = parse(messages=[{"role": "user", "content": "a"}], tools=[ADD])
    with pytest.raises(ApiError) as refused:
        lean.encoded(deployment(tiny_models.CHAT_TEMPLATE), tools)  # type: ignore[arg-type]
    assert refused.value.param == "tools" and "no tool turns" in refused.value.message
    assert lean.encoded(deployment(TOOLS_TEMPLATE), tools)[2] == []  # type: ignore[arg-type]
    with pytest.raises(ApiError, match="raw single prompts"):
        lean.encoded(deployment(None), many)  # type: ignore[arg-type]
    assert lean.encoded(deployment(tiny_models.CHAT_TEMPLATE), many)[0] == many.prompt  # type: ignore[arg-type]
