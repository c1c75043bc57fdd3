"""An experiment's configuration: validation that names the field, canonical form, diffs.

Pure: no database.
"""

import json

import pytest

from experiments import config as cfg

GOOD = {
    "curriculum": {"families": [{"pool_version": 4, "verifier_version": 9, "levels": [1, 2]}]},
    "model": "tiny-digit-sort",
    "algorithm": "grpo",
    "hyperparameters": {"max_steps": 20, "learning_rate": 1e-4},
}


def errors_of(data) -> dict[str, str]:
    with pytest.raises(cfg.ConfigError) as caught:
        cfg.parse(data)
    return dict(caught.value.errors)


def with_(**changes):
    return {**GOOD, **changes}


def test_it_resolves_every_default_into_the_canonical_form():
    data = cfg.canonical(GOOD)
    assert data["hyperparameters"]["max_steps"] == 20
    assert data["hyperparameters"]["group_size"] == 8  # GRPO's default, pinned
    assert data["curriculum"]["band"] == [0.3, 0.7] and data["curriculum"]["origin"] is None
    assert data["eval"] == {"every": 0, "families": [4], "max_tasks": cfg.DEFAULT_EVAL_TASKS}
    assert (data["seed"], data["num_processes"], data["rollout_groups"]) == (0, 1, 16)
    assert cfg.canonical(data) == data  # canonical is a fixed point


def test_it_hashes_equal_meanings_equally():
    spelled_out = cfg.canonical(GOOD)
    assert cfg.config_hash(cfg.canonical(GOOD)) == cfg.config_hash(spelled_out)
    other = cfg.canonical(with_(seed=1))
    assert cfg.config_hash(other) != cfg.config_hash(spelled_out)


def test_it_names_the_engine_field_that_the_engine_refuses():
    bad = with_(hyperparameters={"learning_rate": -1.0})
    assert errors_of(bad) == {
        "hyperparameters.learning_rate": "must be a number above 0 and at most 1"
    }


def test_it_names_each_unknown_hyperparameter():
    found = errors_of(with_(hyperparameters={"lr": 1, "epochs": 2}))
    assert set(found) == {"hyperparameters.lr", "hyperparameters.epochs"}


def test_it_refuses_hyperparameters_of_another_algorithm():
    found = errors_of(with_(algorithm="sft", hyperparameters={"group_size": 4}))
    assert found == {"hyperparameters.group_size": "unknown for sft"}


def test_it_names_a_wrongly_typed_nested_hyperparameter_before_the_engine_sees_it():
    found = errors_of(with_(hyperparameters={"sampling": {"max_new_tokens": "16", "beam": 2}}))
    assert found == {
        "hyperparameters.sampling.max_new_tokens": "must be a whole number",
        "hyperparameters.sampling.beam": "unknown field",
    }


def test_it_refuses_a_zero_micro_batch_instead_of_dividing_by_it():
    found = errors_of(with_(hyperparameters={"micro_batch_size": 0}))
    assert found == {"hyperparameters.micro_batch_size": "must be a whole number from 1 to 65536"}


def test_it_keeps_fields_set_elsewhere_out_of_the_hyperparameters():
    found = errors_of(with_(hyperparameters={"seed": 3, "eval_every": 5}))
    assert found == {
        "hyperparameters.seed": "set by config.seed",
        "hyperparameters.eval_every": "set by config.eval.every",
    }


def test_it_names_the_unknown_algorithm():
    assert set(errors_of(with_(algorithm="dpo"))) == {"algorithm"}


def test_it_names_each_bad_curriculum_field():
    bad = with_(
        curriculum={
            "families": [{"pool_version": 4, "verifier_version": "v9", "levels": [2, 1]}],
            "band": [0.8, 0.2],
            "window": 0,
        }
    )
    assert set(errors_of(bad)) == {
        "curriculum.families[0].verifier_version",
        "curriculum.families[0].levels",
        "curriculum.band",
        "curriculum.window",
    }


