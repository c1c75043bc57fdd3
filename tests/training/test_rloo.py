from training.config import RLOOConfig

from .conftest import learns_digit_first


def test_it_learns_a_task_an_untrained_model_can_learn():
    before, after, _ = learns_digit_first(RLOOConfig)
    assert before < 0.2
    assert after > before + 0.5
