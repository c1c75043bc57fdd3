import pytest

from training import digits
from training.config import RejectionConfig, SamplingConfig
from training.engine import train
from training.interfaces import MemorySink

from .conftest import success


@pytest.mark.slow
def test_it_improves_held_out_success(base, held_out_items):
    model, tokenizer = base
    before = success(model, tokenizer, held_out_items)
    config = RejectionConfig(max_steps=40, prompts_per_step=32, group_size=8, learning_rate=5e-4,
                             sampling=SamplingConfig(max_new_tokens=12))
    sink = MemorySink()
    train(config, sampler=digits.DigitSortSampler(2, 6, seed=5), reward_fn=digits.reward_fn,
          sink=sink, model=model, tokenizer=tokenizer)
    assert 0 < sink.rows[0][1]["rejection/kept_frac"] <= 1 / 8
    assert success(model, tokenizer, held_out_items) > before + 0.05