def test_it_refuses_a_pool_version_pinned_twice():
    family = {"pool_version": 4, "verifier_version": 9}
    found = errors_of(with_(curriculum={"families": [family, family]}))
    assert found == {"curriculum.families[1].pool_version": "pool version appears twice"}


def test_it_refuses_a_floor_the_levels_cannot_hold():
    curriculum = {"families": GOOD["curriculum"]["families"], "floor": 0.6}
    assert set(errors_of(with_(curriculum=curriculum))) == {"curriculum.floor"}


def test_it_requires_the_curriculum_and_the_model():
    assert errors_of({"algorithm": "grpo"}) == {
        "curriculum": "this field is required",
        "model": "this field is required",
    }


def test_it_evaluates_only_families_the_curriculum_judges():
    found = errors_of(with_(eval={"every": 5, "families": [5]}))
    assert set(found) == {"eval.families"} and "[5]" in found["eval.families"]


def test_it_bounds_processes_and_rollouts_kept():
    found = errors_of(with_(num_processes=9, rollout_groups=10_000, strategy="horovod"))
    assert set(found) == {"num_processes", "rollout_groups", "strategy"}


def test_it_needs_prompts_per_step_divisible_by_the_processes():
    found = errors_of(with_(num_processes=3, hyperparameters={"prompts_per_step": 16}))
    assert set(found) == {"hyperparameters.prompts_per_step"}


def test_it_refuses_unknown_top_level_fields():
    assert errors_of(with_(learning_rate=0.1)) == {"learning_rate": "unknown field"}


def test_it_builds_the_engine_config_with_the_fields_set_elsewhere():
    parsed = cfg.parse(with_(seed=7, eval={"every": 5}))
    engine = parsed.engine_config("/models/tiny")
    assert (engine.seed, engine.eval_every, engine.resume) == (7, 5, True)
    assert engine.model.path == "/models/tiny" and engine.max_steps == 20


def test_it_diffs_two_configurations_by_path():
    a = cfg.canonical(GOOD)
    b = cfg.canonical(
        cfg.merge(
            a,
            {
                "hyperparameters": {"learning_rate": 1e-3},
                "curriculum": {
                    "families": [{"pool_version": 4, "verifier_version": 10, "levels": [1, 2]}]
                },
            },
        )
    )
    changes = {c.path: (c.old, c.new) for c in cfg.diff(a, b)}
    assert changes == {
        "curriculum.families[0].verifier_version": (9, 10),
        "hyperparameters.learning_rate": (1e-4, 1e-3),
    }
    assert cfg.diff(a, a) == []


def test_it_keeps_deliberate_choices_when_the_algorithm_changes():
    grpo = cfg.canonical(GOOD)["hyperparameters"]
    carried = cfg.carried_hyperparameters("grpo", grpo, "rloo")
    assert carried == {"max_steps": 20, "learning_rate": 1e-4}
    rloo = cfg.canonical(with_(algorithm="rloo", hyperparameters=carried))["hyperparameters"]
    assert rloo["advantage_estimator"] == "rloo"  # RLOO's own default, not GRPO's


def test_it_keeps_rejection_sampling_to_one_process():
    found = errors_of(with_(algorithm="rejection", hyperparameters={}, num_processes=2))
    assert found == {"num_processes": "rejection sampling trains in one process"}


def test_it_refuses_the_vllm_backend_under_fsdp_by_name():
    vllm = {**GOOD["hyperparameters"], "sampling": {"backend": "vllm"}}
    found = errors_of(with_(strategy="fsdp", hyperparameters=vllm))
    assert set(found) == {"hyperparameters.sampling.backend"}
    assert "vllm cannot generate under strategy fsdp" in found["hyperparameters.sampling.backend"]
    assert cfg.parse(with_(strategy="ddp", num_processes=2, hyperparameters=vllm))
    engine = {**GOOD["hyperparameters"], "sampling": {"backend": "engine"}}
    assert cfg.parse(with_(strategy="fsdp", hyperparameters=engine))


