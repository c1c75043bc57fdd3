import pytest
import torch

from training import digits, grpo
from training.config import GRPOConfig, SamplingConfig
from training.interfaces import Item, RewardResult
from training.losses import zero_std_groups
from training.metrics import (
    MetricLists,
    judge_flip_rate,
    logprob_gap,
    reward_metrics,
    zero_std_breakdown,
)
from training.step import build_run


def test_it_breaks_the_zero_signal_share_down_by_family_and_level():
    items = [Item("a", family="sort", difficulty=2)] * 4 + [
        Item("b", family="sort", difficulty=5)
    ] * 4
    items += [Item("c", family="sort", difficulty=2)] * 4
    # Groups of 2: level 2 has one flat group of four, level 5 two flat ones of two.
    rewards = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.5, 1.0, 0.0, 0.3, 0.2])
    flat = zero_std_groups(rewards, 2)
    assert zero_std_breakdown(items, flat, 2) == {
        "frac_reward_zero_std/sort/d2": 0.25,
        "frac_reward_zero_std/sort/d5": 1.0,
    }


def test_it_logs_the_per_level_share_with_each_grpo_step(base):
    model, tokenizer = base
    config = GRPOConfig(
        max_steps=1, prompts_per_step=8, group_size=4, sampling=SamplingConfig(max_new_tokens=12)
    )
    sampler = digits.DigitSortSampler(2, 6, seed=0)
    run = build_run(config, model, tokenizer, sampler, digits.reward_fn)
    metrics = grpo.train_step(run)
    per_level = {k: v for k, v in metrics.items() if k.startswith("frac_reward_zero_std/")}
    assert per_level and all(0.0 <= v <= 1.0 for v in per_level.values())
    # Every group is counted once, at its own level: the levels' shares average to the total.
    levels = [it.difficulty for it in run.batch.items[::4]]
    weighted = sum(per_level[f"frac_reward_zero_std/{digits.FAMILY}/d{d}"] for d in levels) / len(
        levels
    )
    assert abs(weighted - metrics["frac_reward_zero_std"]) < 1e-6


def test_it_keeps_the_extreme_of_max_and_min_keys_and_averages_the_rest():
    log = MetricLists()
    for value in (1.0, 3.0, float("nan"), 2.0):
        log.add(**{"logprob_gap/max": value, "x/min": value, "entropy": value})
    assert log.flush() == {"logprob_gap/max": 3.0, "x/min": 1.0, "entropy": 2.0}


def test_it_measures_the_logprob_gap_over_completion_tokens_only():
    train = torch.tensor([[-1.0, -2.0, -3.0], [-0.5, -0.5, -0.5]])
    sampled = torch.tensor([[-1.1, -2.0, -9.0], [-0.2, -0.5, -0.5]])
    mask = torch.tensor([[1, 1, 0], [1, 1, 1]])  # the -9 is padding
    gap = logprob_gap(train, sampled, mask)
    assert gap["logprob_gap/max"] == pytest.approx(0.3)
    assert gap["logprob_gap/mean"] == pytest.approx(0.4 / 5)
    assert logprob_gap(train, None, mask) == {}


def verdict(rules: bool | None, judge: bool | None) -> RewardResult:
    """A layered verifier's result: extraction, a rule layer and a judge layer, None = skipped."""
    layers = [{"kind": "extract", "stage": "syntax", "passed": True, "skipped": False}]
    for kind, stage, passed in (
        ("string_match", "semantic", rules),
        ("model_judge", "judge", judge),
    ):
        layers.append(
            {"kind": kind, "stage": stage, "passed": bool(passed), "skipped": passed is None}
        )
    passed = bool(rules) and bool(judge)
    return RewardResult(float(passed), passed, details={"layers": layers})


def test_it_counts_judged_rollouts_whose_judge_disagrees_with_the_rules():
    results = [
        verdict(True, True),
        verdict(True, False),
        verdict(False, True),
        verdict(False, False),
    ]
    assert judge_flip_rate(results) == 0.5
    assert judge_flip_rate([verdict(True, False), verdict(False, None)]) == 1.0  # skip: unjudged


def test_it_has_no_flip_rate_without_a_judged_rollout():
    rules_only = RewardResult(
        1.0, True, details={"layers": [{"stage": "semantic", "passed": True}]}
    )
    assert judge_flip_rate([rules_only, RewardResult(0.0)]) is None
    assert judge_flip_rate([verdict(False, None)]) is None  # the judge never ran
    judge_only = RewardResult(1.0, True, details={"layers": [{"stage": "judge", "passed": True}]})
    assert judge_flip_rate([judge_only]) is None  # nothing to disagree with


def test_it_logs_the_flip_rate_only_for_steps_with_judged_rollouts():
    items = [Item("p")] * 4
    judged = [verdict(True, False), verdict(True, True), verdict(True, True), verdict(False, None)]
    metrics = reward_metrics(items, judged, torch.zeros(4))
    assert metrics["verdicts/judge_flip_rate"] == pytest.approx(1 / 3)
    plain = [RewardResult(1.0, True)] * 4
    assert "verdicts/judge_flip_rate" not in reward_metrics(items, plain, torch.ones(4))
