"""Algorithm presets: each a valid config, and combinations the engine refuses, with the reason."""

import dataclasses

import pytest

from training.config import CONFIGS, config_from_dict
from training.presets import BY_NAME, PRESETS


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.name)
def test_it_builds_a_valid_config_with_every_value_of_a_preset(preset):
    overrides = {"max_steps": 20, "prompts_per_step": 8}
    config = preset.config(**overrides)
    assert config.algorithm == preset.algorithm and config.max_steps == 20
    kept = {name: value for name, value in preset.values.items() if name not in overrides}
    assert all(getattr(config, name) == value for name, value in kept.items())
    assert preset.config().max_steps == preset.values["max_steps"]
    names = {f.name for f in dataclasses.fields(CONFIGS[preset.algorithm])}
    assert set(preset.why) <= set(preset.values) <= names


def test_it_names_the_seven_recipes():
    assert list(BY_NAME) == [
        "grpo",
        "dr-grpo",
        "dapo",
        "ppo",
        "rloo",
        "sft",
        "rejection-sampling",
    ]


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("grpo", {"group_size": 1}, "group_size: GRPO needs at least 2 completions per prompt"),
        ("rloo", {"group_size": 1}, "group_size: RLOO needs at least 2 completions per prompt"),
        ("grpo", {"kl_coef": 0.0}, "kl_coef: must be above 0 with kl_estimator k3"),
        ("dr-grpo", {"kl_coef": 0.1}, "kl_coef: needs kl_estimator k1 or k3"),
        ("dapo", {"clip_eps_high": 1.5}, "clip_eps_high: must be a number above 0 and below 1"),
        ("ppo", {"gamma": 0.0}, "gamma: must be a number above 0 and at most 1"),
        ("ppo", {"vf_coef": 0.0}, "vf_coef: must be a number above 0 and at most 100"),
        (
            "rejection-sampling",
            {"max_kept_per_prompt": 9},
            "max_kept_per_prompt: must be from 1 to group_size (8)",
        ),
        ("sft", {"max_steps": 10, "warmup_steps": 10}, "warmup_steps: must be below the run's 10"),
    ],
)
def test_it_refuses_an_invalid_combination_with_the_reason(preset, overrides, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        BY_NAME[preset].config(**overrides)


def test_it_counts_warmup_in_optimizer_steps():
    # 4 prompts x 4 completions in micro-batches of 4: 4 optimizer steps per step, 8 in all.
    fields = {"algorithm": "grpo", "max_steps": 2, "prompts_per_step": 4, "group_size": 4}
    assert config_from_dict({**fields, "micro_batch_size": 4, "warmup_steps": 7})
    with pytest.raises(ValueError, match="below the run's 8 optimizer steps"):
        config_from_dict({**fields, "micro_batch_size": 4, "warmup_steps": 8})
