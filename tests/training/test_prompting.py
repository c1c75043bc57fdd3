"""training.prompting: the prompt encoding every generator applies is the one recorded with a
model version, so a registered format cannot say one thing while the engine does another."""

from __future__ import annotations

import pytest
import torch

from training.config import SamplingConfig
from training.decode import DecodeGenerator
from training.generation import HFGenerator
from training.prompting import prompt_encoding


class Tokenized(Exception):
    """Raised by the recording tokenizer once it has seen how it was called."""


class RecordingTokenizer:
    def __init__(self) -> None:
        self.kwargs: dict = {}

    def __call__(self, prompts: list[str], **kwargs: object) -> dict:
        self.kwargs = kwargs
        raise Tokenized


@pytest.mark.parametrize("generator", [HFGenerator, DecodeGenerator])
def test_every_generator_tokenizes_prompts_as_recorded(generator) -> None:
    tokenizer = RecordingTokenizer()
    model = torch.nn.Linear(1, 1)
    with pytest.raises(Tokenized):
        generator(model, tokenizer).generate(["sort 312="], SamplingConfig())  # type: ignore[arg-type]
    assert tokenizer.kwargs["add_special_tokens"] == prompt_encoding()["add_special_tokens"]


def test_the_encoding_is_the_raw_prompt() -> None:
    assert prompt_encoding() == {"chat_template": None, "add_special_tokens": False}
