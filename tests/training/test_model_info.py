import json

import pytest
from transformers import AutoModelForCausalLM

from training import digits, tiny_models
from training.config import ModelConfig
from training.model_info import describe
from training.models import load_model, save_model


@pytest.mark.parametrize(
    "arch, architecture",
    [("qwen2", "Qwen2ForCausalLM"), ("phi3", "Phi3ForCausalLM"), ("gemma", "GemmaForCausalLM")],
)
def test_it_describes_a_model_directory_as_plain_data(tiny_build, arch, architecture):
    path = tiny_build(arch)
    info = describe(path)
    model = AutoModelForCausalLM.from_pretrained(path)
    assert info["architecture"] == architecture and info["model_type"] == arch
    assert info["parameters"] == sum(p.numel() for p in model.parameters())
    assert info["dtype"] == "float32"
    assert info["context_length"] == 512
    assert info["chat_template"] is True
    assert info["special_tokens"]["eos_token"] == "<|endoftext|>"
    assert info["special_tokens"]["pad_token"] == "<|pad|>"
    assert set(info["other_special_tokens"]) == {"<|im_start|>", "<|im_end|>"}
    assert info["stop_tokens"] == ["<|endoftext|>", "<|im_end|>"]
    assert info["remote_code"] is False
    assert json.loads(json.dumps(info)) == info  # plain data all the way down


def test_it_counts_pickled_weights_on_the_meta_device(tmp_path):
    path = tiny_models.build("llama", tmp_path / "m")
    model = AutoModelForCausalLM.from_pretrained(path)
    (path / "model.safetensors").unlink()
    assert describe(path)["parameters"] == sum(p.numel() for p in model.parameters())
    assert describe(path)["dtype"] == "float32"  # from the config


def test_it_says_when_there_is_no_chat_template(tmp_path):
    save_model(*load_model(ModelConfig(tiny_width=16), digits.corpus(100)), tmp_path)
    info = describe(tmp_path)
    assert info["chat_template"] is False and info["stop_tokens"] == ["</s>"]


def test_it_refuses_what_is_not_a_model_directory(tmp_path):
    with pytest.raises(ValueError, match="path: .* is not a model directory"):
        describe(tmp_path)
