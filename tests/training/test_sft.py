import pytest

from training.config import SamplingConfig, SFTConfig

from .conftest import train_and_compare


@pytest.mark.slow
def test_it_improves_held_out_success_with_a_correct_teacher(base, held_out_items):
    config = SFTConfig(
        max_steps=80,
        prompts_per_step=64,
        learning_rate=1e-3,
        sampling=SamplingConfig(max_new_tokens=12),
    )
    before, after, sink = train_and_compare(config, base, held_out_items, teacher="exact")
    assert sink.rows[-1][1]["loss/sft"] < sink.rows[0][1]["loss/sft"]
    assert after > before + 0.05
