"""The engine's interfaces over the platform's pieces: verdicts as rewards, one verifier per
family, items that remember their pool task. Pure: no database."""

import pytest

from experiments.adapters import (
    CurriculumSampler,
    PoolItem,
    per_family_reward_fn,
    verifier_reward_fn,
)
from tasks_app.curriculum import CurriculumConfig, FamilyCurriculum
from tasks_app.families import digit_sort
from tasks_app.families.base import Task
from training.interfaces import Item, RewardResult


def test_it_gives_each_reward_its_layered_verdict():
    reward_fn = verifier_reward_fn(digit_sort.default_verifier())
    item = Item(prompt="sort 31=", payload={"answer": "13"}, family="digits")
    good, bad = reward_fn([item, item], ["13", "31"])
    assert good.passed and good.details["error_type"] == "none"
    assert [layer["passed"] for layer in good.details["layers"]] == [True] * len(
        good.details["layers"]
    )
    assert not bad.passed and bad.error_type == bad.details["error_type"] != "none"
    failing = [layer for layer in bad.details["layers"] if not layer["passed"]]
    assert failing and failing[0]["error_type"] == bad.error_type


def test_it_judges_each_family_with_its_own_verifier_in_row_order():
    def constant(value):
        return lambda items, completions: [RewardResult(value) for _ in items]

    reward_fn = per_family_reward_fn({"a": constant(1.0), "b": constant(0.0)})
    items = [Item("p", family=f) for f in "abba"]
    assert [r.reward for r in reward_fn(items, ["x"] * 4)] == [1.0, 0.0, 0.0, 1.0]
    with pytest.raises(KeyError, match="no verifier for family 'c'"):
        reward_fn([Item("p", family="c")], ["x"])


def test_it_samples_items_that_remember_their_pool_task():
    task = Task("digit-sort", "sort 21=", {"answer": "12"}, 2, meta={"content_hash": "ab" * 32})
    config = CurriculumConfig([FamilyCurriculum("digits", [2])])
    sampler = CurriculumSampler(config, [("digits", 2, "train", task)], seed=0)
    (item,) = sampler.sample(1)
    assert isinstance(item, PoolItem) and item.task_hash == "ab" * 32
    assert (item.family, item.payload, item.difficulty) == ("digits", {"answer": "12"}, 2)


def test_it_reports_the_curriculum_distribution_and_rolling_success_as_metrics():
    task = Task("digit-sort", "sort 21=", {"answer": "12"}, 2)
    config = CurriculumConfig([FamilyCurriculum("digits", [2, 3])], floor=0.1)
    sampler = CurriculumSampler(config, [("digits", 2, "train", task)], seed=0)
    assert sampler.metrics() == {"curriculum/digits/d2": 0.9, "curriculum/digits/d3": 0.1}
    items = sampler.sample(4)
    sampler.observe(items, [RewardResult(1.0, passed=True)] * 3 + [RewardResult(0.0)])
    assert sampler.metrics()["curriculum/digits/rolling_success"] == 0.75
