import pytest

from training import digits, ppo
from training.config import PPOConfig, SamplingConfig
from training.step import build_run

from .conftest import learns_digit_first


def test_it_learns_a_task_an_untrained_model_can_learn():
    before, after, sink = learns_digit_first(PPOConfig)
    assert "loss/value" in sink.rows[-1][1] and "val/explained_variance" in sink.rows[-1][1]
    assert before < 0.2
    assert after > before + 0.5


def test_it_logs_the_train_inference_gap_and_corrects_it_when_asked(base):
    model, tokenizer = base
    config = PPOConfig(
        max_steps=1,
        prompts_per_step=4,
        group_size=4,
        sampling=SamplingConfig(max_new_tokens=12),
        tis="sequence",
    )
    run = build_run(config, model, tokenizer, digits.DigitSortSampler(2, 6), digits.reward_fn)
    metrics = ppo.train_step(run)
    assert metrics["logprob_gap/max"] < 1e-4  # float32: sampler and trainer agree
    assert metrics["tis/weight_mean"] == pytest.approx(1.0, abs=1e-3)
    assert metrics["tis/truncated_frac"] == 0
