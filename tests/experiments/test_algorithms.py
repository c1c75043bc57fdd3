"""The algorithm catalogue the wizard's form is built from, read from the engine's configs."""

from __future__ import annotations

import pytest

from experiments.algorithms import algorithms
from experiments.config import RESERVED_HYPERPARAMETERS, parse
from training.config import CONFIGS


def fields_of(name: str) -> dict:
    spec = next(a for a in algorithms() if a.name == name)
    return {f.path: f for f in spec.fields}


def test_it_lists_every_algorithm_the_engine_has_with_its_paper():
    specs = {a.name: a for a in algorithms()}
    assert set(specs) == set(CONFIGS)
    assert "arXiv:2402.03300" in specs["grpo"].summary


def test_it_gives_each_field_its_type_default_and_the_sentence_written_beside_it():
    grpo = fields_of("grpo")
    group = grpo["group_size"]
    assert (group.type, group.nullable, group.default) == ("int", False, 8)
    assert group.help == "Completions sampled per prompt (G)."
    assert grpo["max_grad_norm"].nullable and grpo["max_grad_norm"].type == "float"
    assert grpo["adam_betas"].type == "float_pair" and grpo["adam_betas"].default == [0.9, 0.99]
    assert grpo["sampling.temperature"].default == 1.0


def test_it_takes_a_subclass_default_and_sentence_over_its_parents():
    rloo, ppo = fields_of("rloo"), fields_of("ppo")
    assert rloo["advantage_estimator"].default == "rloo"
    assert rloo["advantage_estimator"].help == "Leave-one-out baseline."
    assert rloo["advantage_estimator"].choices == ["grpo", "rloo"]  # named by the parent's help
    assert ppo["group_size"].default == 4


def test_it_offers_choices_only_where_the_help_names_the_accepted_values():
    grpo = fields_of("grpo")
    assert grpo["lr_schedule"].choices == ["constant", "linear", "cosine"]
    assert grpo["kl_estimator"].choices == ["k1", "k3", "none"]
    assert grpo["sampling.backend"].choices == ["engine", "hf", "vllm"]
    assert grpo["tis"].choices == ["off", "token", "sequence"]
    assert grpo["learning_rate"].choices is None


def test_it_leaves_out_the_fields_an_experiment_sets_elsewhere():
    for spec in algorithms():
        paths = {f.path for f in spec.fields}
        assert not paths & set(RESERVED_HYPERPARAMETERS)
        assert not any(p == "model" or p.startswith("model.") for p in paths)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_its_defaults_are_accepted_as_hyperparameters(name):
    hyperparameters: dict = {}
    for f in fields_of(name).values():
        head, _, tail = f.path.partition(".")
        if tail:
            hyperparameters.setdefault(head, {})[tail] = f.default
        else:
            hyperparameters[head] = f.default
    config = {
        "curriculum": {"families": [{"pool_version": 1, "verifier_version": 1}]},
        "model": "tiny-digit-sort",
        "algorithm": name,
        "hyperparameters": hyperparameters,
    }
    assert parse(config).hyperparameters == hyperparameters
