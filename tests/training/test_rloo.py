import pytest

from training import digits
from training.config import RLOOConfig, SamplingConfig
from training.engine import train

from .conftest import success


@pytest.mark.slow
def test_it_improves_held_out_success(base, held_out_items):
    model, tokenizer = base
    before = success(model, tokenizer, held_out_items)
    config = RLOOConfig(max_steps=60, prompts_per_step=16, group_size=8, learning_rate=5e-4,
                        sampling=SamplingConfig(max_new_tokens=12))
    train(config, sampler=digits.DigitSortSampler(2, 6, seed=5), reward_fn=digits.reward_fn,
          model=model, tokenizer=tokenizer)
    assert success(model, tokenizer, held_out_items) > before + 0.05
