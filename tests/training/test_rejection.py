import pytest

from training.config import RejectionConfig, SamplingConfig

from .conftest import train_and_compare


@pytest.mark.slow
def test_it_improves_held_out_success(base, held_out_items):
    """At 5e-4 for 40 steps the gain ranged from -0.05 to +0.06 across seeds, so a change
    of random stream could fail this; at 2.5e-4 for 80 steps it is +0.047 to +0.070 over
    five seeds (1e-3 and above degrade the model)."""
    config = RejectionConfig(
        max_steps=80,
        prompts_per_step=32,
        group_size=8,
        learning_rate=2.5e-4,
        sampling=SamplingConfig(max_new_tokens=12),
    )
    before, after, sink = train_and_compare(config, base, held_out_items)
    assert 0 < sink.rows[0][1]["rejection/kept_frac"] <= 1 / 8
    assert after > before + 0.05
