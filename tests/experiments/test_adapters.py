"""The engine's interfaces over the platform's pieces: verdicts as rewards, one verifier per
family, items that remember their pool task. Pure: no database."""

import itertools
import threading

import pytest

from experiments.adapters import (
    CurriculumSampler,
    PoolItem,
    item_for,
    per_family_reward_fn,
    verifier_reward_fn,
)
from tasks_app.curriculum import CurriculumConfig, FamilyCurriculum
from tasks_app.families import digit_sort, python_function
from tasks_app.families.base import Task
from tasks_app.sandbox.client import client
from tests.tasks_app.verifiers.conftest import JUDGE_TEMPLATE, judge_model_dir  # noqa: F401
from training.interfaces import Item, RewardResult
from training.metrics import judge_flip_rate
from training.verification import verify


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


def test_it_verifies_a_code_family_on_several_sandbox_keepers_at_once():
    """The engine's verification threads each get a keeper of their own from the sandbox,
    so code completions do not wait for one another."""
    task = python_function.from_record(
        {
            "prompt": 'def add(a, b):\n    """a plus b"""\n',
            "entry_point": "add",
            "tests": "def check(candidate):\n    assert candidate(1, 2) == 3\n",
            "solution": "    return a + b\n",
        }
    )
    good = python_function.reference_response(task)
    judge = verifier_reward_fn(python_function.default_verifier())
    meeting, calls = threading.Barrier(2, timeout=60), itertools.count()

    def first_two_meet(items, completions):
        if next(calls) < 2:
            meeting.wait()  # returns only once two slices are in flight together
        return judge(items, completions)

    client().close()  # no keeper left over from earlier executions
    completions = [good, good.replace("a + b", "a - b")] * 4
    results = verify(first_two_meet, [item_for(task)] * 8, completions, workers=4)
    assert [r.passed for r in results] == [True, False] * 4
    assert client().idle_keepers() >= 2


def test_its_verdicts_show_where_the_judge_and_the_rules_disagree(
    judge_model_dir,  # noqa: F811
):
    rule = {"kind": "string_match", "name": "answer", "params": {}, "continue_on_fail": True}
    judge = {
        "kind": "model_judge",
        "name": "judge",
        "params": {"model_path": str(judge_model_dir), "prompt_template": JUDGE_TEMPLATE},
    }
    reward_fn = verifier_reward_fn({"extract": "full_text", "layers": [rule, judge]})
    cases = [  # (expected answer, response): the judge says yes to "right", no to "wrong"
        ("the answer is 3 right", "the answer is 3 right"),  # both pass
        ("the answer is 3 right", "the answer is 3 wrong"),  # both fail
        ("the answer is 3 right", "the answer is 4 right"),  # rules fail, judge passes
        ("the answer is 4 wrong", "the answer is 4 wrong"),  # rules pass, judge fails
    ]
    items = [Item("p", {"answer": answer}) for answer, _ in cases]
    results = reward_fn(items, [response for _, response in cases])
    passed = [{x["name"]: x["passed"] for x in r.details["layers"]} for r in results]
    assert [(p["answer"], p["judge"]) for p in passed] == [
        (True, True), (False, False), (False, True), (True, False),
    ]  # fmt: skip
    assert judge_flip_rate(results) == 0.5
    rules_only = verifier_reward_fn(digit_sort.default_verifier())
    assert judge_flip_rate(rules_only(items, ["the answer is 3 right"] * 4)) is None
