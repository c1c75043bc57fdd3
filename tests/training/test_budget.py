"""The step estimate: what a step holds in memory per process and what it computes."""

from __future__ import annotations

import pytest

from training.budget import (
    FP32_BYTES,
    STATE_BYTES_PER_PARAMETER,
    ModelShape,
    estimate_step,
    shape_of,
)
from training.config import config_from_dict

QWEN_05B = ModelShape(parameters=494_032_768, hidden=896, layers=24, vocab=151_936, kv_dim=128)


def grpo(**fields):
    return config_from_dict({"algorithm": "grpo", **fields})


def parts(estimate) -> dict[str, int]:
    return {p.name: p.bytes for p in (*estimate.resident, *estimate.generation, *estimate.update)}


def test_it_reads_the_sizes_it_needs_from_a_hugging_face_config():
    config = {
        "hidden_size": 896,
        "num_hidden_layers": 24,
        "vocab_size": 151936,
        "num_attention_heads": 14,
        "num_key_value_heads": 2,
    }
    assert shape_of(config) == {"hidden": 896, "layers": 24, "vocab": 151936, "kv_dim": 128}
    assert shape_of({"hidden_size": 896}) is None


def test_it_holds_weights_gradients_and_adamw_moments_for_every_parameter():
    estimate = estimate_step(grpo(), QWEN_05B)
    assert parts(estimate)["model states"] == QWEN_05B.parameters * STATE_BYTES_PER_PARAMETER
    assert "reference copy" not in parts(estimate)


def test_it_adds_a_reference_copy_only_when_a_kl_term_needs_one():
    with_kl = estimate_step(grpo(kl_estimator="k3", kl_coef=0.04), QWEN_05B)
    assert parts(with_kl)["reference copy"] == QWEN_05B.parameters * FP32_BYTES
    assert with_kl.peak_bytes > estimate_step(grpo(), QWEN_05B).peak_bytes


def test_it_counts_the_value_head_of_ppo():
    ppo = estimate_step(config_from_dict({"algorithm": "ppo"}), QWEN_05B)
    states = (QWEN_05B.parameters + QWEN_05B.hidden + 1) * STATE_BYTES_PER_PARAMETER
    assert parts(ppo)["model states"] == states


def test_it_shards_model_states_over_processes_with_fsdp_but_not_ddp():
    config = grpo(prompts_per_step=16)
    ddp = estimate_step(config, QWEN_05B, processes=4, strategy="ddp")
    fsdp = estimate_step(config, QWEN_05B, processes=4, strategy="fsdp")
    assert parts(fsdp)["model states"] * 4 == parts(ddp)["model states"]


@pytest.mark.parametrize(
    ("bigger", "field"),
    [
        ({"group_size": 64}, "hyperparameters.group_size"),
        ({"prompts_per_step": 512}, "hyperparameters.prompts_per_step"),
        ({"sampling": {"max_new_tokens": 4096}}, "hyperparameters.sampling.max_new_tokens"),
    ],
)
def test_it_grows_with_the_batch_and_blames_the_field_pushed_furthest(bigger, field):
    small = estimate_step(grpo(), QWEN_05B)
    large = estimate_step(grpo(**bigger), QWEN_05B)
    assert large.peak_bytes > small.peak_bytes and large.flops > small.flops
    assert large.largest.field == field


def test_it_keeps_one_layer_of_activations_under_gradient_checkpointing():
    plain = grpo(prompts_per_step=64, micro_batch_size=64)
    checkpointed = config_from_dict({**plain.to_dict(), "model": {"gradient_checkpointing": True}})
    full = parts(estimate_step(plain, QWEN_05B))["activations"]
    assert parts(estimate_step(checkpointed, QWEN_05B))["activations"] < full / 4


def test_it_blames_the_model_when_its_states_alone_are_the_largest_part():
    seven_b = ModelShape.guess(7_000_000_000)
    assert estimate_step(grpo(), seven_b).largest.field == "model"


def test_it_guesses_a_plausible_shape_from_a_parameter_count_alone():
    shape = ModelShape.guess(7_000_000_000)
    assert 3000 < shape.hidden < 6000 and 24 <= shape.layers <= 40
    assert 11 * shape.layers * shape.hidden**2 < 7e9 < 13 * shape.layers * shape.hidden**2


def test_it_splits_the_prompts_between_processes():
    config = grpo(prompts_per_step=64)
    one = estimate_step(config, QWEN_05B, processes=1)
    four = estimate_step(config, QWEN_05B, processes=4)
    assert parts(four)["generation cache"] * 4 == parts(one)["generation cache"]
    assert four.flops == one.flops  # the step's work, whoever does it


def test_lora_holds_frozen_weights_and_the_adapters_states_without_a_reference_copy():
    lora = {"path": "qwen", "lora": {"rank": 16}}
    estimate = estimate_step(grpo(kl_estimator="k3", kl_coef=0.04, model=lora), QWEN_05B)
    adapters = 24 * 7 * 16 * (896 + 128)
    expected = QWEN_05B.parameters * FP32_BYTES + adapters * STATE_BYTES_PER_PARAMETER
    assert parts(estimate)["model states"] == expected
    assert "reference copy" not in parts(estimate)
    full = estimate_step(grpo(kl_estimator="k3", kl_coef=0.04), QWEN_05B)
    assert full.peak_bytes - estimate.peak_bytes > 2 * QWEN_05B.parameters * FP32_BYTES
    assert estimate.flops < full.flops  # no weight gradients for the frozen base
