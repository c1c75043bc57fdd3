import pytest

from training.config import GRPOConfig, PPOConfig, config_from_dict, load_config


def test_it_round_trips_through_a_dict():
    config = GRPOConfig(max_steps=7, clip_eps_high=0.28, loss_aggregation="constant")
    assert config_from_dict(config.to_dict()) == config


def test_it_picks_the_dataclass_by_algorithm():
    assert isinstance(config_from_dict({"algorithm": "ppo", "lam": 0.9}), PPOConfig)


@pytest.mark.parametrize(
    "data, field",
    [
        ({"algorithm": "grpo", "group_size": 1}, "group_size"),
        ({"algorithm": "grpo", "kl_coef": 0.1}, "kl_coef"),
        ({"algorithm": "grpo", "kl_estimator": "k2"}, "kl_estimator"),
        ({"algorithm": "grpo", "micro_batch_size": 5}, "micro_batch_size"),
        ({"algorithm": "grpo", "colour": "red"}, "colour"),
        ({"algorithm": "dpo"}, "algorithm"),
        ({"algorithm": "grpo", "sampling": {"backend": "vllm"}}, "sampling.backend"),
        ({"algorithm": "grpo", "sampling": {"top_p": 0}}, "sampling.top_p"),
        ({"algorithm": "ppo", "tis": "yes"}, "tis"),
        ({"algorithm": "grpo", "tis": "token", "tis_cap": 0.5}, "tis_cap"),
    ],
)
def test_it_rejects_bad_fields_by_name(data, field):
    with pytest.raises(ValueError, match=field):
        config_from_dict(data)


def test_it_reads_a_run_file_with_a_task_section(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(
        "algorithm: rloo\nmax_steps: 3\nsampling: {max_new_tokens: 8}\ntask: {name: sort_digits}\n"
    )
    config, task = load_config(path)
    assert config.algorithm == "rloo" and config.sampling.max_new_tokens == 8
    assert task == {"name": "sort_digits"}
