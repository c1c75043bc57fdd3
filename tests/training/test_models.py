import json
import shutil
from pathlib import Path

import pytest
import torch

from training import digits, tiny_models
from training.config import ModelConfig
from training.models import inference_dtype, load_model, save_model


def test_it_tokenizes_every_digit_separately():
    _, tokenizer = load_model(ModelConfig(), digits.corpus(200))
    ids = tokenizer("sort 3310=", add_special_tokens=False)["input_ids"]
    pieces = tokenizer.convert_ids_to_tokens(ids)
    assert pieces[-5:] == ["3", "3", "1", "0", "="]
    assert tokenizer.decode(ids) == "sort 3310="


def test_it_round_trips_the_tiny_model_through_save_pretrained(tmp_path):
    model, tokenizer = load_model(ModelConfig(), digits.corpus(200))
    assert 400_000 < sum(p.numel() for p in model.parameters()) < 700_000
    save_model(model, tokenizer, tmp_path)
    reloaded, retok = load_model(ModelConfig(path=str(tmp_path)))
    assert retok.padding_side == "left" and retok.eos_token_id == tokenizer.eos_token_id
    for (name, a), b in zip(
        model.state_dict().items(), reloaded.state_dict().values(), strict=True
    ):
        assert a.equal(b), name


@pytest.mark.parametrize("arch", sorted(tiny_models.ARCHITECTURES))
def test_it_loads_each_real_architecture_with_its_stop_tokens(tiny_build, arch):
    model, tokenizer = load_model(ModelConfig(path=str(tiny_build(arch))))
    assert type(model).__name__ == tiny_models_class(arch)
    assert tokenizer.padding_side == "left" and tokenizer.pad_token == "<|pad|>"
    im_end = tokenizer.convert_tokens_to_ids("<|im_end|>")
    # the tokenizer's EOS first, then the end-of-turn token the generation config lists
    assert model.generation_config.eos_token_id == [tokenizer.eos_token_id, im_end]
    assert next(model.parameters()).dtype == torch.float32


def tiny_models_class(arch: str) -> str:
    config = tiny_models.ARCHITECTURES[arch].config_class
    return config.__name__.removesuffix("Config") + "ForCausalLM"


def test_it_turns_on_gradient_checkpointing(tiny_build):
    config = ModelConfig(path=str(tiny_build("qwen3")), gradient_checkpointing=True)
    model, tokenizer = load_model(config)
    assert model.is_activation_checkpointing
    model.train()
    ids = tokenizer("hello 42", return_tensors="pt")["input_ids"]
    model(input_ids=ids, labels=ids).loss.backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


def remote_code_dir(tmp_path, tiny_build) -> Path:
    """The tiny Llama, declared as an architecture of its own shipped as Python files."""
    path = tmp_path / "custom"
    shutil.copytree(tiny_build("llama"), path)
    config = json.loads((path / "config.json").read_text())
    config["model_type"] = "crucible_custom"
    config["architectures"] = ["CustomForCausalLM"]
    config["auto_map"] = {
        "AutoConfig": "configuration_custom.CustomConfig",
        "AutoModelForCausalLM": "modeling_custom.CustomForCausalLM",
    }
    (path / "config.json").write_text(json.dumps(config))
    (path / "configuration_custom.py").write_text(
        "from transformers import LlamaConfig\n\n\n"
        "class CustomConfig(LlamaConfig):\n    model_type = 'crucible_custom'\n"
    )
    (path / "modeling_custom.py").write_text(
        "from transformers import LlamaForCausalLM\n\n"
        "from .configuration_custom import CustomConfig\n\n\n"
        "class CustomForCausalLM(LlamaForCausalLM):\n    config_class = CustomConfig\n"
    )
    return path


def test_it_refuses_a_model_that_needs_its_own_code_unless_allowed(tmp_path, tiny_build):
    path = remote_code_dir(tmp_path, tiny_build)
    with pytest.raises(ValueError, match="model.path: .* needs its own Python code"):
        load_model(ModelConfig(path=str(path)))
    model, _ = load_model(ModelConfig(path=str(path)), allow_remote_code=True)
    assert type(model).__name__ == "CustomForCausalLM"


def test_inference_dtype_is_float32_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA: test_it_loads_bf16_on_cuda covers it")
    assert inference_dtype() == torch.float32


@pytest.mark.gpu
def test_it_loads_bf16_on_cuda(tiny_build):
    config = ModelConfig(path=str(tiny_build("qwen2")))
    model, tokenizer = load_model(config, dtype=inference_dtype())
    assert inference_dtype() == torch.bfloat16
    model = model.to("cuda")
    assert all(p.dtype == torch.bfloat16 for p in model.parameters())
    ids = tokenizer("hello 42", return_tensors="pt")["input_ids"].to("cuda")
    assert torch.isfinite(model(input_ids=ids).logits.float()).all()
