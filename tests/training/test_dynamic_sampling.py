"""DAPO dynamic sampling: over-sample and refill until a step has its groups with mixed rewards."""

import copy
import math
import zlib

import pytest
import torch

from training import digits
from training.config import GRPOConfig, SamplingConfig
from training.dynamic_sampling import MIN_MIXED_SHARE, concat_rollouts
from training.engine import train
from training.generation import Rollout
from training.interfaces import MemorySink, RewardResult

PROMPTS, GROUP = 4, 4


def flat_or_mixed(items, completions) -> list[RewardResult]:
    """Lists that start with an even digit score 1 whatever the completion, so their groups
    are flat; the others score the parity of a hash of the completion, so an untrained model's
    varied samples nearly always disagree within a group."""
    results = []
    for item, text in zip(items, completions, strict=True):
        bit = 1 if int(item.payload["digits"][0]) % 2 == 0 else zlib.crc32(text.encode()) % 2
        results.append(RewardResult(float(bit), passed=bool(bit)))
    return results


def always_passes(items, completions) -> list[RewardResult]:
    return [RewardResult(1.0, passed=True) for _ in completions]


class TrainedGroups:
    """A rollout sink keeping, per step, each trained group's rewards."""

    def __init__(self) -> None:
        self.steps: dict[int, list[list[float]]] = {}

    def rollouts(self, step, completions) -> None:
        groups: dict[int, list[float]] = {}
        for c in completions:
            groups.setdefault(c.group, []).append(c.result.reward)
        self.steps[step] = list(groups.values())


def config(**overrides) -> GRPOConfig:
    fields = dict(
        max_steps=2,
        prompts_per_step=PROMPTS,
        group_size=GROUP,
        dynamic_sampling=True,
        max_refill_rounds=10,
        sampling=SamplingConfig(max_new_tokens=4),
        cpu_threads=1,
    )
    return GRPOConfig(**{**fields, **overrides})


def train_with(untrained, reward_fn, **overrides):
    """Train the untrained model; its sampler, metrics sink and trained groups."""
    model, tokenizer = untrained
    sampler, sink, trained = digits.DigitSortSampler(2, 6, seed=0), MemorySink(), TrainedGroups()
    train(
        config(**overrides),
        sampler=sampler,
        reward_fn=reward_fn,
        sink=sink,
        rollout_sink=trained,
        model=model,
        tokenizer=tokenizer,
    )
    return sampler, sink, trained


def test_it_trains_each_step_on_exactly_the_requested_number_of_mixed_groups(untrained):
    sampler, sink, trained = train_with(untrained, flat_or_mixed)
    for step, metrics in sink.rows:
        groups = trained.steps[step]
        assert len(groups) == PROMPTS and all(len(set(g)) > 1 for g in groups)
        assert metrics["dynamic_sampling/fill_rate"] == 1.0
        assert metrics["dynamic_sampling/prompts_generated"] >= PROMPTS
        # The flat groups it generated, and replaced, are what the zero-std share reports.
        assert 0 < metrics["frac_reward_zero_std"] < 1
        by_level = [v for k, v in metrics.items() if k.startswith("frac_reward_zero_std/")]
        assert by_level and 0 < max(by_level)
    assert max(m["dynamic_sampling/rounds"] for _, m in sink.rows) > 1
    # The sampler observed every verified completion, the replaced groups' included.
    generated = sum(m["dynamic_sampling/prompts_generated"] for _, m in sink.rows)
    assert sampler.seen == generated * GROUP
    completions = sum(m["perf/completions_per_s"] * m["perf/step_s"] for _, m in sink.rows)
    assert completions == pytest.approx(generated * GROUP)  # the throughput counts them all


def test_it_stops_refilling_at_the_bound_and_learns_nothing_from_flat_groups(untrained):
    before = copy.deepcopy(untrained[0].state_dict())
    sampler, sink, trained = train_with(untrained, always_passes, max_steps=1, max_refill_rounds=2)
    metrics = sink.rows[0][1]
    assert metrics["dynamic_sampling/rounds"] == 3  # the first round and two refills
    assert metrics["dynamic_sampling/fill_rate"] == 0.0
    # With no mixed group seen, each refill is sized for the floor on the mixed share.
    refill = math.ceil(PROMPTS / MIN_MIXED_SHARE)
    assert metrics["dynamic_sampling/prompts_generated"] == PROMPTS + 2 * refill
    assert sampler.seen == (PROMPTS + 2 * refill) * GROUP
    assert len(trained.steps[1]) == PROMPTS  # padded with flat groups, which count for nothing
    assert all(torch.equal(v, before[k]) for k, v in untrained[0].state_dict().items())


def test_it_leaves_steps_alone_when_off(untrained):
    _, sink, _ = train_with(untrained, flat_or_mixed, max_steps=1, dynamic_sampling=False)
    assert not any(key.startswith("dynamic_sampling/") for key in sink.rows[0][1])


def rollout(prompt_width: int, completion_width: int, rows: int = 1) -> Rollout:
    ones = lambda width: torch.ones(rows, width, dtype=torch.long)  # noqa: E731
    return Rollout(
        prompt_ids=ones(prompt_width) * 7,
        prompt_mask=ones(prompt_width),
        completion_ids=ones(completion_width) * 8,
        completion_mask=ones(completion_width),
        texts=["x"] * rows,
        truncated=torch.zeros(rows, dtype=torch.bool),
    )


def test_it_concatenates_rollouts_padding_prompts_left_and_completions_right():
    out = concat_rollouts([rollout(2, 3), rollout(4, 1, rows=2)], pad_id=0)
    assert out.prompt_ids.tolist() == [[0, 0, 7, 7], [7, 7, 7, 7], [7, 7, 7, 7]]
    assert out.prompt_mask.tolist() == [[0, 0, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]
    assert out.completion_ids.tolist() == [[8, 8, 8], [8, 0, 0], [8, 0, 0]]
    assert out.completion_mask.tolist() == [[1, 1, 1], [1, 0, 0], [1, 0, 0]]
    assert out.texts == ["x"] * 3 and out.truncated.shape == (3,)
