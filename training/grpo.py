"""GRPO (Shao et al. 2024, arXiv:2402.03300) and RLOO, one step at a time.

rollout (G completions per prompt) -> rewards -> group advantages -> `num_epochs` passes of
clipped-surrogate loss (+ KL to the reference, - entropy bonus) -> metrics.
Options: Dr. GRPO (`scale_rewards=False`, `loss_aggregation="constant"`), DAPO
(`clip_eps_high`, `loss_aggregation="token"`, `dynamic_sampling` refilling flat groups, see
`training.dynamic_sampling`, or `drop_zero_std_groups` only leaving them out), RLOO
(`advantage_estimator="rloo"`). The step's first rollout comes from `training.pipeline`: made
now, or one step ahead with its verification in the background (`async_verification`).
"""

from __future__ import annotations

from functools import partial

import torch

from training import metric_catalogue as metric
from training.config import GRPOConfig
from training.dynamic_sampling import refill
from training.losses import (
    aggregate,
    clipped_surrogate,
    entropy_from_logits,
    group_advantages,
    kl_estimate,
    masked_mean,
    token_logprobs,
    truncated_is_weights,
    zero_std_groups,
)
from training.metrics import MetricLists, logprob_gap, tis_metrics, zero_std_breakdown
from training.pipeline import first_rollout
from training.step import (
    Batch,
    Run,
    completion_logits,
    micro_batches,
    reference,
    rollout_logprobs,
    update,
)


def train_step(run: Run) -> dict[str, float]:
    config: GRPOConfig = run.config
    batch = first_rollout(run)
    if config.dynamic_sampling:
        batch = refill(run, batch)  # exactly prompts_per_step groups, mixed ones first
    metrics = batch.metrics

    # Advantages: one scalar per sequence, broadcast over its tokens.
    advantages = group_advantages(
        batch.rewards, config.group_size, config.scale_rewards, config.advantage_estimator
    )  # (B,)
    batch.advantages = advantages
    flat = zero_std_groups(batch.rewards, config.group_size)  # (B,)
    if not config.dynamic_sampling:  # which reports them over every group it generated
        metrics[metric.FRAC_REWARD_ZERO_STD] = flat.float().mean().item()
        metrics.update(zero_std_breakdown(batch.items, flat, config.group_size))
    dropping = config.drop_zero_std_groups or config.dynamic_sampling
    keep = ~flat if dropping else torch.ones_like(flat)
    # Across processes every rank must run the same forward/backward passes, or the gradient
    # all-reduce of one waits forever for the other: no rank may skip rows on its own
    # rewards. Rows it would skip still count for nothing (their loss is masked out).
    alone = run.accelerator.num_processes == 1
    if not keep.any() and alone:
        return metrics  # nothing to learn from: every group was all-pass or all-fail

    # A row with zero advantage adds nothing to the clipped surrogate (A x ratio = 0), so
    # without KL or entropy terms its forward/backward is skipped; the loss denominators
    # still count it, so the gradient is exactly the one the full batch gives.
    active = keep
    if config.skip_zero_advantage and config.kl_coef == 0 and config.entropy_coef == 0:
        active = keep & (advantages != 0)

    old_logps, ref_logps = reference_logprobs(run, batch)
    log = MetricLists()
    for _epoch in range(config.num_epochs):
        for micro in micro_batches(len(batch.items), config):
            mini = torch.cat(micro)
            denominators = (
                max(int(keep[mini].sum()), 1),
                int(batch.rollout.completion_mask[mini][keep[mini]].sum()),
                len(mini),
            )
            update(
                run,
                [rows[active[rows]] for rows in micro if active[rows].any()] if alone else micro,
                partial(
                    policy_loss, run, batch, advantages, keep, old_logps, ref_logps, denominators
                ),
                log,
            )
    return {**metrics, **log.flush()}


@torch.no_grad()
def reference_logprobs(run: Run, batch: Batch) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """Log-probs (B, C) of the sampling policy (needed only for several epochs or completions
    sampled by earlier weights; otherwise the ratio is exp(logp - logp.detach()) = 1 and the
    old log-probs are the current ones) and of the frozen reference (only with a KL term)."""
    old, ref = batch.behaviour_logps, None
    if old is None and run.config.num_epochs > 1:
        old = rollout_logprobs(run, run.model, batch.rollout)
    with reference(run) as ref_model:
        if ref_model is not None:
            ref = rollout_logprobs(run, ref_model, batch.rollout)
    return old, ref


def policy_loss(
    run: Run,
    batch: Batch,
    advantages: torch.Tensor,
    keep: torch.Tensor,
    old_logps: torch.Tensor | None,
    ref_logps: torch.Tensor | None,
    denominators: tuple[int, int, int],
    rows: torch.Tensor,
) -> tuple[torch.Tensor, dict[str, float]]:
    """This micro-batch's share of the mini-batch loss, and its diagnostics."""
    config: GRPOConfig = run.config
    mb = batch.rollout.select(rows)
    mask = mb.completion_mask * keep[rows, None]  # (b, C)
    logits, _ = completion_logits(run.model, mb, config.sampling.temperature)
    logps = token_logprobs(logits, mb.completion_ids)  # (b, C)
    old = logps.detach() if old_logps is None else old_logps[rows]
    eps_high = config.clip_eps if config.clip_eps_high is None else config.clip_eps_high
    per_token_loss, low, high = clipped_surrogate(
        logps - old, advantages[rows, None], config.clip_eps, eps_high
    )
    # The sampler's log-probs against the trainer's old ones: always measured, corrected
    # with truncated importance sampling when asked.
    diagnostics = logprob_gap(old, mb.logprobs, mb.completion_mask)
    if config.tis != "off":
        weights = truncated_is_weights(old, mb.logprobs, mask, config.tis, config.tis_cap)
        per_token_loss = per_token_loss * weights
        diagnostics.update(tis_metrics(weights, mask, config.tis_cap))
    entropy = entropy_from_logits(logits.detach() if config.entropy_coef == 0 else logits)
    per_token_loss = per_token_loss - config.entropy_coef * entropy
    diagnostics[metric.ENTROPY] = masked_mean(entropy, mask).item()
    if ref_logps is not None:
        per_token_kl = kl_estimate(logps, ref_logps[rows], config.kl_estimator)
        per_token_loss = per_token_loss + config.kl_coef * per_token_kl
        diagnostics[metric.KL] = masked_mean(per_token_kl, mask).item()
    n_seqs, n_tokens, n_rows = denominators
    loss = aggregate(
        per_token_loss,
        mask,
        config.loss_aggregation,
        n_seqs,
        n_tokens,
        config.sampling.max_new_tokens,
    )
    diagnostics.update(
        {
            metric.LOSS_POLICY: loss.item() * n_rows / len(rows),  # the mini-batch loss, estimated
            metric.CLIP_RATIO_LOW: masked_mean(low.float(), mask).item(),
            metric.CLIP_RATIO_HIGH: masked_mean(high.float(), mask).item(),
            metric.CLIP_RATIO: masked_mean((low | high).float(), mask).item(),
        }
    )
    return loss, diagnostics
