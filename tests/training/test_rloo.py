from training.config import RLOOConfig, SamplingConfig

from .conftest import learns_digit_first


def test_it_learns_a_task_an_untrained_model_can_learn():
    config = RLOOConfig(
        max_steps=30,
        prompts_per_step=8,
        group_size=8,
        learning_rate=1e-2,
        sampling=SamplingConfig(max_new_tokens=2),
        cpu_threads=1,
    )
    before, after, _ = learns_digit_first(config)
    assert before < 0.2
    assert after > before + 0.5
