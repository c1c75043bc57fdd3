"""Async verification: a step's completions are verified while the next step's generate, and
trained one step later against the log-probs of the weights that sampled them."""

import copy
import threading
from functools import partial

import torch

from training import digits, grpo
from training.config import GRPOConfig, SamplingConfig
from training.engine import train
from training.interfaces import MemorySink
from training.step import build_run, rollout_logprobs

from .conftest import digit_first_reward, learns_digit_first
from .test_dynamic_sampling import flat_or_mixed

STEPS, PROMPTS, GROUP = 3, 4, 4


def config(**overrides) -> GRPOConfig:
    fields = dict(
        max_steps=STEPS,
        prompts_per_step=PROMPTS,
        group_size=GROUP,
        learning_rate=1e-2,
        async_verification=True,
        verification_workers=1,
        sampling=SamplingConfig(max_new_tokens=4),
        cpu_threads=1,
    )
    return GRPOConfig(**{**fields, **overrides})


class Journal(digits.DigitSortSampler):
    """A digit sampler that writes down each draw and each observation, in order."""

    def __init__(self) -> None:
        super().__init__(2, 6, seed=0)
        self.events: list[str] = []

    def sample(self, n):
        self.events.append("sample")
        return super().sample(n)

    def observe(self, items, results):
        self.events.append("observe")
        super().observe(items, results)


def run_steps(run, steps: int = STEPS) -> list[dict[str, float]]:
    """The engine loop's calls, without its logging."""
    metrics = []
    while run.step < steps:
        metrics.append(grpo.train_step(run))
        run.step += 1
    return metrics


def test_it_verifies_each_step_while_the_next_one_generates(untrained):
    model, tokenizer = untrained
    run = build_run(config(), model, tokenizer, digits.DigitSortSampler(2, 6), None)
    generated, overlapped, cond = [0], [], threading.Condition()
    generate = run.generator.generate

    def counting_generate(*args, **kwargs):
        with cond:
            generated[0] += 1
            cond.notify_all()
        return generate(*args, **kwargs)

    def reward_fn(items, completions):
        call = len(overlapped)
        if call < STEPS - 1:  # the last step has no next one to generate
            with cond:  # the verification of step `call` waits for step call+1's generation
                overlapped.append(cond.wait_for(lambda: generated[0] >= call + 2, timeout=60))
        else:
            overlapped.append(True)
        return digit_first_reward(items, completions)

    run.generator.generate, run.reward_fn = counting_generate, reward_fn
    run_steps(run)
    assert overlapped == [True] * STEPS
    assert generated[0] == STEPS  # as many generations as steps: nothing generated in vain


def test_it_observes_every_completion_one_step_late(untrained):
    for async_verification, expected in (
        (False, ["sample", "observe"] * 3),
        (True, ["sample", "sample", "observe", "sample", "observe", "observe"]),
    ):
        model, tokenizer = copy.deepcopy(untrained)
        sampler = Journal()
        train(
            config(async_verification=async_verification),
            sampler=sampler,
            reward_fn=digit_first_reward,
            model=model,
            tokenizer=tokenizer,
        )
        assert sampler.events == expected
        assert sampler.seen == STEPS * PROMPTS * GROUP


def test_it_takes_the_ratio_against_the_weights_that_sampled_the_batch(untrained):
    model, tokenizer = untrained
    run = build_run(config(), model, tokenizer, digits.DigitSortSampler(2, 6), flat_or_mixed)
    sampling_weights = copy.deepcopy(run.model)  # they sample steps 0 and 1
    run_steps(run, 1)
    assert run.batch is not None and run.batch.behaviour_logps is not None
    run_steps(run, 2)  # trains on the completions sampled before step 0's update
    batch = run.batch
    mask = batch.rollout.completion_mask.bool()
    then = rollout_logprobs(run, sampling_weights, batch.rollout)
    now = rollout_logprobs(run, run.model, batch.rollout)
    assert torch.allclose(batch.behaviour_logps[mask], then[mask], atol=1e-5)
    assert not torch.allclose(batch.behaviour_logps[mask], now[mask], atol=1e-3)


def test_it_refills_flat_groups_with_async_verification_on(untrained):
    model, tokenizer = untrained
    sampler, sink = digits.DigitSortSampler(2, 6, seed=0), MemorySink()
    train(
        config(dynamic_sampling=True, max_refill_rounds=10, verification_workers=4),
        sampler=sampler,
        reward_fn=flat_or_mixed,
        sink=sink,
        model=model,
        tokenizer=tokenizer,
    )
    assert [m["dynamic_sampling/fill_rate"] for _, m in sink.rows] == [1.0] * STEPS
    generated = sum(m["dynamic_sampling/prompts_generated"] for _, m in sink.rows)
    assert sampler.seen == generated * GROUP


def test_it_learns_a_task_an_untrained_model_can_learn_one_step_off_policy():
    before, after, _ = learns_digit_first(partial(GRPOConfig, async_verification=True))
    assert before < 0.2
    assert after > before + 0.5
