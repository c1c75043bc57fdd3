from training.config import PPOConfig

from .conftest import learns_digit_first


def test_it_learns_a_task_an_untrained_model_can_learn():
    before, after, sink = learns_digit_first(PPOConfig)
    assert "loss/value" in sink.rows[-1][1] and "val/explained_variance" in sink.rows[-1][1]
    assert before < 0.2
    assert after > before + 0.5
