import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from training import tiny_models
from training.decode import unsupported_reason

EXPECTED_CLASS = {
    "llama": "LlamaForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "qwen3": "Qwen3ForCausalLM",
    "mistral": "MistralForCausalLM",
    "phi3": "Phi3ForCausalLM",
    "gemma": "GemmaForCausalLM",
    "gemma2": "Gemma2ForCausalLM",
}


def test_it_covers_every_architecture_it_names():
    assert set(tiny_models.ARCHITECTURES) == set(EXPECTED_CLASS)


@pytest.mark.parametrize("arch", sorted(EXPECTED_CLASS))
def test_it_loads_back_as_the_real_architecture(tiny_build, arch):
    path = tiny_build(arch)
    model = AutoModelForCausalLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    assert type(model).__name__ == EXPECTED_CLASS[arch]
    assert model.config.hidden_size == 64 and model.config.num_hidden_layers == 2
    assert 50_000 < sum(p.numel() for p in model.parameters()) < 200_000
    im_end = tokenizer.convert_tokens_to_ids(tiny_models.IM_END)
    assert model.generation_config.eos_token_id == [im_end, tokenizer.eos_token_id]
    ids = tokenizer("hello 42", return_tensors="pt")["input_ids"]
    logits = model(input_ids=ids).logits
    assert logits.shape == (1, ids.shape[1], len(tokenizer))
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize("arch", ["llama", "qwen2", "qwen3", "mistral", "phi3", "gemma"])
def test_the_engine_decode_loop_runs_the_full_attention_ones(tiny_build, arch):
    assert unsupported_reason(AutoModelForCausalLM.from_pretrained(tiny_build(arch))) is None


def test_gemma2_falls_back_for_its_sliding_window_layers(tiny_build):
    model = AutoModelForCausalLM.from_pretrained(tiny_build("gemma2"))
    assert "sliding-window" in unsupported_reason(model)


def test_the_tokenizer_carries_chatml_tokens_and_template(tiny_build):
    tokenizer = AutoTokenizer.from_pretrained(tiny_build("qwen2"))
    assert tokenizer.eos_token == "<|endoftext|>" and tokenizer.pad_token == "<|pad|>"
    assert tokenizer.padding_side == "left"
    for token in (*tiny_models.SPECIAL_TOKENS, *tiny_models.THINK_TOKENS):
        ids = tokenizer(token, add_special_tokens=False)["input_ids"]
        assert tokenizer.convert_ids_to_tokens(ids) == [token]
    messages = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "sort 321="},
    ]
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    assert text == (
        "<|im_start|>system\nAnswer briefly.<|im_end|>\n"
        "<|im_start|>user\nsort 321=<|im_end|>\n<|im_start|>assistant\n"
    )


def test_the_template_writes_reasoning_and_can_close_it_empty(tiny_build):
    tokenizer = AutoTokenizer.from_pretrained(tiny_build("qwen3"))
    turn = [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "two and two"},
    ]
    assert tokenizer.apply_chat_template(turn, tokenize=False).endswith(
        "<|im_start|>assistant\n<think>\ntwo and two\n</think>\n\n4<|im_end|>\n"
    )
    direct = tokenizer.apply_chat_template(
        turn[:1], tokenize=False, add_generation_prompt=True, enable_thinking=False
    )
    assert direct.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_decoding_drops_special_tokens_but_keeps_the_think_tags(tiny_build):
    tokenizer = AutoTokenizer.from_pretrained(tiny_build("llama"))
    ids = tokenizer("<think>so 4</think>4<|im_end|>", add_special_tokens=False)["input_ids"]
    assert tokenizer.decode(ids, skip_special_tokens=True) == "<think>so 4</think>4"


def test_it_builds_the_same_weights_from_the_same_seed(tmp_path, tiny_build):
    again = tiny_models.build("qwen2", tmp_path)
    first = AutoModelForCausalLM.from_pretrained(tiny_build("qwen2")).state_dict()
    second = AutoModelForCausalLM.from_pretrained(again).state_dict()
    assert all(first[name].equal(tensor) for name, tensor in second.items())


def test_the_cli_builds_a_directory(tmp_path, capsys):
    tiny_models.main(["--arch", "mistral", "--out", str(tmp_path / "m"), "--hidden", "32"])
    assert capsys.readouterr().out.strip() == str(tmp_path / "m")
    assert AutoModelForCausalLM.from_pretrained(tmp_path / "m").config.hidden_size == 32


def test_it_names_the_field_it_refuses(tmp_path):
    with pytest.raises(ValueError, match="arch: unknown architecture 'gpt9'"):
        tiny_models.build("gpt9", tmp_path)
    with pytest.raises(ValueError, match="hidden, heads, kv_heads"):
        tiny_models.build("llama", tmp_path, hidden=66)