# A configuration as stored before its parts were defined by their dataclasses, with the hash
# its experiment was saved under: integers where floats are allowed (step, band, initial) stay
# integers, weight, floor and budgets are stored as floats, the model name is trimmed.
STORED_BEFORE = {
    "algorithm": "ppo",
    "budget": {"max_cost": None, "max_worker_hours": 2.0},
    "curriculum": {
        "band": [0, 1],
        "dynamic": False,
        "families": [
            {
                "initial": [1, 0, 0],
                "levels": [1, 2, 3],
                "pool_version": 4,
                "verifier_version": 9,
                "weight": 2.0,
            },
            {
                "initial": None,
                "levels": [2],
                "pool_version": 5,
                "verifier_version": 11,
                "weight": 1.0,
            },
        ],
        "floor": 0.0,
        "origin": {"curriculum": 3, "revision": 2},
        "step": 1,
        "window": 32,
    },
    "eval": {"every": 5, "families": [5], "max_tasks": 50},
    "hyperparameters": {
        "adam_betas": [0.9, 0.95],
        "checkpoint_every": 0,
        "clip_eps": 0.2,
        "clip_eps_high": None,
        "cpu_threads": 0,
        "entropy_coef": 0.0,
        "eval_temperature": 1.0,
        "gamma": 1.0,
        "gradient_accumulation_steps": 1,
        "group_size": 4,
        "kl_coef": 0.0,
        "kl_estimator": "none",
        "lam": 0.95,
        "learning_rate": 0.0001,
        "lr_schedule": "constant",
        "max_grad_norm": 1.0,
        "max_steps": 30,
        "micro_batch_size": None,
        "mixed_precision": "no",
        "num_epochs": 2,
        "prompts_per_step": 16,
        "reward_clip": None,
        "reward_normalization": "none",
        "sampling": {
            "backend": "engine",
            "compile": False,
            "max_new_tokens": 8,
            "temperature": 1.0,
            "top_k": 0,
            "top_p": 1.0,
        },
        "tis": "off",
        "tis_cap": 2.0,
        "unscorable_reward": 0.0,
        "verification_workers": 4,
        "vf_clip": 0.2,
        "vf_coef": 0.5,
        "warmup_steps": 0,
        "weight_decay": 0.0,
        "whiten_advantages": True,
    },
    "model": "tiny-digit-sort",
    "num_processes": 2,
    "rollout_groups": 4,
    "seed": 3,
    "strategy": "fsdp",
}
STORED_BEFORE_HASH = "a246b4a353f38c2cd36ebc0b72409969a1891f6b18b927b4c3c6ce67f1a4300c"


def test_it_keeps_a_stored_configuration_and_its_hash():
    again = cfg.canonical(STORED_BEFORE)
    # Engine fields added since the experiment was saved come in with their defaults; every
    # stored leaf keeps its value and JSON type.
    added = set(again["hyperparameters"]) - set(STORED_BEFORE["hyperparameters"])
    kept = {
        **again,
        "hyperparameters": {k: v for k, v in again["hyperparameters"].items() if k not in added},
    }
    assert json.dumps(kept, sort_keys=True) == json.dumps(STORED_BEFORE, sort_keys=True)
    assert cfg.config_hash(STORED_BEFORE) == STORED_BEFORE_HASH
    if not added:
        assert cfg.config_hash(again) == STORED_BEFORE_HASH


