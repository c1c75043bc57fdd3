"""training.prompting: the prompt encoding every generator applies is the one recorded with a
model version, so a registered format cannot say one thing while the engine does another;
the chat format's template, stop tokens and reasoning split."""

from __future__ import annotations

import pytest
import torch
from transformers import AutoTokenizer, GenerationConfig

from training import digits
from training.config import SamplingConfig
from training.decode import DecodeGenerator
from training.field_spec import Problems, load
from training.generation import HFGenerator
from training.interfaces import RewardResult
from training.models import train_tokenizer
from training.prompting import (
    RAW_FORMAT,
    PromptFormat,
    answers_only,
    check_format,
    encode,
    end_of_turn_ids,
    prompt_encoding,
    render,
    split_reasoning,
    stop_token_ids,
)

CHAT = PromptFormat(kind="chat", system_prompt="Sort the digits.")


class Tokenized(Exception):
    """Raised by the recording tokenizer once it has seen how it was called."""


class RecordingTokenizer:
    def __init__(self) -> None:
        self.kwargs: dict = {}

    def __call__(self, prompts: list[str], **kwargs: object) -> dict:
        self.kwargs = kwargs
        raise Tokenized


@pytest.fixture(scope="module")
def chat_tokenizer(tiny_build):
    return AutoTokenizer.from_pretrained(tiny_build("qwen2"))


@pytest.mark.parametrize("generator", [HFGenerator, DecodeGenerator])
def test_every_generator_tokenizes_prompts_as_recorded(generator) -> None:
    tokenizer = RecordingTokenizer()
    model = torch.nn.Linear(1, 1)
    with pytest.raises(Tokenized):
        generator(model, tokenizer).generate(["sort 312="], SamplingConfig())  # type: ignore[arg-type]
    assert tokenizer.kwargs["add_special_tokens"] == prompt_encoding()["add_special_tokens"]


def test_the_raw_encoding_is_the_prompt_as_it_is() -> None:
    assert prompt_encoding() == {"chat_template": None, "add_special_tokens": False}
    assert prompt_encoding(RAW_FORMAT) == prompt_encoding()
    tokenizer = train_tokenizer(digits.corpus(100))
    assert render(tokenizer, "sort 312=", RAW_FORMAT) == "sort 312="
    expected = tokenizer("sort 312=", add_special_tokens=False)["input_ids"]
    assert encode(tokenizer, "sort 312=", RAW_FORMAT) == expected


def test_the_chat_encoding_wraps_system_and_user_turns(chat_tokenizer) -> None:
    text = render(chat_tokenizer, "sort 312=", CHAT)
    assert text == (
        "<|im_start|>system\nSort the digits.<|im_end|>\n"
        "<|im_start|>user\nsort 312=<|im_end|>\n<|im_start|>assistant\n"
    )
    ids = encode(chat_tokenizer, "sort 312=", CHAT)
    assert chat_tokenizer.decode(ids) == text
    assert ids.count(chat_tokenizer.convert_tokens_to_ids("<|im_start|>")) == 3
    no_system = render(chat_tokenizer, "sort 312=", PromptFormat(kind="chat"))
    assert no_system.startswith("<|im_start|>user\n")


def test_the_chat_encoding_is_recorded_with_its_template(chat_tokenizer) -> None:
    encoding = prompt_encoding(CHAT, chat_tokenizer)
    assert encoding == {
        "chat_template": chat_tokenizer.chat_template,
        "add_special_tokens": False,
        "system_prompt": "Sort the digits.",
        "reasoning_tags": ["<think>", "</think>"],
    }


def test_chat_on_a_tokenizer_without_a_template_names_the_field() -> None:
    tokenizer = train_tokenizer(digits.corpus(100))
    with pytest.raises(ValueError, match="prompt_format.kind: chat needs a tokenizer with a chat"):
        encode(tokenizer, "sort 312=", CHAT)
    with pytest.raises(ValueError, match="prompt_format.kind"):
        check_format(tokenizer, CHAT)
    check_format(tokenizer, RAW_FORMAT)


def test_chat_stops_at_the_end_of_turn_as_well_as_eos(chat_tokenizer) -> None:
    im_end = chat_tokenizer.convert_tokens_to_ids("<|im_end|>")
    eos = chat_tokenizer.eos_token_id
    assert end_of_turn_ids(chat_tokenizer) == [im_end]
    assert stop_token_ids(chat_tokenizer, RAW_FORMAT) == [eos]
    assert stop_token_ids(chat_tokenizer, CHAT) == [eos, im_end]
    listed = GenerationConfig(eos_token_id=[im_end, eos])
    assert stop_token_ids(chat_tokenizer, RAW_FORMAT, listed) == [eos, im_end]


@pytest.mark.parametrize(
    "text, reasoning, answer",
    [
        ("<think>3 before 5</think>\n\n35", "3 before 5", "35"),
        ("3 before 5</think>35", "3 before 5", "35"),  # the template opened the section
        ("<think>a</think>b</think>35", "a</think>b", "35"),  # the answer follows the last
        ("<think>3 before 5, and then", "3 before 5, and then", ""),  # cut off while reasoning
        ("35", "", "35"),
        (" 35 ", "", " 35 "),  # no section: the text is left exactly as it is
    ],
)
def test_it_splits_reasoning_from_the_answer(text, reasoning, answer) -> None:
    assert split_reasoning(text, CHAT) == (reasoning, answer)


def test_raw_format_never_splits() -> None:
    assert split_reasoning("<think>a</think>35", RAW_FORMAT) == ("", "<think>a</think>35")


def test_it_splits_at_configured_tags() -> None:
    fmt = PromptFormat(kind="chat", reasoning_tags=("<reasoning>", "</reasoning>"))
    assert split_reasoning("<reasoning>r</reasoning>35", fmt) == ("r", "35")
    assert split_reasoning("<think>r</think>35", fmt) == ("", "<think>r</think>35")


def test_the_reward_function_sees_only_answers_in_chat() -> None:
    seen: list[str] = []

    def reward_fn(items, texts):
        seen.extend(texts)
        return [RewardResult(1.0, passed=True) for _ in texts]

    items = [digits.make_item("53", "35")] * 2
    answers_only(reward_fn, CHAT)(items, ["<think>hm</think>35", "35"])
    assert seen == ["35", "35"]
    assert answers_only(reward_fn, RAW_FORMAT) is reward_fn


def test_the_format_loads_from_json_and_names_bad_fields() -> None:
    fmt = load(PromptFormat, {"kind": "chat", "reasoning_tags": ["<r>", "</r>"]})
    assert fmt == PromptFormat(kind="chat", reasoning_tags=("<r>", "</r>"))
    assert load(PromptFormat, {}) == RAW_FORMAT
    with pytest.raises(Problems) as caught:
        load(PromptFormat, {"kind": "xml", "reasoning_tags": ["<r>", "<r>"]})
    assert dict(caught.value.errors) == {
        "kind": "must be one of raw, chat",
        "reasoning_tags": "must be two different non-empty tags, the opening one first",
    }
    with pytest.raises(Problems, match="system_prompt: needs kind chat"):
        load(PromptFormat, {"system_prompt": "Be brief."})


def test_validate_names_each_field() -> None:
    with pytest.raises(ValueError, match=r"prompt_format.reasoning_tags: .*differ"):
        PromptFormat(kind="chat", reasoning_tags=("<t>", "<t>")).validate()
    with pytest.raises(ValueError, match="prompt_format.system_prompt: must be at most"):
        PromptFormat(kind="chat", system_prompt="x" * 20_001).validate()
