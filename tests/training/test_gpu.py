"""The CUDA path: a bf16 GRPO step, and the decode loop (compiled too) against HF `generate`.

Marked `gpu`: without a CUDA device they skip and say why (tests/conftest.py);
`scripts/gpu_check.sh` runs them on a GPU machine.
"""

import math

import pytest
import torch

from training import digits, grpo
from training.config import GRPOConfig, SamplingConfig
from training.decode import DecodeGenerator
from training.step import build_run

from .test_decode import GREEDY, assert_same, both, prompts

pytestmark = pytest.mark.gpu


def test_it_trains_a_grpo_step_in_bf16_on_cuda(base):
    model, tokenizer = base
    before = {name: value.clone() for name, value in model.state_dict().items()}
    config = GRPOConfig(
        max_steps=1,
        prompts_per_step=8,
        group_size=4,
        mixed_precision="bf16",
        entropy_coef=0.01,  # a gradient on every row, whatever the rewards
        sampling=SamplingConfig(max_new_tokens=12),
    )
    run = build_run(config, model, tokenizer, digits.DigitSortSampler(2, 6), digits.reward_fn)
    assert run.accelerator.device.type == "cuda"
    assert run.accelerator.mixed_precision == "bf16"
    metrics = grpo.train_step(run)
    for key in ("loss/policy", "grad_norm", "entropy", "logprob_gap/mean"):
        assert math.isfinite(metrics[key]), key
    # Autocast computes in bf16; the weights the optimizer updates stay fp32 on the device.
    weights = run.policy.state_dict()
    assert all(v.device.type == "cuda" and v.dtype == torch.float32 for v in weights.values())
    assert any(not torch.equal(v.cpu(), before[name]) for name, v in weights.items())


def test_it_decodes_greedily_like_hf_generate_on_cuda(base):
    model, tokenizer = base
    hf, engine = both(model.to("cuda"), tokenizer, prompts(32), GREEDY, n=2)
    assert engine.completion_ids.device.type == "cuda"
    assert_same(hf, engine)


def test_it_decodes_the_same_with_the_compiled_step(base):
    model, tokenizer = base
    model = model.to("cuda")
    compiled = DecodeGenerator(model, tokenizer, compile=True)
    assert compiled.step_forward is not model.forward
    plain = DecodeGenerator(model, tokenizer).generate(prompts(32), GREEDY, n=2)
    assert_same(plain, compiled.generate(prompts(32), GREEDY, n=2))