def test_it_stores_what_it_was_sent_as_before():
    sent = {
        "curriculum": {
            "families": [
                {
                    "pool_version": 4,
                    "verifier_version": 9,
                    "weight": 2,
                    "levels": [1, 2, 3],
                    "initial": [1, 0, 0],
                },
                {"pool_version": 5, "verifier_version": 11, "levels": [2]},
            ],
            "band": [0, 1],
            "floor": 0,
            "window": 32,
            "step": 1,
            "dynamic": False,
            "origin": {"curriculum": 3, "revision": 2},
        },
        "model": " tiny-digit-sort ",
        "algorithm": "ppo",
        "hyperparameters": {
            "max_steps": 30,
            "learning_rate": 1e-4,
            "sampling": {"max_new_tokens": 8},
            "adam_betas": [0.9, 0.95],
        },
        "eval": {"every": 5, "families": [5], "max_tasks": 50},
        "seed": 3,
        "num_processes": 2,
        "strategy": "fsdp",
        "rollout_groups": 4,
        "budget": {"max_worker_hours": 2, "max_cost": None},
    }
    stored = cfg.canonical(sent)
    assert {k: v for k, v in stored.items() if k != "hyperparameters"} == {
        k: v for k, v in STORED_BEFORE.items() if k != "hyperparameters"
    }
    assert json.dumps(stored["curriculum"], sort_keys=True) == json.dumps(
        STORED_BEFORE["curriculum"], sort_keys=True
    )


@pytest.mark.parametrize("sent", [GOOD, STORED_BEFORE, with_(eval={"every": 5, "suite": 3})])
def test_a_worker_gets_the_stored_configuration_as_the_frozen_object_it_was_parsed_into(sent):
    parsed = cfg.parse(sent)
    loaded = cfg.stored(parsed.to_dict())
    assert loaded == parsed
    assert isinstance(loaded.curriculum.band, tuple) and isinstance(
        loaded.curriculum.families[0], cfg.FamilySpec
    )
    with pytest.raises(AttributeError):
        loaded.seed = 2  # frozen: nothing down the worker path can change it


def test_a_raw_format_and_no_lora_are_stored_as_before():
    before = cfg.canonical(GOOD)
    explicit = cfg.canonical(with_(prompt_format={"kind": "raw"}, lora={"rank": 0, "alpha": 32}))
    assert "prompt_format" not in explicit and "lora" not in explicit
    assert cfg.config_hash(explicit) == cfg.config_hash(before)
    stored = cfg.stored(before)
    assert stored.format.kind == "raw" and not stored.lora_config.enabled


def test_it_stores_a_chat_format_and_lora_and_gives_them_to_the_engine():
    data = cfg.canonical(
        with_(
            prompt_format={"kind": "chat", "system_prompt": "Answer briefly."},
            lora={"rank": 8, "alpha": 16, "target_modules": ["q_proj", "v_proj"]},
        )
    )
    assert data["prompt_format"] == {
        "kind": "chat",
        "system_prompt": "Answer briefly.",
        "reasoning_tags": ["<think>", "</think>"],
    }
    assert data["lora"] == {
        "rank": 8,
        "alpha": 16,
        "dropout": 0.0,
        "target_modules": ["q_proj", "v_proj"],
    }
    assert cfg.config_hash(data) != cfg.config_hash(cfg.canonical(GOOD))
    stored = cfg.stored(data)
    assert stored.format.is_chat and stored.format.reasoning_tags == ("<think>", "</think>")
    lora = stored.engine_config("/models/m").model.lora
    assert (lora.rank, lora.target_modules) == (8, ("q_proj", "v_proj"))


def test_it_names_the_bad_field_of_the_format_and_lora():
    bad = with_(prompt_format={"kind": "raw", "system_prompt": "x"}, lora={"rank": 2000})
    assert errors_of(bad) == {
        "prompt_format.system_prompt": "needs kind chat: a raw prompt has no system turn",
        "lora.rank": "must be a whole number from 0 to 1024",
    }


@pytest.mark.parametrize("algorithm", [{}, [1], None])
def test_it_names_an_algorithm_that_is_not_a_name(algorithm):
    assert errors_of(with_(algorithm=algorithm))["algorithm"] == "must be a string"


def test_it_says_lora_target_modules_are_a_list_of_names():
    reason = "must be a list of strings"
    assert (
        errors_of(with_(lora={"rank": 4, "target_modules": [{}]}))["lora.target_modules"] == reason
    )
    assert (
        errors_of(with_(lora={"rank": 4, "target_modules": "q_proj"}))["lora.target_modules"]
        == reason
    )
