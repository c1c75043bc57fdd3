import pytest

from training import digits
from training.config import SamplingConfig, SFTConfig
from training.engine import train
from training.interfaces import MemorySink

from .conftest import success


@pytest.mark.slow
def test_it_improves_held_out_success_with_a_correct_teacher(base, held_out_items):
    model, tokenizer = base
    before = success(model, tokenizer, held_out_items)
    config = SFTConfig(max_steps=80, prompts_per_step=64, learning_rate=1e-3,
                       sampling=SamplingConfig(max_new_tokens=12))
    sink = MemorySink()
    train(config, sampler=digits.DigitSortSampler(2, 6, seed=5, teacher="exact"),
          reward_fn=digits.reward_fn, sink=sink, model=model, tokenizer=tokenizer)
    assert sink.rows[-1][1]["loss/sft"] < sink.rows[0][1]["loss/sft"]
    assert success(model, tokenizer, held_out_items) > before + 0.05
