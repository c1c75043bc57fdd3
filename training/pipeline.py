"""Where a GRPO step's first rollout comes from: generated and verified now, or, with
`async_verification`, generated one step ahead and verified in the background meanwhile.

Asynchronous, step t does:

    generate step t+1's completions (weights of step t)   | verify step t's (threads)
    their log-probs under those weights (for the ratio)   |
    wait for step t's verdicts; rewards; curriculum observes them
    update on step t's completions (sampled with the weights of step t-1)

so verification leaves the critical path unless it is slower than generation. The cost is
one step of staleness, stated in `GRPOConfig.async_verification`. Collectives (gathering the
verdicts for the curriculum, FSDP's all-gathers in generation) stay on the training thread:
the background threads only run the reward function.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from training.generation import Rollout
from training.interfaces import Item
from training.step import (
    Batch,
    Run,
    generate,
    rollout,
    rollout_logprobs,
    sample_items,
    verified_batch,
)
from training.verification import Verification, start_verification


@dataclass
class Pending:
    """A rollout generated ahead of its step, with its verification under way."""

    rows: list[Item]
    rollout: Rollout
    behaviour_logps: torch.Tensor  # (B, C) under the weights that sampled it
    verification: Verification


def first_rollout(run: Run) -> Batch:
    """This step's rollout of `prompts_per_step` prompts (this process's share)."""
    config = run.config
    if not config.async_verification:
        return rollout(run, sample_items(run), config.group_size)
    pending = run.pending or start(run)  # none after the first step and after a resume
    last = run.step + 1 >= config.max_steps
    run.pending = None if last else start(run)  # generate step t+1's while step t's verify
    return finish(run, pending)


def start(run: Run) -> Pending:
    """Draw and generate a step's prompts with the current weights; verify in the background."""
    config = run.config
    rows, out = generate(run, sample_items(run), config.group_size)
    verification = start_verification(run.reward_fn, rows, out.texts, config.verification_workers)
    with run.timer("behaviour_logprobs"):
        logps = rollout_logprobs(run, run.model, out)
    return Pending(rows, out, logps, verification)


def finish(run: Run, pending: Pending) -> Batch:
    """Wait for the verdicts (the time waited is the step's verification time)."""
    with run.timer("verification"):
        results = pending.verification.result()
    batch = verified_batch(run, pending.rows, pending.rollout, results, run.config.group_size)
    batch.behaviour_logps = pending.behaviour_logps
    return batch
