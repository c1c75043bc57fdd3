import pytest

from training import digits
from training.config import PPOConfig, SamplingConfig
from training.engine import train
from training.interfaces import MemorySink

from .conftest import success


@pytest.mark.slow
def test_it_improves_held_out_success(base, held_out_items):
    model, tokenizer = base
    before = success(model, tokenizer, held_out_items)
    config = PPOConfig(max_steps=40, prompts_per_step=32, group_size=4, learning_rate=5e-4,
                       num_epochs=2, kl_estimator="k1", kl_coef=0.01,
                       sampling=SamplingConfig(max_new_tokens=12))
    sink = MemorySink()
    train(config, sampler=digits.DigitSortSampler(2, 6, seed=5), reward_fn=digits.reward_fn,
          sink=sink, model=model, tokenizer=tokenizer)
    assert "loss/value" in sink.rows[-1][1] and "val/explained_variance" in sink.rows[-1][1]
    assert success(model, tokenizer, held_out_items) > before + 0.05
