from training.config import PPOConfig, SamplingConfig

from .conftest import learns_digit_first


def test_it_learns_a_task_an_untrained_model_can_learn():
    config = PPOConfig(
        max_steps=30,
        prompts_per_step=8,
        group_size=8,
        learning_rate=1e-2,
        sampling=SamplingConfig(max_new_tokens=2),
        cpu_threads=1,
    )
    before, after, sink = learns_digit_first(config)
    assert "loss/value" in sink.rows[-1][1] and "val/explained_variance" in sink.rows[-1][1]
    assert before < 0.2
    assert after > before + 0.5
