"""The vLLM backend: its sampling settings, stop tokens, log-prob mode and merged LoRA weights
without vLLM; the colocated generator itself where vLLM and a GPU are present."""

import importlib.util

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

from training.config import GRPOConfig, SamplingConfig
from training.decode import make_generator
from training.generation import generator_stops
from training.lora import LoraConfig, apply_lora
from training.prompting import PromptFormat
from training.vllm_backend import (
    logprobs_mode,
    merged_weights,
    sampling_params_kwargs,
    vllm_problem,
)

CHAT = PromptFormat(kind="chat")


def test_it_maps_the_sampling_settings_onto_vllm_sampling_params():
    sampling = SamplingConfig(max_new_tokens=48, temperature=0.7, top_p=0.9, top_k=20)
    kwargs = sampling_params_kwargs(sampling, [5, 7], n=8, seed=3)
    assert (kwargs["n"], kwargs["max_tokens"], kwargs["seed"]) == (8, 48, 3)
    assert (kwargs["temperature"], kwargs["top_p"], kwargs["top_k"]) == (0.7, 0.9, 20)
    assert kwargs["stop_token_ids"] == [5, 7] and kwargs["include_stop_str_in_output"]
    assert kwargs["logprobs"] == 0  # the sampled token's log-prob, for the gap and TIS


def test_it_turns_top_k_off_the_vllm_way_and_greedy_into_temperature_zero():
    assert sampling_params_kwargs(SamplingConfig(top_k=0), [1], n=1)["top_k"] == -1
    greedy = sampling_params_kwargs(SamplingConfig(temperature=0, top_p=0.5, top_k=4), [1], n=1)
    assert (greedy["temperature"], greedy["top_p"], greedy["top_k"]) == (0.0, 1.0, -1)


def test_it_stops_at_the_chat_templates_end_of_turn(tiny_build):
    path = tiny_build("qwen2")
    model = AutoModelForCausalLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    stops = sampling_params_kwargs(SamplingConfig(), generator_stops(model, tokenizer, CHAT), n=1)[
        "stop_token_ids"
    ]
    assert tokenizer.convert_tokens_to_ids("<|im_end|>") in stops
    assert tokenizer.eos_token_id in stops


@pytest.mark.parametrize(
    ("sampling", "mode"),
    [
        (SamplingConfig(temperature=1.0, top_k=50), "raw_logprobs"),
        (SamplingConfig(temperature=0), "raw_logprobs"),
        (SamplingConfig(temperature=0.7), "processed_logprobs"),
        (SamplingConfig(temperature=0.7, top_p=0.9), None),
    ],
)
def test_it_asks_vllm_for_the_log_probs_the_engine_compares_against(sampling, mode):
    # The engine's Rollout.logprobs: at the sampling temperature, before top-k and top-p.
    assert logprobs_mode(sampling) == mode


def test_it_merges_lora_adapters_into_the_weights_vllm_loads(tiny_build):
    path = tiny_build("qwen2")
    model = AutoModelForCausalLM.from_pretrained(path)
    adapted = apply_lora(model, LoraConfig(rank=4, alpha=8), str(path))
    with torch.no_grad():
        for name, param in adapted.named_parameters():
            if "lora_B" in name:
                param.normal_()  # fresh adapters are zero: give them something to merge
        ours = dict(merged_weights(adapted.get_base_model()))
    reference = AutoModelForCausalLM.from_pretrained(path)
    assert set(ours) == set(reference.state_dict())
    merged = adapted.merge_and_unload().state_dict()
    for name, tensor in ours.items():
        torch.testing.assert_close(tensor, merged[name], msg=name)
    changed = [n for n in ours if not torch.equal(ours[n], reference.state_dict()[n])]
    assert changed and all("proj" in n for n in changed)


def test_it_accepts_vllm_as_a_sampling_backend():
    GRPOConfig(sampling=SamplingConfig(backend="vllm")).validate()
    with pytest.raises(ValueError, match="^sampling.backend: must be engine, hf or vllm"):
        GRPOConfig(sampling=SamplingConfig(backend="sglang")).validate()


def test_make_generator_says_why_vllm_cannot_run_here(tiny_build):
    problem = vllm_problem()
    if problem is None:
        pytest.skip("vLLM and a CUDA device are present: the refusal is for machines without")
    path = tiny_build("qwen2")
    model = AutoModelForCausalLM.from_pretrained(path)
    tokenizer = AutoTokenizer.from_pretrained(path)
    with pytest.raises(RuntimeError, match="^sampling.backend: vllm "):
        make_generator(SamplingConfig(backend="vllm"), model, tokenizer)


@pytest.mark.gpu
@pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="vllm is not installed")
def test_it_generates_chat_completions_with_log_probs_close_to_the_trainers(tiny_build):
    path = tiny_build("qwen2")
    model = AutoModelForCausalLM.from_pretrained(path).to("cuda")
    tokenizer = AutoTokenizer.from_pretrained(path)
    sampling = SamplingConfig(backend="vllm", max_new_tokens=8)
    generator = make_generator(sampling, model, tokenizer, CHAT)
    rollout = generator.generate(["sort 3 1 2", "add 2 2"], sampling, n=4)
    assert rollout.completion_ids.shape[0] == 8 and len(rollout.texts) == 8
    assert rollout.logprobs is not None
    with torch.no_grad():
        logits = model(rollout.input_ids, attention_mask=rollout.attention_mask).logits
    width = rollout.completion_ids.shape[1]
    ours = logits[:, -width - 1 : -1].float().log_softmax(-1)
    ours = ours.gather(2, rollout.completion_ids[..., None]).squeeze(2) * rollout.completion_mask
    gap = (ours - rollout.logprobs).abs()[rollout.completion_mask.bool()]
    assert gap.max().item() < 0.1  # bf16 in vLLM against float32 here
