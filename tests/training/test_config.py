import dataclasses
import math

import pytest

from training.config import (
    CONFIGS,
    FieldErrors,
    GRPOConfig,
    PPOConfig,
    SamplingConfig,
    config_from_dict,
    field_range,
    load_config,
)


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
        ({"algorithm": "grpo", "sampling": {"backend": "sglang"}}, "sampling.backend"),
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


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 1e308])
def test_it_refuses_a_non_finite_or_absurd_learning_rate_by_name(value):
    with pytest.raises(FieldErrors) as caught:
        config_from_dict({"algorithm": "grpo", "learning_rate": value})
    assert caught.value.errors == [("learning_rate", "must be a number above 0 and at most 1")]


def test_it_names_every_field_outside_its_range_at_once():
    data = {
        "algorithm": "grpo",
        "group_size": 10**6,
        "prompts_per_step": 10**6,
        "max_steps": 10**18,
        "sampling": {"max_new_tokens": 10**9, "temperature": math.nan},
        "adam_betas": [0.9, 1.0],
    }
    with pytest.raises(FieldErrors) as caught:
        config_from_dict(data)
    assert dict(caught.value.errors) == {
        "max_steps": "must be a whole number from 1 to 1000000",
        "prompts_per_step": "must be a whole number from 1 to 16384",
        "adam_betas": "each must be a number at least 0 and below 1",
        "sampling.max_new_tokens": "must be a whole number from 1 to 32768",
        "sampling.temperature": "must be a number above 0 and at most 10",
        "group_size": "must be a whole number from 1 to 1024",
    }


def test_it_refuses_a_fraction_for_a_whole_number_field():
    with pytest.raises(FieldErrors, match="max_steps: must be a whole number"):
        config_from_dict({"algorithm": "grpo", "max_steps": 2.5})


@pytest.mark.parametrize(
    ("sizes", "field"),
    [
        ({"prompts_per_step": 1024, "group_size": 1024}, "prompts_per_step, group_size"),
        (
            {"prompts_per_step": 1024, "group_size": 64, "sampling": {"max_new_tokens": 32768}},
            "sampling.max_new_tokens",
        ),
    ],
)
def test_it_bounds_the_products_that_size_a_step(sizes, field):
    with pytest.raises(ValueError, match=f"^{field}: .* at most"):
        config_from_dict({"algorithm": "grpo", **sizes})


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_numeric_field_has_a_finite_range_that_holds_its_default(name):
    cls = CONFIGS[name]
    defaults = cls()
    for config_cls, instance in ((cls, defaults), (SamplingConfig, defaults.sampling)):
        for f in dataclasses.fields(config_cls):
            value = getattr(instance, f.name)
            numeric = str(f.type).split(" ")[0] in ("int", "float", "tuple[float,")
            bounds = field_range(config_cls, f.name)
            assert (bounds is not None) == numeric, f.name
            if bounds is not None:
                assert math.isfinite(bounds.low) and math.isfinite(bounds.high), f.name
                values = value if isinstance(value, tuple) else (value,)
                assert all(v is None or bounds.contains(v) for v in values), f.name
